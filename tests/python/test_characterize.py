"""gpukit.characterize: PyCUDA's platform_bits, has_double_support, has_stack and sizeof."""

import numpy as np
import pytest

import gpukit.driver as drv
from gpukit import characterize, tools
from gpukit.gpuarray import vec


def test_platform_bits_is_the_host_pointer_size():
    assert characterize.platform_bits() == np.dtype(np.intp).itemsize * 8 == 64


def test_device_questions_need_a_context():
    if drv.driver_available() and drv.Device.count() > 0:
        pytest.skip("checks the error on a machine without a current context")
    for question in (characterize.has_double_support, characterize.has_stack):
        with pytest.raises(drv.Error):
            question()
    with pytest.raises(drv.Error):
        characterize.sizeof("float")


def test_sizeof_names_a_type_name_that_is_no_str():
    # Checked before the device is asked (so the same with or without one).
    with pytest.raises(TypeError, match=r"sizeof\(type_name\) must be a str, got NoneType"):
        characterize.sizeof(None)
    with pytest.raises(TypeError, match=r"sizeof\(preamble\) must be a str, got int"):
        characterize.sizeof("float", 3)


@pytest.mark.gpu
def test_every_device_has_doubles_and_a_stack(ctx):
    assert characterize.has_double_support() is True
    assert characterize.has_stack() is True


@pytest.mark.gpu
@pytest.mark.parametrize(
    "type_name,expected",
    [
        ("char", 1),
        ("short", 2),
        ("int", 4),
        ("long", 8),
        ("long long", 8),
        ("size_t", 8),
        ("void *", 8),
        ("float", 4),
        ("double", 8),
        ("float3", 12),
        ("float4", 16),
        ("double2", 16),
        ("char3", 3),
        ("long3", 24),
    ],
)
def test_sizeof_builtin_types(ctx, type_name, expected):
    assert characterize.sizeof(type_name) == expected


@pytest.mark.gpu
def test_sizeof_agrees_with_the_dtype_registry(ctx):
    for name in ("unsigned short", "unsigned", "unsigned long", "bool", "ptrdiff_t", "uchar2", "ushort3", "ulong4"):
        assert characterize.sizeof(name) == tools.get_or_register_dtype(name).itemsize, name
    assert characterize.sizeof("int2") == vec.int2.itemsize


@pytest.mark.gpu
def test_sizeof_with_a_preamble_and_its_cache(ctx, monkeypatch):
    preamble = "struct padded { char c; double d; char e; };"
    assert characterize.sizeof("padded", preamble) == 24
    assert characterize.sizeof("padded[3]", preamble) == 72

    def no_compiling(*args, **kwargs):
        raise AssertionError("sizeof() compiled again")

    monkeypatch.setattr(characterize, "SourceModule", no_compiling)
    assert characterize.sizeof("padded", preamble) == 24  # from the cache
    with pytest.raises(AssertionError, match="compiled again"):
        characterize.sizeof("padded", preamble + " ")  # another preamble is another question


@pytest.mark.gpu
def test_sizeof_an_unknown_type_is_a_compile_error(ctx):
    with pytest.raises(drv.CompileError, match="no_such_type"):
        characterize.sizeof("no_such_type")
