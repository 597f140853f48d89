"""Record dtypes on OpenCL (gpukit.cl; pyopencl with GPUKIT_PYOPENCL_ORIGINAL=1): structs laid
out by the device's compiler (match_dtype_to_c_struct), and gathers and scatters of records
against numpy, with indices that catch a wrong word of a record."""

import numpy as np
import pytest

from cl_either import ORIGINAL, cl, ctx, needs_device, queue  # noqa: F401  (ctx, queue: fixtures)

if ORIGINAL:
    import pyopencl.array as cla
    import pyopencl.tools as cl_tools
else:
    import gpukit.cl.array as cla
    import gpukit.cl.tools as cl_tools

pytestmark = [pytest.mark.opencl, needs_device]


def test_match_dtype_to_c_struct_pads_as_the_compiler(queue):
    # char, then double (8-aligned), then short[3], then a char the struct's size rounds past.
    packed = np.dtype([("tag", np.int8), ("value", np.float64), ("shape", np.int16, (3,)), ("flag", np.uint8)])
    matched, c_decl = cl_tools.match_dtype_to_c_struct(queue.device, "gk_test_record", packed)
    assert "gk_test_record" in c_decl and "short shape[3];" in c_decl.replace("  ", " ")
    assert [matched.fields[n][1] for n in matched.names] == [0, 8, 16, 22]
    assert matched.itemsize == 24
    # Fields keep their types; an already aligned dtype comes back as it was.
    assert [matched.fields[n][0] for n in matched.names] == [packed.fields[n][0] for n in packed.names]
    aligned = np.dtype([("lo", np.int32), ("hi", np.int32)])
    again, _ = cl_tools.match_dtype_to_c_struct(queue.device, "gk_test_pair", aligned)
    assert again == aligned


@pytest.mark.skipif(ORIGINAL, reason="gpukit's refusals")
def test_match_dtype_to_c_struct_refuses_what_is_no_struct(queue):
    with pytest.raises(TypeError, match="record dtype"):
        cl_tools.match_dtype_to_c_struct(queue.device, "t", np.float32)
    with pytest.raises(ValueError, match="C identifier"):
        cl_tools.match_dtype_to_c_struct(queue.device, "not a name", np.dtype([("a", np.int32)]))


@pytest.mark.parametrize(
    "fields",
    [
        [("a", np.int32), ("b", np.int32), ("c", np.int32)],  # 12 bytes: 3 words
        [("a", np.int8), ("b", np.int16), ("c", np.int8), ("d", np.int32)],
        [("x", np.float64), ("y", np.int64)],
    ],
)
def test_gathers_and_scatters_of_records_match_numpy(queue, fields):
    # As PyOpenCL's users do (PyOpenCL takes registered struct types only).
    name = "gk_record_" + "".join(n for n, _ in fields)
    dtype, _ = cl_tools.match_dtype_to_c_struct(queue.device, name, np.dtype(fields))
    dtype = cl_tools.get_or_register_dtype(name, dtype)
    n = 101
    host = np.zeros(n, dtype)
    for k, name in enumerate(dtype.names):
        host[name] = (np.arange(n) * (k + 3) + k) % 120
    x = cla.to_device(queue, host)
    indices = np.array([5, 0, 100, 37, 37, 64, 2], np.int32)
    got = x[cla.to_device(queue, indices)]
    assert got.dtype == dtype
    np.testing.assert_array_equal(got.get(), host[indices])
    np.testing.assert_array_equal(cla.take(x, cla.to_device(queue, indices[::-1].copy())).get(), host[indices[::-1]])
    # Scatter: records written whole at their places, the others untouched.
    target = cla.to_device(queue, np.zeros(n, dtype))
    places = np.array([3, 99, 50, 0], np.int32)
    target[cla.to_device(queue, places)] = cla.to_device(queue, host[:4])
    want = np.zeros(n, dtype)
    want[places] = host[:4]
    np.testing.assert_array_equal(target.get(), want)


def test_reduction_into_a_struct(ctx, queue):
    if ORIGINAL:
        from pyopencl.reduction import ReductionKernel
    else:
        from gpukit.cl.reduction import ReductionKernel
    dtype, c_decl = cl_tools.match_dtype_to_c_struct(
        queue.device, "gk_span", np.dtype([("low", np.int32), ("high", np.int32), ("count", np.int64)])
    )
    dtype = cl_tools.get_or_register_dtype("gk_span", dtype)
    preamble = (
        c_decl
        + """
    gk_span gk_span_of(int x) { gk_span s; s.low = x; s.high = x; s.count = 1; return s; }
    gk_span gk_span_none() { gk_span s; s.low = 1 << 30; s.high = -(1 << 30); s.count = 0; return s; }
    gk_span gk_span_join(gk_span a, gk_span b) {
        gk_span s; s.low = min(a.low, b.low); s.high = max(a.high, b.high); s.count = a.count + b.count; return s;
    }
    """
    )
    spans = ReductionKernel(
        ctx,
        dtype,
        neutral="gk_span_none()",
        reduce_expr="gk_span_join(a, b)",
        map_expr="gk_span_of(x[i])",
        arguments="__global const int *x",
        preamble=preamble,
    )
    values = np.random.default_rng(9).integers(-(10**6), 10**6, 30011).astype(np.int32)
    got = spans(cla.to_device(queue, values)).get()
    assert got.dtype == dtype
    assert (int(got["low"]), int(got["high"]), int(got["count"])) == (values.min(), values.max(), values.size)


def test_a_reduction_into_an_unregistered_struct_is_refused(ctx):
    # No C name is known for the record: ValueError before anything is compiled, as PyOpenCL's.
    if ORIGINAL:
        from pyopencl.reduction import ReductionKernel
    else:
        from gpukit.cl.reduction import ReductionKernel
    unregistered = np.dtype([("gk_a", np.int32), ("gk_b", np.float32), ("gk_c", np.int8)])
    with pytest.raises(ValueError, match="unable to map dtype"):
        ReductionKernel(
            ctx, unregistered, neutral="0", reduce_expr="a", map_expr="x[i]", arguments="__global const int *x"
        )
    if not ORIGINAL:
        with pytest.raises(ValueError, match="register it with get_or_register_dtype"):
            ReductionKernel(
                ctx, unregistered, neutral="0", reduce_expr="a", map_expr="x[i]", arguments="__global const int *x"
            )
