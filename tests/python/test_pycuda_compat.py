"""gpukit.pycuda_compat: pycuda names resolve to gpukit's modules, lazily. Each check runs
in a fresh interpreter, so the aliases never leak into other tests."""
import os
import subprocess
import sys
import textwrap

PYTHON_DIR = os.path.join(os.path.dirname(__file__), "..", "..", "python")


def run(code, *args):
    env = dict(os.environ, PYTHONPATH=os.path.abspath(PYTHON_DIR))
    return subprocess.run([sys.executable, *args] if args else [sys.executable, "-c", textwrap.dedent(code)],
                          env=env, capture_output=True, text=True, timeout=120)


def test_pycuda_modules_are_gpukit_modules():
    result = run("""
        import gpukit.pycuda_compat
        import pycuda, pycuda.driver as drv, pycuda.compiler, pycuda.tools, pycuda.gpuarray
        from pycuda.elementwise import ElementwiseKernel
        import gpukit, gpukit.driver, gpukit.compiler, gpukit.tools, gpukit.gpuarray
        assert pycuda is gpukit and drv is gpukit.driver and pycuda.compiler is gpukit.compiler
        assert pycuda.tools is gpukit.tools and pycuda.gpuarray is gpukit.gpuarray
        assert ElementwiseKernel is gpukit.gpuarray.ElementwiseKernel
        print("ok")
    """)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


def test_importing_the_compat_module_creates_no_context():
    result = run("""
        import sys
        import gpukit.pycuda_compat
        assert "gpukit.autoinit" not in sys.modules and "pycuda.autoinit" not in sys.modules
        print("ok")
    """)
    assert result.returncode == 0, result.stderr


def test_module_runs_a_script_with_its_arguments(tmp_path):
    script = tmp_path / "uses_pycuda.py"
    script.write_text("import sys\nimport pycuda.driver as drv\nimport gpukit.driver\n"
                      "assert drv is gpukit.driver\nprint(__name__, sys.argv[0].endswith('uses_pycuda.py'), "
                      "sys.argv[1:])\n")
    result = run(None, "-m", "gpukit.pycuda_compat", str(script), "a", "--b")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "__main__ True ['a', '--b']"
