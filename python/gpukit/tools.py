"""Helpers of PyCUDA's ``pycuda.tools``: the default device and context, per-context
memoization, device limits and occupancy, memory pools, test helpers, and the C types of
kernel arguments (dtype_to_ctype, parse_c_arg, ...; see gpukit/_array/c_types.py)."""

from __future__ import annotations

import contextlib
import functools
import gc
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, ParamSpec, Protocol, SupportsIndex, TypeVar, cast

import numpy

from gpukit import _gpukit, _memory
from gpukit._array.c_types import (  # the re-exported API (`X as X` marks each for type checkers)
    DtypedArgument as DtypedArgument,
    ScalarArg as ScalarArg,
    VectorArg as VectorArg,
    dtype_to_ctype as dtype_to_ctype,
    get_arg_type as get_arg_type,
    get_or_register_dtype as get_or_register_dtype,
    parse_c_arg as parse_c_arg,
    register_dtype as register_dtype,
)
from gpukit._gpukit import (  # the re-exported API (`X as X` marks each for type checkers)
    DeviceData as DeviceData,
    OccupancyRecord as OccupancyRecord,
    PageLockedAllocator as PageLockedAllocator,
    PooledDeviceAllocation as PooledDeviceAllocation,
    PooledHostAllocation as PooledHostAllocation,
    bitlog2 as bitlog2,
    max_active_blocks_per_multiprocessor as max_active_blocks_per_multiprocessor,
    max_potential_block_size as max_potential_block_size,
)

if TYPE_CHECKING:
    import numpy.typing as npt

    from gpukit._gpukit import Context, Device
    from gpukit._typing import HostShape, Order

# PyCUDA's name for the base class of VectorArg and ScalarArg.
Argument = DtypedArgument

_P = ParamSpec("_P")
_R = TypeVar("_R")
_R_co = TypeVar("_R_co", covariant=True)


def make_default_context(ctx_maker: Callable[[Device], Context] | None = None) -> Context:
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


def get_default_device(default: SupportsIndex = 0) -> Device:
    """Return the Device chosen by ``$CUDA_DEVICE`` or ``~/.cuda-device``, else ``Device(default)``.

    Deprecated in PyCUDA in favour of make_default_context(); kept for ported code.
    """
    return _gpukit._get_default_device(default)


def _require_callable(func: object, decorator: str) -> None:
    if not callable(func):
        raise TypeError(f"{decorator}(func): expected a function, got {type(func).__name__} {func!r}")


# A context_dependent_memoize cache: per context, the results by (args, sorted kwargs).
_ContextCache = dict["Context", dict[tuple[tuple[Any, ...], tuple[tuple[str, Any], ...]], Any]]

# Every cache made by context_dependent_memoize, so clear_context_caches() can empty them.
_context_caches: list[_ContextCache] = []


class _ContextMemoized(Protocol[_P, _R_co]):
    """What context_dependent_memoize returns: the function, cached per context, with
    ``clear_cache()`` emptying its cache."""

    def __call__(self, *args: _P.args, **kwargs: _P.kwargs) -> _R_co: ...

    clear_cache: Callable[[], None]


def context_dependent_memoize(func: Callable[_P, _R]) -> _ContextMemoized[_P, _R]:
    """Cache ``func(*args)`` per current CUDA context (e.g. kernels compiled for it).

    The cache holds a reference to each context it has seen; clear_context_caches() drops
    them all, which lets those contexts be destroyed.
    """
    _require_callable(func, "context_dependent_memoize")
    cache: _ContextCache = {}
    _context_caches.append(cache)

    @functools.wraps(func)
    def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        context = _gpukit.Context.get_current()
        if context is None:
            raise _gpukit.LogicError(f"{func.__name__}: context_dependent_memoize needs a current CUDA context")
        key = (args, tuple(sorted(kwargs.items())))
        per_context = cache.setdefault(context, {})
        try:
            hit: _R = per_context[key]
            return hit
        except KeyError:
            result = per_context[key] = func(*args, **kwargs)
            return result

    memoized = cast("_ContextMemoized[_P, _R]", wrapper)  # given clear_cache here
    memoized.clear_cache = cache.clear
    return memoized


def clear_context_caches() -> None:
    """Empty every context_dependent_memoize cache, and drop what gpukit keeps in each
    context for its own use (loaded array kernels, the default memory pool's held blocks,
    copy staging buffers); they are made again when next needed."""
    for cache in _context_caches:
        cache.clear()
    _gpukit._clear_context_caches()


@contextlib.contextmanager
def _fresh_default_context() -> Iterator[Context]:
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


def init_cuda_context_fixture() -> Iterator[Context]:
    """The body of a pytest fixture that gives each test a fresh context on the default
    device and releases it afterwards::

        @pytest.fixture(autouse=True)
        def init_cuda_context():
            yield from init_cuda_context_fixture()

    The fixture's value is the Context.
    """
    with _fresh_default_context() as context:
        yield context


def mark_cuda_test(func: Callable[_P, _R]) -> Callable[_P, _R]:
    """Mark a test ``cuda`` for pytest and run it in a fresh context on the default device,
    made for the call (even when another context is current) and released after it: popped,
    context caches cleared, garbage collected. The context that was current before is
    current again afterwards."""
    _require_callable(func, "mark_cuda_test")

    @functools.wraps(func)
    def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        with _fresh_default_context():
            return func(*args, **kwargs)

    try:
        import pytest
    except ImportError:
        return wrapper
    return pytest.mark.cuda(wrapper)


# The pools' leading_bits_in_bin_id when none is given.
_DEFAULT_LEADING_BITS = 4


class _BinnedPool(Protocol):
    @property
    def leading_bits_in_bin_id(self) -> int: ...


class _BinFunction(Protocol):
    """_gpukit._bin_number(size, leading_bits_in_bin_id), _gpukit._alloc_size(bin, ...)."""

    def __call__(self, value: SupportsIndex, /, leading_bits_in_bin_id: SupportsIndex) -> int: ...


class _bin_method:
    """bin_number(size) / alloc_size(bin) of a pool. PyCUDA has them as static methods (one
    bin layout for every pool): called on the class they use the default layout, called on a
    pool that pool's leading_bits_in_bin_id."""

    def __init__(self, function: _BinFunction) -> None:
        self._function = function

    def __get__(self, pool: _BinnedPool | None, owner: type | None = None) -> Callable[[SupportsIndex], int]:
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

    def __init__(self, allocator: PageLockedAllocator | None = None, leading_bits_in_bin_id: SupportsIndex = 4) -> None:
        if allocator is None:
            allocator = PageLockedAllocator()
        if not isinstance(allocator, PageLockedAllocator):
            raise TypeError(
                f"PageLockedMemoryPool(allocator): expected a PageLockedAllocator or None, got "
                f"{type(allocator).__name__}"
            )
        self._pool = _gpukit._PageLockedMemoryPool(allocator, leading_bits_in_bin_id)

    def allocate(self, shape: HostShape, dtype: npt.DTypeLike, order: Order = "C") -> npt.NDArray[Any]:
        """A numpy array of `shape` and `dtype` in page-locked memory from the pool."""
        shape, nbytes = _memory._shape_and_nbytes(shape, dtype, "PageLockedMemoryPool.allocate(dtype)")
        block = self._pool.allocate_bytes(nbytes)
        if nbytes == 0:  # numpy needs a buffer even for an empty array
            return numpy.ndarray(shape, dtype, order=order)
        # The block has the buffer protocol, which numpy's stubs do not accept beyond their own types.
        array = numpy.ndarray(shape, dtype, buffer=block, order=order)  # type: ignore[arg-type]
        block._track(array)
        return array

    bin_number = _bin_method(_gpukit._bin_number)
    alloc_size = _bin_method(_gpukit._alloc_size)

    def __getattr__(self, name: str) -> Any:
        # held_blocks, active_blocks, managed_bytes, active_bytes, free_held(), stop_holding(),
        # stats(), max_held_bytes, leading_bits_in_bin_id: the C++ pool's own.
        return getattr(self._pool, name)

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "max_held_bytes":
            self._pool.max_held_bytes = value
        else:
            object.__setattr__(self, name, value)
