"""gpukit.compiler: NVRTC compiles without a GPU, so most of this runs on CPU-only machines."""

import inspect
import logging
import os
import shutil
import subprocess
import sys

import pytest

import gpukit.compiler as compiler
import gpukit.driver as drv
from gpukit import _gpukit

needs_nvrtc = pytest.mark.skipif(not _gpukit.nvrtc_available(), reason="NVRTC (libnvrtc.so) is not installed")

DOUBLIFY = """
__global__ void doublify(float *a)
{
    int idx = threadIdx.x + threadIdx.y*4;
    a[idx] *= 2;
}
"""


def run_python(code, **environment):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path), **environment)
    # A timeout, so that a compile that blocks fails the test instead of hanging the suite.
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)


@needs_nvrtc
def test_compile_for_sm_90_gives_a_cubin_without_a_gpu():
    cubin = compiler.compile(DOUBLIFY, arch="sm_90")
    assert isinstance(cubin, bytes)
    assert cubin[:4] == b"\x7fELF"
    assert b"doublify" in cubin


@needs_nvrtc
def test_code_names_the_target_and_compute_gives_ptx():
    ptx = compiler.compile(DOUBLIFY, arch="compute_80", code="compute_90")
    assert b".target sm_90" in ptx
    assert ptx.endswith(b"\0")


@needs_nvrtc
def test_target_ptx_gives_ptx_of_the_architecture():
    ptx = compiler.compile(DOUBLIFY, arch="sm_80", target="ptx", cache_dir=False)
    assert b".target sm_80" in ptx and b".entry doublify(" in ptx
    with pytest.raises(ValueError, match="target"):
        compiler.compile(DOUBLIFY, arch="sm_80", target="elf")


@needs_nvrtc
def test_target_fatbin_needs_nvcc():
    with pytest.raises(drv.LogicError, match="fatbin"):
        compiler.compile(DOUBLIFY, arch="sm_90", target="fatbin", compiler="nvrtc", cache_dir=False)
    if _gpukit._find_nvcc("nvcc"):
        fatbin = compiler.compile(DOUBLIFY, arch="sm_90", target="fatbin", cache_dir=False)
        assert fatbin[:4] == bytes.fromhex("50ed55ba")


@needs_nvrtc
def test_no_extern_c_keeps_mangled_names():
    ptx = compiler.compile(DOUBLIFY, arch="compute_90", no_extern_c=True)
    assert b"_Z8doublifyPf" in ptx


@needs_nvrtc
def test_options_and_include_dirs(tmp_path):
    (tmp_path / "scale.h").write_text("#define SCALE 7\n")
    ptx = compiler.compile(
        '#include "scale.h"\n__global__ void f(int *a) { a[0] = SCALE * OFFSET; }',
        arch="compute_90",
        options=["-DOFFSET=3"],
        include_dirs=[str(tmp_path)],
    )
    assert b"21" in ptx


@needs_nvrtc
def test_syntax_error_is_a_compile_error_with_the_log_and_line_number():
    with pytest.raises(drv.CompileError) as info:
        compiler.compile(
            "__global__ void f(float *a)\n{\n    a[0] = not_declared;\n}\n", arch="sm_90", options=["-DMARKER=1"]
        )
    e = info.value
    assert "kernel.cu(3)" in str(e)
    assert "not_declared" in e.msg
    assert "kernel.cu(3)" in e.stderr
    assert "-DMARKER=1" in e.command_line
    assert isinstance(e, drv.Error)
    assert "nvcc" not in str(e), "a mistake in the source is not handed to nvcc"


@needs_nvrtc
def test_an_option_nvrtc_rejects_is_named():
    with pytest.raises(drv.CompileError, match="NVRTC rejects the option '--no-such-flag'"):
        compiler.compile(DOUBLIFY, arch="sm_90", options=["--no-such-flag"], compiler="nvrtc")


@needs_nvrtc
def test_bad_arch_is_a_logic_error():
    with pytest.raises(drv.LogicError, match="sm_XY"):
        compiler.compile(DOUBLIFY, arch="hopper")


@needs_nvrtc
def test_keep_prints_the_directory_and_leaves_nvrtcs_files(capsys):
    compiler.compile(DOUBLIFY, arch="sm_90", keep=True)
    line = capsys.readouterr().out
    assert line.startswith("*** compiler output in ")
    directory = line.strip().split(" in ")[-1]
    assert sorted(os.listdir(directory)) == ["kernel.cu", "kernel.cubin", "kernel.log", "kernel.ptx"]
    with open(os.path.join(directory, "kernel.cu")) as f:
        assert 'extern "C" {' in f.read()
    shutil.rmtree(directory)


@needs_nvrtc
def test_keep_option_and_keep_dir(tmp_path, capsys):
    compiler.compile(DOUBLIFY, arch="sm_90", options=["--keep", "--keep-dir", str(tmp_path / "kept")])
    assert capsys.readouterr().out.strip() == f"*** compiler output in {tmp_path / 'kept'}"
    assert (tmp_path / "kept" / "kernel.ptx").exists()


def test_a_missing_nvcc_is_a_clear_runtime_error():
    with pytest.raises(drv.RuntimeError, match="/opt/bin/nvcc"):
        compiler.compile(DOUBLIFY, nvcc="/opt/bin/nvcc", arch="sm_90")


def test_default_flags_come_from_the_environment():
    code = "import gpukit.compiler as c; print(c.DEFAULT_NVCC_FLAGS)"
    out = run_python(code, GPUKIT_DEFAULT_NVCC_FLAGS="-O3  -DA=1", PYCUDA_DEFAULT_NVCC_FLAGS="-DIGNORED").stdout
    assert out.strip() == "['-O3', '-DA=1']"
    env = {k: v for k, v in os.environ.items() if k != "GPUKIT_DEFAULT_NVCC_FLAGS"}
    env.update(PYCUDA_DEFAULT_NVCC_FLAGS="--use_fast_math", PYTHONPATH=os.pathsep.join(sys.path))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    assert out.strip() == "['--use_fast_math']"


@needs_nvrtc
def test_default_flags_are_used_when_options_is_none(monkeypatch):
    monkeypatch.setattr(compiler, "DEFAULT_NVCC_FLAGS", ["-DVALUE=5"])
    ptx = compiler.compile("__global__ void f(int *a) { a[0] = VALUE * 11; }", arch="compute_90")
    assert b"55" in ptx


@needs_nvrtc
def test_default_arch_without_a_context():
    if drv.driver_available():
        pytest.skip("a driver is present; a context might be current")
    assert _gpukit.nvrtc_default_arch() == "sm_90"
    assert _gpukit.nvrtc_version()[0] >= 12


def test_signatures_are_pycudas_plus_compiler():
    def names(f):
        return list(inspect.signature(f).parameters)

    common = ["nvcc", "options", "keep", "no_extern_c", "arch", "code", "cache_dir", "include_dirs"]
    assert names(compiler.compile) == ["source"] + common + ["target", "compiler"]
    assert names(compiler.SourceModule.__init__) == ["self", "source"] + common + ["compiler"]
    assert names(compiler.DynamicModule.__init__) == [
        "self",
        "nvcc",
        "link_options",
        "keep",
        "no_extern_c",
        "arch",
        "code",
        "cache_dir",
        "include_dirs",
        "message_handler",
        "log_verbose",
        "cuda_libdir",
        "compiler",
    ]
    assert names(compiler.DynamicSourceModule.__init__) == ["self", "source"] + common + ["cuda_libdir", "compiler"]
    assert inspect.signature(compiler.compile).parameters["target"].default == "cubin"


# --- which compiler ---------------------------------------------------------------------

HOST_HELPER = """#include <vector>
int host_sum(int n) { std::vector<int> v(n, 1); int s = 0; for (int x : v) s += x; return s; }
__global__ void k(float *x) { x[0] = 1; }
"""


@needs_nvrtc
def test_compile_outcome_says_which_compiler_and_why():
    outcome = compiler.compile_outcome(DOUBLIFY, arch="sm_90", options=["-O3"], cache_dir=False)
    assert outcome.compiled_by == "nvrtc"
    assert outcome.image[:4] == b"\x7fELF"
    assert any(note.startswith("-O3: dropped") for note in outcome.notes)
    outcome = compiler.compile_outcome(
        "int twice(int v) { return 2 * v; }\n__global__ void k(int *x) { x[0] = twice(x[0]); }",
        arch="sm_90",
        cache_dir=False,
    )
    assert outcome.compiled_by == "nvrtc"
    assert any("-default-device" in note for note in outcome.notes)


@needs_nvrtc
def test_host_code_goes_to_nvcc_when_the_compiler_is_not_chosen():
    if not _gpukit._find_nvcc("nvcc"):
        with pytest.raises(drv.CompileError, match="nvcc, which could compile it, was not found"):
            compiler.compile(HOST_HELPER, arch="sm_90", cache_dir=False)
        return
    outcome = compiler.compile_outcome(HOST_HELPER, arch="sm_90", cache_dir=False)
    assert outcome.compiled_by == "nvcc"
    assert any('NVRTC has no header "vector"' in note for note in outcome.notes)
    with pytest.raises(drv.CompileError, match="vector"):
        compiler.compile(HOST_HELPER, arch="sm_90", cache_dir=False, compiler="nvrtc")


@needs_nvrtc
def test_default_compiler_setting(monkeypatch):
    monkeypatch.setattr(compiler, "DEFAULT_COMPILER", "nvrtc")
    with pytest.raises(drv.CompileError, match="host code|vector"):
        compiler.compile(HOST_HELPER, arch="sm_90", cache_dir=False)
    monkeypatch.setattr(compiler, "DEFAULT_COMPILER", "fortran")
    with pytest.raises(ValueError, match="GPUKIT_COMPILER"):
        compiler.compile(DOUBLIFY, arch="sm_90")
    assert compiler.compile_outcome(DOUBLIFY, arch="sm_90", cache_dir=False, compiler="nvrtc").compiled_by == "nvrtc"
    if _gpukit._find_nvcc("nvcc"):
        monkeypatch.setattr(compiler, "DEFAULT_COMPILER", "nvcc")
        assert compiler.compile_outcome(DOUBLIFY, arch="sm_90", cache_dir=False).compiled_by == "nvcc"
        assert (
            compiler.compile_outcome(DOUBLIFY, arch="sm_90", cache_dir=False, compiler="nvrtc").compiled_by == "nvrtc"
        ), "the argument wins"


def test_default_compiler_comes_from_the_environment():
    code = "import gpukit.compiler as c; print(c.DEFAULT_COMPILER)"
    assert run_python(code, GPUKIT_COMPILER="nvcc").stdout.strip() == "nvcc"
    env = {k: v for k, v in os.environ.items() if k != "GPUKIT_COMPILER"}
    env["PYTHONPATH"] = os.pathsep.join(sys.path)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    assert out.strip() == "None"
    bad = run_python(
        "import gpukit.compiler as c; c.compile('__global__ void k() {}', arch='sm_90')", GPUKIT_COMPILER="clang"
    )
    assert "GPUKIT_COMPILER" in bad.stderr and "ValueError" in bad.stderr


def test_unknown_compiler_is_a_value_error():
    with pytest.raises(ValueError, match="compiler"):
        compiler.compile(DOUBLIFY, compiler="clang")


# --- nvcc's options ---------------------------------------------------------------------


def test_translate_options_gives_nvrtcs_options_and_notes():
    options, notes = compiler.translate_options(
        [
            "-O3",
            "-Xptxas",
            "-v",
            "-lineinfo",
            "-lcudadevrt",
            "-arch",
            "sm_80",
            "--keep",
            "-res-usage",
            "-m64",
            "-I/x",
            "-DA=1",
        ]
    )
    assert options == ["-Xptxas=-v", "-lineinfo", "-Xptxas=-v", "-I/x", "-DA=1"]
    by_option = dict(notes)
    assert by_option["-O3"].startswith("dropped: ")
    assert by_option["-lcudadevrt"].startswith("dropped: ") and "link" in by_option["-lcudadevrt"]
    assert by_option["-arch sm_80"] == "taken by gpukit: the target is sm_80 (unless -code or -gencode names another)"
    assert by_option["--keep"].startswith("taken by gpukit: keep=True")
    assert by_option["-res-usage"].startswith("translated to -Xptxas=-v")
    assert by_option["-m64"].startswith("dropped: ")
    nvcc_options, nvcc_notes = compiler.translate_options(["-O3", "-arch", "sm_80", "--cubin"], compiler="nvcc")
    assert nvcc_options == ["-O3"]
    assert [option for option, _ in nvcc_notes] == ["-arch sm_80", "--cubin"]
    with pytest.raises(drv.LogicError, match="64-bit"):
        compiler.translate_options(["-m32"])
    with pytest.raises(ValueError):
        compiler.translate_options([], compiler="clang")


@needs_nvrtc
def test_pycuda_option_lists_compile_with_nvrtc(caplog):
    options = [
        "-O3",
        "-g",
        "-G",
        "-m64",
        "-lineinfo",
        "--use_fast_math",
        "-Xptxas",
        "-dlcm=cg",
        "-Xcompiler",
        "-Wall",
        "--compiler-options",
        "-fPIC",
        "-ccbin",
        "gcc",
        "-rdc=true",
        "-lcudadevrt",
        "-L/usr/local/cuda/lib64",
        "-Xnvlink",
        "-v",
        "-src-in-ptx",
        "--expt-relaxed-constexpr",
        "--expt-extended-lambda",
        "-Xcudafe",
        "--diag_suppress=177",
        "-Werror",
        "cross-execution-space-call",
        "--cubin",
        "-c",
        "-o",
        "x.cubin",
        "-gencode",
        "arch=compute_90,code=sm_90",
        "-maxrregcount=64",
        "-std=c++17",
        "-w",
    ]
    with caplog.at_level(logging.INFO, logger="gpukit.compiler"):
        outcome = compiler.compile_outcome(
            "constexpr int three() { return 3; }\n__global__ void k(int *x) { int unused; x[0] = three(); }",
            options=options,
            cache_dir=False,
        )
    assert outcome.compiled_by == "nvrtc"
    assert outcome.arch == "sm_90"
    logged = [r.getMessage() for r in caplog.records if r.name == "gpukit.compiler"]
    assert any(m.startswith("-O3: dropped") for m in logged)
    assert any(m.startswith("--expt-relaxed-constexpr: translated to -default-device") for m in logged)


@needs_nvrtc
def test_resource_usage_is_reported_as_a_warning_like_pycudas():
    # In a fresh process, as a program meets it: on the GPU machine ptxas's report stayed
    # out of NVRTC's log after other tests had linked with nvJitLink in the same process.
    result = run_python(f"""
import warnings
import gpukit.compiler as compiler
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    compiler.compile({DOUBLIFY!r}, arch="sm_90", options=["--resource-usage"], cache_dir=False)
assert any("ptxas info" in str(w.message) for w in caught), [str(w.message) for w in caught]
assert not any("\\0" in str(w.message) for w in caught), [str(w.message) for w in caught]  # NVRTC 13.0's padding
with warnings.catch_warnings():
    warnings.simplefilter("error")
    compiler.compile({DOUBLIFY!r}, arch="sm_90", cache_dir=False)
""")
    assert result.returncode == 0, result.stderr


@needs_nvrtc
def test_werror_all_warnings_fails_on_a_warning():
    source = "__global__ void k(float *x) { int unused; x[0] = 1; }"
    with pytest.warns(UserWarning, match="never referenced"):
        compiler.compile(source, arch="sm_90", cache_dir=False)
    with pytest.raises(drv.CompileError, match="-Werror=all-warnings"):
        compiler.compile(source, arch="sm_90", cache_dir=False, options=["-Werror", "all-warnings"])


@needs_nvrtc
def test_target_in_the_options_and_in_arch_must_agree():
    assert compiler.compile_outcome(DOUBLIFY, options=["-arch=sm_80"], cache_dir=False).arch == "sm_80"
    with pytest.raises(drv.LogicError, match="given twice"):
        compiler.compile(DOUBLIFY, arch="sm_90", options=["-arch=sm_80"], cache_dir=False)


# --- the toolkit ---------------------------------------------------------------------------


def test_toolkit_search_follows_cuda_path(tmp_path, monkeypatch):
    (tmp_path / "include" / "cccl").mkdir(parents=True)
    (tmp_path / "include" / "cuda_runtime.h").write_text("// fake\n")
    monkeypatch.setenv("CUDA_PATH", str(tmp_path))
    dirs, found_via, looked_in = _gpukit._find_cuda_toolkit()
    assert dirs == [str(tmp_path / "include"), str(tmp_path / "include" / "cccl")]
    assert found_via == "CUDA_PATH"
    monkeypatch.setenv("CUDA_PATH", str(tmp_path / "nothing"))
    monkeypatch.setenv("CUDA_HOME", str(tmp_path))
    dirs, found_via, looked_in = _gpukit._find_cuda_toolkit()
    assert found_via == "CUDA_HOME"
    assert looked_in[0] == f"CUDA_PATH: {tmp_path / 'nothing' / 'include'} (no cuda_runtime.h)"


def test_pip_packages_are_found_through_the_nvidia_namespace_package(tmp_path):
    site = tmp_path / "site"
    (site / "nvidia" / "cu13" / "include").mkdir(parents=True)
    (site / "nvidia" / "cu13" / "include" / "cuda_runtime.h").write_text("// fake\n")
    code = "import gpukit.compiler; from gpukit import _gpukit; print(_gpukit._find_cuda_toolkit()[:2])"
    env = {k: v for k, v in os.environ.items() if k not in ("CUDA_PATH", "CUDA_HOME")}
    env["PATH"] = "/nonexistent"
    # First on the path, so it leads the `nvidia` namespace package even where real pip
    # packages of the toolkit are installed.
    env["PYTHONPATH"] = os.pathsep.join([str(site)] + sys.path)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    assert out.strip() == str(([str(site / "nvidia" / "cu13" / "include")], "pip packages"))


@needs_nvrtc
def test_a_missing_header_is_named(tmp_path, monkeypatch):
    with pytest.raises(drv.CompileError, match='no header "not_a_real_header.h"'):
        compiler.compile(
            "#include <not_a_real_header.h>\n__global__ void k() {}", arch="sm_90", cache_dir=False, compiler="nvrtc"
        )


# --- driver odds and ends -----------------------------------------------------------------


def test_initialize_profiler_is_explained_as_removed():
    with pytest.raises(drv.LogicError, match="cuProfilerInitialize"):
        drv.initialize_profiler("cfg", "out", 0)


def test_function_attribute_properties_exist():
    for name in [
        "num_regs",
        "shared_size_bytes",
        "local_size_bytes",
        "const_size_bytes",
        "max_threads_per_block",
        "ptx_version",
        "binary_version",
        "max_dynamic_shared_size_bytes",
    ]:
        assert isinstance(getattr(drv.Function, name), property)


def test_argument_handlers_are_classes():
    import numpy as np

    a = np.zeros(3)
    for cls in (drv.In, drv.Out, drv.InOut):
        h = cls(a)
        assert isinstance(h, drv.ArgumentHandler)
        assert h.array is a


@needs_nvrtc
@pytest.mark.parametrize("target", ["fifo", "/dev/zero"])
def test_a_header_that_is_not_a_regular_file_is_a_compile_error(tmp_path, target):
    # In a child with a timeout: the compiler used to block forever opening a FIFO header.
    header = tmp_path / "odd.h"
    if target == "fifo":
        os.mkfifo(header)
    else:
        header.symlink_to(target)
    result = run_python(f"""
import gpukit.compiler as compiler, gpukit.driver as drv
try:
    compiler.compile('#include "odd.h"\\n__global__ void k() {{}}', arch="sm_90", include_dirs=[{str(tmp_path)!r}],
                     cache_dir=False)
except drv.CompileError as e:
    print(e)
""")
    assert result.returncode == 0, result.stderr
    assert "not a regular file" in result.stdout and str(header) in result.stdout


@needs_nvrtc
@pytest.mark.parametrize("cache", ["cache", "no cache"])
@pytest.mark.parametrize("target", ["fifo", "/dev/zero"])
def test_an_absolute_include_that_is_not_a_regular_file_is_refused_on_every_path(tmp_path, target, cache):
    # Without include_dirs and without the cache, NVRTC refused #include </dev/zero> and the
    # nvcc it fell back to read /dev/zero for ever.
    if target == "fifo":
        target = str(tmp_path / "pipe")
        os.mkfifo(target)
    cache_dir = str(tmp_path / "cache") if cache == "cache" else False
    result = run_python(f"""
import gpukit.compiler as compiler, gpukit.driver as drv
for form in ("<{target}>", '"{target}"'):
    try:
        compiler.compile('#include ' + form + '\\n__global__ void k() {{}}', arch="sm_90", cache_dir={cache_dir!r})
    except drv.CompileError as e:
        print(e)
""")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 2, result.stdout
    for form, line in zip((f"<{target}>", f'"{target}"'), lines):
        assert line == (
            f"#include {form} (line 1) would read '{target}', which is not a regular file (a FIFO, "
            "socket or device); expected a header file"
        ), line


VARIABLES = {
    "none": (
        'extern "C" __global__ void k(float *x) { __shared__ float s[32]; s[threadIdx.x] = x[0]; '
        "__syncthreads(); x[threadIdx.x] = s[31 - threadIdx.x]; }",
        False,
    ),
    "constant": ('__constant__ float c[4]; extern "C" __global__ void k(float *x) { x[0] = c[1]; }', True),
    "device": ('__device__ int counter; extern "C" __global__ void k(float *x) { atomicAdd(&counter, 1); }', True),
    "static constant": (
        'static __constant__ float c2[2] = {1, 2}; extern "C" __global__ void k(float *x) { x[0] = c2[1]; }',
        True,
    ),
}


@needs_nvrtc
@pytest.mark.parametrize("kind", sorted(VARIABLES))
def test_modules_with_variables_are_recognised(kind):
    # Such modules are never shared between SourceModules (each has its own variables).
    source, has_variables = VARIABLES[kind]
    image = compiler.compile(source, arch="sm_90", code="sm_90", cache_dir=False)
    assert compiler._has_variables(image) is has_variables
    assert compiler._has_variables(b"not an ELF image") is True


CONSTANT_SCALE = """
__constant__ float scale[1];
extern "C" __global__ void scaled(float *out) { out[threadIdx.x] = scale[0] * threadIdx.x; }
"""


@pytest.mark.gpu
def test_two_sourcemodules_of_one_source_have_their_own_constants(ctx):
    import numpy as np

    first, second = compiler.SourceModule(CONSTANT_SCALE), compiler.SourceModule(CONSTANT_SCALE)
    for module, value in ((first, 2.0), (second, -3.0)):
        symbol, size = module.get_global("scale")
        assert size == 4
        drv.memcpy_htod(symbol, np.array([value], np.float32))
    out = np.empty(8, np.float32)
    for module, value in ((first, 2.0), (second, -3.0)):
        module.get_function("scaled")(drv.Out(out), block=(8, 1, 1))
        np.testing.assert_array_equal(out, value * np.arange(8, dtype=np.float32))
    # Modules without variables are still loaded once (while one SourceModule holds it).
    kept = compiler.SourceModule(DOUBLIFY)
    assert compiler.SourceModule(DOUBLIFY).module is kept.module


# --- what crosses into C: lists of str, no NUL (issue 29) -------------------------------


def test_a_str_where_a_list_is_expected_is_a_type_error():
    # PyCUDA refuses these too (it adds lists to them); read as lists, '/usr' was four
    # directories '/', 'u', 's', 'r' and '-O3' three options.
    import pathlib

    with pytest.raises(TypeError, match=r"include_dirs must be a list of directories, got str '/usr'; .*\['/usr'\]"):
        compiler.compile(DOUBLIFY, arch="sm_90", include_dirs="/usr")
    with pytest.raises(TypeError, match="include_dirs must be a list of directories, got PosixPath"):
        compiler.compile(DOUBLIFY, arch="sm_90", include_dirs=pathlib.Path("/usr"))
    with pytest.raises(TypeError, match=r"include_dirs\)\[0\]: expected a path .*got int"):
        compiler.compile(DOUBLIFY, arch="sm_90", include_dirs=[3])
    with pytest.raises(TypeError, match=r"options must be a list of str, got str '-O3'; for one option .*\['-O3'\]"):
        compiler.compile(DOUBLIFY, arch="sm_90", options="-O3")
    with pytest.raises(TypeError, match="options must be a list of str, got an item of type NoneType"):
        compiler.compile(DOUBLIFY, arch="sm_90", options=["-O3", None])
    with pytest.raises(TypeError, match="options must be a list of str, got int"):
        compiler.SourceModule(DOUBLIFY, options=3)
    with pytest.raises(TypeError, match=r"translate_options\(options\) must be a list of str, got NoneType"):
        compiler.translate_options(None)
    with pytest.raises(TypeError, match=r"translate_options\(options\) must be a list of str, got str"):
        compiler.translate_options("-O3")
    with pytest.raises(TypeError, match="arch must name one target as a str"):
        compiler.compile(DOUBLIFY, arch=["sm_80", "sm_90"])
    with pytest.raises(TypeError, match="code must name one target as a str"):
        compiler.compile(DOUBLIFY, code=90)
    with pytest.raises(TypeError, match="compiler must be None, 'auto', 'nvrtc' or 'nvcc', got int"):
        compiler.compile(DOUBLIFY, arch="sm_90", compiler=3)
    with pytest.raises(ValueError, match="target must be"):
        compiler.compile(DOUBLIFY, arch="sm_90", target=None)
    with pytest.raises(TypeError, match="link_options must be a list of str, got str"):
        compiler.DynamicModule(link_options="-O3", arch="sm_90")
    with pytest.raises(TypeError, match="include_dirs must be a list of directories"):
        compiler.DynamicModule(include_dirs="/usr", arch="sm_90")
    # Tuples and other iterables of str are lists here.
    assert compiler.translate_options(("-DA=1",))[0] == ["-DA=1"]


@pytest.mark.parametrize(
    "change, named",
    [
        (dict(options=["-DX=1\0junk"]), r"compile option '-DX=1\\0junk': a NUL character at offset 5"),
        (dict(include_dirs=["/usr\0/include"]), r"include_dirs\)\[0\]: the path '/usr\\x00/include' holds a NUL"),
        (dict(source=DOUBLIFY + "\0 garbage"), "the source"),
        (dict(arch="sm_90\0x"), r"arch 'sm_90\\0x'"),
    ],
)
def test_text_holding_a_nul_is_refused_before_compiling(change, named):
    # A C string ends at its first NUL: "-DX=1\0junk" compiled as -DX=1, without a word.
    args = dict(source=DOUBLIFY, arch="sm_90", cache_dir=False)
    args.update(change)
    for call in (compiler.compile, compiler.compile_outcome):
        with pytest.raises(ValueError, match=named):
            call(**args)


@pytest.mark.gpu
def test_a_kernel_or_global_name_holding_a_nul_is_refused(ctx):
    module = compiler.SourceModule(CONSTANT_SCALE)
    assert module.get_function("scaled") is not None
    with pytest.raises(ValueError, match="kernel name"):
        module.get_function("scaled\0junk")  # the driver would look up 'scaled'
    with pytest.raises(ValueError, match="variable name"):
        module.get_global("scale\0junk")
