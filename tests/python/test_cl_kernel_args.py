"""Kernel arguments are checked against the kernel's parameters before OpenCL sees them: each
case here crashed PoCL, or ran with a wrong value, before gpukit refused it by name."""

import numpy as np
import pytest

import gpukit.cl as cl
import gpukit.cl.tools as tools
from cl_devices import ctx  # noqa: F401  (a fixture: one context per OpenCL device)

pytestmark = [pytest.mark.opencl]

SOURCE = """
__kernel void k(__global int *out, long n, __local int *scratch, __constant int *table) {
    const size_t i = get_global_id(0);
    scratch[get_local_id(0)] = table[0];
    barrier(CLK_LOCAL_MEM_FENCE);
    out[i] = (int)n + scratch[0];
}
"""


@pytest.fixture
def queue(ctx):
    return cl.CommandQueue(ctx)


@pytest.fixture
def kernel(ctx):
    return cl.Program(ctx, SOURCE).build().k


@pytest.fixture
def buffers(ctx):
    out = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 64 * 4)
    table = cl.Buffer(ctx, cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR, hostbuf=np.array([100], np.int32))
    return out, table


def test_parameters_are_described(kernel):
    assert kernel.num_args == 4
    assert [(p.name, p.type_name, p.kind) for p in kernel.parameters] == [
        ("out", "int*", "global"),
        ("n", "long", "value"),
        ("scratch", "int*", "local"),
        ("table", "int*", "constant"),
    ]


def test_right_arguments_run(queue, kernel, buffers):
    out, table = buffers
    kernel(queue, (64,), (16,), out, np.int64(12345), cl.LocalMemory(16 * 4), table)
    result = np.empty(64, np.int32)
    cl.enqueue_copy(queue, result, out)
    np.testing.assert_array_equal(result, np.full(64, 12345 + 100, np.int32))


@pytest.mark.parametrize(
    "position, make_value, message",
    [
        (
            0,
            lambda ctx, out: cl.LocalMemory(8),
            r"argument 0 \('out', __global int\*\).*is a __global pointer.*got local",
        ),
        (
            0,
            lambda ctx, out: np.int64(12345),
            r"argument 0 \('out', __global int\*\).*got a by-value argument of 8 bytes",
        ),
        (1, lambda ctx, out: out, r"argument 1 \('n', long\).*passed by value.*got a buffer"),
        (1, lambda ctx, out: cl.LocalMemory(8), r"argument 1 \('n', long\).*passed by value.*got local"),
        (2, lambda ctx, out: out, r"argument 2 \('scratch', __local int\*\).*expected local memory.*got a buffer"),
        (2, lambda ctx, out: np.int64(1), r"argument 2 \('scratch', __local int\*\).*got a by-value"),
        (3, lambda ctx, out: cl.LocalMemory(4), r"argument 3 \('table', __constant int\*\).*got local"),
    ],
)
def test_an_argument_of_the_wrong_kind_is_refused_by_name(ctx, queue, kernel, buffers, position, make_value, message):
    out, table = buffers
    args = [out, np.int64(1), cl.LocalMemory(64), table]
    args[position] = make_value(ctx, out)
    with pytest.raises(cl.LogicError, match=message):
        kernel(queue, (16,), (16,), *args)
    with pytest.raises(cl.LogicError, match=message):
        kernel.set_arg(position, args[position])


def test_a_released_pooled_buffer_is_refused(queue, kernel, buffers):
    out, table = buffers
    pool = tools.MemoryPool(tools.ImmediateAllocator(queue))
    block = pool.allocate(64 * 4)
    block.release()
    with pytest.raises(cl.LogicError, match=r"argument 0 \('out'.*released"):
        kernel(queue, (16,), None, block, np.int64(1), cl.LocalMemory(64), table)
    with pytest.raises(cl.LogicError, match="released"):
        cl.enqueue_copy(queue, block, np.zeros(4, np.int32))
    with pytest.raises(cl.LogicError, match="released"):
        cl.enqueue_copy(queue, np.zeros(4, np.int32), block)
    with pytest.raises(cl.LogicError, match="released"):
        cl.enqueue_copy(queue, out, block)


def test_a_buffer_of_another_context_is_refused(ctx, queue, kernel, buffers):
    out, table = buffers
    elsewhere = cl.Buffer(cl.Context(ctx.devices), cl.mem_flags.READ_WRITE, 64 * 4)
    with pytest.raises(cl.LogicError, match=r"argument 0 \('out'.*another context"):
        kernel(queue, (16,), None, elsewhere, np.int64(1), cl.LocalMemory(64), table)


def test_svm_of_another_context_is_refused(ctx, queue, kernel, buffers):
    if ctx.devices[0].svm_capabilities == 0:
        pytest.skip(f"device {ctx.devices[0].name!r} reports no SVM capabilities")
    out, table = buffers
    other = cl.Context(ctx.devices)
    elsewhere = tools.SVMAllocator(other)(64 * 4)
    with pytest.raises(cl.LogicError, match=r"argument 0 \('out'.*another context"):
        kernel(queue, (16,), None, elsewhere, np.int64(1), cl.LocalMemory(64), table)
    pooled = tools.SVMPool(tools.SVMAllocator(other))(64)
    with pytest.raises(cl.LogicError, match="another context"):
        kernel(queue, (16,), None, pooled, np.int64(1), cl.LocalMemory(64), table)
    with pytest.raises(cl.LogicError, match="another context"):
        cl.enqueue_copy(queue, elsewhere, np.zeros(4, np.int32))


def test_local_memory_beyond_the_device_is_refused(ctx, queue, kernel, buffers):
    out, table = buffers
    limit = ctx.devices[0].local_mem_size
    for size in (limit + 4, 1 << 40):
        with pytest.raises(cl.LogicError, match=f"local memory.*{limit} bytes"):
            kernel(queue, (16,), (16,), out, np.int64(1), cl.LocalMemory(size), table)


@pytest.mark.parametrize("global_size", [(2**32, 2**32), (2**62, 4), (2**31, 2**31, 4), (2**63, 2)])
def test_global_sizes_beyond_size_t_are_refused(queue, kernel, buffers, global_size):
    out, table = buffers
    with pytest.raises(cl.LogicError, match="work items in all"):
        kernel(queue, global_size, None, out, np.int64(1), cl.LocalMemory(64), table)


def test_the_largest_sizes_are_read_as_what_they_are(queue, kernel, buffers):
    out, table = buffers
    with pytest.raises(cl.LogicError, match=r"18446744073709551615.*work items in all"):
        kernel(queue, (2**64 - 1, 2), None, out, np.int64(1), cl.LocalMemory(64), table)
    with pytest.raises(cl.LogicError, match="global_size: .*got 18446744073709551616"):
        kernel(queue, (2**64,), None, out, np.int64(1), cl.LocalMemory(64), table)


def test_kernels_without_parameters_and_wrong_counts(ctx, queue):
    prg = cl.Program(ctx, "__kernel void nothing(void) {}").build()
    assert prg.nothing.num_args == 0 and prg.nothing.parameters == []
    prg.nothing(queue, (4,), None).wait()
    with pytest.raises(cl.LogicError, match="takes 0 argument"):
        prg.nothing(queue, (4,), None, np.int32(1))


VALUES_SOURCE = """
__kernel void values(__global float *out, long n, float f, int2 v) {
    out[get_global_id(0)] = (float)n + f + (float)v.y;
}
"""


@pytest.mark.parametrize(
    "position, value, message",
    [
        (1, np.float64(2.5), r"argument 1 \('n', long\).*takes an integer, got a floating-point number of 8 bytes"),
        (1, np.complex64(1), r"argument 1 \('n', long\).*takes an integer, got a number of no OpenCL C scalar type"),
        (2, np.int32(3), r"argument 2 \('f', float\).*takes a floating-point number, got an integer of 4 bytes"),
        (3, np.int64(3), r"argument 3 \('v', int2\).*takes a vector.*got an integer of 8 bytes"),
    ],
)
def test_a_number_of_the_right_size_but_wrong_kind_is_refused(ctx, queue, position, value, message):
    # Each was read as the parameter's type before: a silently wrong value.
    k = cl.Program(ctx, VALUES_SOURCE).build().values
    out = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 16 * 4)
    args = [out, np.int64(1), np.float32(0.5), np.void(np.array([0, 2], np.int32).tobytes())]
    args[position] = value
    with pytest.raises(cl.LogicError, match=message):
        k(queue, (16,), None, *args)


def test_numbers_of_either_signedness_and_raw_bytes_are_passed(ctx, queue):
    k = cl.Program(ctx, VALUES_SOURCE).build().values
    out = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 16 * 4)
    vector = np.zeros(1, dtype=[("x", np.int32), ("y", np.int32)])[0]
    vector["y"] = 7
    k(queue, (16,), None, out, np.uint64(40), np.float32(0.5), vector)
    result = np.empty(16, np.float32)
    cl.enqueue_copy(queue, result, out)
    np.testing.assert_array_equal(result, np.full(16, 47.5, np.float32))
    k(queue, (16,), None, out, np.void(np.int64(-3).tobytes()), np.float32(0.25), vector)
    cl.enqueue_copy(queue, result, out)
    np.testing.assert_array_equal(result, np.full(16, 4.25, np.float32))


@pytest.mark.parametrize(
    "global_size, local_size",
    [((2**33,), (1,)), ((2**62,), None), ((2**31, 2**31), None), ((2**21, 2**21, 2**21), None), ((2**64 - 1,), None)],
)
def test_launches_of_2_to_the_32_work_groups_are_refused(queue, kernel, buffers, global_size, local_size):
    # PoCL counts work groups in 32 bits and failed an assertion (an abort) on each of these.
    out, table = buffers
    with pytest.raises(cl.LogicError, match="work groups.*expected fewer than 2\\*\\*32"):
        kernel(queue, global_size, local_size, out, np.int64(1), cl.LocalMemory(64), table)


def test_a_queue_of_another_context_is_refused(ctx, kernel, buffers):
    out, table = buffers
    elsewhere = cl.CommandQueue(cl.Context(ctx.devices))
    with pytest.raises(cl.LogicError, match="queue belongs to another context"):
        kernel(elsewhere, (16,), None, out, np.int64(1), cl.LocalMemory(64), table)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda k, q: k.set_arg(1, None), r"argument 1 \(.*got a null pointer"),  # None is a NULL pointer
        (lambda k, q: k.set_arg(None, 1), r"set_arg\(index\): expected an integer, got NoneType"),
        (lambda k, q: k.set_arg(-1, 1), r"set_arg\(index\): expected an integer from 0 to \d+, got -1"),
        (lambda k, q: k(q, None, None), r"global_size must be an int or a sequence"),
        (lambda k, q: k(q, (16.0,), None), r"global_size: expected an integer, got float"),
        (lambda k, q: k(q, (16,), (-4,)), r"local_size: expected an integer from 0 to \d+, got -4"),
    ],
)
def test_bad_indices_and_sizes_name_the_argument(queue, kernel, call, message):
    with pytest.raises((TypeError, cl.LogicError), match=message) as raised:
        call(kernel, queue)
    assert "incompatible function arguments" not in str(raised.value)


# ---- by-value sizes (issue 29, item 2) --------------------------------------------------------
# PoCL checks no struct's size: st read 5 bytes past a 3-byte numpy.void (different garbage each
# run), and took 9 bytes and a numpy.int64 for the 8-byte S. gpukit knows each by-value type's
# size: OpenCL C's for scalars and vectors, the compiler's for the program's own types.

STRUCT_SOURCE = """
typedef struct { int a; int b; } S;
struct T { char c; double d; };
typedef float real;
typedef union { struct { float x, y; } s; float2 v; } cfloat_like;
typedef struct { int v[N]; } sized_by_option;

__kernel void st(__global int *o, S s) { o[0] = s.a; o[1] = s.b; }
__kernel void mixed(__global float *o, struct T t, real r, cfloat_like c, float3 v, sized_by_option n) {
    o[0] = (float)t.c; o[1] = (float)t.d; o[2] = r; o[3] = c.s.x; o[4] = c.s.y; o[5] = v.z; o[6] = (float)n.v[N - 1];
}
"""

S = np.dtype([("a", np.int32), ("b", np.int32)])
T = np.dtype([("c", np.int8), ("d", np.float64)], align=True)  # OpenCL C aligns d: 16 bytes


@pytest.fixture
def structs(ctx):
    return cl.Program(ctx, STRUCT_SOURCE).build(options="-DN=3")


def setters(queue, out):
    """The ways a kernel's arguments are set: each goes through the same check."""
    return {
        "__call__": lambda k, v: k(queue, (1,), None, out, v),
        "set_arg": lambda k, v: k.set_arg(1, v),
        "set_args": lambda k, v: k.set_args(out, v),
    }


@pytest.mark.parametrize("setter", ["__call__", "set_arg", "set_args"])
@pytest.mark.parametrize(
    "value, message",
    [
        (np.void(b"\x01\x00\x00"), r"given a by-value argument of 3 bytes, but its type S has 8 bytes"),
        (np.void(b"\x01" * 9), r"given a by-value argument of 9 bytes, but its type S has 8 bytes"),
        (np.zeros((), [("a", np.int32)])[()], r"given a by-value argument of 4 bytes, but its type S has 8 bytes"),
        (
            np.int64(5),
            r"takes a struct or union \(the bytes of a numpy record or numpy.void\), got an integer of 8 bytes",
        ),
        (np.float64(5), r"takes a struct or union .*, got a floating-point number of 8 bytes"),
    ],
    ids=["3 bytes", "9 bytes", "short record", "int64", "float64"],
)
def test_a_struct_takes_values_of_its_size_only(ctx, queue, structs, setter, value, message):
    out = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 8)
    with pytest.raises(cl.LogicError, match=r"^argument 1 \('s', S\) of kernel 'st' " + message) as raised:
        setters(queue, out)[setter](structs.st, value)
    assert raised.value.code in (-51, -50)  # CL_INVALID_ARG_SIZE, CL_INVALID_ARG_VALUE


def test_a_struct_of_its_size_runs(ctx, queue, structs):
    out = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 8)
    record = np.zeros((), S)
    record["a"], record["b"] = 7, -9
    for value in (record[()], np.void(record.tobytes())):
        cl.enqueue_copy(queue, out, np.full(2, 99, np.int32))
        structs.st(queue, (1,), None, out, value)
        result = np.empty(2, np.int32)
        cl.enqueue_copy(queue, result, out)
        np.testing.assert_array_equal(result, [7, -9])


def test_pyopencl_drop_in_checks_the_same(ctx, queue):
    import gpukit.pyopencl_compat  # noqa: F401  (makes `import pyopencl` give gpukit.cl)
    import pyopencl

    prg = pyopencl.Program(ctx, STRUCT_SOURCE).build(options="-DN=3")
    out = pyopencl.Buffer(ctx, pyopencl.mem_flags.READ_WRITE, 8)
    kernel = prg.st
    with pytest.raises(pyopencl.LogicError, match="3 bytes, but its type S has 8 bytes"):
        kernel.set_arg(1, np.void(b"\x01\x00\x00"))
    with pytest.raises(pyopencl.LogicError, match="9 bytes, but its type S has 8 bytes"):
        kernel.set_args(out, np.void(b"\x01" * 9))
    with pytest.raises(pyopencl.LogicError, match="takes a struct or union"):
        prg.st(queue, (1,), None, out, np.int64(5))


def mixed_args(**changes):
    t = np.zeros((), T)
    t["c"], t["d"] = -3, 2.5
    args = {
        "t": t[()],
        "r": np.float32(1.5),
        "c": np.complex64(4 - 5j),
        "v": np.void(np.array([1, 2, 3, 0], np.float32).tobytes()),
        "n": np.void(np.array([10, 20, 30], np.int32).tobytes()),
    }
    args.update(changes)
    return list(args.values())


def test_declared_types_of_every_kind_take_their_values(ctx, queue, structs):
    # A struct aligned by OpenCL C's rules, a typedef of float, a union taking a complex number
    # (as PyOpenCL's cfloat_t does), a float3 of 4 floats and a struct sized by a -D option.
    out = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 7 * 4)
    structs.mixed(queue, (1,), None, out, *mixed_args())
    result = np.empty(7, np.float32)
    cl.enqueue_copy(queue, result, out)
    np.testing.assert_array_equal(result, [-3, 2.5, 1.5, 4, -5, 3, 30])


@pytest.mark.parametrize(
    "position, value, message",
    [
        (
            1,
            np.zeros((), [("c", np.int8), ("d", np.float64)])[()],
            r"argument 1 \('t', struct T\) .* 9 bytes, but its type struct T has 16 bytes",
        ),
        (2, np.float64(1.5), r"argument 2 \('r', real\) .* 8 bytes, but its type real has 4 bytes"),
        (2, np.int32(1), r"argument 2 \('r', real\) .* takes a floating-point number, got an integer of 4 bytes"),
        (3, np.complex128(1), r"argument 3 \('c', cfloat_like\) .* 16 bytes, but its type cfloat_like has 8 bytes"),
        (3, np.float64(1), r"argument 3 \('c', cfloat_like\) .* takes a struct or union"),
        (
            4,
            np.void(np.zeros(3, np.float32).tobytes()),
            r"argument 4 \('v', float3\) .* 12 bytes, but its type float3 has 16 bytes "
            r"\(a 3-component vector is laid out "
            r"as a 4-component one\)",
        ),
        (
            5,
            np.void(np.zeros(4, np.int32).tobytes()),
            r"argument 5 \('n', sized_by_option\) .* 16 bytes, but its type sized_by_option has 12 bytes",
        ),
    ],
)
def test_declared_types_refuse_other_sizes_and_kinds(ctx, queue, structs, position, value, message):
    out = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 7 * 4)
    args = mixed_args()
    args[position - 1] = value
    with pytest.raises(cl.LogicError, match=message):
        structs.mixed(queue, (1,), None, out, *args)


@pytest.mark.parametrize(
    "type_name, value, size",
    [
        ("char", np.int16(1), 1),
        ("ushort", np.uint32(1), 2),
        ("int", np.int64(1), 4),
        ("ulong", np.uint32(1), 8),
        ("float", np.float64(1), 4),
        ("double", np.float32(1), 8),
        ("int2", np.void(b"\0" * 4), 8),
        ("uchar16", np.void(b"\0" * 15), 16),
        ("double3", np.void(b"\0" * 24), 32),
    ],
)
def test_scalars_and_vectors_take_their_size(ctx, type_name, value, size):
    kernel = cl.Program(ctx, f"__kernel void k(__global int *o, {type_name} x) {{ o[0] = 1; }}").build().k
    with pytest.raises(
        cl.LogicError,
        match=rf"argument 1 \('x', {type_name}\) of kernel 'k' given a by-value "
        rf"argument of {value.nbytes} bytes, but its type {type_name} has "
        rf"{size} bytes",
    ) as raised:
        kernel.set_arg(1, value)
    assert raised.value.code == -51  # CL_INVALID_ARG_SIZE
    kernel.set_arg(1, np.void(b"\0" * size))
