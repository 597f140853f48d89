"""The OpenCL backend: platforms, devices, contexts, queues, buffers, programs, kernels and
events, with PyOpenCL's names so that code ports by changing the import.

``import gpukit.cl`` works without OpenCL; the first call that needs it raises
``gpukit.cl.RuntimeError`` naming libOpenCL.so.1.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, SupportsIndex

from gpukit._gpukit import cl as _cl
from gpukit.cl import _host_views, _images, _svm
from gpukit.cl._constants import constant_class as _constant_class

if TYPE_CHECKING:
    from gpukit.cl._host_views import HostBuffer

Error = _cl.Error
LogicError = _cl.LogicError
KernelArgumentError = _cl.KernelArgumentError
CommandQueueUsedAfterExit = _cl.CommandQueueUsedAfterExit
MemoryError = _cl.MemoryError  # noqa: A001  (PyOpenCL's name, shadowing the builtin on purpose)
RuntimeError = _cl.RuntimeError  # noqa: A001
mem_flags = _cl.mem_flags
map_flags = _cl.map_flags
# PyOpenCL's get_info parameters, each a class of plain ints (gpukit/cl/_constants.py).
mem_info = _constant_class("mem_info", _cl._info_parameters["mem_info"])
kernel_info = _constant_class("kernel_info", _cl._info_parameters["kernel_info"])
kernel_work_group_info = _constant_class("kernel_work_group_info", _cl._info_parameters["kernel_work_group_info"])
program_info = _constant_class("program_info", _cl._info_parameters["program_info"])
platform_info = _constant_class("platform_info", _cl._info_parameters["platform_info"])
device_info = _constant_class("device_info", _cl._info_parameters["device_info"])
context_info = _constant_class("context_info", _cl._info_parameters["context_info"])
command_queue_info = _constant_class("command_queue_info", _cl._info_parameters["command_queue_info"])
event_info = _constant_class("event_info", _cl._info_parameters["event_info"])
image_info = _constant_class("image_info", _cl._info_parameters["image_info"])
sampler_info = _constant_class("sampler_info", _cl._info_parameters["sampler_info"])
channel_order = _constant_class("channel_order", _cl._info_parameters["channel_order"])
channel_type = _constant_class("channel_type", _cl._info_parameters["channel_type"])
mem_object_type = _constant_class("mem_object_type", _cl._info_parameters["mem_object_type"])
addressing_mode = _constant_class("addressing_mode", _cl._info_parameters["addressing_mode"])
filter_mode = _constant_class("filter_mode", _cl._info_parameters["filter_mode"])
# PyOpenCL's status_code: each status code the C++ core has a name for (core codes 0 to -79,
# extensions' from -1000), under OpenCL's name less "CL_".
status_code = _constant_class(
    "status_code",
    [
        (name[3:], code)
        for code in (*range(0, -80, -1), *range(-1000, -1200, -1))
        if (name := _cl.error_name(code)).startswith("CL_")
    ],
)
profiling_info = _constant_class("profiling_info", _cl._info_parameters["profiling_info"])
program_build_info = _constant_class("program_build_info", _cl._info_parameters["program_build_info"])
command_execution_status = _constant_class("command_execution_status", _cl._info_parameters["command_execution_status"])
svm_mem_flags = _cl.svm_mem_flags
device_type = _cl.device_type
command_queue_properties = _cl.command_queue_properties
Platform = _cl.Platform
Device = _cl.Device
Context = _cl.Context
CommandQueue = _cl.CommandQueue
Buffer = _cl.Buffer
MemoryMap = _cl.MemoryMap
Image = _cl.Image
ImageFormat = _cl.ImageFormat
Sampler = _cl.Sampler
DeviceTopologyAmd = _cl.DeviceTopologyAmd
get_supported_image_formats = _cl.get_supported_image_formats
enqueue_fill_image = _cl.enqueue_fill_image
create_image = _images.create_image
image_from_array = _images.image_from_array
SVMPointer = _cl.SVMPointer
SVM = _cl.SVM
SVMMap = _svm.SVMMap
svm_empty = _svm.svm_empty
csvm_empty = _svm.csvm_empty
fsvm_empty = _svm.fsvm_empty
svm_empty_like = _svm.svm_empty_like
csvm_empty_like = _svm.csvm_empty_like
fsvm_empty_like = _svm.fsvm_empty_like
Program = _cl.Program
Kernel = _cl.Kernel
KernelParameter = _cl.KernelParameter
LocalMemory = _cl.LocalMemory
Event = _cl.Event
UserEvent = _cl.UserEvent
EventProfile = _cl.EventProfile
available = _cl.available
error_name = _cl.error_name
get_platforms = _cl.get_platforms
enqueue_copy = _cl.enqueue_copy
enqueue_marker = _cl.enqueue_marker
enqueue_barrier = _cl.enqueue_barrier
unload_platform_compiler = _cl.unload_platform_compiler
link_program = _cl.link_program
enqueue_fill_buffer = _cl.enqueue_fill_buffer
enqueue_map_buffer = _host_views.enqueue_map_buffer
enqueue_svm_memfill = _cl.enqueue_svm_memfill
wait_for_events = _cl.wait_for_events
enqueue_nd_range_kernel = _cl.enqueue_nd_range_kernel
parse_device_spec = _cl.parse_device_spec
select_devices = _cl.select_devices
get_cl_header_version = _cl.get_cl_header_version

# Whether this is PyPy, which PyOpenCL's tests and helpers ask (gpukit runs on CPython only).
_PYPY = "__pypy__" in sys.builtin_module_names

# PyOpenCL has SVMAllocation in pyopencl too: SVMAllocation(context, size, alignment, flags, queue=None).
SVMAllocation = _cl.tools.SVMAllocation

# PyOpenCL's type of the ctx_factory test argument (tests annotate it: `ctx_factory: cl.CtxFactory`).
CtxFactory = Callable[[], Context]

__all__ = [
    "Buffer",
    "SVM",
    "SVMMap",
    "svm_empty",
    "csvm_empty",
    "fsvm_empty",
    "svm_empty_like",
    "csvm_empty_like",
    "fsvm_empty_like",
    "MemoryMap",
    "map_flags",
    "enqueue_map_buffer",
    "Image",
    "ImageFormat",
    "Sampler",
    "DeviceTopologyAmd",
    "get_supported_image_formats",
    "enqueue_fill_image",
    "create_image",
    "image_from_array",
    "image_info",
    "sampler_info",
    "channel_order",
    "channel_type",
    "mem_object_type",
    "addressing_mode",
    "filter_mode",
    "status_code",
    "CommandQueue",
    "CommandQueueUsedAfterExit",
    "Context",
    "CtxFactory",
    "Device",
    "Error",
    "Event",
    "EventProfile",
    "Kernel",
    "KernelArgumentError",
    "KernelParameter",
    "UserEvent",
    "LocalMemory",
    "LogicError",
    "MemoryError",
    "Platform",
    "Program",
    "RuntimeError",
    "SVMPointer",
    "available",
    "command_queue_properties",
    "create_some_context",
    "device_type",
    "enqueue_copy",
    "get_cl_header_version",
    "enqueue_barrier",
    "enqueue_marker",
    "enqueue_nd_range_kernel",
    "unload_platform_compiler",
    "wait_for_events",
    "error_name",
    "enqueue_fill",
    "enqueue_fill_buffer",
    "enqueue_svm_memfill",
    "get_platforms",
    "link_program",
    "mem_flags",
    "kernel_info",
    "kernel_work_group_info",
    "mem_info",
    "program_info",
    "platform_info",
    "device_info",
    "context_info",
    "command_queue_info",
    "event_info",
    "profiling_info",
    "program_build_info",
    "command_execution_status",
    "svm_mem_flags",
    "SVMAllocation",
    "parse_device_spec",
    "select_devices",
]


def enqueue_fill(
    queue: CommandQueue,
    dest: Buffer | SVMPointer,
    pattern: HostBuffer,
    size: SupportsIndex,
    *,
    offset: SupportsIndex = 0,
    wait_for: Iterable[Event] | None = None,
) -> Event:
    """Fill `size` bytes of `dest` (a Buffer, from `offset`, or SVM, from its start) with copies
    of `pattern`, as PyOpenCL's."""
    if isinstance(dest, Buffer):
        return enqueue_fill_buffer(queue, dest, pattern, offset, size, wait_for)
    if isinstance(dest, SVMPointer):
        if offset:
            raise ValueError(
                f"enqueue_fill: offset {offset} is not supported with SVM; fill from its start "
                f"(PyOpenCL does not support it either)"
            )
        return enqueue_svm_memfill(queue, dest, pattern, size, wait_for)
    raise TypeError(f"enqueue_fill(dest) must be a Buffer or SVM, got {type(dest).__name__}")


def create_some_context(interactive: bool | None = False, answers: Sequence[str] | None = None) -> Context:
    """A Context chosen as PyOpenCL chooses one. ``answers`` (``[platform, devices]``, each
    an index or a name's substring, devices comma-separated; PyOpenCL's form) chooses first;
    else the environment: ``GPUKIT_CL_CTX``, ``GPUKIT_CL_TEST``, ``PYOPENCL_TEST`` (the first
    device each chooses), ``PYOPENCL_CTX`` (PyOpenCL's ``platform:devices``, every device it
    names); else, when ``interactive`` is true (None: when stdin is a terminal, as in PyOpenCL)
    and stdin is a terminal, the answer to a question; else the first device."""
    if answers is not None:
        if isinstance(answers, (str, bytes)) or not all(isinstance(a, str) for a in answers):
            raise TypeError(
                f"create_some_context: answers must be a list of strings (platform, devices), got {answers!r}"
            )
        return Context(_devices_of_answers(list(answers), f"create_some_context(answers={answers!r})"))
    if os.environ.get("GPUKIT_CL_CTX", "").strip() or os.environ.get("GPUKIT_CL_TEST", "").strip():
        return _cl.create_some_context()
    if os.environ.get("PYOPENCL_TEST", "").strip():
        spec = os.environ["PYOPENCL_TEST"]
        return Context(_devices_of_spec(spec, f"PYOPENCL_TEST={spec!r}")[:1])
    if "PYOPENCL_CTX" in os.environ:
        spec = os.environ["PYOPENCL_CTX"]
        return Context(_devices_of_answers(spec.split(":"), f"PYOPENCL_CTX={spec!r}"))
    if interactive is None:
        interactive = True
    if interactive and sys.stdin.isatty():
        return Context(select_devices(_ask_for_device())[:1])
    return _cl.create_some_context()


def _devices_of_spec(spec: str, source: str) -> list[Device]:
    """select_devices(spec), its errors saying where the spec came from (`source`)."""
    try:
        return select_devices(spec)
    except LogicError as e:
        raise RuntimeError(f"{source}: {e}") from None


def _devices_of_answers(answers: list[str], source: str) -> list[Device]:
    """PyOpenCL's answers, ``[platform, devices]``: a blank or missing platform is the first,
    blank or missing devices the platform's first; more answers than two are an error."""
    if len(answers) > 2:
        raise RuntimeError(
            f"{source}: not all choices were used (left over: {':'.join(answers[2:])!r}); "
            "expected platform[:device,device...], each an index or a name's substring"
        )
    platform = answers[0].strip() if answers else ""
    devices = answers[1].strip() if len(answers) > 1 else ""
    return _devices_of_spec(f"{platform or '0'}:{devices or '0'}", source)


def _ask_for_device() -> str:
    for p_index, platform in enumerate(get_platforms()):
        print(f"[{p_index}] {platform.name}")
        for d_index, device in enumerate(platform.get_devices()):
            print(f"    [{p_index}:{d_index}] {device.name}")
    answer = input("Choose a device as platform:device (the GPUKIT_CL_CTX syntax) [0:0]: ").strip()
    return answer or "0:0"
