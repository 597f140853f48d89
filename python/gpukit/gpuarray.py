"""GPU arrays with numpy semantics (PyCUDA's ``pycuda.gpuarray``).

A GPUArray is a shape, dtype and byte strides (a ``gpukit._gpukit.Layout``) over device
memory; the array itself is C++ (``gpukit._gpukit._Array``, see
python/bindings/array/array_object.hpp), and this class adds PyCUDA's names and defaults. Views
(slicing, reshape, transpose) share the memory. Operators are one call into C++ each:
result types follow numpy 2, including NEP 50 for Python scalars (``int8_array + 1`` stays
int8), shapes broadcast as numpy's do, and chained arithmetic such as ``a * x + b`` runs as
one kernel (see gpukit._array.fusion).

Supported dtypes: bool, int8..int64, uint8..uint64, float32, float64, complex64 and
complex128 (complex numbers ordered as numpy orders them). Other dtypes (float16, records,
CUDA's vector types in ``vec``) can be made, copied, filled, gathered, joined and viewed, but
have no arithmetic.
"""

from __future__ import annotations

import builtins
import math
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, NoReturn, SupportsIndex, SupportsInt, TypeVar, overload

import numpy as np
import numpy.typing as npt

from gpukit import _gpukit, _memory
from gpukit._array import pycuda_operators
from gpukit._array.pools import default_allocator, release_default_pools
from gpukit._array.reductions import all, any, dot, max, min, subset_dot, subset_max, subset_min, subset_sum, sum
from gpukit._gpukit import Layout, Stream  # noqa: F401  (Stream: gpuarray.Stream, which this module long had)
from gpukit._array.vec import vec  # noqa: F401  (PyCUDA's gpuarray.vec: CUDA's vector types)
from gpukit._warnings import warn

if TYPE_CHECKING:
    from gpukit._gpukit import Device
    from gpukit._typing import StreamLike
    from gpukit.elementwise import ElementwiseKernel as ElementwiseKernel

#: A shape as numpy takes it: one extent or a sequence of them (ints or numpy's integers).
ShapeLike = SupportsIndex | Sequence[SupportsIndex]

#: A scalar operand of the array functions and operators: a Python number or bool, or numpy's.
ScalarLike = complex | np.number[Any] | np.bool_

#: Device memory as an allocator returns it and ``gpudata=`` takes it: an allocation, or an
#: address; anything ``int()`` reads.
DeviceMemoryLike = SupportsInt | SupportsIndex

#: An allocator: called with a size in bytes, it returns the memory (DeviceMemoryPool.allocate,
#: driver.mem_alloc).
Allocator = Callable[[int], DeviceMemoryLike]

_ArrayT = TypeVar("_ArrayT", bound="GPUArray")

# The functions of gpukit._gpukit that make this module's results (_binary_function,
# _unary_function, _mul_add, _select, _take, _concatenate, _stack) return GPUArrays, but their
# generated stubs say object: that is each `# type: ignore` on a call of them.

__all__ = [
    "GPUArray",
    "ElementwiseKernel",  # noqa: F822  (module __getattr__)
    "to_gpu",
    "to_gpu_async",
    "empty",
    "zeros",
    "ones",
    "empty_like",
    "zeros_like",
    "ones_like",
    "arange",
    "asarray",
    "sum",
    "dot",
    "min",
    "max",
    "any",
    "all",
    "subset_sum",
    "subset_dot",
    "subset_min",
    "subset_max",
    "default_allocator",
    "release_default_pools",
    "vec",
    "set_fusion",
    "splay",
    "take",
    "multi_take",
    "multi_put",
    "multi_take_put",
    "concatenate",
    "stack",
    "transpose",
    "reshape",
    "if_positive",
    "where",
    "minimum",
    "maximum",
    "logical_and",
    "logical_or",
    "logical_not",
]


def set_fusion(on: bool) -> None:
    """Fusion of chained operators (``a * x + b`` as one kernel, see gpukit._array.fusion) on or
    off for the whole process; on unless the environment sets ``GPUKIT_FUSION=0``."""
    _gpukit._set_fusion(bool(on))


set_fusion(os.environ.get("GPUKIT_FUSION", "1") != "0")


class _LaunchShape:
    """PyCUDA's ``_grid`` and ``_block``: the launch shape its own kernels use for an array,
    ``splay(mem_size)``. PyCUDA sets both in __init__ and libraries read and assign them, so
    they are worked out on first read and kept as the instance's own attributes, which an
    assignment replaces."""

    def __init__(self, index: int) -> None:
        self.index = index

    @overload
    def __get__(self, array: None, cls: type[GPUArray] | None = None) -> _LaunchShape: ...

    @overload
    def __get__(self, array: GPUArray, cls: type[GPUArray] | None = None) -> tuple[int, ...]: ...

    def __get__(self, array: GPUArray | None, cls: type[GPUArray] | None = None) -> _LaunchShape | tuple[int, ...]:
        if array is None:
            return self
        attributes = vars(array)
        launch = splay(array.mem_size)
        attributes.setdefault("_grid", launch[0])
        attributes.setdefault("_block", launch[1])
        shape: tuple[int, ...] = attributes["_block" if self.index else "_grid"]
        return shape


class GPUArray(_gpukit._Array):
    """An n-d array in device memory; see the module documentation."""

    # numpy's arrays and scalars defer to GPUArray's reflected operators. (Not
    # __array_ufunc__ = None: CuPy would then refuse `cupy_array + gpuarray`, which it reads
    # through __cuda_array_interface__.)
    __array_priority__ = 100
    __hash__: ClassVar[None] = None  # type: ignore[assignment]  # unhashable, as numpy's arrays (typeshed's idiom)

    if TYPE_CHECKING:
        # The extension's _Array as a GPUArray has it, where its stub says object. PyCUDA's
        # counts are ints (a library may assign another value, which the array keeps).

        @property
        def size(self) -> int: ...
        @size.setter
        def size(self, size: object | None) -> None: ...
        @property
        def mem_size(self) -> int: ...
        @mem_size.setter
        def mem_size(self, mem_size: object | None) -> None: ...
        @property
        def nbytes(self) -> int: ...
        @nbytes.setter
        def nbytes(self, nbytes: object | None) -> None: ...
        @property
        def itemsize(self) -> int: ...
        @itemsize.setter
        def itemsize(self, itemsize: object | None) -> None: ...
        @property
        def allocator(self) -> Allocator | None: ...
        @allocator.setter
        def allocator(self, allocator: object | None) -> None: ...
        @property
        def stream(self) -> StreamLike | None: ...
        @stream.setter
        def stream(self, stream: object | None) -> None: ...
        def _view(self, layout: Layout, dtype: object | None = None, cls: object | None = None) -> GPUArray: ...
        def _empty_like(self, dtype: object | None = None, order: str = "K") -> GPUArray: ...
        def _converted(self, dtype: object, stream: object | None = None) -> GPUArray: ...

    def __init__(
        self,
        shape: ShapeLike,
        dtype: npt.DTypeLike | None,
        allocator: Allocator | None = None,
        base: object = None,
        gpudata: DeviceMemoryLike | None = None,
        strides: Sequence[SupportsIndex] | None = None,
        order: str = "C",
        stream: StreamLike | None = None,
    ) -> None:
        dtype = np.dtype(dtype)
        # The Layout checks shape and strides as numpy does (TypeError for 2.5, ValueError for
        # negative extents and for sizes beyond 64 bits).
        if strides is None:
            layout = Layout.contiguous(shape, dtype.itemsize, order)
        else:
            layout = Layout(shape, strides, dtype.itemsize, 0)
        super().__init__(layout, dtype, allocator, base, gpudata, stream)

    # ---- attributes

    @property
    def flags(self) -> _Flags:
        """numpy's contiguity flags: ``c_contiguous``, ``f_contiguous`` and ``forc`` (either)."""
        layout = self._layout
        return _Flags(layout.is_c_contiguous, layout.is_f_contiguous)

    @property
    def T(self) -> GPUArray:
        """The transpose (a view with the axes reversed), as numpy's ``T``."""
        return self.transpose()

    _grid = _LaunchShape(0)
    _block = _LaunchShape(1)

    def __repr__(self) -> str:
        return f"GPUArray({self.get()!r})"

    def __str__(self) -> str:
        return str(self.get())

    def __int__(self) -> int:
        return self.ptr

    def __reduce__(self) -> tuple[Callable[[npt.ArrayLike], GPUArray], tuple[npt.NDArray[Any]]]:
        # Pickled as its contents, as PyCUDA does: unpickling copies them to the device.
        return to_gpu, (self.get(),)

    @property
    def __cuda_array_interface__(self) -> dict[str, Any]:
        # As PyCUDA's: strides and stream always present; stream None when the array works on
        # no stream of its own.
        shape = self.shape  # (not size: a subclass may have assigned it another meaning)
        interface: dict[str, Any] = {
            "shape": shape,
            "typestr": self.dtype.str,
            "data": (0 if 0 in shape else self.ptr, False),
            "version": 3,
            "strides": self.strides,
            "stream": None,
        }
        if self.dtype.names is not None:
            interface["descr"] = self.dtype.descr  # a record's typestr is only '|V<size>'
        if self.stream is not None:
            # Handle 0 (the legacy default stream) is spelled 1 in the interface. gpukit's
            # streams and those of other libraries the array may hold all say their handle so.
            interface["stream"] = self.stream.__cuda_stream__()[1] or 1
        return interface

    def __dlpack__(
        self,
        stream: int | None = None,
        max_version: tuple[int, int] | None = None,
        dl_device: tuple[int, int] | None = None,
        copy: bool | None = None,
    ) -> object:
        """A DLPack capsule over this array's memory (no copy unless copy=True); the array
        stays alive while the consumer uses it."""
        from gpukit import _dlpack

        return _dlpack.export(self, stream, max_version, dl_device, copy)

    def __dlpack_device__(self) -> tuple[int, int]:
        from gpukit import _dlpack

        return _dlpack.device_of(self)

    # ---- host transfers

    def get(
        self,
        ary: npt.NDArray[Any] | None = None,
        pagelocked: bool = False,
        async_: bool = False,
        stream: StreamLike | None = None,
    ) -> npt.NDArray[Any]:
        """A numpy array with the contents: ``ary`` when given (same shape and dtype, any
        strides), else a new array whose axes are in this array's order (page-locked with
        ``pagelocked=True``).

        With ``async_=True`` the copy is queued on ``stream`` (else the array's own) and may
        still be running when get() returns: synchronize the stream before reading (the
        result must be page-locked for the copy to overlap other work). Otherwise the copy is
        finished on return. Strided arrays on either side are copied as one 2-D or 3-D copy
        where their rows allow, or rearranged on the device first."""
        if ary is None:
            # (the base class's copy: a subclass's own copy() may take other arguments)
            source = self if _gpukit._is_dense(self._layout) else _gpukit._Array.copy(self, stream=stream)
            ary = _new_host_array(source._layout, self.dtype, pagelocked)
            _gpukit._host_copy(ary, _host_address(ary), source._layout, source, True, async_, stream, 0)
            return ary
        if not isinstance(ary, np.ndarray):
            raise TypeError(f"get(ary): ary must be a numpy.ndarray, got {type(ary).__name__}")
        if ary.shape != self.shape or ary.dtype != self.dtype:
            raise ValueError(f"get(ary): ary is {ary.shape} {ary.dtype}, the array {self.shape} {self.dtype}")
        if not ary.flags.writeable:
            raise ValueError("get(ary): ary is read-only")
        self._transfer(ary, True, async_, stream)
        return ary

    def get_async(self, stream: StreamLike | None = None, ary: npt.NDArray[Any] | None = None) -> npt.NDArray[Any]:
        """get(ary, async_=True, stream=stream)."""
        return self.get(ary=ary, async_=True, stream=stream)

    def set(self, ary: npt.ArrayLike, async_: bool = False, stream: StreamLike | None = None) -> None:
        """Copy the numpy array (or anything numpy converts) `ary` into this array, which may
        be a strided view; ``ary`` must have this array's dtype and size (a different shape is
        read in C order). With ``async_=True`` the copy is queued on ``stream`` (else the
        array's own)."""
        ary = np.asarray(ary)
        size = math.prod(self.shape)
        if ary.size != size:
            raise ValueError(f"set(ary): ary has {ary.size} elements, the array {size}")
        if ary.dtype != self.dtype:
            raise TypeError(f"set(ary): ary's dtype {ary.dtype} differs from the array's {self.dtype}")
        self._transfer(ary.reshape(self.shape), False, async_, stream)

    def set_async(self, ary: npt.ArrayLike, stream: StreamLike | None = None) -> None:
        """set(ary, async_=True, stream=stream)."""
        self.set(ary, async_=True, stream=stream)

    def _transfer(self, host: npt.NDArray[Any], to_host: bool, async_: bool, stream: StreamLike | None) -> None:
        """Copies between this array and the host array `host` (same shape and dtype): as one
        driver copy when both layouts allow it; else through a device array laid out as
        `host` (when `host` has no gaps), or, when blocking, through a host copy of `host`."""
        host_layout = Layout(host.shape, host.strides, host.itemsize, 0)
        # Rows narrower than _min_pitched_row_bytes are faster rearranged by a kernel.
        if _gpukit._host_copy(
            host, _host_address(host), host_layout, self, to_host, async_, stream, _gpukit._min_pitched_row_bytes
        ):
            return
        if _gpukit._is_dense(host_layout):
            staging = empty(self.shape, self.dtype, allocator=self.allocator, strides=host.strides, stream=self.stream)
            if to_host:
                staging._copy_from(self, stream)
            _gpukit._host_copy(host, _host_address(host), host_layout, staging, to_host, async_, stream, 0)
            if not to_host:
                self._copy_from(staging, stream)
            return
        if not async_:
            if to_host:
                host[...] = GPUArray.get(self, stream=stream)  # not a subclass's get(), which may differ
            else:  # the host array laid out as this one's elements, without gaps
                staged = _new_host_array(self._layout.contiguous_like(self.itemsize), self.dtype, False)
                staged[...] = host
                self._transfer(staged, False, False, stream)
            return
        if not _gpukit._host_copy(host, _host_address(host), host_layout, self, to_host, True, stream, 0):
            raise ValueError(
                f"{'get' if to_host else 'set'}(async_=True): the host array's layout (shape "
                f"{host.shape}, strides {host.strides}) cannot be copied asynchronously to this "
                f"array's (strides {self.strides}); use a host array without gaps"
            )

    def _copy_from(self, source: GPUArray, stream: StreamLike | None = None) -> None:
        """self[...] = source for arrays of one shape and dtype (any dtype): a device-to-device
        copy or a kernel."""
        self._assign_elements(source, stream)

    # ---- filling and conversion

    def fill(self, value: Any, stream: StreamLike | None = None) -> GPUArray:
        """Every element set to `value`, converted to the array's dtype as numpy's fill does:
        a number, or for records and vector types (``vec.float3``) a record or tuple."""
        host = np.empty((), self.dtype)
        host.fill(value)
        self._fill_bytes(host.tobytes(), stream)
        return self

    def astype(self, dtype: npt.DTypeLike, stream: StreamLike | None = None) -> GPUArray:
        """A C-contiguous copy converted to `dtype`."""
        dtype = np.dtype(dtype)
        if self.dtype.kind == "c" and dtype.kind != "c":
            warn("Casting complex values to real discards the imaginary part", np.exceptions.ComplexWarning)
        return self._converted(dtype, stream)

    # ---- views (indexing and reshape are C++ methods of _Array)

    def reshape(self, *shape: ShapeLike, order: str = "C") -> GPUArray:
        """A view with another shape (one extent may be -1), reading the elements in `order`
        ('C', 'F', or 'A': F when the array is only F-contiguous); a copy when no view can
        have that shape, as numpy does."""
        if order in ("A", "a"):
            order = "F" if self.flags.f_contiguous and not self.flags.c_contiguous else "C"
        return _gpukit._Array.reshape(self, *shape, order=order)

    def ravel(self, order: str = "C") -> GPUArray:
        """A 1-d view of the elements read in `order` (a copy when no view can be one)."""
        return self.reshape(-1, order=order)

    def squeeze(self, axis: SupportsIndex | Sequence[SupportsIndex] | None = None) -> GPUArray:
        """A view without the extents of 1 (all of them, or those of the axes given)."""
        return self._view(self._layout.squeeze(axis))

    def transpose(
        self,
        *axes_args: SupportsIndex | Sequence[SupportsIndex] | None,
        axes: SupportsIndex | Sequence[SupportsIndex] | None = None,
    ) -> GPUArray:
        """The axes permuted (a view): reversed by default, else as listed, given as PyCUDA
        does (``transpose(axes=(1, 0))``) or as numpy does (``transpose((1, 0))``,
        ``transpose(1, 0)``)."""
        if axes_args and axes is not None:
            raise TypeError("transpose: give the axes positionally or as axes=, not both")
        if axes is None and axes_args and not (len(axes_args) == 1 and axes_args[0] is None):
            # (several positional axes are integers: transpose(1, 0))
            axes = axes_args[0] if len(axes_args) == 1 else axes_args  # type: ignore[assignment]
        if axes is None:
            return self._view(self._layout.transpose())
        return self._view(self._layout.transpose(axes))

    def _new_like_me(self, dtype: npt.DTypeLike | None = None, order: str = "C") -> GPUArray:
        """PyCUDA's: a new uninitialised array of this shape; of this dtype in this array's
        order of axes, or of another dtype in `order`. Operators, astype, reverse, real/imag/
        conj and cumath's functions of one array make their results with it, so a subclass
        (which may override it) gets results of its own class. A subclass's result is made by
        calling the class as PyCUDA does: ``cls(shape, dtype, allocator=..., strides=...,
        order=...)``."""
        same = dtype is None or np.dtype(dtype) == self.dtype
        cls = type(self)
        if _gpukit._makes_own_array_results(cls):
            return self._empty_like(dtype, "K" if same else order)
        strides = tuple(self._layout.contiguous_like(self.dtype.itemsize).strides) if same else None
        result = cls(self.shape, self.dtype if same else dtype, allocator=self.allocator, strides=strides, order=order)
        if result.stream is None:
            result.stream = self.stream  # results work on the stream of the array they came from
        return result

    # ---- complex numbers (new arrays in this array's order of axes, as PyCUDA gives them)

    @property
    def real(self) -> GPUArray:
        """The real parts, a new array (numpy gives a view; writing to this array does not
        change the original); the array itself when it is real."""
        if self.dtype.kind != "c":
            return self
        return _gpukit._unary_function("real", self, None, None, None)  # type: ignore[return-value]

    @property
    def imag(self) -> GPUArray:
        """The imaginary parts, a new array; zeros of the array's dtype when it is real."""
        if self.dtype.kind != "c":
            return zeros_like(self)
        return _gpukit._unary_function("imag", self, None, None, None)  # type: ignore[return-value]

    def conj(self, out: GPUArray | None = None) -> GPUArray:
        """The complex conjugate, in `out` when given (cast as numpy's same_kind rule
        allows), else a new array; the array itself when it is real and `out` is None."""
        if self.dtype.kind != "c":
            out = _device_out(out, "conj")
            if out is None:
                return self
            out[...] = self
            return out
        return _gpukit._unary_function("conj", self, out, None, None)  # type: ignore[return-value]

    conjugate = conj

    # ---- arithmetic beyond the operators

    def mul_add(
        self,
        selffac: GPUArray | ScalarLike,
        other: GPUArray | ScalarLike,
        otherfac: GPUArray | ScalarLike,
        add_timer: Callable[[int, Callable[[], float]], object] | None = None,
        stream: StreamLike | None = None,
        out: GPUArray | None = None,
    ) -> GPUArray:
        """selffac * self + otherfac * other in one kernel, typed as numpy types that
        expression (into `out` when given). `add_timer`, if given, is called with
        ``(3 * self.size, seconds)`` where `seconds()` waits for the kernel and returns how
        long it ran, as PyCUDA's timed calls report."""
        if add_timer is None:
            return _gpukit._mul_add(self, selffac, other, otherfac, out, stream)  # type: ignore[return-value]
        start, end = _gpukit.Event(), _gpukit.Event()
        launch_stream = stream if stream is not None else self.stream
        start.record(launch_stream)
        result: GPUArray = _gpukit._mul_add(self, selffac, other, otherfac, out, stream)  # type: ignore[assignment]
        end.record(launch_stream)

        def seconds() -> float:
            end.synchronize()
            return end.time_since(start) * 1e-3

        add_timer(3 * self.size, seconds)
        return result

    # ---- PyCUDA's arithmetic back-ends: each computes into `out` and returns it. Libraries
    # call them; a subclass that overrides one gets PyCUDA's operators, which go through them
    # (gpukit._array.pycuda_operators).

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        pycuda_operators.install(cls, GPUArray)

    def _axpbyz(
        self,
        selffac: GPUArray | ScalarLike,
        other: GPUArray,
        otherfac: GPUArray | ScalarLike,
        out: GPUArray,
        add_timer: Callable[[int, Callable[[], float]], object] | None = None,
        stream: StreamLike | None = None,
    ) -> GPUArray:
        """out = selffac * self + otherfac * other, `other` an array."""
        return self.mul_add(selffac, other, otherfac, add_timer=add_timer, stream=stream, out=out)

    def _axpbz(
        self, selffac: GPUArray | ScalarLike, other: ScalarLike, out: GPUArray, stream: StreamLike | None = None
    ) -> GPUArray:
        """out = selffac * self + other, `other` a scalar."""
        # (1 typed as out's elements, so that 1 * other is typed when both are Python numbers;
        # out is required, as in PyCUDA)
        if not isinstance(out, GPUArray):
            raise TypeError(f"mul_add: out must be a GPUArray, got {type(out).__name__}")
        return _gpukit._mul_add(self, selffac, other, out.dtype.type(1), out, stream)  # type: ignore[return-value]

    def _elwise_multiply(self, other: GPUArray, out: GPUArray, stream: StreamLike | None = None) -> GPUArray:
        """out = self * other."""
        return _gpukit._binary_function("*", self, other, out, None, stream)  # type: ignore[return-value]

    def _div(self, other: GPUArray, out: GPUArray, stream: StreamLike | None = None) -> GPUArray:
        """out = self / other."""
        return _gpukit._binary_function("/", self, other, out, None, stream)  # type: ignore[return-value]

    def _rdiv_scalar(self, other: ScalarLike, out: GPUArray, stream: StreamLike | None = None) -> GPUArray:
        """out = other / self, `other` a scalar."""
        return _gpukit._binary_function("/", other, self, out, None, stream)  # type: ignore[return-value]

    # ---- texture references (removed in CUDA 12)

    def bind_to_texref(self, texref: Any, allow_offset: bool = False) -> None:
        """PyCUDA's binding to a texture reference, which CUDA 12 removed: raises LogicError
        naming TextureObject.from_linear, its replacement."""
        raise _gpukit.LogicError(
            "bind_to_texref: CUDA 12 removed texture references; make a "
            "driver.TextureObject.from_linear(...) over this array and pass it to the kernel"
        )

    def bind_to_texref_ext(
        self,
        texref: Any,
        channels: int = 1,
        allow_double_hack: bool = False,
        allow_complex_hack: bool = False,
        allow_offset: bool = False,
    ) -> None:
        """PyCUDA's binding to a texture reference, which CUDA 12 removed: raises LogicError
        naming TextureObject.from_linear, its replacement."""
        raise _gpukit.LogicError(
            "bind_to_texref_ext: CUDA 12 removed texture references; make a "
            "driver.TextureObject.from_linear(...) over this array and pass it to the kernel"
        )

    def __setitem__(self, index: object, value: _gpukit._Array | npt.ArrayLike) -> None:
        # A view, not self[index]: subclasses' __getitem__ may return host scalars.
        target = _gpukit._Array.__getitem__(self, index)
        if isinstance(value, _gpukit._Array):
            target._assign_from(value)
        elif np.isscalar(value):
            target.fill(value)
        else:
            target.set(np.broadcast_to(np.asarray(value, dtype=target.dtype), target.shape))

    # ---- operators (arithmetic, comparisons, -x and abs(x) are C++ methods of _Array)

    def __pos__(self) -> GPUArray:
        return self.copy()

    def __bool__(self) -> bool:
        if math.prod(self.shape) != 1:
            raise ValueError("the truth value of a GPUArray with more than one element is ambiguous")
        return bool(self.get())

    def __float__(self) -> float:
        return float(self.get())

    def __index__(self) -> NoReturn:
        raise TypeError("a GPUArray is not an index; use int(a.get())")

    # ---- reductions (methods as in numpy)

    def sum(
        self, dtype: npt.DTypeLike | None = None, stream: StreamLike | None = None, allocator: Allocator | None = None
    ) -> GPUArray:
        """gpuarray.sum(self, ...): the sum of all elements as a 0-d GPUArray."""
        return sum(self, dtype, stream, allocator)

    def min(self, stream: StreamLike | None = None) -> GPUArray:
        """gpuarray.min(self, ...): the smallest element as a 0-d GPUArray."""
        return min(self, stream)

    def max(self, stream: StreamLike | None = None) -> GPUArray:
        """gpuarray.max(self, ...): the largest element as a 0-d GPUArray."""
        return max(self, stream)

    def dot(
        self,
        other: GPUArray,
        dtype: npt.DTypeLike | None = None,
        stream: StreamLike | None = None,
        allocator: Allocator | None = None,
    ) -> GPUArray:
        """gpuarray.dot(self, other, ...): the sum of the element-wise products as a 0-d GPUArray."""
        return dot(self, other, dtype, stream, allocator)

    def any(self, stream: StreamLike | None = None, allocator: Allocator | None = None) -> GPUArray:
        """gpuarray.any(self, ...): whether some element is non-zero, as a 0-d bool GPUArray."""
        return any(self, stream, allocator)

    def all(self, stream: StreamLike | None = None, allocator: Allocator | None = None) -> GPUArray:
        """gpuarray.all(self, ...): whether every element is non-zero, as a 0-d bool GPUArray."""
        return all(self, stream, allocator)


_gpukit._set_array_result_class(GPUArray)


class _Flags:
    def __init__(self, c: bool, f: bool) -> None:
        self.c_contiguous = c
        self.f_contiguous = f
        self.forc = c or f


# ---- constructors


def empty(
    shape: ShapeLike,
    dtype: npt.DTypeLike = np.float64,
    allocator: Allocator | None = None,
    base: object = None,
    gpudata: DeviceMemoryLike | None = None,
    strides: Sequence[SupportsIndex] | None = None,
    order: str = "C",
    stream: StreamLike | None = None,
) -> GPUArray:
    """An uninitialised GPUArray: PyCUDA's empty, the GPUArray constructor."""
    return GPUArray(
        shape, dtype, allocator=allocator, base=base, gpudata=gpudata, strides=strides, order=order, stream=stream
    )


def zeros(
    shape: ShapeLike,
    dtype: npt.DTypeLike = np.float64,
    allocator: Allocator | None = None,
    order: str = "C",
    stream: StreamLike | None = None,
) -> GPUArray:
    """A GPUArray of `shape` and `dtype` filled with zeros, laid out in `order` ('C' or 'F'),
    from `allocator` (the default pool when None); with a `stream`, the array works on it and
    the zeroing is queued there."""
    result = empty(shape, dtype, allocator, order=order, stream=stream)
    if result.size:
        if stream is None:
            _gpukit.memset_d8(result.ptr, 0, result.nbytes)
        else:
            _gpukit.memset_d8_async(result.ptr, 0, result.nbytes, stream)
    return result


def ones(
    shape: ShapeLike,
    dtype: npt.DTypeLike = np.float64,
    allocator: Allocator | None = None,
    order: str = "C",
    stream: StreamLike | None = None,
) -> GPUArray:
    """A GPUArray of `shape` and `dtype` filled with ones; the arguments are zeros()'s."""
    return empty(shape, dtype, allocator, order=order, stream=stream).fill(1)


def empty_like(other_ary: GPUArray, dtype: npt.DTypeLike | None = None, order: str = "K") -> GPUArray:
    """An uninitialised array of other_ary's shape, dtype (unless given), allocator and stream,
    laid out in `order`: 'C', 'F', 'A' (F when other_ary is only F-contiguous) or 'K' (other_ary's
    order of axes, without gaps)."""
    return other_ary._empty_like(dtype, order)


def zeros_like(other_ary: GPUArray, dtype: npt.DTypeLike | None = None, order: str = "K") -> GPUArray:
    """empty_like() filled with zeros."""
    result = empty_like(other_ary, dtype, order)
    if result.size:
        _gpukit.memset_d8(result.ptr, 0, result.nbytes)
    return result


def ones_like(other_ary: GPUArray, dtype: npt.DTypeLike | None = None, order: str = "K") -> GPUArray:
    """empty_like() filled with ones."""
    return empty_like(other_ary, dtype, order).fill(1)


def to_gpu(ary: npt.ArrayLike, allocator: Allocator | None = None, stream: StreamLike | None = None) -> GPUArray:
    """A GPUArray with a copy of the numpy array `ary` (same shape and dtype, its axes in the
    same order, without gaps). With a `stream`, the array works on it and the copy is queued
    there."""
    return _uploaded(ary, allocator, stream, async_=stream is not None)


def to_gpu_async(ary: npt.ArrayLike, allocator: Allocator | None = None, stream: StreamLike | None = None) -> GPUArray:
    """to_gpu() with the copy queued on `stream` (the legacy default stream when None)."""
    return _uploaded(ary, allocator, stream, async_=True)


def _uploaded(ary: npt.ArrayLike, allocator: Allocator | None, stream: StreamLike | None, async_: bool) -> GPUArray:
    ary = np.asarray(ary)
    layout = Layout(ary.shape, ary.strides, ary.itemsize, 0).contiguous_like(ary.itemsize)
    result = empty(ary.shape, ary.dtype, allocator, strides=layout.strides, stream=stream)
    result.set(ary, async_=async_, stream=stream)
    return result


def arange(
    *args: Any,
    start: Any = None,
    stop: Any = None,
    step: Any = None,
    dtype: npt.DTypeLike | None = None,
    allocator: Allocator | None = None,
    stream: StreamLike | None = None,
) -> GPUArray:
    """numpy.arange on the device: arange([start,] stop[, step,] dtype=None). PyCUDA's forms
    work too: a numpy dtype as the last positional argument, and start, stop and step as
    keywords. The default dtype is numpy's (int64 for integers, float64 when one is a float)."""
    if args and isinstance(args[-1], np.dtype):
        if dtype is not None:
            raise TypeError("arange: dtype given by position and keyword")
        dtype, args = args[-1], args[:-1]
    if len(args) > 3:
        raise TypeError(f"arange takes at most 3 positional values (start, stop, step), got {len(args)}")
    # numpy's rule: values by position are start, stop, step; one positional value alone is the stop.
    given = {"start": start, "stop": stop, "step": step}
    for name, value in zip(("start", "stop", "step"), args):
        if given[name] is not None:
            raise TypeError(f"arange: {name} given by position and keyword")
        given[name] = value
    if given["stop"] is None:
        if not args:
            raise TypeError("arange() requires stop to be specified.")
        given["start"], given["stop"] = None, given["start"]
    start, stop = (0 if given["start"] is None else given["start"]), given["stop"]
    step = 1 if given["step"] is None else given["step"]
    if step == 0:
        raise ValueError("arange: step must not be zero")
    dtype = np.dtype(dtype) if dtype is not None else np.array([start, stop, step]).dtype
    if builtins.all(isinstance(v, (int, np.integer)) for v in (start, stop, step)):  # the module has its own all
        count = len(range(int(start), int(stop), int(step)))
    else:
        count = builtins.max(0, math.ceil((stop - start) / step))
    result = empty((count,), dtype, allocator, stream=stream)
    result._arange(np.asarray(start).astype(dtype).tobytes(), np.asarray(step).astype(dtype).tobytes())
    return result


def _new_host_array(layout: Layout, dtype: np.dtype[Any], pagelocked: bool) -> npt.NDArray[Any]:
    """An uninitialised host array of `layout` (without gaps): page-locked, or one whose pages
    are faulted in while a large copy fills it (see driver.prefaulted_empty)."""
    new = _memory.pagelocked_empty if pagelocked else _memory.prefaulted_empty
    if layout.is_c_contiguous or layout.is_f_contiguous:
        return new(tuple(layout.shape), dtype, order="C" if layout.is_c_contiguous else "F")
    flat = new((layout.nbytes,), np.uint8)
    return np.ndarray(tuple(layout.shape), dtype, buffer=flat, strides=tuple(layout.strides))


def _host_address(ary: npt.NDArray[Any]) -> int:
    """The address of element 0 of the numpy array `ary`."""
    address: int = ary.__array_interface__["data"][0]
    return address


def asarray(obj: object) -> GPUArray:
    """A GPUArray sharing the memory of `obj` (a GPUArray, or any object exporting
    __cuda_array_interface__ or __dlpack__); `obj` is kept alive as the array's base."""
    if isinstance(obj, GPUArray):
        return obj
    return wrap(GPUArray, obj)


def wrap(cls: type[_ArrayT], obj: object) -> _ArrayT:
    """An array of class `cls` (GPUArray or a subclass) over the memory `obj` exports,
    without copying; the owner of that memory is kept as the array's base."""
    from gpukit._interop import array_interface

    interface, owner = array_interface(obj)
    dtype = _interface_dtype(interface)
    shape = interface["shape"]
    strides = interface.get("strides")
    layout = (
        Layout.contiguous(shape, dtype.itemsize, "C") if strides is None else Layout(shape, strides, dtype.itemsize, 0)
    )
    result = cls.__new__(cls)
    # gpudata is the exporter's address (an int), so nothing is allocated for the view.
    _gpukit._Array.__init__(result, layout, dtype, None, owner, int(interface["data"][0]), None)
    return result


def _interface_dtype(interface: Mapping[str, Any]) -> np.dtype[Any]:
    # A record travels as a 'descr' list; its typestr alone is only '|V<size>'.
    descr = interface.get("descr")
    if descr is None or (len(descr) == 1 and descr[0][0] == ""):
        typestr: str = interface["typestr"]
        return np.dtype(typestr)
    dtype: np.dtype[Any] = np.lib.format.descr_to_dtype([tuple(field) for field in descr])  # handles padding entries
    return dtype


# ---- launch shapes


def splay(n: SupportsIndex, dev: Device | None = None) -> tuple[tuple[int, int], tuple[int, int, int]]:
    """PyCUDA's launch shape for n elements: ``((blocks, 1), (threads, 1, 1))``, one warp per
    block for small n, up to 128 threads in each of 4 * resident blocks * multiprocessors
    blocks, on `dev` (default: the current context's device)."""
    return _gpukit._splay(n, dev)


# ---- PyCUDA's private helpers, which libraries built on PyCUDA call


def _c_contiguous_strides(itemsize: SupportsIndex, shape: Iterable[int]) -> tuple[int, ...]:
    """The byte strides of a C-contiguous array of `shape` (an extent of 0 counts as 1)."""
    return tuple(Layout.contiguous([builtins.max(1, extent) for extent in shape], itemsize, "C").strides)


def _f_contiguous_strides(itemsize: SupportsIndex, shape: Iterable[int]) -> tuple[int, ...]:
    """The byte strides of a Fortran-contiguous array of `shape` (an extent of 0 counts as 1)."""
    return tuple(Layout.contiguous([builtins.max(1, extent) for extent in shape], itemsize, "F").strides)


def _compact_strides(a: GPUArray | npt.NDArray[Any]) -> list[int]:
    """Strides without gaps that keep the order of a's axes (by stride, smallest innermost):
    PyCUDA's layout for copies of `a` (a GPUArray or numpy array)."""
    return list(Layout(a.shape, a.strides, a.dtype.itemsize, 0).contiguous_like(a.dtype.itemsize).strides)


def _as_strided(
    ary: npt.NDArray[Any], shape: Sequence[int] | None = None, strides: Sequence[int] | None = None
) -> npt.NDArray[Any]:
    """numpy's as_strided: the host array `ary`'s memory seen with another shape and strides."""
    return np.lib.stride_tricks.as_strided(ary, shape=shape, strides=strides)


def _get_common_dtype(
    obj1: GPUArray | npt.NDArray[Any], obj2: GPUArray | npt.NDArray[Any] | ScalarLike
) -> np.dtype[Any]:
    """The dtype of obj1 + obj2 (arrays or scalars), as numpy types the sum of two arrays; as
    PyCUDA's, float64 and complex128 become float32 and complex64 on a device without double
    precision (none that CUDA 12 supports)."""
    zero2 = np.zeros(1, obj2.dtype) if hasattr(obj2, "dtype") else obj2
    return (np.zeros(1, obj1.dtype) + zero2).dtype


def _get_broadcasted_binary_op_result(
    obj1: GPUArray,
    obj2: GPUArray,
    dtype_getter: Callable[[GPUArray, GPUArray], npt.DTypeLike | None] = _get_common_dtype,
) -> GPUArray:
    """PyCUDA's result array for obj1 <op> obj2: _new_like_me of the operand of the result's
    shape (shapes equal, or one of them 0-d)."""
    if obj1.shape == obj2.shape or obj2.shape == ():
        return obj1._new_like_me(dtype_getter(obj1, obj2))
    if obj1.shape == ():
        return obj2._new_like_me(dtype_getter(obj1, obj2))
    raise NotImplementedError(f"Broadcasting binary operator with shapes: {obj1.shape}, {obj2.shape}.")


def _array_like_helper(
    other_ary: GPUArray, dtype: npt.DTypeLike | None, order: str
) -> tuple[np.dtype[Any], str, list[int] | None]:
    """PyCUDA's arguments for an array like `other_ary` (numpy's empty_like rules): the dtype,
    the order ('C' or 'F') and strides (None, or positive strides in other_ary's order of
    axes for order 'K' of an array neither C- nor F-contiguous)."""
    strides: list[int] | None = None
    if order == "A":
        order = "F" if other_ary.flags.f_contiguous and not other_ary.flags.c_contiguous else "C"
    elif order == "K":
        if other_ary.flags.c_contiguous or other_ary.ndim <= 1:
            order = "C"
        elif other_ary.flags.f_contiguous:
            order = "F"
        else:
            strides = [builtins.abs(s) for s in other_ary.strides]
            if dtype is not None and np.dtype(dtype) != other_ary.dtype:
                ratio = np.dtype(dtype).itemsize / other_ary.dtype.itemsize
                strides = [int(s * ratio) for s in strides]
    elif order not in ("C", "F"):
        raise ValueError(f"Unsupported order: {order!r}")
    return (other_ary.dtype if dtype is None else np.dtype(dtype)), order, strides


def _memcpy_discontig(
    dst: GPUArray | npt.NDArray[Any],
    src: GPUArray | npt.NDArray[Any],
    async_: bool = False,
    stream: StreamLike | None = None,
) -> None:
    """dst[...] = src for GPUArrays and numpy arrays of one shape and dtype, any layouts (PyCUDA
    takes at most two discontiguous axes; gpukit any). With ``async_=True`` a copy between
    host and device is queued on `stream` and may still run on return."""
    for name, ary in (("src", src), ("dst", dst)):
        if not isinstance(ary, (GPUArray, np.ndarray)):
            raise TypeError(
                f"_memcpy_discontig: {name} must be a GPUArray or a numpy.ndarray, got {type(ary).__name__}"
            )
    if src.shape != dst.shape:
        raise ValueError(f"_memcpy_discontig: src and dst must have the same shape, got {src.shape} and {dst.shape}")
    if src.dtype != dst.dtype:
        raise TypeError(f"_memcpy_discontig: src and dst must have the same dtype, got {src.dtype} and {dst.dtype}")
    if isinstance(src, np.ndarray) and isinstance(dst, np.ndarray):
        dst[...] = src
    elif isinstance(src, np.ndarray):  # (no GPUArray has a dtype holding Python objects)
        dst._transfer(src, False, async_, stream)  # type: ignore[union-attr]  # (dst is a GPUArray here)
    elif isinstance(dst, np.ndarray):
        if not dst.flags.writeable:
            raise ValueError("_memcpy_discontig: dst is read-only")
        src._transfer(dst, True, async_, stream)
    else:
        dst._assign_elements(src, stream)


# ---- gathers and scatters (plain device memory; PyCUDA read through texture references)


def take(a: GPUArray, indices: GPUArray, out: GPUArray | None = None, stream: StreamLike | None = None) -> GPUArray:
    """``a.flat[indices]``, as numpy.take without an axis: out[i] = a's element indices[i] in
    C order, for indices (a GPUArray of an integer type) of any shape; `a` may be any view and
    of any dtype. Negative indices count from the end. An index beyond `a` gives a zero element
    (numpy raises IndexError, which the GPU cannot without waiting)."""
    return _gpukit._take(a, indices, out, stream)  # type: ignore[return-value]


def multi_take(
    arrays: Iterable[GPUArray],
    indices: GPUArray,
    out: Sequence[GPUArray] | None = None,
    stream: StreamLike | None = None,
) -> list[GPUArray]:
    """[take(a, indices) for a in arrays] in one kernel per 16 arrays: the arrays share one
    dtype and are contiguous, indexed in memory order."""
    return _gpukit._multi_take(list(arrays), indices, out, stream)


def multi_put(
    arrays: Iterable[GPUArray],
    dest_indices: GPUArray,
    dest_shape: ShapeLike | None = None,
    out: Sequence[GPUArray] | None = None,
    stream: StreamLike | None = None,
) -> list[GPUArray]:
    """For each array a (and out o, new arrays of dest_shape when out is None): o[dest_indices[i]]
    = a[i] for every i, in memory order. Elements of o not named by dest_indices are left as
    they were (uninitialised in new arrays); an index beyond o is skipped."""
    return _gpukit._multi_put(list(arrays), dest_indices, dest_shape, out, stream)


def multi_take_put(
    arrays: Iterable[GPUArray],
    dest_indices: GPUArray,
    src_indices: GPUArray,
    dest_shape: ShapeLike | None = None,
    out: Sequence[GPUArray] | None = None,
    stream: StreamLike | None = None,
    src_offsets: Sequence[SupportsIndex] | None = None,
) -> list[GPUArray]:
    """For each array a_k (and out o_k): o_k[dest_indices[i]] = a_k[src_indices[i] + src_offsets[k]]
    (offsets 0 when None), in memory order, in one kernel per 16 arrays."""
    return _gpukit._multi_take_put(list(arrays), dest_indices, src_indices, dest_shape, out, stream, src_offsets)


# ---- joining and reshaping


def concatenate(arrays: Sequence[GPUArray], axis: SupportsIndex = 0, allocator: Allocator | None = None) -> GPUArray:
    """numpy.concatenate: a new C-contiguous array (numpy's result dtype), each piece copied
    into its part with one device-to-device copy where the layouts allow, else one kernel."""
    return _gpukit._concatenate(arrays, axis, allocator)  # type: ignore[return-value]


def stack(arrays: Sequence[GPUArray], axis: SupportsIndex = 0, allocator: Allocator | None = None) -> GPUArray:
    """numpy.stack: arrays of one shape joined along a new axis (a C-contiguous result)."""
    return _gpukit._stack(arrays, axis, allocator)  # type: ignore[return-value]


def transpose(a: GPUArray, axes: Sequence[SupportsIndex] | None = None) -> GPUArray:
    """a.transpose(axes=axes): a view with the axes reversed, or permuted as `axes` lists them."""
    return a.transpose(axes=axes)


def reshape(a: GPUArray, *shape: ShapeLike, order: str = "C") -> GPUArray:
    """``a.reshape(*shape, order=order)``: a view with another shape (a copy when no view can be one)."""
    return a.reshape(*shape, order=order)


# ---- conditionals and elementwise functions (one kernel each, numpy's result types)


def if_positive(
    criterion: GPUArray,
    then_: GPUArray | ScalarLike,
    else_: GPUArray | ScalarLike,
    out: GPUArray | None = None,
    stream: StreamLike | None = None,
) -> GPUArray:
    """``then_`` where criterion > 0, else ``else_``: arrays or scalars, broadcast together, the
    result of numpy's type for ``then_`` and ``else_``."""
    return _gpukit._select(True, criterion, then_, else_, out, stream)  # type: ignore[return-value]


def where(
    criterion: GPUArray,
    then_: GPUArray | ScalarLike,
    else_: GPUArray | ScalarLike,
    out: GPUArray | None = None,
    stream: StreamLike | None = None,
) -> GPUArray:
    """``numpy.where(criterion, then_, else_)``: ``then_`` where criterion is non-zero."""
    return _gpukit._select(False, criterion, then_, else_, out, stream)  # type: ignore[return-value]


def minimum(
    a: GPUArray | ScalarLike, b: GPUArray | ScalarLike, out: GPUArray | None = None, stream: StreamLike | None = None
) -> GPUArray:
    """numpy.minimum of arrays and scalars (NaN propagates)."""
    return _gpukit._binary_function("minimum", a, b, out, None, stream)  # type: ignore[return-value]


def maximum(
    a: GPUArray | ScalarLike, b: GPUArray | ScalarLike, out: GPUArray | None = None, stream: StreamLike | None = None
) -> GPUArray:
    """numpy.maximum of arrays and scalars (NaN propagates)."""
    return _gpukit._binary_function("maximum", a, b, out, None, stream)  # type: ignore[return-value]


def _device_out(out: GPUArray | None, what: str) -> GPUArray | None:
    """`out` when it is None or a GPUArray. The paths that fill `out` in Python (from scalars)
    check it here as the C++ ones do: a numpy array would be filled on the host and the
    caller handed None."""
    if out is not None and not isinstance(out, GPUArray):
        raise TypeError(f"{what}: out must be a GPUArray, got {type(out).__name__}")
    return out


def _logical(
    name: str, x1: GPUArray | ScalarLike, x2: GPUArray | ScalarLike, out: GPUArray | None, allocator: Allocator | None
) -> GPUArray:
    if isinstance(x1, GPUArray) or isinstance(x2, GPUArray):
        return _gpukit._binary_function(name, x1, x2, out, allocator, None)  # type: ignore[return-value]
    value = getattr(np, name)(x1, x2)  # two scalars: a 0-d result, as PyCUDA gives
    out = _device_out(out, name)
    return (out if out is not None else empty((), np.bool_, allocator)).fill(value)


def logical_and(
    x1: GPUArray | ScalarLike,
    x2: GPUArray | ScalarLike,
    /,
    out: GPUArray | None = None,
    *,
    allocator: Allocator | None = None,
) -> GPUArray:
    """numpy.logical_and of arrays and scalars, as a bool GPUArray (0-d for two scalars)."""
    return _logical("logical_and", x1, x2, out, allocator)


def logical_or(
    x1: GPUArray | ScalarLike,
    x2: GPUArray | ScalarLike,
    /,
    out: GPUArray | None = None,
    *,
    allocator: Allocator | None = None,
) -> GPUArray:
    """numpy.logical_or of arrays and scalars, as a bool GPUArray (0-d for two scalars)."""
    return _logical("logical_or", x1, x2, out, allocator)


def logical_not(
    x: GPUArray | ScalarLike, /, out: GPUArray | None = None, *, allocator: Allocator | None = None
) -> GPUArray:
    """numpy.logical_not of an array or a scalar, as a bool GPUArray (0-d for a scalar)."""
    if isinstance(x, GPUArray):
        return _gpukit._unary_function("logical_not", x, out, allocator, None)  # type: ignore[return-value]
    out = _device_out(out, "logical_not")
    return (out if out is not None else empty((), np.bool_, allocator)).fill(np.logical_not(x))


if not TYPE_CHECKING:  # (type checkers see the import above, and no other name)

    def __getattr__(name):
        # ElementwiseKernel lives in gpukit.elementwise (PyCUDA's pycuda.elementwise), which
        # imports this module; gpukit's users long found it here too.
        if name == "ElementwiseKernel":
            from gpukit.elementwise import ElementwiseKernel

            return ElementwiseKernel
        raise AttributeError(f"module 'gpukit.gpuarray' has no attribute {name!r}")
