"""gpukit.cl on whatever OpenCL platform is installed (PoCL in CI)."""

import os
import subprocess
import sys

import numpy as np
import pytest

import gpukit.cl as cl
from cl_devices import ctx, why_no_opencl  # noqa: F401  (ctx: a fixture, one context per OpenCL device)


pytestmark = [pytest.mark.opencl]
needs_device = pytest.mark.skipif(why_no_opencl() is not None, reason=str(why_no_opencl()))


@pytest.fixture
def queue(ctx):
    return cl.CommandQueue(ctx, properties=cl.command_queue_properties.PROFILING_ENABLE)


@pytest.fixture
def rng():
    return np.random.default_rng(1234)


def test_exception_tree():
    import gpukit.driver

    assert issubclass(cl.Error, gpukit.driver.Error)
    for sub in (cl.LogicError, cl.MemoryError, cl.RuntimeError):
        assert issubclass(sub, cl.Error)
    assert cl.error_name(-30) == "CL_INVALID_VALUE"
    assert cl.error_name(-4) == "CL_MEM_OBJECT_ALLOCATION_FAILURE"


def test_selection_syntax():
    assert cl.parse_device_spec("0:0,1;intel=i5,i7;pocl") == [("0", ["0", "1"]), ("intel", ["i5", "i7"]), ("pocl", [])]
    assert cl.parse_device_spec("") == []
    for bad in (":0", "0:", "0:1:2", "0:,1", "0;;1"):
        with pytest.raises(cl.LogicError, match="malformed device selection"):
            cl.parse_device_spec(bad)


@needs_device
def test_platforms_and_devices():
    platforms = cl.get_platforms()
    assert platforms
    for platform in platforms:
        assert platform.name and platform.vendor
        assert platform.version.startswith("OpenCL ")
        assert platform.profile in ("FULL_PROFILE", "EMBEDDED_PROFILE")
        assert isinstance(platform.extensions, str)
    device = platforms[0].get_devices()[0]
    assert device.platform == platforms[0]
    assert isinstance(device.type, cl.device_type) and device.type
    assert device.name and device.vendor and device.driver_version
    assert device.version.startswith("OpenCL ")
    assert device.max_compute_units > 0 and device.max_work_group_size > 0
    assert device.global_mem_size > 0 and device.local_mem_size > 0 and device.max_mem_alloc_size > 0
    assert device.svm_capabilities >= 0
    assert (
        int.from_bytes(device._get_info_bytes(0x1002), sys.byteorder) == device.max_compute_units
    )  # MAX_COMPUTE_UNITS
    assert device.get_info(cl.device_info.MAX_COMPUTE_UNITS) == device.max_compute_units
    assert device.image_support is (int.from_bytes(device._get_info_bytes(0x1016), sys.byteorder) != 0)  # IMAGE_SUPPORT
    assert device.name in repr(device)


@needs_device
def test_select_devices_and_environment(monkeypatch):
    first = cl.get_platforms()[0].get_devices()[0]
    assert cl.select_devices("0:0") == [first]
    with pytest.raises(cl.LogicError, match="platform index 7 is out of range"):
        cl.select_devices("7")
    with pytest.raises(cl.LogicError, match="no device name or vendor contains 'nope-nope'"):
        cl.select_devices("0=nope-nope")
    monkeypatch.setenv("GPUKIT_CL_TEST", "0:0")
    assert cl.create_some_context().devices == [first]
    monkeypatch.setenv("GPUKIT_CL_CTX", "0=")
    with pytest.raises(cl.LogicError, match="GPUKIT_CL_CTX"):
        cl.create_some_context()


@needs_device
def test_create_some_context_reads_pyopencls_answers_and_variables(monkeypatch):
    for variable in ("GPUKIT_CL_CTX", "GPUKIT_CL_TEST", "PYOPENCL_TEST", "PYOPENCL_CTX"):
        monkeypatch.delenv(variable, raising=False)
    platform = cl.get_platforms()[0]
    devices = platform.get_devices()
    last = len(devices) - 1
    name = platform.name.split()[0].lower()
    # PyOpenCL's PYOPENCL_CTX: platform[:devices], indices or name substrings; blanks are the first.
    for spec, expected in [
        ("0", devices[:1]),
        ("", devices[:1]),
        (f"0:{last}", devices[last:]),
        (f"{name}:0", devices[:1]),
        (f"0:{last},0", [devices[last], devices[0]][: len(devices)]),
    ]:
        monkeypatch.setenv("PYOPENCL_CTX", spec)
        assert cl.create_some_context().devices == expected, spec
    for spec, message in [
        ("0:0:0", "not all choices were used .left over: '0'."),
        ("nope-nope", "PYOPENCL_CTX='nope-nope': no platform name or vendor contains 'nope-nope'"),
        ("0:99", "device index 99 is out of range"),
    ]:
        monkeypatch.setenv("PYOPENCL_CTX", spec)
        with pytest.raises(cl.RuntimeError, match=message):
            cl.create_some_context()
    # PYOPENCL_TEST comes before PYOPENCL_CTX (the first device it chooses), GPUKIT_CL_* before both.
    monkeypatch.setenv("PYOPENCL_CTX", "nope-nope")
    monkeypatch.setenv("PYOPENCL_TEST", f"0:{last}")
    assert cl.create_some_context().devices == devices[last:]
    monkeypatch.setenv("GPUKIT_CL_CTX", "0:0")
    assert cl.create_some_context().devices == devices[:1]
    # answers= comes before the environment.
    monkeypatch.setenv("GPUKIT_CL_CTX", "nope-nope")
    assert cl.create_some_context(answers=["0", str(last)]).devices == devices[last:]
    assert cl.create_some_context(answers=[]).devices == devices[:1]
    with pytest.raises(TypeError, match="answers must be a list of strings"):
        cl.create_some_context(answers="0:0")
    with pytest.raises(TypeError, match="answers must be a list of strings"):
        cl.create_some_context(answers=[0, 0])


@needs_device
def test_kernel_on_random_data(ctx, queue, rng):
    prg = cl.Program(
        ctx,
        """
        __kernel void axpy(float a, __global const float *x, __global float *y) {
            int i = get_global_id(0);
            y[i] = a * x[i] + y[i];
        }""",
    ).build(options=["-cl-mad-enable"])
    assert prg.kernel_names == "axpy"  # as OpenCL and PyOpenCL give it
    x = rng.standard_normal(1024).astype(np.float32)
    y = rng.standard_normal(1024).astype(np.float32)
    x_dev = cl.Buffer(ctx, cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR, hostbuf=x)
    y_dev = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, y.nbytes)
    cl.enqueue_copy(queue, y_dev, y)
    evt = prg.axpy(queue, x.shape, (64,), np.float32(1.5), x_dev, y_dev)
    evt.wait()
    assert evt.profile.start <= evt.profile.end
    result = np.empty_like(y)
    cl.enqueue_copy(queue, result, y_dev)
    np.testing.assert_allclose(result, np.float32(1.5) * x + y, rtol=1e-5, atol=1e-6)


@needs_device
def test_local_memory_argument(ctx, queue, rng):
    prg = cl.Program(
        ctx,
        """
        __kernel void group_max(__global const int *x, __global int *out, __local int *scratch) {
            int l = get_local_id(0);
            scratch[l] = x[get_global_id(0)];
            barrier(CLK_LOCAL_MEM_FENCE);
            if (l == 0) {
                int m = scratch[0];
                for (int i = 1; i < get_local_size(0); ++i) m = max(m, scratch[i]);
                out[get_group_id(0)] = m;
            }
        }""",
    ).build()
    x = rng.integers(-1000, 1000, size=(5, 16), dtype=np.int32)
    x_dev = cl.Buffer(ctx, cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR, hostbuf=x)
    out_dev = cl.Buffer(ctx, cl.mem_flags.WRITE_ONLY, 5 * 4)
    prg.group_max(queue, 80, 16, x_dev, out_dev, cl.LocalMemory(16 * 4))
    out = np.empty(5, np.int32)
    cl.enqueue_copy(queue, out, out_dev)
    np.testing.assert_array_equal(out, x.max(axis=1))


@needs_device
@pytest.mark.parametrize("nbytes", [1, 3, 7, 1001, 65537])
def test_copies_round_trip_at_odd_sizes(ctx, queue, rng, nbytes):
    data = rng.integers(1, 256, size=nbytes, dtype=np.uint8)
    first = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, nbytes + 5)
    second = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, nbytes)
    written = cl.enqueue_copy(queue, first, data, dst_offset=5, is_blocking=False)
    cl.enqueue_copy(queue, second, first, src_offset=5, wait_for=[written])
    back = np.zeros(nbytes, np.uint8)
    cl.enqueue_copy(queue, back, second, is_blocking=False).wait()
    np.testing.assert_array_equal(back, data)
    queue.finish()


@needs_device
def test_copy_mistakes_raise(ctx, queue):
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 64)
    host = np.zeros((8, 8), np.float32)
    with pytest.raises(cl.LogicError, match="not contiguous"):
        cl.enqueue_copy(queue, buf, host[:, ::2])
    with pytest.raises(cl.LogicError, match="outside the source buffer of 64 bytes"):
        cl.enqueue_copy(queue, host, buf)
    with pytest.raises(cl.LogicError, match="read-only"):
        readonly = np.zeros(4, np.float32)
        readonly.flags.writeable = False
        cl.enqueue_copy(queue, readonly, buf)
    with pytest.raises(cl.LogicError, match="byte_count 100 is larger"):
        cl.enqueue_copy(queue, buf, np.zeros(4, np.float32), byte_count=100)
    with pytest.raises(TypeError, match="must be a Buffer"):
        cl.enqueue_copy(queue, np.zeros(4), np.zeros(4))


@needs_device
def test_invalid_mem_flags_raise(ctx):
    with pytest.raises(cl.LogicError, match="at most one of READ_WRITE, WRITE_ONLY, READ_ONLY"):
        cl.Buffer(ctx, cl.mem_flags.READ_ONLY | cl.mem_flags.WRITE_ONLY, 16)
    with pytest.raises(cl.LogicError, match="need host memory"):
        cl.Buffer(ctx, cl.mem_flags.COPY_HOST_PTR, 16)
    with pytest.raises(cl.LogicError, match="unknown bits"):
        cl.Buffer(ctx, 1 << 40, 16)
    with pytest.raises(cl.LogicError, match="size is 0"):
        cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 0)


@needs_device
def test_devices_of_a_context_and_platform_as_pyopencl_gives_them():
    # PyOpenCL 2026.1 on PoCL: Context([d, d]).devices == [d] (OpenCL ignores the repeat), and
    # get_devices(0), a type no device has, is [] where clGetDeviceIDs says DEVICE_NOT_FOUND
    # (PoCL); an implementation that calls 0 an invalid type gets LogicError, in both.
    for platform in cl.get_platforms():
        if not platform.get_devices():
            continue
        device = platform.get_devices()[0]
        assert cl.Context([device, device]).devices == [device]
        assert cl.Context([device, device, device]).devices == [device]
        assert device in platform.get_devices(cl.device_type.ALL)
        for no_type in (0, 1 << 20):
            try:
                assert platform.get_devices(no_type) == []
            except cl.LogicError as e:
                assert platform.name != "Portable Computing Language" and "INVALID_DEVICE_TYPE" in str(e), e


@needs_device
def test_text_holding_a_nul_is_refused(ctx):
    # OpenCL reads these as C strings: PoCL built "-DX=1\0junk" as -DX=1 and dropped the
    # kernels after a NUL in the source, without a word (PyOpenCL lets both through).
    source = "__kernel void k(__global int *o) { o[0] = X; }"
    with pytest.raises(ValueError, match=r"Program: the source .* NUL character at offset 46"):
        cl.Program(ctx, source + "\0 __kernel void j() {}")
    program = cl.Program(ctx, source)
    for options in (["-DX=1\0junk"], "-DX=1\0junk", ["-DY=2", "-DX=1\0junk"]):
        with pytest.raises(ValueError, match=r"Program.build: the build options .*-DX=1\\0junk"):
            program.build(options=options)
    program.build(options=["-DX=1"])
    with pytest.raises(ValueError, match=r"Kernel: the kernel name 'k\\0junk'"):
        cl.Kernel(program, "k\0junk")
    assert cl.Kernel(program, "k").function_name == "k"


@needs_device
def test_build_failure_carries_the_log(ctx):
    prg = cl.Program(ctx, "__kernel void k(__global int *a) { a[0] = not_declared_anywhere; }")
    with pytest.raises(cl.RuntimeError, match="not_declared_anywhere") as info:
        prg.build()
    assert info.value.code == -11
    assert info.value.routine == "clBuildProgram"
    assert "not_declared_anywhere" in info.value.build_log
    with pytest.raises(AttributeError, match="only after build"):
        prg.k


@needs_device
def test_build_refuses_an_include_of_a_fifo_or_a_device(tmp_path):
    # PoCL blocked for ever on an #include of a FIFO without a writer; in a child with a
    # timeout, so that a hang fails the test. Each case: the source's #include, the options.
    os.mkfifo(tmp_path / "pipe.h")
    (tmp_path / "outer.h").write_text("#include </dev/zero>\n")
    cases = [
        (f'"{tmp_path}/pipe.h"', "", f"'{tmp_path}/pipe.h'"),
        ("<pipe.h>", f"-I {tmp_path}", f"'{tmp_path}/pipe.h'"),
        ("<pipe.h>", f"-DX=1 -I{tmp_path}", f"'{tmp_path}/pipe.h'"),
        ("<outer.h>", f"-I {tmp_path}", "'/dev/zero'"),
    ]
    code = f"""
import gpukit.cl as cl
ctx = cl.create_some_context(interactive=False)
for include, options, _ in {cases!r}:
    try:
        cl.Program(ctx, "#include " + include + "\\n__kernel void k(__global int *a) {{ a[0] = 1; }}").build(options)
        print("built")
    except cl.RuntimeError as e:
        print(e.code, e.routine, str(e).replace("\\n", " "))
"""
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)),
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == len(cases), result.stdout
    for (include, _, target), line in zip(cases, lines):
        assert line.startswith("-11 clBuildProgram building a program: #include "), line
        assert f"would read {target}, which is not a regular file" in line, line


@needs_device
def test_kernel_argument_mistakes(ctx, queue):
    prg = cl.Program(ctx, "__kernel void scale(__global float *a, float f) { a[get_global_id(0)] *= f; }").build()
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 64)
    with pytest.raises(AttributeError, match="no kernel or program_info attribute 'missing'; its kernels are: scale"):
        prg.missing
    with pytest.raises(cl.LogicError, match="takes 2 argument\\(s\\), 1 given"):
        prg.scale(queue, 16, None, buf)
    with pytest.raises(cl.LogicError, match="by-value argument of 8 bytes, but its type float has 4 bytes") as info:
        prg.scale(queue, 16, None, buf, np.float64(2.0))
    assert info.value.code == -51  # CL_INVALID_ARG_SIZE
    with pytest.raises(TypeError, match="numpy scalar"):
        prg.scale(queue, 16, None, buf, 2.0)
    with pytest.raises(cl.LogicError, match="multiple of local size"):
        prg.scale(queue, 16, 5, buf, np.float32(2.0))
    with pytest.raises(TypeError, match="unexpected keyword .bogus.; expected wait_for, global_offset"):
        prg.scale(queue, 16, None, buf, np.float32(2.0), bogus=1)
    data = np.random.default_rng(5).standard_normal(16).astype(np.float32)
    cl.enqueue_copy(queue, buf, data)
    prg.scale(queue, 16, None, buf, np.float32(3.0), wait_for=[]).wait()
    out = np.empty_like(data)
    cl.enqueue_copy(queue, out, buf)
    np.testing.assert_allclose(out, 3 * data)


@needs_device
def test_queue_properties(ctx):
    plain = cl.CommandQueue(ctx, ctx.devices[0])
    assert plain.properties == 0 and plain.device == ctx.devices[0]
    with pytest.raises(cl.LogicError, match="properties 1024 are not supported"):
        cl.CommandQueue(ctx, properties=1024)
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 4)
    evt = cl.enqueue_copy(plain, buf, np.ones(1, np.int32))
    with pytest.raises(cl.LogicError, match="CL_PROFILING_INFO_NOT_AVAILABLE"):
        evt.profile
    plain.flush()
    plain.finish()


@needs_device
def test_an_out_of_order_queue_runs_in_order_and_says_what_it_was_asked(ctx, rng):
    props = cl.command_queue_properties
    asked = props.OUT_OF_ORDER_EXEC_MODE_ENABLE | props.PROFILING_ENABLE
    if not ctx.devices[0].queue_properties & props.OUT_OF_ORDER_EXEC_MODE_ENABLE:
        with pytest.raises(cl.LogicError, match="no out-of-order queues"):
            cl.CommandQueue(ctx, properties=asked)
        return
    queue = cl.CommandQueue(ctx, properties=asked)
    assert queue.properties == asked and queue.get_info(cl.command_queue_info.PROPERTIES) == asked
    # Commands without events between them: each reads what the one before wrote.
    data = rng.standard_normal(1 << 16).astype(np.float32)
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, data.nbytes)
    prg = cl.Program(ctx, "__kernel void twice(__global float *x) { x[get_global_id(0)] *= 2; }").build()
    cl.enqueue_copy(queue, buf, data, is_blocking=False)
    for _ in range(3):
        prg.twice(queue, data.shape, None, buf)
    out = np.empty_like(data)
    cl.enqueue_copy(queue, out, buf)
    np.testing.assert_array_equal(out, 8 * data)
    marker = cl.enqueue_marker(queue)
    marker.wait()
    assert marker.profile.end > 0


@needs_device
def test_buffer_from_host_data(ctx, queue, rng):
    data = rng.standard_normal(33).astype(np.float64)
    buf = cl.Buffer(ctx, cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR, hostbuf=data)
    assert buf.size == data.nbytes and buf.flags == cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR
    back = np.empty_like(data)
    cl.enqueue_copy(queue, back, buf)
    np.testing.assert_array_equal(back, data)
    with pytest.raises(cl.LogicError, match="larger than hostbuf"):
        cl.Buffer(ctx, cl.mem_flags.COPY_HOST_PTR, size=data.nbytes + 1, hostbuf=data)
