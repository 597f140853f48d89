"""Modules and kernels on a real GPU: loading, every kind of argument, prepared calls,
timing, attributes and the errors. Self-contained: device memory comes from In/Out/InOut
and from __device__ arrays found with get_global, not from another memory API."""

import ctypes
import struct
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import gpukit.driver as drv
from gpukit.compiler import SourceModule, compile

pytestmark = pytest.mark.gpu

SOURCE = """
struct pair { int a; float b; };

__device__ float scratch[16];

__global__ void doublify(float *a)
{
    int idx = threadIdx.x + threadIdx.y*4;
    a[idx] *= 2;
}

__global__ void copy(float *dst, const float *src)
{
    dst[threadIdx.x] = src[threadIdx.x];
}

__global__ void record(double *out, int i, float f, double d, long long q, unsigned char c, short s, pair p)
{
    out[0] = i; out[1] = f; out[2] = d; out[3] = (double)q; out[4] = c; out[5] = s; out[6] = p.a; out[7] = p.b;
}

__global__ void record_complex(float *out, float2 f, double2 d)
{
    out[0] = f.x; out[1] = f.y; out[2] = (float)d.x; out[3] = (float)d.y;
}

__global__ void uses_shared(float *a)
{
    extern __shared__ float tile[];
    tile[threadIdx.x] = a[threadIdx.x];
    __syncthreads();
    a[threadIdx.x] = tile[blockDim.x - 1 - threadIdx.x];
}
"""


@pytest.fixture
def mod(ctx):
    return SourceModule(SOURCE)


def has_param_info(func):
    return func.param_sizes is not None


# --- the tutorial's doublify, three ways ------------------------------------------------


def test_doublify_with_inout(mod):
    a = np.random.randn(4, 4).astype(np.float32)
    expected = 2 * a
    mod.get_function("doublify")(drv.InOut(a), block=(4, 4, 1))
    np.testing.assert_allclose(a, expected)


def test_doublify_with_in_and_out(mod):
    a = np.random.randn(16).astype(np.float32)
    doubled = np.empty_like(a)
    scratch, size = mod.get_global("scratch")
    assert size == 16 * 4
    mod.get_function("copy")(np.intp(scratch), drv.In(a), block=(16, 1, 1))
    mod.get_function("doublify")(np.intp(scratch), block=(4, 4, 1))
    mod.get_function("copy")(drv.Out(doubled), np.intp(scratch), block=(16, 1, 1))
    np.testing.assert_allclose(doubled, 2 * a)


def test_doublify_prepared_on_a_raw_address(mod):
    a = np.random.randn(16).astype(np.float32)
    result = np.empty_like(a)
    scratch, _ = mod.get_global("scratch")
    copy = mod.get_function("copy").prepare("PP")
    doublify = mod.get_function("doublify")
    assert doublify.prepare([np.intp]) is doublify
    mod.get_function("copy")(np.intp(scratch), drv.In(a), block=(16, 1, 1))
    doublify.prepared_call((1, 1), (4, 4, 1), scratch)
    doublify.prepared_async_call((1, 1), (4, 4, 1), drv.Stream(), scratch)
    drv.Context.synchronize()
    mod.get_function("copy")(drv.Out(result), np.intp(scratch), block=(16, 1, 1))
    np.testing.assert_allclose(result, 4 * a)
    assert copy.name == "copy"


# --- arguments of every kind -------------------------------------------------------------


def test_numpy_scalars_and_buffers(mod):
    out = np.zeros(8)
    pair = struct.pack("if", 4, 5.5)
    mod.get_function("record")(
        drv.Out(out),
        np.int32(-3),
        np.float32(1.5),
        np.float64(2.25),
        np.int64(1 << 40),
        np.uint8(200),
        np.int16(-7),
        pair,
        block=(1, 1, 1),
    )
    np.testing.assert_allclose(out, [-3, 1.5, 2.25, 1 << 40, 200, -7, 4, 5.5])


def test_ctypes_structure_is_copied_verbatim(mod):
    class Pair(ctypes.Structure):
        _fields_ = [("a", ctypes.c_int), ("b", ctypes.c_float)]

    out = np.zeros(8)
    mod.get_function("record")(
        drv.Out(out),
        np.int32(1),
        np.float32(2),
        np.float64(3),
        np.int64(4),
        np.uint8(5),
        np.int16(6),
        Pair(7, 8.5),
        block=(1, 1, 1),
    )
    np.testing.assert_allclose(out, [1, 2, 3, 4, 5, 6, 7, 8.5])


def test_python_numbers_follow_the_parameter_sizes(mod):
    record = mod.get_function("record")
    if not has_param_info(record):
        pytest.skip("the driver cannot describe kernel parameters (needs CUDA 12.4+)")
    assert record.param_sizes == [8, 4, 4, 8, 8, 1, 2, 8]
    out = np.zeros(8)
    record(drv.Out(out), -3, 1.5, 2.25, 1 << 40, 200, -7, struct.pack("if", 4, 5.5), block=(1, 1, 1))
    np.testing.assert_allclose(out, [-3, 1.5, 2.25, 1 << 40, 200, -7, 4, 5.5])


def test_complex_numbers(mod):
    out = np.zeros(4, dtype=np.float32)
    mod.get_function("record_complex")(drv.Out(out), np.complex64(1 + 2j), np.complex128(3 + 4j), block=(1, 1, 1))
    np.testing.assert_allclose(out, [1, 2, 3, 4])
    out[:] = 0
    f = mod.get_function("record_complex").prepare("PFD")
    scratch, _ = mod.get_global("scratch")
    f.prepared_call((1,), (1,), scratch, 5 + 6j, 7 + 8j)
    mod.get_function("copy")(drv.Out(out), np.intp(scratch), block=(4, 1, 1))
    np.testing.assert_allclose(out, [5, 6, 7, 8])


def test_pointer_like_objects(mod):
    scratch, _ = mod.get_global("scratch")

    class WithInt:
        def __int__(self):
            return scratch

    class WithInterface:
        __cuda_array_interface__ = {"data": (scratch, False), "shape": (16,), "typestr": "<f4", "version": 3}

    class Holder:
        def get_pointer(self):
            return scratch

    a = np.arange(16, dtype=np.float32)
    copy, doublify = mod.get_function("copy"), mod.get_function("doublify")
    copy(WithInt(), drv.In(a), block=(16, 1, 1))
    doublify(WithInterface(), block=(4, 4, 1))
    doublify(Holder(), block=(4, 4, 1))
    result = np.empty_like(a)
    copy(drv.Out(result), scratch, block=(16, 1, 1))
    np.testing.assert_allclose(result, 4 * a)


def test_dynamic_shared_memory(mod):
    a = np.arange(32, dtype=np.float32)
    mod.get_function("uses_shared")(drv.InOut(a), block=(32, 1, 1), shared=32 * 4)
    np.testing.assert_allclose(a, np.arange(32)[::-1])


# --- timing ------------------------------------------------------------------------------


def test_time_kernel_returns_seconds(mod):
    a = np.ones(16, dtype=np.float32)
    seconds = mod.get_function("doublify")(drv.InOut(a), block=(4, 4, 1), time_kernel=True)
    assert isinstance(seconds, float) and 0 <= seconds < 10
    assert mod.get_function("doublify")(drv.InOut(a), block=(4, 4, 1)) is None


def test_prepared_timed_call(mod):
    scratch, _ = mod.get_global("scratch")
    f = mod.get_function("doublify").prepare("P")
    elapsed = f.prepared_timed_call((1, 1), (4, 4, 1), scratch)
    seconds = elapsed()
    assert isinstance(seconds, float) and 0 <= seconds < 10


# --- errors ------------------------------------------------------------------------------


def test_unknown_kernel_is_named(mod):
    with pytest.raises(drv.LogicError, match="'triplify'"):
        mod.get_function("triplify")
    with pytest.raises(drv.LogicError):
        mod.get_global("not_there")


def test_texture_references_are_gone(mod):
    with pytest.raises(drv.LogicError, match="TextureObject"):
        mod.get_texref("tex")
    with pytest.raises(drv.LogicError, match="SurfaceObject"):
        mod.get_surfref("surf")


def test_wrong_argument_count_and_size(mod):
    record = mod.get_function("record")
    if not has_param_info(record):
        pytest.skip("the driver cannot describe kernel parameters (needs CUDA 12.4+)")
    out = np.zeros(8)
    with pytest.raises(drv.LogicError, match="takes 8 parameter"):
        record(drv.Out(out), np.int32(1), block=(1, 1, 1))
    with pytest.raises(drv.LogicError, match="argument 2 is 8 bytes"):
        record(
            drv.Out(out),
            np.int32(1),
            np.float64(2),
            np.float64(3),
            np.int64(4),
            np.uint8(5),
            np.int16(6),
            struct.pack("if", 7, 8),
            block=(1, 1, 1),
        )
    with pytest.raises(ValueError, match="argument 1"):
        record(drv.Out(out), 1 << 40, 1.0, 1.0, 1, 1, 1, struct.pack("if", 7, 8), block=(1, 1, 1))


def test_a_numpy_array_for_a_pointer_is_refused_by_its_size(mod):
    # A numpy array is passed by value, as in PyCUDA: its 64 bytes do not fit a pointer.
    doublify = mod.get_function("doublify")
    if not has_param_info(doublify):
        pytest.skip("the driver cannot describe kernel parameters (needs CUDA 12.4+)")
    with pytest.raises(
        drv.LogicError, match="argument 0 is 64 bytes, but parameter 0 of the kernel is 8 bytes"
    ) as info:
        doublify(np.zeros(16, dtype=np.float32), block=(4, 4, 1))
    assert "In(), Out() or InOut()" in str(info.value)


def test_bad_arguments_are_type_errors(mod):
    doublify = mod.get_function("doublify")
    with pytest.raises(TypeError, match="argument 0"):
        doublify(object(), block=(4, 4, 1))
    with pytest.raises(TypeError, match="block"):
        doublify(np.intp(0))
    with pytest.raises(TypeError, match="writable"):
        doublify(drv.Out(np.zeros(16, dtype=np.float32)[::2]), block=(4, 4, 1))


def test_launch_shapes_over_limits_are_logic_errors(mod):
    doublify = mod.get_function("doublify")
    a = np.zeros(16, dtype=np.float32)
    with pytest.raises(drv.LogicError, match="threads"):
        doublify(drv.InOut(a), block=(1024, 2, 1))
    with pytest.raises(drv.LogicError, match="zero dimension"):
        doublify(drv.InOut(a), block=(4, 4, 1), grid=(0, 1))
    with pytest.raises(drv.LogicError, match="dynamic shared memory"):
        doublify(drv.InOut(a), block=(4, 4, 1), shared=1 << 30)


def test_prepared_errors(mod):
    f = mod.get_function("doublify")
    with pytest.raises(drv.LogicError, match="prepare"):
        f.prepared_call((1, 1), (1, 1, 1), 0)
    f.prepare("P")
    with pytest.raises(TypeError, match="prepared for 1"):
        f.prepared_call((1, 1), (1, 1, 1))
    with pytest.raises(TypeError, match="format 'P'"):
        f.prepared_call((1, 1), (1, 1, 1), 1.5)
    with pytest.raises(drv.LogicError, match="not supported"):
        f.prepare("Z")
    with pytest.raises(drv.LogicError, match="texture references"):
        f.prepare("P", texrefs=[object()])


def test_kernel_fault_is_a_launch_error():
    # A fault poisons its context (and may affect the process), so it runs in a child process.
    script = textwrap.dedent("""
        import gpukit.driver as drv
        from gpukit.compiler import SourceModule
        ctx = drv.Device(0).make_context()
        f = SourceModule("__global__ void bad(int *p) { *(volatile int *)0 = 1; }").get_function("bad")
        f(__import__("numpy").intp(0), block=(1, 1, 1))
        try:
            drv.Context.synchronize()
        except drv.LaunchError as e:
            print("LaunchError", e)
        drv.Context.pop()
        ctx.detach()
    """)
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert "LaunchError" in result.stdout, result.stdout + result.stderr


# --- attributes, configs, loading ---------------------------------------------------------


def test_attributes(mod):
    f = mod.get_function("doublify")
    assert f.num_regs > 0
    assert f.max_threads_per_block > 0
    assert f.get_attribute(drv.function_attribute.NUM_REGS) == f.num_regs
    assert f.ptx_version > 0 and f.binary_version > 0
    assert f.shared_size_bytes == 0
    f.set_attribute(drv.function_attribute.MAX_DYNAMIC_SHARED_SIZE_BYTES, 64 * 1024)
    assert f.max_dynamic_shared_size_bytes == 64 * 1024
    f.set_cache_config(drv.func_cache.PREFER_L1)
    with pytest.raises(drv.LogicError):
        f.set_attribute(drv.function_attribute.NUM_REGS, 3)


def test_module_from_buffer_with_ptx_options_and_messages(ctx):
    major, minor = drv.Context.get_device().compute_capability()
    ptx = compile(SOURCE, arch=f"compute_{min(major * 10 + minor, 90)}")
    messages = []
    module = drv.module_from_buffer(
        ptx,
        options=[(drv.jit_option.MAX_REGISTERS, 32)],
        message_handler=lambda ok, info, err: messages.append((ok, info, err)),
    )
    assert messages and messages[0][0] is True
    assert module.get_function("doublify").num_regs <= 32
    with pytest.raises(drv.Error):
        drv.module_from_buffer(b"this is not a module")


def test_module_from_file(ctx, tmp_path):
    path = tmp_path / "kernels.cubin"
    path.write_bytes(compile(SOURCE))
    assert drv.module_from_file(str(path)).get_function("doublify").name == "doublify"
    with pytest.raises(drv.RuntimeError, match="nonexistent"):
        drv.module_from_file(str(tmp_path / "nonexistent.cubin"))


def test_function_outlives_its_module(ctx):
    f = SourceModule(SOURCE).get_function("doublify")
    a = np.ones(16, dtype=np.float32)
    f(drv.InOut(a), block=(4, 4, 1))
    np.testing.assert_allclose(a, 2)


def test_profiler_switches(ctx):
    drv.start_profiler()
    drv.stop_profiler()
