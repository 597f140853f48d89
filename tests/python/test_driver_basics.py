"""What works on every machine: import, versions, the error tree, the constant classes,
and a clear error when there is no CUDA driver."""

import enum
import subprocess
import sys

import pytest

import gpukit
import gpukit.driver as drv


def test_versions():
    assert gpukit.VERSION >= (0, 1)
    assert isinstance(gpukit.VERSION_STATUS, str)
    assert gpukit.VERSION_TEXT.startswith("0.")
    major, minor, revision = drv.get_version()
    assert major >= 12 and minor >= 0 and revision >= 0


def test_error_tree():
    for cls in (drv.MemoryError, drv.LogicError, drv.LaunchError, drv.RuntimeError, drv.CompileError):
        assert issubclass(cls, drv.Error)
        assert cls.__module__ == "gpukit.driver"
    assert issubclass(drv.Error, Exception)


SEED_CLASSES = {
    "ctx_flags": [
        "SCHED_AUTO",
        "SCHED_SPIN",
        "SCHED_YIELD",
        "SCHED_MASK",
        "SCHED_BLOCKING_SYNC",
        "MAP_HOST",
        "LMEM_RESIZE_TO_MAX",
        "FLAGS_MASK",
    ],
    "event_flags": ["DEFAULT", "BLOCKING_SYNC", "DISABLE_TIMING", "INTERPROCESS"],
    "device_attribute": [
        "MAX_THREADS_PER_BLOCK",
        "CLOCK_RATE",
        "MULTIPROCESSOR_COUNT",
        "PCI_BUS_ID",
        "COMPUTE_CAPABILITY_MAJOR",
        "MAX_SHARED_MEMORY_PER_BLOCK_OPTIN",
        "HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED",
    ],
    "pointer_attribute": ["CONTEXT", "MEMORY_TYPE", "DEVICE_POINTER"],
    "function_attribute": [
        "MAX_THREADS_PER_BLOCK",
        "SHARED_SIZE_BYTES",
        "CONST_SIZE_BYTES",
        "LOCAL_SIZE_BYTES",
        "NUM_REGS",
        "PTX_VERSION",
        "BINARY_VERSION",
        "CACHE_MODE_CA",
        "MAX_DYNAMIC_SHARED_SIZE_BYTES",
        "PREFERRED_SHARED_MEMORY_CARVEOUT",
        "MAX",
    ],
    "func_cache": ["PREFER_NONE", "PREFER_SHARED", "PREFER_L1", "PREFER_EQUAL"],
    "shared_config": ["DEFAULT_BANK_SIZE", "FOUR_BYTE_BANK_SIZE", "EIGHT_BYTE_BANK_SIZE"],
    "array_format": [
        "UNSIGNED_INT8",
        "UNSIGNED_INT16",
        "UNSIGNED_INT32",
        "SIGNED_INT8",
        "SIGNED_INT16",
        "SIGNED_INT32",
        "HALF",
        "FLOAT",
    ],
    "array3d_flags": ["LAYERED", "SURFACE_LDST", "CUBEMAP", "TEXTURE_GATHER"],
    "address_mode": ["WRAP", "CLAMP", "MIRROR", "BORDER"],
    "filter_mode": ["POINT", "LINEAR"],
    "compute_mode": ["DEFAULT", "PROHIBITED", "EXCLUSIVE_PROCESS"],
    "jit_option": [
        "MAX_REGISTERS",
        "THREADS_PER_BLOCK",
        "WALL_TIME",
        "INFO_LOG_BUFFER",
        "INFO_LOG_BUFFER_SIZE_BYTES",
        "ERROR_LOG_BUFFER",
        "ERROR_LOG_BUFFER_SIZE_BYTES",
        "OPTIMIZATION_LEVEL",
        "TARGET_FROM_CUCONTEXT",
        "TARGET",
        "FALLBACK_STRATEGY",
    ],
    "jit_target": ["COMPUTE_75", "COMPUTE_90"],
    "jit_input_type": ["CUBIN", "PTX", "FATBINARY", "OBJECT", "LIBRARY"],
    "limit": ["STACK_SIZE", "PRINTF_FIFO_SIZE", "MALLOC_HEAP_SIZE"],
    "host_alloc_flags": ["PORTABLE", "DEVICEMAP", "WRITECOMBINED"],
    "mem_attach_flags": ["GLOBAL", "HOST", "SINGLE"],
    "mem_host_register_flags": ["PORTABLE", "DEVICEMAP"],
    "ipc_mem_flags": ["LAZY_ENABLE_PEER_ACCESS"],
}


@pytest.mark.parametrize("name", sorted(SEED_CLASSES))
def test_constant_classes(name):
    cls = getattr(drv, name)
    assert issubclass(cls, (enum.IntEnum, enum.IntFlag))
    for member in SEED_CLASSES[name]:
        assert isinstance(getattr(cls, member), int), f"{name}.{member}"


def test_constant_values_and_flags():
    assert drv.device_attribute.WARP_SIZE == 10
    assert drv.event_flags.DISABLE_TIMING | drv.event_flags.INTERPROCESS == 6
    assert drv.TRSF_NORMALIZED_COORDINATES == 2
    assert len(drv.device_attribute) > 120


@pytest.mark.skipif(drv.driver_available(), reason="a CUDA driver is installed here")
def test_no_driver_is_a_clear_error():
    with pytest.raises(drv.RuntimeError, match="libcuda.so.1"):
        drv.Device.count()
    with pytest.raises(drv.RuntimeError, match="libcuda.so.1"):
        drv.Device(0)
    with pytest.raises(drv.RuntimeError, match="libcuda.so.1"):
        drv.Stream()
    with pytest.raises(drv.RuntimeError, match="libcuda.so.1"):
        drv.init()


def test_import_needs_no_driver():
    # A fresh interpreter imports everything CPU-only without touching CUDA.
    code = "import gpukit, gpukit.driver, gpukit.tools; print(gpukit.VERSION_TEXT)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == gpukit.VERSION_TEXT
