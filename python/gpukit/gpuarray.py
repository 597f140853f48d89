"""GPU arrays with numpy semantics (PyCUDA's ``pycuda.gpuarray``).

A GPUArray is a shape, dtype and byte strides (a ``gpukit._gpukit.Layout``) over device
memory; the array itself is C++ (``gpukit._gpukit._Array``, see
python/bindings/array_object.hpp), and this class adds PyCUDA's names and defaults. Views
(slicing, reshape, transpose) share the memory. Operators are one call into C++ each:
result types follow numpy 2, including NEP 50 for Python scalars (``int8_array + 1`` stays
int8), shapes broadcast as numpy's do, and chained arithmetic such as ``a * x + b`` runs as
one kernel (see gpukit._fusion).

Supported dtypes: bool, int8..int64, uint8..uint64, float32, float64, complex64 and
complex128 (arithmetic, == and !=, abs, negation; no ``**``, ordering or reductions).
Other dtypes (float16, records, vector types) can be made, copied and viewed, but have no
arithmetic.
"""
import builtins
import os
import warnings

import numpy as np

from gpukit import _gpukit, _memory
from gpukit._array_pools import default_allocator, release_default_pools
from gpukit._array_reductions import all, any, dot, max, min, subset_dot, subset_max, subset_min, subset_sum, sum
from gpukit._gpukit import Layout
from gpukit._vec import vec  # noqa: F401  (PyCUDA's gpuarray.vec: CUDA's vector types)

__all__ = ["GPUArray", "ElementwiseKernel", "to_gpu", "to_gpu_async", "empty", "zeros", "ones", "empty_like",
           "zeros_like", "ones_like", "arange", "asarray", "sum", "dot", "min", "max", "default_allocator",
           "release_default_pools", "vec", "set_fusion"]


def set_fusion(on):
    """Fusion of chained operators (``a * x + b`` as one kernel, see gpukit._fusion) on or
    off for the whole process; on unless the environment sets ``GPUKIT_FUSION=0``."""
    _gpukit._set_fusion(bool(on))


set_fusion(os.environ.get("GPUKIT_FUSION", "1") != "0")


class GPUArray(_gpukit._Array):
    """An n-d array in device memory; see the module documentation."""

    # numpy's arrays and scalars defer to GPUArray's reflected operators. (Not
    # __array_ufunc__ = None: CuPy would then refuse `cupy_array + gpuarray`, which it reads
    # through __cuda_array_interface__.)
    __array_priority__ = 100
    __hash__ = None

    def __init__(self, shape, dtype, allocator=None, base=None, gpudata=None, strides=None, order="C",
                 stream=None):
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
    def flags(self):
        layout = self._layout
        return _Flags(layout.is_c_contiguous, layout.is_f_contiguous)

    @property
    def T(self):
        return self.transpose()

    def __repr__(self):
        return f"GPUArray({self.get()!r})"

    def __str__(self):
        return str(self.get())

    def __int__(self):
        return self.ptr

    @property
    def __cuda_array_interface__(self):
        interface = {"shape": self.shape, "typestr": self.dtype.str, "data": (self.ptr if self.size else 0, False),
                     "version": 3, "strides": None if self._layout.is_c_contiguous else self.strides}
        if self.dtype.names is not None:
            interface["descr"] = self.dtype.descr  # a record's typestr is only '|V<size>'
        if self.stream is not None:
            # Handle 0 (the legacy default stream) is spelled 1 in the interface.
            interface["stream"] = self.stream.handle or 1
        return interface

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        """A DLPack capsule over this array's memory (no copy unless copy=True); the array
        stays alive while the consumer uses it."""
        from gpukit import _dlpack
        return _dlpack.export(self, stream, max_version, dl_device, copy)

    def __dlpack_device__(self):
        from gpukit import _dlpack
        return _dlpack.device_of(self)

    # ---- host transfers

    def _contiguous(self):
        return self if self.flags.forc else self.copy()

    def get(self, ary=None, pagelocked=False, async_=False, stream=None):
        """A numpy array with the contents: ``ary`` when given (it must match in shape and
        dtype), else a new array, page-locked with ``pagelocked=True``. Non-contiguous arrays
        are copied to a contiguous one on the device first.

        With ``async_=True`` the copy is queued on ``stream`` (else the array's own) and may
        still be running when get() returns: synchronize the stream before reading (the
        result must be page-locked for the copy to overlap other work). Otherwise the copy is
        finished on return."""
        source = self._contiguous()
        order = "C" if source._layout.is_c_contiguous else "F"
        if ary is None:
            new_array = _memory.pagelocked_empty if pagelocked else _memory.prefaulted_empty
            ary = new_array(self.shape, self.dtype, order=order)
        elif ary.shape != self.shape or ary.dtype != self.dtype:
            raise ValueError(f"get(ary): ary is {ary.shape} {ary.dtype}, the array {self.shape} {self.dtype}")
        direct = ary.flags.c_contiguous if order == "C" else ary.flags.f_contiguous
        if async_ and not direct:
            raise ValueError(f"get(ary, async_=True): ary must be {order}-contiguous like the array (an asynchronous "
                             "copy cannot be rearranged on the host)")
        target = ary if direct else np.empty(self.shape, self.dtype, order=order)
        if self.size:
            self._copy(lambda s: _gpukit.memcpy_dtoh_async(target, source.ptr, s),
                       lambda: _gpukit.memcpy_dtoh(target, source.ptr), async_, stream)
        if target is not ary:
            ary[...] = target
        return ary

    def get_async(self, stream=None, ary=None):
        """get(ary, async_=True, stream=stream)."""
        return self.get(ary=ary, async_=True, stream=stream)

    def set(self, ary, async_=False, stream=None):
        """Copy the numpy array (or anything numpy converts) `ary` into this array; with
        ``async_=True`` the copy is queued on ``stream`` (else the array's own)."""
        ary = np.asarray(ary)
        if ary.size != self.size:
            raise ValueError(f"set(ary): ary has {ary.size} elements, the array {self.size}")
        if ary.dtype != self.dtype:
            raise TypeError(f"set(ary): ary's dtype {ary.dtype} differs from the array's {self.dtype}")
        if self._layout.is_c_contiguous:
            host = np.ascontiguousarray(ary.reshape(self.shape))
        elif self._layout.is_f_contiguous:
            host = np.asfortranarray(ary.reshape(self.shape))
        else:
            raise ValueError(f"set(ary): the array is not contiguous (strides {self.strides})")
        if self.size:
            self._copy(lambda s: _gpukit.memcpy_htod_async(self.ptr, host, s),
                       lambda: _gpukit.memcpy_htod(self.ptr, host), async_, stream)

    def set_async(self, ary, stream=None):
        """set(ary, async_=True, stream=stream)."""
        self.set(ary, async_=True, stream=stream)

    def _copy(self, on_stream, blocking, async_, stream):
        """Runs a host copy: queued on the stream when asked to be asynchronous or when the
        array works on a stream of its own (then waited for unless async_), else blocking."""
        stream = stream if stream is not None else self.stream
        if stream is None and not async_:
            blocking()
            return
        on_stream(stream)
        if not async_:
            (stream.synchronize if stream is not None else _gpukit.Context.synchronize)()

    # ---- filling and conversion

    def fill(self, value, stream=None):
        """Every element set to `value`, converted to the array's dtype as numpy's astype does."""
        self._fill_bytes(np.asarray(value).astype(self.dtype).tobytes(), stream)
        return self

    def astype(self, dtype, stream=None):
        """A C-contiguous copy converted to `dtype`."""
        dtype = np.dtype(dtype)
        if self.dtype.kind == "c" and dtype.kind != "c":
            warnings.warn("Casting complex values to real discards the imaginary part", np.exceptions.ComplexWarning,
                          stacklevel=2)
        return self._converted(dtype, stream)

    # ---- views (indexing and reshape are C++ methods of _Array)

    def ravel(self, order="C"):
        return self.reshape(-1, order=order)

    def view(self, dtype=None):
        """The same memory as another dtype of the same itemsize."""
        if dtype is None:
            return self._view(self._layout)
        dtype = np.dtype(dtype)
        if dtype.itemsize != self.dtype.itemsize:
            raise ValueError(f"view({dtype}): itemsize {dtype.itemsize} differs from {self.dtype}'s "
                             f"{self.dtype.itemsize}")
        return self._view(self._layout, dtype)

    def squeeze(self, axis=None):
        return self._view(self._layout.squeeze(axis))

    def transpose(self, *axes):
        # As numpy: transpose(), transpose(None), transpose((1, 0)) or transpose(1, 0).
        if not axes or (len(axes) == 1 and axes[0] is None):
            return self._view(self._layout.transpose())
        return self._view(self._layout.transpose(axes[0] if len(axes) == 1 else axes))

    def __setitem__(self, index, value):
        # A view, not self[index]: subclasses' __getitem__ may return host scalars.
        target = _gpukit._Array.__getitem__(self, index)
        if isinstance(value, _gpukit._Array):
            target._assign_from(value)
        elif np.isscalar(value):
            target.fill(value)
        else:
            host = np.broadcast_to(np.asarray(value, dtype=target.dtype), target.shape)
            if target.flags.forc:
                target.set(host)
            else:
                target._assign_from(to_gpu(np.ascontiguousarray(host), stream=self.stream))

    # ---- operators (arithmetic, comparisons, -x and abs(x) are C++ methods of _Array)

    def __pos__(self):
        return self.copy()

    def __bool__(self):
        if self.size != 1:
            raise ValueError("the truth value of a GPUArray with more than one element is ambiguous")
        return bool(self.get())

    def __float__(self):
        return float(self.get())

    def __index__(self):
        raise TypeError("a GPUArray is not an index; use int(a.get())")

    # ---- reductions (methods as in numpy)

    def sum(self, dtype=None, stream=None, allocator=None): return sum(self, dtype, stream, allocator)
    def min(self, stream=None): return min(self, stream)
    def max(self, stream=None): return max(self, stream)
    def dot(self, other, dtype=None, stream=None, allocator=None): return dot(self, other, dtype, stream, allocator)
    def any(self, stream=None, allocator=None): return any(self, stream, allocator)
    def all(self, stream=None, allocator=None): return all(self, stream, allocator)


_gpukit._set_array_result_class(GPUArray)


class _Flags:
    def __init__(self, c, f):
        self.c_contiguous = c
        self.f_contiguous = f
        self.forc = c or f


# ---- constructors

def empty(shape, dtype=np.float64, allocator=None, order="C", stream=None):
    return GPUArray(shape, dtype, allocator=allocator, order=order, stream=stream)


def zeros(shape, dtype=np.float64, allocator=None, order="C", stream=None):
    result = empty(shape, dtype, allocator, order, stream)
    if result.size:
        if stream is None:
            _gpukit.memset_d8(result.ptr, 0, result.nbytes)
        else:
            _gpukit.memset_d8_async(result.ptr, 0, result.nbytes, stream)
    return result


def ones(shape, dtype=np.float64, allocator=None, order="C", stream=None):
    return empty(shape, dtype, allocator, order, stream).fill(1)


def _like_order(other):
    return "F" if other.flags.f_contiguous and not other.flags.c_contiguous else "C"


def empty_like(other, dtype=None):
    return empty(other.shape, dtype or other.dtype, other.allocator, _like_order(other), other.stream)


def zeros_like(other, dtype=None):
    return zeros(other.shape, dtype or other.dtype, other.allocator, _like_order(other), other.stream)


def ones_like(other, dtype=None):
    return ones(other.shape, dtype or other.dtype, other.allocator, _like_order(other), other.stream)


def to_gpu(ary, allocator=None, stream=None):
    """A GPUArray with a copy of the numpy array `ary` (same shape, dtype and order). With a
    `stream`, the array works on it and the copy is queued there."""
    return _uploaded(ary, allocator, stream, async_=stream is not None)


def to_gpu_async(ary, allocator=None, stream=None):
    """to_gpu() with the copy queued on `stream` (the legacy default stream when None)."""
    return _uploaded(ary, allocator, stream, async_=True)


def _uploaded(ary, allocator, stream, async_):
    ary = np.asarray(ary)
    order = "F" if ary.flags.f_contiguous and not ary.flags.c_contiguous else "C"
    result = empty(ary.shape, ary.dtype, allocator, order, stream)
    result.set(ary, async_=async_, stream=stream)
    return result


def arange(*args, dtype=None, allocator=None, stream=None):
    """numpy.arange on the device: arange([start,] stop[, step], dtype=None)."""
    if not 1 <= len(args) <= 3:
        raise TypeError("arange([start,] stop[, step], dtype=None)")
    start, stop, step = (0, args[0], 1) if len(args) == 1 else (args + (1,))[:3]
    if step == 0:
        raise ValueError("arange: step must not be zero")
    dtype = np.dtype(dtype) if dtype is not None else np.arange(start, start + step, step).dtype
    count = builtins.max(0, int(np.ceil((stop - start) / step)))  # this module defines its own max
    result = empty((count,), dtype, allocator, stream=stream)
    result._arange(np.asarray(start).astype(dtype).tobytes(), np.asarray(step).astype(dtype).tobytes())
    return result


def asarray(obj):
    """A GPUArray sharing the memory of `obj` (a GPUArray, or any object exporting
    __cuda_array_interface__ or __dlpack__); `obj` is kept alive as the array's base."""
    if isinstance(obj, GPUArray):
        return obj
    return wrap(GPUArray, obj)


def wrap(cls, obj):
    """An array of class `cls` (GPUArray or a subclass) over the memory `obj` exports,
    without copying; the owner of that memory is kept as the array's base."""
    from gpukit._interop import array_interface
    interface, owner = array_interface(obj)
    dtype = _interface_dtype(interface)
    shape = interface["shape"]
    strides = interface.get("strides")
    layout = Layout.contiguous(shape, dtype.itemsize, "C") if strides is None else \
        Layout(shape, strides, dtype.itemsize, 0)
    result = cls.__new__(cls)
    # gpudata is the exporter's address (an int), so nothing is allocated for the view.
    _gpukit._Array.__init__(result, layout, dtype, None, owner, int(interface["data"][0]), None)
    return result


def _interface_dtype(interface):
    # A record travels as a 'descr' list; its typestr alone is only '|V<size>'.
    descr = interface.get("descr")
    if descr is None or (len(descr) == 1 and descr[0][0] == ""):
        return np.dtype(interface["typestr"])
    return np.lib.format.descr_to_dtype([tuple(field) for field in descr])  # handles padding entries


def __getattr__(name):
    # ElementwiseKernel lives in gpukit.elementwise (PyCUDA's pycuda.elementwise), which
    # imports this module; gpukit's users long found it here too.
    if name == "ElementwiseKernel":
        from gpukit.elementwise import ElementwiseKernel
        return ElementwiseKernel
    raise AttributeError(f"module 'gpukit.gpuarray' has no attribute {name!r}")
