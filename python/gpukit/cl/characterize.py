"""What a program may assume about an OpenCL device, under PyOpenCL's
``pyopencl.characterize`` names. Answers come from what the device reports; where the
answer is a vendor fact rather than a query, the function says which."""
import struct

import gpukit.cl as cl

# clGetDeviceInfo parameters not bound as Device properties.
_PREFERRED_VECTOR_WIDTH = {1: 0x1006, 2: 0x1007, 4: 0x1008, 8: 0x1009}  # CHAR, SHORT, INT, LONG
_COMPUTE_CAPABILITY_MAJOR_NV = 0x4000
_COMPUTE_CAPABILITY_MINOR_NV = 0x4001


def _uint_info(dev, param):
    return struct.unpack("I", dev.get_info(param))[0]


def _is_nvidia(dev):
    return "nvidia" in dev.vendor.lower()


def _is_amd_gpu(dev):
    vendor = dev.vendor.lower()
    return bool(dev.type & cl.device_type.GPU) and ("advanced micro devices" in vendor or "amd" in vendor)


def get_fast_inaccurate_build_options(dev):
    """Build options that trade floating-point accuracy for speed: the standard OpenCL C ones,
    which every device accepts (``dev`` is taken for PyOpenCL compatibility and for devices
    that may need their own list later)."""
    return ["-cl-mad-enable", "-cl-fast-relaxed-math", "-cl-no-signed-zeros"]


def get_simd_group_size(dev, type_size):
    """How many work items run in lock-step on one SIMD unit for elements of ``type_size``
    bytes (1, 2, 4 or 8): 32 on NVIDIA (a warp), 64 on AMD GPUs (a wavefront), and on other
    devices the preferred vector width the device reports for that element size (on CPUs
    this is how many work items one vector instruction covers). None when unknown."""
    if type_size not in _PREFERRED_VECTOR_WIDTH:
        raise ValueError(f"type_size {type_size!r} is not an OpenCL scalar size; expected 1, 2, 4 or 8")
    if _is_nvidia(dev):
        return 32
    if _is_amd_gpu(dev):
        return 64
    width = _uint_info(dev, _PREFERRED_VECTOR_WIDTH[type_size])
    return width or None


def has_struct_arg_count_bug(dev, ctx=None):
    """Whether the device's implementation miscounts kernel arguments when structs are passed
    by value: "apple" for Apple's CPU implementation, which is known to, else False. ``ctx`` is
    accepted for PyOpenCL compatibility; the answer depends on the device alone."""
    if dev.platform.name == "Apple" and dev.type & cl.device_type.CPU:
        return "apple"
    return False


def nv_compute_capability(dev):
    """(major, minor) compute capability of an NVIDIA device that offers the
    cl_nv_device_attribute_query extension; None for every other device."""
    if "cl_nv_device_attribute_query" not in dev.extensions.split():
        return None
    return _uint_info(dev, _COMPUTE_CAPABILITY_MAJOR_NV), _uint_info(dev, _COMPUTE_CAPABILITY_MINOR_NV)


def simultaneous_work_items_on_local_access(dev):
    """How many work items access local memory in the same cycle, and so can conflict over its
    banks: a half-warp (16) on NVIDIA devices before compute capability 2.0 and a warp (32)
    after, 32 on AMD GPUs (half a wavefront), and on other devices (CPUs) the SIMD group size
    for 4-byte elements, since one vector instruction makes those accesses together."""
    if _is_nvidia(dev):
        capability = nv_compute_capability(dev)
        return 16 if capability is not None and capability < (2, 0) else 32
    if _is_amd_gpu(dev):
        return 32
    return get_simd_group_size(dev, 4) or 1
