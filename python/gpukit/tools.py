"""Helpers of PyCUDA's ``pycuda.tools``: the default device and context, per-context
memoization, device limits and occupancy, memory pools, test helpers, and the C types of
kernel arguments (dtype_to_ctype, parse_c_arg, ...; see gpukit/_array/c_types.py)."""

import contextlib
import functools
import gc

import numpy

from gpukit import _gpukit, _memory
from gpukit._array.c_types import (  # noqa: F401  (re-exported API)
    DtypedArgument,
    ScalarArg,
    VectorArg,
    dtype_to_ctype,
    get_arg_type,
    get_or_register_dtype,
    parse_c_arg,
    register_dtype,
)
from gpukit._gpukit import (  # noqa: F401  (re-exported API)
    DeviceData,
    OccupancyRecord,
    PageLockedAllocator,
    PooledDeviceAllocation,
    PooledHostAllocation,
    bitlog2,
    max_active_blocks_per_multiprocessor,
    max_potential_block_size,
)

# PyCUDA's name for the base class of VectorArg and ScalarArg.
Argument = DtypedArgument


def make_default_context(ctx_maker=None):
    """Return a new Context on the default device, made current.

    The device is the integer in ``$CUDA_DEVICE``, else the integer in ``~/.cuda-device``
    (or ``~/.cuda_device``); with neither, each device is tried in turn. ``ctx_maker``
    (default ``Device.make_context``) is called with the chosen Device.
    """
    if ctx_maker is not None and not callable(ctx_maker):
        raise TypeError(
            f"make_default_context(ctx_maker): expected a callable taking a Device, or None, got "
            f"{type(ctx_maker).__name__} {ctx_maker!r}"
        )
    return _gpukit._make_default_context(ctx_maker)


def get_default_device(default=0):
    """Return the Device chosen by ``$CUDA_DEVICE`` or ``~/.cuda-device``, else ``Device(default)``.

    Deprecated in PyCUDA in favour of make_default_context(); kept for ported code.
    """
    return _gpukit._get_default_device(default)


def _require_callable(func, decorator):
    if not callable(func):
        raise TypeError(f"{decorator}(func): expected a function, got {type(func).__name__} {func!r}")


# Every cache made by context_dependent_memoize, so clear_context_caches() can empty them.
_context_caches = []


def context_dependent_memoize(func):
    """Cache ``func(*args)`` per current CUDA context (e.g. kernels compiled for it).

    The cache holds a reference to each context it has seen; clear_context_caches() drops
    them all, which lets those contexts be destroyed.
    """
    _require_callable(func, "context_dependent_memoize")
    cache = {}
    _context_caches.append(cache)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        context = _gpukit.Context.get_current()
        if context is None:
            raise _gpukit.LogicError(f"{func.__name__}: context_dependent_memoize needs a current CUDA context")
        key = (args, tuple(sorted(kwargs.items())))
        per_context = cache.setdefault(context, {})
        try:
            return per_context[key]
        except KeyError:
            result = per_context[key] = func(*args, **kwargs)
            return result

    wrapper.clear_cache = cache.clear
    return wrapper


def clear_context_caches():
    """Empty every context_dependent_memoize cache, and drop what gpukit keeps in each
    context for its own use (loaded array kernels, the default memory pool's held blocks,
    copy staging buffers); they are made again when next needed."""
    for cache in _context_caches:
        cache.clear()
    _gpukit._clear_context_caches()


@contextlib.contextmanager
def _fresh_default_context():
    """A new context on the default device, pushed for the block (over whatever context was
    current). Afterwards the stack is popped back to the context that was current before,
    the context is released, the context caches are emptied and garbage is collected, so
    nothing made in the block keeps the context alive."""
    outer = _gpukit.Context.get_current()
    context = make_default_context()
    try:
        yield context
    finally:
        # Pop the test's context and anything the test left pushed above it.
        while _gpukit.Context.get_current() not in (None, outer):
            _gpukit.Context.pop()
        context.detach()
        clear_context_caches()
        gc.collect()


def init_cuda_context_fixture():
    """The body of a pytest fixture that gives each test a fresh context on the default
    device and releases it afterwards::

        @pytest.fixture(autouse=True)
        def init_cuda_context():
            yield from init_cuda_context_fixture()

    The fixture's value is the Context.
    """
    with _fresh_default_context() as context:
        yield context


def mark_cuda_test(func):
    """Mark a test ``cuda`` for pytest and run it in a fresh context on the default device,
    made for the call (even when another context is current) and released after it: popped,
    context caches cleared, garbage collected. The context that was current before is
    current again afterwards."""
    _require_callable(func, "mark_cuda_test")

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with _fresh_default_context():
            return func(*args, **kwargs)

    try:
        import pytest
    except ImportError:
        return wrapper
    return pytest.mark.cuda(wrapper)


# The pools' leading_bits_in_bin_id when none is given.
_DEFAULT_LEADING_BITS = 4


class _bin_method:
    """bin_number(size) / alloc_size(bin) of a pool. PyCUDA has them as static methods (one
    bin layout for every pool): called on the class they use the default layout, called on a
    pool that pool's leading_bits_in_bin_id."""

    def __init__(self, function):
        self._function = function

    def __get__(self, pool, owner=None):
        bits = _DEFAULT_LEADING_BITS if pool is None else pool.leading_bits_in_bin_id
        return functools.partial(self._function, leading_bits_in_bin_id=bits)


class DeviceMemoryPool(_gpukit.DeviceMemoryPool):
    """A binned pool of device memory of the current context (``allocate(size)`` gives a
    PooledDeviceAllocation)."""

    bin_number = _bin_method(_gpukit._bin_number)
    alloc_size = _bin_method(_gpukit._alloc_size)


class PageLockedMemoryPool:
    """A binned pool of page-locked host memory handing out numpy arrays.

    ``allocate(shape, dtype, order='C')`` returns an array whose ``.base`` is a
    ``PooledHostAllocation``; the memory returns to the pool when the array and that
    allocation are gone, or at once with ``array.base.free()`` (which raises while an array
    still uses the memory).
    """

    def __init__(self, allocator=None, leading_bits_in_bin_id=4):
        if allocator is None:
            allocator = PageLockedAllocator()
        if not isinstance(allocator, PageLockedAllocator):
            raise TypeError(
                f"PageLockedMemoryPool(allocator): expected a PageLockedAllocator or None, got "
                f"{type(allocator).__name__}"
            )
        self._pool = _gpukit._PageLockedMemoryPool(allocator, leading_bits_in_bin_id)

    def allocate(self, shape, dtype, order="C"):
        """A numpy array of `shape` and `dtype` in page-locked memory from the pool."""
        shape, nbytes = _memory._shape_and_nbytes(shape, dtype, "PageLockedMemoryPool.allocate(dtype)")
        block = self._pool.allocate_bytes(nbytes)
        if nbytes == 0:  # numpy needs a buffer even for an empty array
            return numpy.ndarray(shape, dtype, order=order)
        array = numpy.ndarray(shape, dtype, buffer=block, order=order)
        block._track(array)
        return array

    bin_number = _bin_method(_gpukit._bin_number)
    alloc_size = _bin_method(_gpukit._alloc_size)

    def __getattr__(self, name):
        # held_blocks, active_blocks, managed_bytes, active_bytes, free_held(), stop_holding(),
        # stats(), max_held_bytes, leading_bits_in_bin_id: the C++ pool's own.
        return getattr(self._pool, name)

    def __setattr__(self, name, value):
        if name == "max_held_bytes":
            self._pool.max_held_bytes = value
        else:
            object.__setattr__(self, name, value)
