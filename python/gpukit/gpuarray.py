"""GPU arrays with numpy semantics (PyCUDA's ``pycuda.gpuarray``).

A GPUArray is a shape, dtype and byte strides (a ``gpukit._gpukit.Layout``) over device
memory. Views (slicing, reshape, transpose) share the memory. Arithmetic and reductions
run kernels generated and cached by the C++ core (``gpukit::array``); result types follow
numpy 2, including NEP 50 for Python scalars: ``int8_array + 1`` stays int8.

Supported dtypes: bool, int8..int64, uint8..uint64, float32, float64, complex64 and
complex128 (arithmetic, == and !=, abs, negation; no ``**``, ordering or reductions).
float16 arrays can be made, copied and viewed, but have no arithmetic.
"""
import builtins
import sys
import warnings

import numpy as np

from gpukit import _fusion, _gpukit, _memory
from gpukit._gpukit import Layout
from gpukit._vec import vec  # noqa: F401  (PyCUDA's gpuarray.vec: CUDA's vector types)

__all__ = ["GPUArray", "ElementwiseKernel", "to_gpu", "to_gpu_async", "empty", "zeros", "ones", "empty_like",
           "zeros_like", "ones_like", "arange", "asarray", "sum", "dot", "min", "max", "default_allocator",
           "release_default_pools", "vec"]


# ---- memory

def default_allocator():
    """The allocator of arrays made without ``allocator=``: the current context's default
    DeviceMemoryPool, so temporaries such as ``2 * x`` reuse freed blocks instead of calling
    cuMemAlloc (and cuMemFree, which synchronizes) each time. The pool belongs to the
    context and never keeps it alive."""
    return _gpukit._default_pool_allocate


def release_default_pools():
    """Free the blocks the default pools of all contexts hold (blocks still used by arrays
    go back when those arrays are gone)."""
    _gpukit._release_default_pools()


# ---- dtypes

def _check_kernel_dtype(dtype, what):
    if not _gpukit._dtype_supported(dtype.name):
        raise TypeError(f"{what}: dtype {dtype} has no GPU kernels; supported are bool, int8..int64, "
                        "uint8..uint64, float32, float64, complex64 and complex128")


def _check_not_complex(dtype, what):
    if dtype.kind == "c":
        raise TypeError(f"{what} is not supported for complex arrays ({dtype})")


def _c_type(dtype):
    return {"bool": "bool", "int8": "signed char", "int16": "short", "int32": "int", "int64": "long long",
            "uint8": "unsigned char", "uint16": "unsigned short", "uint32": "unsigned int",
            "uint64": "unsigned long long", "float32": "float", "float64": "double",
            "complex64": "gk_complex<float>", "complex128": "gk_complex<double>"}[dtype.name]


def _sample(x):
    # What numpy's type resolution sees: a one-element array for arrays (and the expressions
    # of pending ones), the scalar itself (a weak Python scalar, or a typed numpy one) otherwise.
    return np.ones(1, x.dtype) if _is_array(x) else x


def _result_dtype(ufunc, *operands):
    """The dtype numpy gives ``ufunc(*operands)``; numpy's own errors (bool - bool,
    int8 + 1000) are raised as numpy raises them."""
    return ufunc(*[_sample(x) for x in operands]).dtype


# ---- elementwise kernels

_specs = {}


def _spec(name, params, operation, preamble=""):
    key = (name, tuple(params), operation, preamble)
    spec = _specs.get(key)
    if spec is None:
        spec = _specs[key] = _gpukit._ElementwiseSpec(name, list(params), operation, preamble)
    return spec


def _array_arg(a):
    return (a.ptr, list(a.shape), list(a.strides), a.dtype.name)


def _scalar_arg(value, dtype):
    return np.asarray(value).astype(dtype).tobytes()


def _launch(spec, args, stream):
    _gpukit._elementwise_run(spec, args, stream)


def _check_shapes(a, b, what):
    if _is_array(b) and a.shape != b.shape:
        raise ValueError(f"{what}: shapes {a.shape} and {b.shape} differ (gpuarray does not broadcast arrays)")


_INTEGER_POWER = """
template <class T> __device__ T gk_ipow(T base, T exponent) {
    T result = 1;
    for (; exponent > 0; exponent >>= 1, base *= base)
        if (exponent & 1) result *= base;
    return result;
}
"""


def _expression(symbol, compute, left, right):
    """`left <symbol> right` computed in dtype `compute`."""
    ctype = _c_type(compute)
    left, right = f"({ctype})({left})", f"({ctype})({right})"
    if symbol == "**":
        if compute.kind == "f":
            return f"{'powf' if compute.itemsize == 4 else 'pow'}({left}, {right})"
        return f"gk_ipow({left}, {right})"
    return f"{left} {symbol} {right}"


# Operators the complex kernels do not have: a power, and numpy's lexicographic ordering.
_NOT_FOR_COMPLEX = ("**", "<", "<=", ">", ">=")


def _binary(a, b, symbol, ufunc, out=None, compare=False):
    """``out = a <symbol> b`` where `a` is a GPUArray and `b` a GPUArray or a scalar."""
    fusable = out is None and not compare and symbol in _fusion.FUSABLE_SYMBOLS
    a, b = _operand(a, fusable), _operand(b, fusable)
    _check_shapes(a, b, symbol)
    result = _result_dtype(ufunc, a, b)
    compute = np.result_type(_sample(a), _sample(b)) if compare else result
    _check_kernel_dtype(a.dtype, symbol)
    _check_kernel_dtype(compute, symbol)
    if symbol in _NOT_FOR_COMPLEX:
        _check_not_complex(compute, symbol)
    if out is not None and not np.can_cast(result, out.dtype, "same_kind"):
        raise TypeError(f"{symbol}=: cannot cast the {result} result to the array's {out.dtype}")
    if _is_array(b):
        _check_kernel_dtype(b.dtype, symbol)
        right = _as_expression(b)
    else:
        right = _fusion.Expression.of_scalar(_scalar_arg(b, compute), compute)
    target = out.dtype if out is not None else result
    preamble = _INTEGER_POWER if symbol == "**" and compute.kind != "f" else ""
    expression = _as_expression(a).combine(
        right, lambda x, y: f"({_c_type(target)})({_expression(symbol, compute, x, y)})", target, preamble)
    return _evaluate(expression, out, fusable)


def _reflected(a, b, symbol, ufunc):
    """``b <symbol> a`` for a scalar `b`."""
    if isinstance(b, GPUArray):
        return _binary(b, a, symbol, ufunc)
    fusable = symbol in _fusion.FUSABLE_SYMBOLS
    a = _operand(a, fusable)
    result = _result_dtype(ufunc, b, a)
    _check_kernel_dtype(result, symbol)
    _check_kernel_dtype(a.dtype, symbol)
    if symbol in _NOT_FOR_COMPLEX:
        _check_not_complex(result, symbol)
    preamble = _INTEGER_POWER if symbol == "**" and result.kind != "f" else ""
    expression = _fusion.Expression.of_scalar(_scalar_arg(b, result), result).combine(
        _as_expression(a), lambda x, y: f"({_c_type(result)})({_expression(symbol, result, x, y)})", result,
        preamble)
    return _evaluate(expression, None, fusable)


def _is_array(x):
    return isinstance(x, (GPUArray, _fusion.Expression))


def _as_expression(x):
    return x if isinstance(x, _fusion.Expression) else _fusion.Expression.of_array(x)


def _operand(x, fusable):
    """An operator's operand as it will use it: a pending array (see gpukit._fusion) becomes
    its expression when the operator fuses it, and is computed otherwise."""
    if type(x) is not _PendingGPUArray:
        return x
    if fusable:
        return object.__getattribute__(x, "_expression")
    _settle(x)
    return x


def _evaluate(expression, out, fusable):
    """`expression` computed into `out`, or into a new array; the new array is left pending
    when the caller's next operator will fuse it (see gpukit._fusion)."""
    if out is None:
        # Frames: 0 this function, 1 _binary or _reflected, 2 the operator method, 3 its caller.
        if (fusable and len(expression.operands) < _fusion.MAX_OPERANDS
                and _fusion.feeds_next_operator(sys._getframe(3))):
            pending = object.__new__(_PendingGPUArray)
            object.__setattr__(pending, "_expression", expression)
            return pending
        out = empty(expression.shape, expression.dtype, allocator=expression.allocator, stream=expression.stream)
    _run(expression, out)
    return out


def _run(expression, out):
    params, args = [], []
    for k, operand in enumerate(expression.operands):
        if isinstance(operand, _fusion.Scalar):
            params.append((f"p{k}", operand.dtype.name, "scalar"))
            args.append(operand.data)
        else:
            params.append((f"p{k}", operand.dtype.name, "in"))
            args.append(_array_arg(operand))
    params.append(("z", out.dtype.name, "out"))
    spec = _spec("gk_elementwise", params, expression.operation(), expression.preamble)
    _launch(spec, args + [_array_arg(out)], out.stream)


def _unary(a, operation, result):
    _check_kernel_dtype(a.dtype, operation)
    out = empty(a.shape, result, allocator=a.allocator, stream=a.stream)
    spec = _spec("gk_unary", [("x", a.dtype.name, "in"), ("z", result.name, "out")], operation)
    _launch(spec, [_array_arg(a), _array_arg(out)], a.stream)
    return out


class GPUArray:
    """An n-d array in device memory; see the module documentation."""

    __array_priority__ = 100  # numpy defers to GPUArray's reflected operators

    def __init__(self, shape, dtype, allocator=None, base=None, gpudata=None, strides=None, order="C",
                 stream=None):
        dtype = np.dtype(dtype)
        # The Layout checks shape and strides as numpy does (TypeError for 2.5, ValueError for
        # negative extents and for sizes beyond 64 bits).
        if strides is None:
            layout = Layout.contiguous(shape, dtype.itemsize, order)
        else:
            layout = Layout(shape, strides, dtype.itemsize, 0)
        self._init(layout, dtype, allocator, base, gpudata, stream)

    def _init(self, layout, dtype, allocator, base, gpudata, stream):
        self._layout = layout
        self.dtype = dtype
        self.allocator = allocator
        self.base = base
        self.stream = stream
        if gpudata is None and layout.size > 0:
            # Strides may leave gaps: the memory runs to the end of the last element.
            low, high = layout.byte_extent()
            if low < 0:
                raise ValueError(f"negative strides {tuple(layout.strides)} need memory given as gpudata; a new "
                                 "array starts at element 0")
            gpudata = (allocator or default_allocator())(high)
        self.gpudata = gpudata
        self._address = int(gpudata) if gpudata is not None else 0

    def _view(self, layout, dtype=None, cls=None):
        # Views keep the class of the array they view (gpukit.cuda's DeviceNDArray too).
        cls = cls or type(self)
        view = cls.__new__(cls)
        view._init(layout, dtype or self.dtype, self.allocator, self if self.base is None else self.base,
                   self.gpudata, self.stream)
        view._address = self._address
        return view

    # ---- attributes

    shape = property(lambda self: tuple(self._layout.shape))
    strides = property(lambda self: tuple(self._layout.strides))
    size = property(lambda self: self._layout.size)
    nbytes = property(lambda self: self._layout.nbytes)
    ndim = property(lambda self: self._layout.ndim)
    itemsize = property(lambda self: self.dtype.itemsize)
    mem_size = size

    @property
    def ptr(self):
        """The device address of element [0, ..., 0]."""
        return self._address + self._layout.offset

    @property
    def flags(self):
        return _Flags(self._layout.is_c_contiguous, self._layout.is_f_contiguous)

    @property
    def T(self):
        return self.transpose()

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of a 0-d GPUArray")
        return self.shape[0]

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
        return self if self._layout.is_c_contiguous or self._layout.is_f_contiguous else self.copy()

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
            ary = (_memory.pagelocked_empty if pagelocked else np.empty)(self.shape, self.dtype, order=order)
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
        _check_kernel_dtype(self.dtype, "fill")
        spec = _spec("gk_fill", [("v", self.dtype.name, "scalar"), ("z", self.dtype.name, "out")], "z[i] = v")
        _launch(spec, [_scalar_arg(value, self.dtype), _array_arg(self)], stream or self.stream)
        return self

    def astype(self, dtype, stream=None):
        dtype = np.dtype(dtype)
        _check_kernel_dtype(self.dtype, "astype")
        _check_kernel_dtype(dtype, "astype")
        if self.dtype.kind == "c" and dtype.kind != "c":
            warnings.warn("Casting complex values to real discards the imaginary part", np.exceptions.ComplexWarning,
                          stacklevel=2)
        out = empty(self.shape, dtype, allocator=self.allocator, stream=self.stream)
        spec = _spec("gk_astype", [("x", self.dtype.name, "in"), ("z", dtype.name, "out")],
                     f"z[i] = ({_c_type(dtype)})x[i]")
        _launch(spec, [_array_arg(self), _array_arg(out)], stream or self.stream)
        return out

    def copy(self, stream=None):
        """A C-contiguous copy (a device-to-device copy, or a kernel for strided arrays)."""
        out = empty(self.shape, self.dtype, allocator=self.allocator, stream=self.stream)
        if self.size == 0:
            return out
        stream = stream or self.stream
        if self._layout.is_c_contiguous:
            if stream is None:
                _gpukit.memcpy_dtod(out.ptr, self.ptr, self.nbytes)
            else:
                _gpukit.memcpy_dtod_async(out.ptr, self.ptr, self.nbytes, stream)
            return out
        _check_kernel_dtype(self.dtype, "copy of a strided array")
        spec = _spec("gk_copy", [("x", self.dtype.name, "in"), ("z", self.dtype.name, "out")], "z[i] = x[i]")
        _launch(spec, [_array_arg(self), _array_arg(out)], stream)
        return out

    # ---- views

    def reshape(self, *shape, order="C"):
        shape = shape[0] if len(shape) == 1 else shape  # reshape(2, 3) or reshape((2, 3))
        try:
            return self._view(self._layout.reshape(shape, order))
        except _gpukit.LogicError:
            # Not expressible as a view of this layout: numpy copies, so do we (a bad shape
            # is a ValueError or TypeError, raised before any copy).
            copied = self.copy()
            return copied._view(copied._layout.reshape(shape, order))

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

    def __getitem__(self, index):
        return self._view(self._layout[index])

    def __setitem__(self, index, value):
        # A view, not self[index]: subclasses' __getitem__ may return host scalars.
        target = self._view(self._layout[index])
        if isinstance(value, GPUArray):
            _check_shapes(target, value, "__setitem__")
            _check_kernel_dtype(target.dtype, "__setitem__")
            spec = _spec("gk_assign", [("x", value.dtype.name, "in"), ("z", target.dtype.name, "out")],
                         f"z[i] = ({_c_type(target.dtype)})x[i]")
            _launch(spec, [_array_arg(value), _array_arg(target)], self.stream)
        elif np.isscalar(value):
            target.fill(value)
        else:
            host = np.broadcast_to(np.asarray(value, dtype=target.dtype), target.shape)
            if target.flags.forc:
                target.set(host)
            else:
                target[...] = to_gpu(np.ascontiguousarray(host), stream=self.stream)

    # ---- arithmetic

    def __add__(self, other): return _binary(self, other, "+", np.add)
    def __sub__(self, other): return _binary(self, other, "-", np.subtract)
    def __mul__(self, other): return _binary(self, other, "*", np.multiply)
    def __truediv__(self, other): return _binary(self, other, "/", np.true_divide)
    def __pow__(self, other): return _binary(self, other, "**", np.power)
    def __radd__(self, other): return _reflected(self, other, "+", np.add)
    def __rsub__(self, other): return _reflected(self, other, "-", np.subtract)
    def __rmul__(self, other): return _reflected(self, other, "*", np.multiply)
    def __rtruediv__(self, other): return _reflected(self, other, "/", np.true_divide)
    def __rpow__(self, other): return _reflected(self, other, "**", np.power)
    def __iadd__(self, other): return _binary(self, other, "+", np.add, out=self)
    def __isub__(self, other): return _binary(self, other, "-", np.subtract, out=self)
    def __imul__(self, other): return _binary(self, other, "*", np.multiply, out=self)
    def __itruediv__(self, other): return _binary(self, other, "/", np.true_divide, out=self)
    def __ipow__(self, other): return _binary(self, other, "**", np.power, out=self)

    def __neg__(self):
        if self.dtype == np.bool_:
            raise TypeError("negation of a bool GPUArray is not supported (numpy: use ~ or logical_not)")
        return _unary(self, "z[i] = -x[i]", self.dtype)

    def __pos__(self):
        return self.copy()

    def __abs__(self):
        if self.dtype.kind in "bu":
            return self.copy()
        if self.dtype.kind == "c":  # the magnitude, a real number (complex64 -> float32)
            return _unary(self, "z[i] = abs(x[i])", np.dtype(self.dtype.char.lower()))
        return _unary(self, "z[i] = x[i] < 0 ? -x[i] : x[i]", self.dtype)

    def __eq__(self, other): return _binary(self, other, "==", np.equal, compare=True)
    def __ne__(self, other): return _binary(self, other, "!=", np.not_equal, compare=True)
    def __lt__(self, other): return _binary(self, other, "<", np.less, compare=True)
    def __le__(self, other): return _binary(self, other, "<=", np.less_equal, compare=True)
    def __gt__(self, other): return _binary(self, other, ">", np.greater, compare=True)
    def __ge__(self, other): return _binary(self, other, ">=", np.greater_equal, compare=True)

    __hash__ = None

    def __bool__(self):
        if self.size != 1:
            raise ValueError("the truth value of a GPUArray with more than one element is ambiguous")
        return bool(self.get())

    def __float__(self):
        return float(self.get())

    def __index__(self):
        raise TypeError("a GPUArray is not an index; use int(a.get())")

    # ---- reductions (methods as in numpy)

    def sum(self, stream=None): return sum(self, stream=stream)
    def min(self, stream=None): return min(self, stream=stream)
    def max(self, stream=None): return max(self, stream=stream)
    def dot(self, other, stream=None): return dot(self, other, stream=stream)


class _PendingGPUArray(GPUArray):
    """The result of an operator whose kernel has not run yet, because the next operator
    fuses it (see gpukit._fusion). Any other use computes it first, turning it into a plain
    GPUArray; until then it has no memory of its own."""

    def __getattribute__(self, name):
        _settle(self)
        return object.__getattribute__(self, name)

    def __setattr__(self, name, value):
        _settle(self)
        object.__setattr__(self, name, value)

    def __delattr__(self, name):
        _settle(self)
        object.__delattr__(self, name)


def _settle(array):
    """Computes a pending array into memory of its own; it becomes a plain GPUArray."""
    if type(array) is _PendingGPUArray:
        expression = object.__getattribute__(array, "_expression")
        object.__setattr__(array, "__class__", GPUArray)
        del array._expression
        array.__init__(expression.shape, expression.dtype, allocator=expression.allocator, stream=expression.stream)
        _run(expression, array)


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
    _check_kernel_dtype(dtype, "arange")
    count = builtins.max(0, int(np.ceil((stop - start) / step)))  # this module defines its own max
    result = empty((count,), dtype, allocator, stream=stream)
    spec = _spec("gk_arange", [("start", dtype.name, "scalar"), ("step", dtype.name, "scalar"),
                               ("z", dtype.name, "out")], f"z[i] = start + ({_c_type(dtype)})i * step")
    _launch(spec, [_scalar_arg(start, dtype), _scalar_arg(step, dtype), _array_arg(result)], stream)
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
    result._init(layout, dtype, None, owner, int(interface["data"][0]), None)
    return result


def _interface_dtype(interface):
    # A record travels as a 'descr' list; its typestr alone is only '|V<size>'.
    descr = interface.get("descr")
    if descr is None or (len(descr) == 1 and descr[0][0] == ""):
        return np.dtype(interface["typestr"])
    return np.lib.format.descr_to_dtype([tuple(field) for field in descr])  # handles padding entries


# ---- reductions

def _reduce(op, a, b=None, stream=None):
    for x in (a, b):
        if x is not None:
            _check_kernel_dtype(x.dtype, op)
            _check_not_complex(x.dtype, op)
    if b is not None and a.shape != b.shape:
        raise ValueError(f"dot: shapes {a.shape} and {b.shape} differ")
    if op in ("min", "max") and a.size == 0:
        raise ValueError(f"zero-size array to reduction operation {op} which has no identity")
    a = a._contiguous()
    b = b._contiguous() if b is not None else None
    if b is not None and not (a._layout.is_c_contiguous and b._layout.is_c_contiguous
                              or a._layout.is_f_contiguous and b._layout.is_f_contiguous):
        # Element i in memory must be element i of both: C order for both.
        a, b = (x if x._layout.is_c_contiguous else x.copy() for x in (a, b))
    result_dtype = np.dtype(_gpukit._reduction_type(op, a.dtype.name, b.dtype.name if b is not None else None))
    scratch = _gpukit._reduction_scratch_bytes()
    # One block holds the result (first 256 bytes) and the partial results after it.
    block = (a.allocator or default_allocator())(256 + scratch)
    result = GPUArray.__new__(GPUArray)
    result._init(Layout.contiguous([], result_dtype.itemsize, "C"), result_dtype, a.allocator, None, block, a.stream)
    if a.size == 0:  # a sum of nothing
        result.fill(0)
        return result
    _gpukit._reduce(op, _array_arg(a), _array_arg(b) if b is not None else None, _array_arg(result),
                    int(block) + 256, scratch, stream or a.stream)
    return result


def sum(a, dtype=None, stream=None):
    """The sum of all elements as a 0-d GPUArray (numpy's sum type: integers widen to 64 bits)."""
    result = _reduce("sum", a, stream=stream)
    return result if dtype is None else result.astype(dtype)


def min(a, stream=None):
    return _reduce("min", a, stream=stream)


def max(a, stream=None):
    return _reduce("max", a, stream=stream)


def dot(a, b, dtype=None, stream=None):
    """sum(a * b) of two arrays of one shape, as a 0-d GPUArray of their promoted dtype."""
    result = _reduce("dot", a, b, stream=stream)
    return result if dtype is None else result.astype(dtype)


def __getattr__(name):
    # ElementwiseKernel lives in gpukit.elementwise (PyCUDA's pycuda.elementwise), which
    # imports this module; gpukit's users long found it here too.
    if name == "ElementwiseKernel":
        from gpukit.elementwise import ElementwiseKernel
        return ElementwiseKernel
    raise AttributeError(f"module 'gpukit.gpuarray' has no attribute {name!r}")
