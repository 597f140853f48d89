"""Random numbers for OpenCL arrays: ``gpukit.cl.clrandom`` (``pyopencl.clrandom`` through
``gpukit.pyopencl_compat``), with PyOpenCL's names.

The numbers come from gpukit's Philox4x32-10 (the generator of ``gpukit.curandom.rand`` and of
the C++ ``array::rand``; the same numbers on CUDA and OpenCL for a key), then shaped into the
distribution asked for by one elementwise kernel: uniform over [a, b) for floats (b itself may
appear where rounding reaches it, as in PyOpenCL) and over the integers a .. b - 1 for integer
types, normal (Box-Muller) with mean mu and standard deviation sigma. A generator draws a new
key for every fill, so successive fills differ; a seed makes the whole sequence repeatable.

The numbers are not PyOpenCL's for the same seed (its kernels are Random123's, ours are written
here). ``ThreefryGenerator`` is the same Philox generator under PyOpenCL's second name (what
users of either expect from it is a good stream, not Threefry's exact numbers): docs/opencl.md.
Arrays of OpenCL vector types (cltypes.float2, float4, ...) get every component filled.
"""

from __future__ import annotations

import random
import weakref
from typing import TYPE_CHECKING, Any

import numpy as np

from gpukit.cl import cltypes
from gpukit.cl.array import _NO_QUEUE, Array, _engine, empty
from gpukit.cl.array import _spec as _cached_spec
from gpukit._warnings import warn

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from typing import TypeAlias

    import numpy.typing as npt

    from gpukit._gpukit import _ElementwiseSpec
    from gpukit._gpukit.cl import CommandQueue, Context
    from gpukit.cl.array import _ShapeLike

    #: A bound of a range, a mean or a deviation: a real number (a Python or a numpy one).
    _Real: TypeAlias = float | np.integer[Any] | np.floating[Any]

__all__ = ["PhiloxGenerator", "ThreefryGenerator", "fill_rand", "rand"]

_MASK64 = (1 << 64) - 1


def _splitmix64(x: int) -> int:
    """A 64-bit mix of x (SplitMix64's finaliser): keys of successive fills far apart."""
    x = (x + 0x9E3779B97F4A7C15) & _MASK64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _MASK64
    return x ^ (x >> 31)


def _spec(name: str, params: Iterable[tuple[str, npt.DTypeLike, str]], operation: str) -> _ElementwiseSpec:
    return _cached_spec(f"gk_clrandom_{name}", params, operation)


def _scalar_view(ary: Array) -> Array:
    """ary itself, or for an array of an OpenCL vector type a flat view of its components."""
    if ary.dtype.fields is None:
        return ary
    try:
        scalar, _count = cltypes.vec_type_to_scalar_and_count[ary.dtype]
    except KeyError:
        raise TypeError(f"clrandom: cannot fill an array of dtype {ary.dtype}") from None
    if not ary.flags.c_contiguous:
        raise ValueError("clrandom: arrays of vector types must be C-contiguous")
    flat = ary.reshape(ary.size) if ary.ndim != 1 else ary
    return flat.view(np.dtype(scalar))


class _Generator:
    """A Philox4x32-10 stream: PyOpenCL's generator interface over gpukit's kernels."""

    def __init__(
        self,
        context: Context,
        key: Iterable[int | np.integer[Any]] | None = None,
        counter: Iterable[int | np.integer[Any]] | None = None,
        seed: int | None = None,
    ) -> None:
        if key is not None and counter is not None and seed is not None:
            raise TypeError("seed is unused and may not be specified if both counter and key are given")
        rng = random.Random(seed)
        words = list(key) if key is not None else [rng.getrandbits(32) for _ in range(2)]
        start = list(counter) if counter is not None else [rng.getrandbits(32) for _ in range(4)]
        self.context = context
        self.key = words
        self.counter = start
        self._stream = _splitmix64(sum((int(w) & 0xFFFFFFFF) << (32 * k) for k, w in enumerate(words[:2])))
        self._stream ^= _splitmix64(sum((int(w) & 0xFFFFFFFF) << (32 * k) for k, w in enumerate(start[:2])))

    def _next_key(self) -> int:
        self._stream = _splitmix64(self._stream)
        return self._stream

    def _uniforms(self, ary: Array, queue: CommandQueue | None, dtype: npt.DTypeLike) -> Array:
        """A new contiguous array of ary's shape of uniform numbers in [0, 1) of `dtype`."""
        engine = _engine(queue or ary.queue, ary.allocator)
        return ary._wrap(engine.rand(ary.shape, np.dtype(dtype), self._next_key()), queue)

    def _compute_type(self, ary: Array, queue: CommandQueue | None) -> type[np.floating[Any]]:
        device_queue = queue or ary.queue
        if device_queue is None:
            raise ValueError(_NO_QUEUE)
        device = device_queue.device
        return np.float64 if "cl_khr_fp64" in device.extensions else np.float32

    def fill_uniform(self, ary: Array, a: _Real = 0, b: _Real = 1, queue: CommandQueue | None = None) -> None:
        """Fill `ary` with numbers uniform over [a, b) (integers a .. b - 1 for an integer array)."""
        target = _scalar_view(ary)
        dtype = target.dtype
        if dtype.kind == "f" and (target.flags.c_contiguous or target.flags.f_contiguous):
            # Written in place: the numbers straight into the array, then scaled there (no
            # temporary array, whose allocation cost NVIDIA's OpenCL 10x the fill).
            engine = _engine(queue or target.queue, target.allocator)
            event = engine.fill_rand(target, self._next_key())
            if (a, b) != (0, 1):
                spec = _spec(
                    "scale",
                    [("z", dtype, "inout"), ("a", dtype, "scalar"), ("scale", dtype, "scalar")],
                    "z[i] = a + scale * z[i]",
                )
                event = engine.run(spec, [target, dtype.type(a).tobytes(), dtype.type(b - a).tobytes()])
            target._record(event, queue)  # the queue runs in order: the last kernel's is the fill's
            return
        if dtype.kind == "f":
            u = self._uniforms(target, queue, dtype)
            spec = _spec(
                "uniform",
                [("u", dtype, "in"), ("z", dtype, "out"), ("a", dtype, "scalar"), ("scale", dtype, "scalar")],
                "z[i] = a + scale * u[i]",
            )
            values = [dtype.type(a).tobytes(), dtype.type(b - a).tobytes()]
        elif dtype.kind in "iu":
            if not b > a:
                raise ValueError(f"clrandom: an empty range of integers [{a}, {b})")
            compute = np.dtype(self._compute_type(target, queue))
            u = self._uniforms(target, queue, compute)
            spec = _spec(
                "uniform_int",
                [("u", compute, "in"), ("z", dtype, "out"), ("a", np.int64, "scalar"), ("span", np.int64, "scalar")],
                "long k = (long) (u[i] * span); z[i] = a + (k < span ? k : span - 1)",
            )
            values = [np.int64(a).tobytes(), np.int64(b - a).tobytes()]
        else:
            raise TypeError(f"clrandom: cannot fill an array of dtype {dtype}")
        target._record(_engine(queue or target.queue, target.allocator).run(spec, [u, target] + values), queue)

    def _filled(
        self, fill: Callable[..., None], args: tuple[Any, ...], kwargs: dict[str, Any], **defaults: _Real
    ) -> Array:
        """A new array (cl.array.empty's arguments) filled by `fill` with the keywords of
        `defaults` taken from kwargs."""
        values = {name: kwargs.pop(name, value) for name, value in defaults.items()}
        result = empty(*args, **kwargs)
        fill(result, queue=result.queue, **values)
        return result

    # (*args, **kwargs: cl.array.empty's, and a=, b=)
    def uniform(self, *args: Any, **kwargs: Any) -> Array:
        """A new array (cl.array.empty's arguments) filled by fill_uniform(a=, b=)."""
        return self._filled(self.fill_uniform, args, kwargs, a=0, b=1)

    def fill_normal(self, ary: Array, mu: _Real = 0, sigma: _Real = 1, queue: CommandQueue | None = None) -> None:
        """Fill `ary` (a floating array) with normal numbers of mean mu and deviation sigma."""
        target = _scalar_view(ary)
        dtype = target.dtype
        if dtype.kind != "f":
            raise TypeError(f"clrandom: normal numbers are floating, not {dtype}")
        first, second = self._uniforms(target, queue, dtype), self._uniforms(target, queue, dtype)
        c_type = "float" if dtype == np.float32 else "double"
        spec = _spec(
            "normal",
            [
                ("u", dtype, "in"),
                ("v", dtype, "in"),
                ("z", dtype, "out"),
                ("mu", dtype, "scalar"),
                ("sigma", dtype, "scalar"),
            ],
            f"z[i] = mu + sigma * sqrt(({c_type}) -2 * log(({c_type}) 1 - u[i])) * cospi(({c_type}) 2 * v[i])",
        )
        target._record(
            _engine(queue or target.queue, target.allocator).run(
                spec, [first, second, target, dtype.type(mu).tobytes(), dtype.type(sigma).tobytes()]
            ),
            queue,
        )

    # (*args, **kwargs: cl.array.empty's, and mu=, sigma=)
    def normal(self, *args: Any, **kwargs: Any) -> Array:
        """A new array (cl.array.empty's arguments) filled by fill_normal(mu=, sigma=)."""
        return self._filled(self.fill_normal, args, kwargs, mu=0, sigma=1)


class PhiloxGenerator(_Generator):
    """PyOpenCL's PhiloxGenerator(context, key=None, counter=None, seed=None)."""

    key_length = 2


class ThreefryGenerator(_Generator):
    """PyOpenCL's ThreefryGenerator name for gpukit's Philox stream (see the module's text)."""

    key_length = 4


# the default generator of each context
_GENERATORS: weakref.WeakKeyDictionary[Context, PhiloxGenerator] = weakref.WeakKeyDictionary()


def _get_generator(context: Context) -> PhiloxGenerator:
    generator = _GENERATORS.get(context)
    if generator is None:
        generator = _GENERATORS[context] = PhiloxGenerator(context)
    return generator


def fill_rand(result: Array, queue: CommandQueue | None = None, a: _Real = 0, b: _Real = 1) -> None:
    """Fill `result` with random numbers in [a, b)."""
    queue = queue or result.queue
    if queue is None:
        raise ValueError(_NO_QUEUE)
    _get_generator(queue.context).fill_uniform(result, a=a, b=b, queue=queue)


def rand(
    queue: CommandQueue,
    shape: _ShapeLike,
    dtype: npt.DTypeLike,
    luxury: object = None,
    a: _Real = 0,
    b: _Real = 1,
) -> Array:
    """A new array of `shape` and `dtype` of random numbers in [a, b)."""
    if luxury is not None:
        warn("Specifying the 'luxury' argument is deprecated", DeprecationWarning)
    result = Array(queue, shape, dtype)
    _get_generator(queue.context).fill_uniform(result, a=a, b=b, queue=queue)
    return result
