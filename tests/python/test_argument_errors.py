"""Bad integer arguments to the CUDA-side bindings: each error names the argument and says
why, instead of nanobind's generic "incompatible function arguments". Every call here is
converted before the driver is touched, so these run without a GPU."""

import numpy as np
import pytest

import gpukit.driver as drv
import gpukit.tools as tools
from gpukit import _gpukit
from gpukit.elementwise import ElementwiseKernel

ADDRESS = 0x10000  # a device address given as an integer: nothing is allocated


def set_field(cls, field):
    return lambda value: setattr(cls(), field, value)


def linear_texture(**override):
    def call(value):
        args = dict(
            num_channels=1, size_bytes=64, flags=0, filter_mode=drv.filter_mode.POINT, format=drv.array_format.FLOAT
        )
        args[override["arg"]] = value
        return drv.TextureObject.from_linear(
            ADDRESS,
            args["format"],
            args["num_channels"],
            args["size_bytes"],
            filter_mode=args["filter_mode"],
            flags=args["flags"],
        )

    return call


# (call taking the bad value, the name the error must give, whether the argument is unsigned)
CALLS = [
    (lambda v: drv.mem_alloc(v), "mem_alloc(bytes)", True),
    (lambda v: drv.DeviceAllocation(v), "DeviceAllocation(bytes)", True),
    (lambda v: drv.mem_alloc_pitch(v, 4, 4), "mem_alloc_pitch(width)", True),
    (lambda v: drv.mem_alloc_pitch(4, 4, v), "mem_alloc_pitch(access_size)", True),
    (lambda v: _gpukit._host_memoryview(ADDRESS, v, 0), "as_buffer(size)", True),
    (lambda v: drv.IPCMemoryHandle(bytes(64), v), "IPCMemoryHandle(flags)", True),
    (lambda v: drv.memcpy_dtod(ADDRESS, ADDRESS, v), "memcpy_dtod(size)", True),
    (lambda v: drv.memcpy_peer_async(ADDRESS, ADDRESS, v), "memcpy_peer_async(size)", True),
    (lambda v: drv.memset_d32(ADDRESS, 0, v), "memset_d32(count)", True),
    (lambda v: drv.memset_d2d8_async(ADDRESS, v, 0, 1, 1), "memset_d2d8_async(pitch)", True),
    (set_field(drv.Memcpy2D, "src_pitch"), "src_pitch", True),
    (set_field(drv.Memcpy3D, "depth"), "depth", True),
    (set_field(drv.Memcpy3DPeer, "dst_height"), "dst_height", True),
    (lambda v: drv.pagelocked_empty(4, np.uint8, mem_flags=v), "pagelocked_empty(mem_flags)", True),
    (lambda v: drv.aligned_empty(4, np.uint8, alignment=v), "aligned_empty(alignment)", True),
    (lambda v: drv.register_host_memory(np.zeros(4096, np.uint8), flags=v), "register_host_memory(flags)", True),
    (set_field(drv.ArrayDescriptor, "width"), "ArrayDescriptor.width", True),
    (set_field(drv.ArrayDescriptor3D, "flags"), "ArrayDescriptor3D.flags", True),
    (set_field(drv.ArrayDescriptor, "format"), "ArrayDescriptor.format", False),
    (linear_texture(arg="size_bytes"), "TextureObject.from_linear(size_bytes)", True),
    (linear_texture(arg="num_channels"), "TextureObject.from_linear(num_channels)", True),
    (linear_texture(arg="format"), "TextureObject.from_linear(format)", False),
    (linear_texture(arg="flags"), "TextureObject.from_linear(flags)", True),
    (linear_texture(arg="filter_mode"), "TextureObject.from_linear(filter_mode)", False),
    (
        lambda v: drv.TextureObject.from_pitch2d(ADDRESS, drv.array_format.FLOAT, 1, 4, 4, v),
        "from_pitch2d(pitch)",
        True,
    ),
    (lambda v: tools.bitlog2(v), "bitlog2(value)", True),
    (lambda v: tools.DeviceMemoryPool.bin_number(v), "bin_number(size)", True),
    (lambda v: tools.DeviceMemoryPool(v), "DeviceMemoryPool(leading_bits_in_bin_id)", True),
    (lambda v: tools.DeviceData.make_valid_tex_channel_count(v), "make_valid_tex_channel_count(size)", False),
    (
        lambda v: ElementwiseKernel("float *x", "x[i] = 0", "zero")._kernel.run([], v, None),
        "ElementwiseKernel(n)",
        True,
    ),
    (lambda v: drv.Context.set_limit(drv.limit.STACK_SIZE, v), "Context.set_limit(value)", True),
    (lambda v: drv.Context.get_limit(v), "Context.get_limit(limit)", False),
    (lambda v: drv.Context.attach(v), "Context.attach(flags)", True),
    (lambda v: drv.Context.set_cache_config(v), "Context.set_cache_config(cc)", False),
    (lambda v: drv.init(v), "init(flags)", True),
    (lambda v: drv.Device(v), "Device(number)", False),
    (lambda v: drv.Stream(v), "Stream(flags)", True),
    (lambda v: drv.Stream(0, v), "Stream(priority)", False),
    (lambda v: drv.Event(v), "Event(flags)", True),
]
IDS = [name for _, name, _ in CALLS]


@pytest.mark.parametrize("call, name, unsigned", CALLS, ids=IDS)
@pytest.mark.parametrize("value", [None, 2.5, b"3", True, [1]], ids=repr)
def test_non_integers_are_a_type_error_naming_the_argument(call, name, unsigned, value):
    with pytest.raises(TypeError, match=r"expected an integer, got") as info:
        call(value)
    assert name in str(info.value)


@pytest.mark.parametrize("call, name, unsigned", CALLS, ids=IDS)
@pytest.mark.parametrize("value", [2**64, -(2**63) - 1, 2**100], ids=repr)
def test_integers_beyond_the_type_say_its_range(call, name, unsigned, value):
    with pytest.raises(drv.LogicError, match=r"expected an integer from -?\d+ to \d+, got") as info:
        call(value)
    assert name in str(info.value) and str(value) in str(info.value)


@pytest.mark.parametrize(
    "call, name", [(c, n) for c, n, unsigned in CALLS if unsigned], ids=[n for _, n, unsigned in CALLS if unsigned]
)
def test_negative_values_for_unsigned_arguments(call, name):
    with pytest.raises(drv.LogicError, match=r"expected an integer from 0 to \d+, got -1"):
        call(-1)


def test_numpy_integers_are_integers():
    # Anything with __index__ converts; the failure is then the missing driver or a range check.
    with pytest.raises(drv.LogicError, match="bitlog2|range"):
        tools.bitlog2(np.int64(-1))
    assert tools.bitlog2(np.uint64(2**63)) == 63


def test_memset_fill_values_name_themselves():
    with pytest.raises(drv.LogicError, match="memset_d8: the fill value None is not an integer"):
        drv.memset_d8(ADDRESS, None, 1)


def test_texture_sampling_arguments():
    with pytest.raises(TypeError, match="border_color: give four floats"):
        drv.TextureObject.from_linear(ADDRESS, drv.array_format.FLOAT, 1, 64, border_color=[1, 2, "x", 4])
    with pytest.raises(drv.LogicError, match=r"address_mode: expected an integer from"):
        drv.TextureObject.from_linear(ADDRESS, drv.array_format.FLOAT, 1, 64, address_mode=2**70)
    with pytest.raises(TypeError, match="address_mode: give one address_mode or a tuple"):
        drv.TextureObject.from_linear(ADDRESS, drv.array_format.FLOAT, 1, 64, address_mode=2.5)


def test_host_views_beyond_the_address_space_are_refused():
    # No capacity is known for a bare address: the range itself must still make sense.
    with pytest.raises(drv.LogicError, match="beyond the address space"):
        _gpukit._host_memoryview(2**63, 16, 2**63)
    with pytest.raises(drv.LogicError, match="beyond the address space"):
        _gpukit._host_memoryview(ADDRESS, 2**63, 0)


@pytest.mark.parametrize(
    "call, message",
    [
        (
            lambda v: drv.TextureObject.from_linear(ADDRESS, drv.array_format.FLOAT, 1, 64, address_mode=v),
            r"address_mode: expected an address_mode \(WRAP=0, CLAMP=1, MIRROR=2, BORDER=3\), got ",
        ),
        (
            lambda v: drv.TextureObject.from_linear(ADDRESS, drv.array_format.FLOAT, 1, 64, filter_mode=v),
            r"TextureObject.from_linear\(filter_mode\): expected a filter_mode \(POINT=0, LINEAR=1\), got ",
        ),
        (
            lambda v: drv.TextureObject.from_linear(ADDRESS, v, 1, 64),
            r"TextureObject.from_linear\(format\): expected an array_format \(UNSIGNED_INT8=1, .*, \.\.\.\), got ",
        ),
        (set_field(drv.ArrayDescriptor, "format"), r"ArrayDescriptor.format: expected an array_format \(.*\), got "),
    ],
    ids=["address_mode", "filter_mode", "format", "ArrayDescriptor.format"],
)
@pytest.mark.parametrize("value", [-1, 99])
def test_enum_arguments_must_be_members(call, message, value):
    # Cast to the C enum, -1 was undefined behaviour (UBSan stopped the process) and 99 reached
    # the driver; each is refused with the members of its constant group.
    with pytest.raises(drv.LogicError, match=message + str(value)):
        call(value)
