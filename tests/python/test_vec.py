"""gpuarray.vec: CUDA's vector types as numpy dtypes. Their layout is checked against CUDA's
own headers by compiling (NVRTC, no GPU needed); the GPU tests pass them to kernels."""

import numpy as np
import pytest

import gpukit.compiler as compiler
import gpukit.driver as drv
from gpukit import _gpukit
from gpukit.gpuarray import vec

needs_nvrtc = pytest.mark.skipif(not _gpukit.nvrtc_available(), reason="NVRTC (libnvrtc.so) is not installed")

# PyCUDA's list: (base name, scalar dtype, component counts).
PYCUDA_TYPES = [
    ("char", np.int8, 4),
    ("uchar", np.uint8, 4),
    ("short", np.int16, 4),
    ("ushort", np.uint16, 4),
    ("int", np.int32, 4),
    ("uint", np.uint32, 4),
    ("long", np.int64, 4),
    ("ulong", np.uint64, 4),
    ("longlong", np.int64, 2),
    ("ulonglong", np.uint64, 2),
    ("float", np.float32, 4),
    ("double", np.float64, 2),
]
ALL_NAMES = [f"{base}{n}" for base, _, counts in PYCUDA_TYPES for n in range(1, counts + 1)]


@pytest.mark.parametrize("base,scalar,counts", PYCUDA_TYPES)
def test_each_type_is_a_packed_record_of_its_components(base, scalar, counts):
    for count in range(1, counts + 1):
        dtype = getattr(vec, f"{base}{count}")
        assert dtype.names == ("x", "y", "z", "w")[:count]
        assert all(dtype.fields[name][0] == scalar for name in dtype.names)
        assert dtype.itemsize == count * np.dtype(scalar).itemsize
        assert [dtype.fields[name][1] for name in dtype.names] == [i * np.dtype(scalar).itemsize for i in range(count)]
    assert not hasattr(vec, f"{base}{counts + 1}")


def test_known_sizes():
    assert vec.float3.itemsize == 12 and vec.float4.itemsize == 16 and vec.double2.itemsize == 16
    assert vec.char3.itemsize == 3 and vec.long3.itemsize == 24 and vec.ulonglong2.itemsize == 16


def test_make_gives_a_numpy_scalar_of_the_type():
    v = vec.make_float3(1, 2.5, -3)
    assert isinstance(v, np.void) and v.dtype == vec.float3
    assert (v["x"], v["y"], v["z"]) == (1.0, 2.5, -3.0)
    assert bytes(memoryview(v)) == np.array([1, 2.5, -3], np.float32).tobytes()
    w = vec.make_short4(w=4, z=3, y=2, x=1)
    assert [int(w[f]) for f in "xyzw"] == [1, 2, 3, 4]
    assert vec.make_double1(0.125)["x"] == 0.125
    assert vec.make_ulong2(2**64 - 1, 0)["x"] == 2**64 - 1


def test_make_refuses_wrong_components():
    with pytest.raises(TypeError):
        vec.make_float3(1, 2)
    with pytest.raises(TypeError):
        vec.make_float2(1, 2, 3)
    with pytest.raises(TypeError):
        vec.make_int2(1, y=2, w=3)
    with pytest.raises(OverflowError):
        vec.make_uchar2(256, 0)


def test_arrays_of_a_vector_type_compare_with_a_scalar():
    a = np.empty(5, vec.int2)
    a[:] = vec.make_int2(7, -1)
    assert (a == vec.make_int2(7, -1)).all()
    assert a.view(np.int32).tolist() == [7, -1] * 5


@needs_nvrtc
def test_sizes_and_components_match_cuda():
    # Same-typed members have no padding between them, so the size of the type, of its x and
    # the kind of x (signed, unsigned or floating) pin the layout down.
    checks = []
    for name in ALL_NAMES:
        dtype = getattr(vec, name)
        scalar = dtype.fields["x"][0]
        component = f"decltype((({name} *) 0)->x)"
        checks.append(f'static_assert(sizeof({name}) == {dtype.itemsize}, "{name} size");')
        checks.append(f'static_assert(sizeof({component}) == {scalar.itemsize}, "{name}.x size");')
        kind = {"i": f"({component}) -1 < 0", "u": f"({component}) -1 > 0", "f": f"({component}) 0.5 != 0"}[scalar.kind]
        checks.append(f'static_assert({kind}, "{name}.x kind");')
    source = "\n".join(checks) + "\n__global__ void nothing() {}\n"
    # long4 and friends are deprecated in CUDA 13 (in favour of _16a/_32a spellings): silence that.
    compiler.compile(source, arch="sm_90", no_extern_c=True, options=["-D__NV_NO_VECTOR_DEPRECATION_DIAG"])


@pytest.mark.gpu
def test_vector_scalar_and_array_reach_a_kernel(ctx):
    # PyCUDA's test_vector_types: a float3 by value, written to every element of an Out array.
    from gpukit.compiler import SourceModule

    mod = SourceModule("""
    __global__ void set_them(float3 *dest, float3 x)
    {
      const int i = threadIdx.x;
      dest[i] = x;
    }
    """)
    set_them = mod.get_function("set_them")
    a = vec.make_float3(1, 2, 3)
    dest = np.empty(400, vec.float3)
    set_them(drv.Out(dest), a, block=(400, 1, 1))
    assert (dest == a).all()


@pytest.mark.gpu
def test_odd_sized_vector_types_keep_their_layout(ctx):
    # char3 has 3 bytes and long3 24: a wrong stride or component order shows in the result.
    from gpukit.compiler import SourceModule

    mod = SourceModule("""
    __global__ void mix(char3 *c, long3 *l, char3 cv, long3 lv)
    {
      const int i = threadIdx.x;
      c[i] = make_char3(cv.x + i, cv.y - i, cv.z);
      l[i] = make_long3(lv.z * i, lv.y, lv.x);
    }
    """)
    c = np.zeros(7, vec.char3)
    lo = np.zeros(7, vec.long3)
    mod.get_function("mix")(
        drv.Out(c), drv.Out(lo), vec.make_char3(10, 20, 30), vec.make_long3(1, 2, 3 << 40), block=(7, 1, 1)
    )
    i = np.arange(7)
    assert c["x"].tolist() == (10 + i).tolist() and c["y"].tolist() == (20 - i).tolist()
    assert (c["z"] == 30).all()
    assert lo["x"].tolist() == ((3 << 40) * i).tolist() and (lo["y"] == 2).all() and (lo["z"] == 1).all()


@pytest.mark.gpu
def test_prepared_call_with_a_vector_dtype(ctx):
    # PyCUDA's test_prepared_with_vector, plus a check that the value arrives intact.
    from gpukit.compiler import SourceModule

    mod = SourceModule("""
    __global__ void take(float3 input, double2 pair, float *out)
    {
      out[0] = input.x; out[1] = input.y; out[2] = input.z;
      out[3] = (float) pair.x; out[4] = (float) pair.y;
    }
    """)
    kernel = mod.get_function("take")
    kernel.prepare([vec.float3, vec.double2, np.intp])
    out = drv.mem_alloc(5 * 4)
    kernel.prepared_call((1, 1, 1), (1, 1, 1), vec.make_float3(0.0, 1.0, 2.0), vec.make_double2(-0.5, 8), out)
    result = np.empty(5, np.float32)
    drv.memcpy_dtoh(result, out)
    assert result.tolist() == [0.0, 1.0, 2.0, -0.5, 8.0]
    with pytest.raises(TypeError, match="12 bytes"):
        kernel.prepared_call((1, 1, 1), (1, 1, 1), vec.make_float2(0, 1), vec.make_double2(0, 0), out)
