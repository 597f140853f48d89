"""OpenCL C's vector types as numpy dtypes (PyOpenCL's pyopencl.cltypes): their layout, their
makers, their C names, and kernels that take them by value and store them; the results also
hold on PyOpenCL itself (GPUKIT_PYOPENCL_ORIGINAL=1)."""

import warnings

import numpy as np
import pytest

from cl_either import ORIGINAL, cl, cl_tools, ctx, needs_device, queue  # noqa: F401  (ctx, queue: fixtures)

if ORIGINAL:
    import pyopencl.cltypes as cltypes
else:
    import gpukit.cl.cltypes as cltypes

pytestmark = pytest.mark.opencl

SCALARS = {
    "char": np.int8,
    "uchar": np.uint8,
    "short": np.int16,
    "ushort": np.uint16,
    "int": np.int32,
    "uint": np.uint32,
    "long": np.int64,
    "ulong": np.uint64,
    "float": np.float32,
    "double": np.float64,
}


@pytest.mark.parametrize("scalar_name", SCALARS)
@pytest.mark.parametrize("count", [2, 3, 4, 8, 16])
def test_each_vector_type_is_laid_out_as_opencl_c_stores_it(scalar_name, count):
    name = f"{scalar_name}{count}"
    dtype = getattr(cltypes, name)
    scalar = np.dtype(SCALARS[scalar_name])
    assert dtype.itemsize == scalar.itemsize * (4 if count == 3 else count)
    assert dtype.names[:count] == tuple(f"s{i}" for i in range(count))
    assert cltypes.vec_types[scalar, count] == dtype
    assert cltypes.vec_type_to_scalar_and_count[dtype] == (scalar, count)
    assert cl_tools.dtype_to_ctype(dtype) == name
    value = getattr(cltypes, f"make_{name}")(*range(1, count + 1))
    assert value.shape == () and value.dtype == dtype
    assert [value[f"s{i}"] for i in range(count)] == list(range(1, count + 1))
    for i, letter in enumerate("xyzw"[:count]):
        assert value[letter] == i + 1
    assert getattr(cltypes, f"zeros_{name}")()["s0"] == 0
    assert getattr(cltypes, f"ones_{name}")()[f"s{count - 1}"] == 1
    assert getattr(cltypes, f"filled_{name}")(7)["s1"] == 7


def test_scalar_names_and_makers_by_field():
    assert (cltypes.char, cltypes.uint, cltypes.half, cltypes.float, cltypes.double) == (
        np.int8,
        np.uint32,
        np.float16,
        np.float32,
        np.float64,
    )
    value = cltypes.make_int4(1, 2, 3, 4, w=9)
    assert value["w"] == 9 and value["s3"] == 9
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        short = cltypes.make_float3(1.5)
    assert any(issubclass(w.category, DeprecationWarning) for w in caught)
    assert (short["x"], short["y"], short["z"]) == (1.5, 0, 0)
    with pytest.raises((TypeError, ValueError)):
        cltypes.make_float2(1, 2, 3)


@needs_device
def test_kernels_take_vectors_by_value_and_store_arrays_of_them(ctx, queue):
    program = cl.Program(
        ctx,
        """
        __kernel void put(float4 f, int3 i, __global float4 *fs, __global int3 *is)
        { fs[get_global_id(0)] = f + (float4)(get_global_id(0));
          is[get_global_id(0)] = i * (int3)(get_global_id(0)); }
        """,
    ).build()
    n = 37
    fs = np.zeros(n, cltypes.float4)
    is_ = np.zeros(n, cltypes.int3)
    fs_buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, fs.nbytes)
    is_buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, is_.nbytes)
    program.put(queue, (n,), None, cltypes.make_float4(0.5, 1.5, 2.5, 3.5), cltypes.make_int3(1, -2, 3), fs_buf, is_buf)
    cl.enqueue_copy(queue, fs, fs_buf)
    cl.enqueue_copy(queue, is_, is_buf)
    k = np.arange(n)
    for field, base in zip("xyzw", (0.5, 1.5, 2.5, 3.5)):
        np.testing.assert_array_equal(fs[field], base + k)
    for field, base in zip("xyz", (1, -2, 3)):
        np.testing.assert_array_equal(is_[field], base * k)


@needs_device
def test_a_vector_of_the_wrong_size_is_refused(ctx, queue):
    if ORIGINAL:
        pytest.skip("PyOpenCL passes the bytes and OpenCL answers INVALID_ARG_SIZE at enqueue")
    program = cl.Program(ctx, "__kernel void put(float4 f, __global float4 *out) { out[0] = f; }").build()
    out = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 16)
    with pytest.raises(cl.LogicError, match="8 bytes|16 bytes"):
        program.put(queue, (1,), None, cltypes.make_float2(1, 2), out)
