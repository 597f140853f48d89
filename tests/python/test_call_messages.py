"""Calls that the extension module cannot convert (issue 29, items 8 and 9): the TypeError
names the argument, what it must be and what it was, never nanobind's "incompatible function
arguments" with its internal signatures, and never a C++ type name (std::bad_cast). Objects
made with ``Class.__new__(Class)``, whose __init__ never ran, say so wherever they are used.
python/bindings/common/argument_errors.hpp routes every bound function's failures through
gpukit/_errors/arguments.py; test_public_api_fuzz.py looks for these over every public callable."""

import re
import types

import numpy as np
import pytest

import gpukit.cl as cl
import gpukit.cl.tools as cl_tools
import gpukit.compiler as compiler
import gpukit.driver as drv
import gpukit.gpuarray as gpuarray
from cl_devices import ctx  # noqa: F401  (a fixture: one context per OpenCL device)
from gpukit import _gpukit
from gpukit.elementwise import ElementwiseKernel

pytestmark = pytest.mark.filterwarnings("ignore:nanobind. attempted to access an uninitialized instance:RuntimeWarning")

# What no message may contain: nanobind's generic text, C++ namespaces, mangled names.
FORBIDDEN = re.compile(r"incompatible function arguments|std::|gpukit::|nanobind::|\bnb::|bad_cast|_Z[NS]")
SOURCE = "__global__ void f(float *x) { }"


def message_of(call):
    with pytest.raises(TypeError) as raised:
        call()
    message = str(raised.value)
    assert not FORBIDDEN.search(message), message
    return message


# (the call, what its message must say); no driver, GPU or OpenCL is needed before they fail.
NO_DEVICE_CALLS = [
    (lambda: compiler.compile(SOURCE.encode()), "argument 'source' must be str, not bytes"),
    (lambda: compiler.compile(None), "argument 'source' must be str, not NoneType"),
    (lambda: ElementwiseKernel("float *x", None), "argument 'operation' must be str, not NoneType"),
    (lambda: cl.CommandQueue(None), "CommandQueue(): argument 'context' must be Context, not NoneType"),
    (
        lambda: cl.Buffer(None, cl.mem_flags.READ_WRITE, 16),
        "Buffer(): argument 'context' must be Context, not NoneType",
    ),
    (lambda: cl.Program(None, "x"), "Program(): argument 'context' must be Context, not NoneType"),
    (lambda: cl_tools.MemoryPool(None), "MemoryPool(): argument 'allocator' must be AllocatorBase, not NoneType"),
    (lambda: drv.Device.count(1), "Device.count() takes at most 0 positional arguments (1 given)"),
    (lambda: cl.LocalMemory(16, nosuch=1), "LocalMemory() got an unexpected keyword argument 'nosuch'"),
    (lambda: cl.LocalMemory(), "LocalMemory() missing required argument 'size'"),
    (lambda: gpuarray.maximum((4, 4), np.float32), "maximum: operands are GPUArrays or scalars, got <class 'tuple'>"),
    (lambda: gpuarray.minimum(np.float32, (4, 4)), "minimum: operands are GPUArrays or scalars, got <class 'type'>"),
]


@pytest.mark.parametrize("call, expected", NO_DEVICE_CALLS, ids=[e for _, e in NO_DEVICE_CALLS])
def test_messages_name_the_argument(call, expected):
    assert expected in message_of(call)


def test_text_that_is_no_utf8_is_named():
    # os.fsdecode of a non-UTF-8 file name holds surrogate escapes, which cannot cross as UTF-8
    # where the argument is text, not a path (paths cross as bytes: test_paths.py).
    message = message_of(
        lambda: _gpukit._prepare_compile(
            SOURCE, ["-DX=\udcff"], "sm_90", [], [], False, "nvrtc", "nvcc", "cubin", False
        )
    )
    assert "argument 'options' must be text that can be encoded as UTF-8" in message


def test_the_argument_of_the_wrong_type_is_named_not_an_earlier_one():
    # shape (an int) comes first and is fine; seed, a str where a float goes, is what failed.
    assert (
        message_of(lambda: _gpukit._curand_rand(4, np.float32, None, "1.0")) == "argument 'seed' must be float, not str"
    )


def test_integers_beyond_the_parameter_type_are_out_of_range():
    message = message_of(lambda: _gpukit.nccl.Communicator(2**70, b"", 0))
    assert "Communicator(): argument 'nranks' is out of range: 1180591620717411303424" in message
    assert "argument 'enabled' must be bool, not int" in message_of(lambda: _gpukit._set_leak_warnings(2))


@pytest.mark.opencl
@pytest.mark.parametrize(
    "call, expected",
    [
        (
            lambda c, q: cl.enqueue_copy(q, None, cl.Buffer(c, cl.mem_flags.READ_WRITE, 16)),
            "enqueue_copy(): argument 'dest' must not be None",
        ),
        (
            lambda c, q: cl.tools.ImmediateAllocator(c),
            "ImmediateAllocator(): argument 'queue' must be CommandQueue, not Context",
        ),
        (lambda c, q: cl.Program(c, None), "Program(context, source): source must be a str of OpenCL C, got NoneType"),
        (
            lambda c, q: (
                cl.Program(c, "__kernel void k(__global int *x) { }")
                .build()
                .k.get_work_group_info(cl.kernel_work_group_info.WORK_GROUP_SIZE, None)
            ),
            "Kernel.get_work_group_info(): argument 'device' must be Device",
        ),
        (
            lambda c, q: cl.CommandQueue(cl.Context.__new__(cl.Context)),
            "CommandQueue(): argument 'context' is a Context object that was not initialised: "
            "make it by calling Context(...)",
        ),
        (
            lambda c, q: cl.enqueue_copy(q, cl.Buffer.__new__(cl.Buffer), np.zeros(4, np.float32)),
            "argument 'dest' is a Buffer object that was not initialised",
        ),
        (
            lambda c, q: cl.enqueue_marker(q, wait_for=[cl.Event.__new__(cl.Event)]),
            "argument 'wait_for' holds an Event object that was not initialised",
        ),
    ],
    ids=[
        "copy-None",
        "allocator-of-context",
        "program-None",
        "work-group-info-None",
        "uninitialised-context",
        "uninitialised-buffer",
        "uninitialised-event-in-list",
    ],
)
def test_opencl_messages_name_the_argument(ctx, call, expected):  # noqa: F811
    queue = cl.CommandQueue(ctx)
    assert expected in message_of(lambda: call(ctx, queue))


def bound_classes():
    """Every class of the extension module and its submodules."""
    found, modules = [], [_gpukit]
    while modules:
        module = modules.pop()
        for value in vars(module).values():
            if isinstance(value, types.ModuleType) and value.__name__.startswith("gpukit._gpukit."):
                modules.append(value)
            elif isinstance(value, type) and type(value).__name__.startswith("nb_type") and value not in found:
                found.append(value)
    return sorted(found, key=lambda c: f"{c.__module__}.{c.__qualname__}")


def instance_members(cls):
    """The methods and properties of cls that need an instance; dunders only where Python calls
    them for an ordinary use (repr, len, iteration, ...)."""
    used_dunders = {
        "__repr__",
        "__str__",
        "__len__",
        "__iter__",
        "__int__",
        "__index__",
        "__hash__",
        "__bool__",
        "__exit__",
        "__call__",
        "__getitem__",
    }
    for name, member in vars(cls).items():
        if name.startswith("__") and name not in used_dunders:
            continue
        if type(member).__name__ == "nb_method" or isinstance(member, property):
            yield name, member


@pytest.mark.parametrize("cls", bound_classes(), ids=lambda c: c.__qualname__)
def test_every_method_of_an_uninitialised_object_says_so(cls):
    # Item 8: cl.Program.__new__(cl.Program).build() gave RuntimeError "std::bad_cast".
    obj = cls.__new__(cls)
    assert _gpukit._uninitialised(obj)
    for name, member in instance_members(cls):
        call = (lambda: getattr(obj, name)) if isinstance(member, property) else (lambda: getattr(obj, name)())
        message = message_of(call)
        expected = f"this {cls.__name__} object was not initialised: make it by calling {cls.__name__}(...)"
        assert expected in message, name


def test_uninitialised_objects_are_told_from_made_ones():
    assert not _gpukit._uninitialised(drv.Memcpy2D())
    assert not _gpukit._uninitialised(None)
    assert not _gpukit._uninitialised(object())


def test_a_successful_call_is_unchanged():
    # The trampoline only acts on failures: results and other exceptions pass as they were.
    assert _gpukit._uninitialised(3) is False
    with pytest.raises(drv.LogicError, match="bitlog2"):
        _gpukit.bitlog2(-1)


def fake_array():
    """A GPUArray over a made-up device address: enough for everything checked before a launch."""
    return gpuarray.GPUArray((4,), np.float32, gpudata=1 << 20)


@pytest.mark.parametrize(
    "call, expected",
    [
        (lambda u: gpuarray.take(u, None), "argument 'a' is a GPUArray object that was not initialised"),
        (
            lambda u: gpuarray.logical_not(fake_array(), out=u),
            "argument 'out' is a GPUArray object that was not initialised",
        ),
        (
            lambda u: fake_array() + u,
            "GPUArray.__add__(): argument 'other' is a GPUArray object that was not initialised",
        ),
        (
            lambda u: gpuarray.multi_take([fake_array(), u], fake_array()),
            "argument 'arrays' holds a GPUArray object that was not initialised",
        ),
    ],
    ids=["take", "logical_not-out", "operator", "in-a-list"],
)
def test_uninitialised_arrays_are_refused_not_read(call, expected):
    # These read the C++ array of an object whose __init__ never ran: a segfault before.
    assert expected in message_of(lambda: call(gpuarray.GPUArray.__new__(gpuarray.GPUArray)))


def test_uninitialised_host_memory_has_no_buffer():
    obj = drv.AlignedHostAllocation.__new__(drv.AlignedHostAllocation)
    with pytest.raises(BufferError, match=r"this AlignedHostAllocation object was not initialised"):
        memoryview(obj)


class ForeignArray:
    """An object of another library, with the __cuda_array_interface__ it is given."""

    def __init__(self, interface):
        self.__cuda_array_interface__ = interface


def interface(**override):
    return dict({"typestr": "<f4", "shape": (4,), "data": (1 << 20, False), "version": 3}, **override)


MALFORMED_INTERFACES = [
    (5, TypeError, r"ForeignArray must be a dict, got int"),
    (
        interface(data=5),
        TypeError,
        r"\['data'\] must be an \(address, read_only\) tuple with an integer address, got 5",
    ),
    (interface(data=("x", False)), TypeError, r"\['data'\] must be an \(address, read_only\) tuple"),
    (interface(data=(-1, False)), drv.LogicError, r"\['data'\]\[0\]: the address -1 is negative or too large"),
    (interface(typestr="x"), TypeError, r"\['typestr'\] must be a numpy type string such as '<f4', got 'x'"),
    (interface(typestr=None), TypeError, r"\['typestr'\] must be a numpy type string"),
    (interface(shape="no"), TypeError, r"\['shape'\] must be a tuple of integers, got str"),
    (interface(shape=(-4,)), ValueError, r"\['shape'\] holds -4, which is not an integer from 0"),
    (interface(shape=(2**62, 2**62)), ValueError, r"\['shape'\] describes more bytes than the address space holds"),
    (interface(strides=(4, 4)), ValueError, "'strides' and 'shape' differ in length"),
    ({"typestr": "<f4", "shape": (4,)}, TypeError, r"has no 'data'"),
]


@pytest.mark.parametrize("value, error, match", MALFORMED_INTERFACES, ids=[m for _, _, m in MALFORMED_INTERFACES])
@pytest.mark.parametrize(
    "call, name",
    [
        (lambda v: drv.memcpy_htod(v, np.zeros(4, np.float32)), r"memcpy_htod\(dest\)"),
        (lambda v: _gpukit._kernel_argument_bytes(v), "argument 0"),  # what Function.__call__ passes
        (lambda v: _gpukit._prepared_argument_bytes("P", v), "argument 0"),  # what prepared_call passes
    ],
    ids=["memcpy", "kernel-argument", "prepared-argument"],
)
def test_a_malformed_cuda_array_interface_is_named(call, name, value, error, match):
    # Each was a C++ cast error, and a kernel argument with data=5 a segfault.
    with pytest.raises(error, match=f"^{name}: __cuda_array_interface__ of .*{match}"):
        call(ForeignArray(value))


def test_kernel_arguments_beyond_64_bits_say_the_range():
    for value in (2**64, -(2**63) - 1):
        with pytest.raises(
            drv.LogicError,
            match=rf"argument 0: expected an integer from -9223372036854775808 to "
            rf"18446744073709551615, got {value}",
        ):
            _gpukit._kernel_argument_bytes(value)
    with pytest.raises(drv.LogicError, match="argument 0: the address -5 is negative or too large"):
        _gpukit._kernel_argument_bytes(types.SimpleNamespace(get_pointer=lambda: -5))


def test_the_last_resort_shows_the_signature_in_python_terms():
    # When no argument can be blamed, the message still names the call and what it takes, in
    # the package's words (the fuzz fails on these, so that each gets a precise message).
    from gpukit._errors import arguments

    assert (
        arguments.explain(drv.Memcpy2D.set_src_host, (drv.Memcpy2D(), 1), {}, False)
        == "Memcpy2D.set_src_host(): the arguments (int) match none of its signatures: (buffer: any object)"
    )
    assert (
        arguments.explain(drv.Memcpy2D.set_src_host, (drv.Memcpy2D(), 1), {}, True)
        == "Memcpy2D.set_src_host(): an argument, or an item of one, is not of a type this call takes (given: int)"
    )
