"""What a program may assume about an OpenCL device, under PyOpenCL's
``pyopencl.characterize`` names, with PyOpenCL's answers: the functions follow the rules
PyOpenCL 2026.1 applies (vendor names, device types, PoCL versions), so code tuned by them
makes the same choices here. Where an answer is a vendor fact rather than a query, the
function says which."""

from __future__ import annotations

import functools
import inspect
import operator
import re
from collections.abc import Callable, Iterable
from typing import Literal, ParamSpec, SupportsIndex, SupportsInt, TypeVar, cast

import gpukit.cl as cl
from gpukit._warnings import warn

_P = ParamSpec("_P")
_R = TypeVar("_R")

# clGetDeviceInfo parameters not bound as Device properties.
_LOCAL_MEM_TYPE = 0x1022
_LOCAL_MEM_TYPE_GLOBAL = 2
_COMPUTE_CAPABILITY_MAJOR_NV = 0x4000
_COMPUTE_CAPABILITY_MINOR_NV = 0x4001
_WARP_SIZE_NV = 0x4003
# CL_DEVICE_SVM_* capability bits.
_SVM_COARSE_GRAIN_BUFFER, _SVM_FINE_GRAIN_BUFFER, _SVM_FINE_GRAIN_SYSTEM, _SVM_ATOMICS = 1, 2, 4, 8

_POCL_PLATFORM_NAME = "Portable Computing Language"


# What the functions' dev, ctx and platform arguments must be (ctx may also be None): the
# class, or an object with the attribute named (a stand-in: the functions only read attributes).
_ARGUMENT_TYPES = {
    "dev": (cl.Device, "extensions", "a gpukit.cl.Device"),
    "ctx": (cl.Context, "devices", "a gpukit.cl.Context or None"),
    "platform": (cl.Platform, "version", "a gpukit.cl.Platform"),
}


def _checked_arguments(function: Callable[_P, _R]) -> Callable[_P, _R]:
    """`function`, refusing a dev, ctx or platform of another kind with a TypeError naming
    the argument, instead of an AttributeError from deep inside it."""
    signature = inspect.signature(function)

    @functools.wraps(function)
    def checked(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        for name, value in signature.bind(*args, **kwargs).arguments.items():
            if name not in _ARGUMENT_TYPES or (name == "ctx" and value is None):
                continue
            cls, attribute, expected = _ARGUMENT_TYPES[name]
            if not isinstance(value, cls) and not hasattr(value, attribute):
                raise TypeError(
                    f"{function.__name__}({name}): expected {expected}, got {type(value).__name__} {value!r}"
                )
        return function(*args, **kwargs)

    return checked


class CLCharacterizationWarning(UserWarning):
    """An answer that is a guess for this kind of device (PyOpenCL's warning class)."""


def _uint_info(dev: cl.Device, param: int) -> int:
    return int(cast(SupportsInt, dev.get_info(param)))  # an integer parameter (get_info's stub says object)


def _device_type(dev: cl.Device) -> int:
    """dev.type, a device_type (its stub says object)."""
    return cast(int, dev.type)


def _nv_attributes(dev: cl.Device) -> bool:
    return "cl_nv_device_attribute_query" in dev.extensions.split()


def _guessing(what: str, dev: cl.Device) -> None:
    """Warns that `what` is a guess (naming the user's line, as every gpukit warning does)."""
    warn(f"Wildly guessing {what} on '{dev.name}'", CLCharacterizationWarning)


def _nv_local_banks(dev: cl.Device, capability: tuple[int, int], what: str) -> int:
    """NVIDIA's local memory before compute capability 2.0: 16 banks, accessed by a half
    warp together; after: 32, by a whole warp (from 3.0 on a guess, warned about as `what`)."""
    if capability < (2, 0):
        return 16
    if capability >= (3, 0):
        _guessing(what, dev)
    return 32


@_checked_arguments
def has_double_support(dev: cl.Device) -> bool:
    """Whether the device offers cl_khr_fp64 (double precision)."""
    return "cl_khr_fp64" in dev.extensions.split()


@_checked_arguments
def has_amd_double_support(dev: cl.Device) -> bool:
    """Whether the device offers AMD's partial double precision, cl_amd_fp64."""
    return "cl_amd_fp64" in dev.extensions.split()


@_checked_arguments
def reasonable_work_group_size_multiple(dev: cl.Device, ctx: cl.Context | None = None) -> int:
    """The warp size of an NVIDIA device, else the preferred work-group size multiple the
    implementation reports for a small kernel built on ``dev`` (in ``ctx`` when given)."""
    if _nv_attributes(dev):
        return _uint_info(dev, _WARP_SIZE_NV)
    context = ctx if ctx is not None else cl.Context([dev])
    kernel = cl.Program(context, "__kernel void knl(__global float *a) { a[get_global_id(0)] = 0; }").build().knl
    # An int for this parameter (lists come only for COMPILE_WORK_GROUP_SIZE and GLOBAL_WORK_SIZE).
    return cast(int, kernel.get_work_group_info(cl.kernel_work_group_info.PREFERRED_WORK_GROUP_SIZE_MULTIPLE, dev))


@_checked_arguments
def nv_compute_capability(dev: cl.Device) -> tuple[int, int] | None:
    """(major, minor) compute capability of an NVIDIA device that offers the
    cl_nv_device_attribute_query extension; None for every other device."""
    if not _nv_attributes(dev):
        return None
    return _uint_info(dev, _COMPUTE_CAPABILITY_MAJOR_NV), _uint_info(dev, _COMPUTE_CAPABILITY_MINOR_NV)


@_checked_arguments
def usable_local_mem_size(dev: cl.Device, nargs: int | None = None) -> int:
    """The local memory a kernel can use: all of it, except on NVIDIA devices before compute
    capability 2.0, which pass kernel arguments there (4 bytes for each of ``nargs`` 32-bit
    arguments; 256 bytes when ``nargs`` is not given)."""
    size = dev.local_mem_size
    capability = nv_compute_capability(dev)
    if capability is not None and capability < (2, 0):
        size -= 256 if nargs is None else 4 * nargs
    return size


@_checked_arguments
def simultaneous_work_items_on_local_access(dev: cl.Device) -> int:
    """How many work items access local memory together, and so can conflict over its banks:
    16 on NVIDIA devices before compute capability 2.0, 32 after, 1 on CPUs, and a guessed 16
    on other devices (with a CLCharacterizationWarning, as for NVIDIA 3.0 and later)."""
    capability = nv_compute_capability(dev)
    if capability is not None:
        return _nv_local_banks(dev, capability, "conflicting local access size")
    if _device_type(dev) & cl.device_type.CPU and not _device_type(dev) & cl.device_type.GPU:
        return 1
    _guessing("conflicting local access size", dev)
    return 16


@_checked_arguments
def local_memory_access_granularity(dev: cl.Device) -> int:
    """The bytes per bank of local memory: 4 on every known device."""
    return 4


@_checked_arguments
def local_memory_bank_count(dev: cl.Device) -> int:
    """The number of local memory banks: 16 on NVIDIA devices before compute capability 2.0,
    32 after, a guessed 16 elsewhere (with a CLCharacterizationWarning). RuntimeError on a CPU
    whose local memory is global memory behind caches, where banks mean nothing."""
    capability = nv_compute_capability(dev)
    if capability is not None:
        return _nv_local_banks(dev, capability, "local memory bank count")
    if (
        _device_type(dev) & cl.device_type.CPU
        and not _device_type(dev) & cl.device_type.GPU
        and _uint_info(dev, _LOCAL_MEM_TYPE) == _LOCAL_MEM_TYPE_GLOBAL
    ):
        raise RuntimeError(f"asking for a bank count is meaningless for cache-based local memory (device '{dev.name}')")
    _guessing("local memory bank count", dev)
    return 16


def _count(value: SupportsIndex, what: str, minimum: int = 0) -> int:
    """`value` as an int of at least `minimum`, for why_not_local_access_conflict_free(`what`)."""
    try:
        number = operator.index(value)
    except TypeError:
        raise TypeError(
            f"why_not_local_access_conflict_free({what}): expected an integer, got {type(value).__name__} {value!r}"
        ) from None
    if number < minimum:
        raise ValueError(f"why_not_local_access_conflict_free({what}): expected at least {minimum}, got {number}")
    return number


def _shape(value: Iterable[SupportsIndex], what: str) -> tuple[int, ...]:
    try:
        sizes = list(value)
    except TypeError:
        raise TypeError(
            f"why_not_local_access_conflict_free({what}): expected a shape (a tuple of integers), got "
            f"{type(value).__name__} {value!r}"
        ) from None
    return tuple(_count(size, what) for size in sizes)


@_checked_arguments
def why_not_local_access_conflict_free(
    dev: cl.Device,
    itemsize: SupportsIndex,
    array_shape: Iterable[SupportsIndex],
    array_stored_shape: Iterable[SupportsIndex] | None = None,
) -> tuple[int, str | None]:
    """How many work items conflict on one local memory bank when the work items that access
    local memory together (simultaneous_work_items_on_local_access) read consecutive elements
    of an array of ``array_shape`` (C order), stored with ``array_stored_shape`` (padding)
    and elements of ``itemsize`` bytes, along each axis in turn.

    Returns ``(multiplicity, explanation)``: the worst conflict found and a sentence naming the
    work items and the bank, or ``(1, None)`` when there is none."""
    itemsize = _count(itemsize, "itemsize", minimum=1)
    shape = _shape(array_shape, "array_shape")
    stored = shape if array_stored_shape is None else _shape(array_stored_shape, "array_stored_shape")
    if len(stored) != len(shape):
        raise ValueError(f"array_stored_shape {stored} has another rank than array_shape {shape}")
    granularity = local_memory_access_granularity(dev)
    if itemsize != granularity:
        warn(f"Local conflict info might be inaccurate for itemsize != {granularity}", CLCharacterizationWarning)
    together = simultaneous_work_items_on_local_access(dev)
    banks = local_memory_bank_count(dev)
    # Axes from the fastest-moving one (the last), as the work item index runs through them.
    fastest_first = list(zip(shape[::-1], stored[::-1]))
    conflicts: list[tuple[int, str]] = []
    for first_axis in range(len(shape)):
        by_bank: dict[int, list[str]] = {}
        for work_item in range(together):
            address, stride, remaining, index = 0, itemsize, work_item, []
            for axis, (size, stored_size) in enumerate(fastest_first):
                position = 0
                if axis >= first_axis:
                    remaining, position = divmod(remaining, size)
                    address += stride * position
                index.append(position)
                stride *= stored_size
            if remaining:  # beyond the array: this work item takes no part
                continue
            by_bank.setdefault(address // granularity % banks, []).append(f"w.item {work_item} -> {index[::-1]}")
        worst = max((len(items) for items in by_bank.values()), default=1)
        if worst > 1:
            conflicts.extend(
                (
                    worst,
                    f"{worst}x conflict on axis {first_axis} (from right, 0-based): "
                    f"{', '.join(items)} access bank {bank}",
                )
                for bank, items in by_bank.items()
                if len(items) == worst
            )
    return max(conflicts) if conflicts else (1, None)


@_checked_arguments
def get_fast_inaccurate_build_options(dev: cl.Device) -> list[str]:
    """Build options that trade floating-point accuracy for speed: -cl-mad-enable,
    -cl-fast-relaxed-math and -cl-no-signed-zeros, and -cl-strict-aliasing on AMD and
    NVIDIA devices."""
    options = ["-cl-mad-enable", "-cl-fast-relaxed-math", "-cl-no-signed-zeros"]
    if dev.vendor.startswith(("Advanced Micro", "NVIDIA")):
        options.append("-cl-strict-aliasing")
    return options


@_checked_arguments
def get_simd_group_size(dev: cl.Device, type_size: int) -> int | None:
    """How many work items run across SIMD lanes implicitly (a warp, a wavefront), whatever
    ``type_size`` (the bytes of the vector entry type; no rule depends on it): an NVIDIA
    device's warp size (32 without the attribute query), the preferred work-group size
    multiple of AMD GPUs, 1 on CPUs (their vectorization is explicit), None when unknown.

    AMD is recognized as PyOpenCL does, by "advanced micro" or "ati" anywhere in the platform
    or device vendor, which "Intel(R) Corporation" contains too."""
    if _nv_attributes(dev):
        return _uint_info(dev, _WARP_SIZE_NV)
    vendors = f"{dev.platform.vendor}\n{dev.vendor}".lower()
    if "nvidia" in vendors:
        return 32
    if "advanced micro" in vendors or "ati" in vendors:
        if _device_type(dev) & cl.device_type.GPU:
            return reasonable_work_group_size_multiple(dev)
        if _device_type(dev) & cl.device_type.CPU:
            return 1
        raise RuntimeError(f"unexpected AMD device type {dev.type!r} of '{dev.name}'")
    if _device_type(dev) & cl.device_type.CPU:
        return 1
    return None


@_checked_arguments
def get_pocl_version(platform: cl.Platform, fallback_value: tuple[int, int] | None = None) -> tuple[int, int] | None:
    """PoCL's (major, minor) version from its platform version string, None for other
    platforms, ``fallback_value`` (with a warning) when the string has an unknown form."""
    if platform.name != _POCL_PLATFORM_NAME:
        return None
    found = re.match(r"^OpenCL [0-9.]+ [Pp]o[Cc][Ll] ([0-9]+)\.([0-9]+)", platform.version)
    if found is None:
        warn(f"PoCL version number did not have expected format: '{platform.version}'")
        return fallback_value
    return int(found.group(1)), int(found.group(2))


def _pocl_miscounts_struct_args(dev: cl.Device, ctx: cl.Context | None) -> bool:
    context = ctx if ctx is not None else cl.Context([dev])
    program = cl.Program(
        context,
        """
        struct two_things { long a; long b; };
        __kernel void test_knl(struct two_things x) { }
        """,
    ).build()
    return program.test_knl.num_args == 2


@_checked_arguments
def has_struct_arg_count_bug(dev: cl.Device, ctx: cl.Context | None = None) -> Literal["apple", "pocl", False]:
    """Whether the device's implementation miscounts kernel arguments when structs are passed
    by value (https://github.com/pocl/pocl/issues/197): "apple" for Apple's CPU implementation,
    "pocl" for PoCL 0.13 and older (and 0.14 when a test kernel, built in ``ctx`` if given,
    shows it), else False."""
    if dev.platform.name == "Apple" and _device_type(dev) & cl.device_type.CPU:
        return "apple"
    if dev.platform.name == _POCL_PLATFORM_NAME:
        version = get_pocl_version(dev.platform, fallback_value=(0, 14))
        assert version is not None  # a PoCL platform: its version, or the fallback
        if version <= (0, 13) or (version <= (0, 14) and _pocl_miscounts_struct_args(dev, ctx)):
            return "pocl"
    return False


def _platform_cl_version(platform: cl.Platform) -> tuple[int, int]:
    found = re.match(r"^OpenCL ([0-9]+)\.([0-9]+)", platform.version)
    return (int(found.group(1)), int(found.group(2))) if found else (0, 0)


def _may_have_svm(dev: cl.Device) -> bool:
    # gpukit's headers declare OpenCL 3.0, so only the platform (and PoCL's age) limits SVM.
    if dev.platform.name == _POCL_PLATFORM_NAME:
        return (get_pocl_version(dev.platform) or (0, 0)) >= (1, 0)
    return _platform_cl_version(dev.platform) >= (2, 0)


def _svm_capability(dev: cl.Device, bits: int) -> bool:
    return _may_have_svm(dev) and (dev.svm_capabilities & bits) == bits


@_checked_arguments
def has_coarse_grain_buffer_svm(dev: cl.Device) -> bool:
    """Whether the device offers coarse-grained buffer SVM (what SVMAllocator allocates)."""
    return _svm_capability(dev, _SVM_COARSE_GRAIN_BUFFER)


@_checked_arguments
def has_fine_grain_buffer_svm(dev: cl.Device) -> bool:
    """Whether the device offers fine-grained buffer SVM (mem_flags with SVM_FINE_GRAIN_BUFFER)."""
    return _svm_capability(dev, _SVM_FINE_GRAIN_BUFFER)


@_checked_arguments
def has_fine_grain_system_svm(dev: cl.Device) -> bool:
    """Whether the device can use any host memory (fine-grained system SVM)."""
    return _svm_capability(dev, _SVM_FINE_GRAIN_SYSTEM)


@_checked_arguments
def has_fine_grain_buffer_svm_atomics(dev: cl.Device) -> bool:
    """Whether fine-grained buffer SVM supports atomics shared with the host."""
    return _svm_capability(dev, _SVM_FINE_GRAIN_BUFFER | _SVM_ATOMICS)


@_checked_arguments
def has_fine_grain_system_svm_atomics(dev: cl.Device) -> bool:
    """Whether fine-grained system SVM supports atomics shared with the host."""
    return _svm_capability(dev, _SVM_FINE_GRAIN_SYSTEM | _SVM_ATOMICS)


@_checked_arguments
def has_src_build_cache(dev: cl.Device) -> bool | None:
    """Whether the implementation caches builds from source: True for PoCL and NVIDIA, False for
    AMD's APP platform, None when unknown."""
    if dev.platform.name == _POCL_PLATFORM_NAME or nv_compute_capability(dev) is not None:
        return True
    if dev.platform.name == "AMD Accelerated Parallel Processing":
        return False
    return None
