"""gpukit.pycuda_compat: pycuda names resolve to gpukit's modules, lazily. Each check runs
in a fresh interpreter, so the aliases never leak into other tests."""

import os
import subprocess
import sys
import textwrap

PYTHON_DIR = os.path.join(os.path.dirname(__file__), "..", "..", "python")


def run(code, *args):
    env = dict(os.environ, PYTHONPATH=os.path.abspath(PYTHON_DIR))
    return subprocess.run(
        [sys.executable, *args] if args else [sys.executable, "-c", textwrap.dedent(code)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def assert_prints_ok(code):
    """Runs `code` in a fresh interpreter: it must succeed and print just "ok"."""
    result = run(code)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


def test_pycuda_modules_are_gpukit_modules():
    assert_prints_ok("""
        import gpukit.pycuda_compat
        import pycuda, pycuda.driver as drv, pycuda.compiler, pycuda.tools, pycuda.gpuarray
        from pycuda.elementwise import ElementwiseKernel
        import gpukit, gpukit.driver, gpukit.compiler, gpukit.tools, gpukit.gpuarray
        assert pycuda is gpukit and drv is gpukit.driver and pycuda.compiler is gpukit.compiler
        assert pycuda.tools is gpukit.tools and pycuda.gpuarray is gpukit.gpuarray
        import gpukit.elementwise
        assert pycuda.elementwise is gpukit.elementwise
        assert ElementwiseKernel is gpukit.gpuarray.ElementwiseKernel is gpukit.elementwise.ElementwiseKernel
        print("ok")
    """)


def test_elementwise_kernel_helpers_are_importable():
    # PyCUDA's examples import them (gpu-scalar-mult.py: get_linear_combination_kernel).
    assert_prints_ok("""
        import gpukit.pycuda_compat
        from pycuda.elementwise import get_linear_combination_kernel, get_take_kernel, get_fill_kernel
        import gpukit.elementwise
        assert get_linear_combination_kernel is gpukit.elementwise.get_linear_combination_kernel
        assert get_take_kernel is gpukit.elementwise.get_take_kernel
        print("ok")
    """)


def test_scan_is_aliased():
    assert_prints_ok("""
        import gpukit.pycuda_compat
        from pycuda.scan import ExclusiveScanKernel, InclusiveScanKernel
        import gpukit.scan
        assert InclusiveScanKernel is gpukit.scan.InclusiveScanKernel
        assert ExclusiveScanKernel is gpukit.scan.ExclusiveScanKernel
        print("ok")
    """)


def test_importing_the_compat_module_creates_no_context():
    assert_prints_ok("""
        import sys
        import gpukit.pycuda_compat
        assert "gpukit.autoinit" not in sys.modules and "pycuda.autoinit" not in sys.modules
        print("ok")
    """)


def test_module_runs_a_script_with_its_arguments(tmp_path):
    script = tmp_path / "uses_pycuda.py"
    script.write_text(
        "import sys\nimport pycuda.driver as drv\nimport gpukit.driver\n"
        "assert drv is gpukit.driver\nprint(__name__, sys.argv[0].endswith('uses_pycuda.py'), "
        "sys.argv[1:])\n"
    )
    result = run(None, "-m", "gpukit.pycuda_compat", str(script), "a", "--b")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "__main__ True ['a', '--b']"


def test_characterize_and_debug_are_aliased():
    result = run("""
        import gpukit.pycuda_compat
        import pycuda.driver as drv
        from pycuda.characterize import platform_bits, sizeof
        import gpukit.characterize
        assert sizeof is gpukit.characterize.sizeof and platform_bits() == 64
        assert drv.CUDA_DEBUGGING is False
        import pycuda.debug
        import gpukit.debug
        assert pycuda.debug is gpukit.debug and drv.CUDA_DEBUGGING is True
        from pycuda.tools import parse_c_arg, dtype_to_ctype, init_cuda_context_fixture, mark_cuda_test
        from pycuda.gpuarray import vec
        assert dtype_to_ctype(vec.float3) == "float3"
        print("ok")
    """)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


def import_error(module):
    result = run(f"""
        import gpukit.pycuda_compat
        try:
            import {module}
        except ImportError as e:
            print(type(e).__name__, e.name, "|", e)
        else:
            print("imported")
    """)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_unimplemented_pycuda_modules_say_so():
    assert import_error("pycuda.gl") == "imported"  # not pycuda.gl.autoinit, which makes a context
    assert import_error("pycuda.sparse.cg") == "imported"
    assert "METIS packets" in import_error("pycuda.sparse.pkt_build")
    for module in ("pycuda.fortran", "pycuda.deferred"):
        assert f"gpukit does not implement {module}" in import_error(module)
    assert "dtype registry" in import_error("pycuda.compyte.dtypes")
    assert "struct packer" in import_error("pycuda._pvt_struct")


def test_private_pycuda_modules_libraries_import():
    # compyle renders CLUDA_PREAMBLE with pycuda._mymako and catches pycuda._driver.Error;
    # GPAW's array code imports pycuda.compyte.array.
    assert_prints_ok("""
        import numpy as np
        import gpukit.pycuda_compat
        import pycuda._driver, pycuda.driver
        from pycuda._cluda import CLUDA_PREAMBLE
        try:
            import mako
        except ImportError:  # pycuda._mymako says what is missing
            mako = None
        from pycuda.compyte.array import (ArrayFlags, as_strided, bound, c_contiguous_strides, equal_strides,
                                          f_contiguous_strides, get_common_dtype, is_c_contiguous_strides,
                                          is_f_contiguous_strides, may_share_memory)
        assert pycuda._driver is pycuda.driver and pycuda._driver.Error is pycuda.driver.Error
        for line in ('#define KERNEL extern "C" __global__', "#define LID_0 threadIdx.x", "#define GDIM_2 gridDim.z",
                     "#define local_barrier() __syncthreads();", "#define WITHIN_KERNEL __device__"):
            assert line in CLUDA_PREAMBLE, line
        if mako is None:
            try:
                import pycuda._mymako
            except ImportError as e:
                assert "pip install mako" in str(e)
        else:
            from pycuda._mymako import template
            assert "GID_1 blockIdx.y" in template.Template(CLUDA_PREAMBLE + "${n}").render(n=3)
        a = np.zeros((3, 4), np.float32)
        assert c_contiguous_strides(4, (3, 4)) == (16, 4) and f_contiguous_strides(4, (3, 4)) == (4, 12)
        assert ArrayFlags(a).c_contiguous and ArrayFlags(a.T).f_contiguous and not ArrayFlags(a[:, ::2]).forc
        assert is_c_contiguous_strides((16, 4), 4, (3, 4)) and not is_f_contiguous_strides((16, 4), 4, (3, 4))
        assert equal_strides((16, 4), (99, 4), (1, 4)) and not equal_strides((16, 4), (8, 4), (3, 4))
        assert get_common_dtype(a, np.zeros(2, np.float64), False) == np.float32
        assert get_common_dtype(a, np.zeros(2, np.complex128), True) == np.complex128
        low, high = bound(a[:, 1:3])
        assert high - low == 2 * 16 + 4 + 4 and may_share_memory(a[:1], a[:, :1]) and not may_share_memory(a[:1], a[1:])
        assert as_strided(np.arange(4.0), shape=(2, 2), strides=(16, 8)).tolist() == [[0.0, 1.0], [2.0, 3.0]]
        print("ok")
    """)


def test_pycuda_reduction_is_gpukits():
    assert_prints_ok("""
        import gpukit.pycuda_compat
        import pycuda.reduction
        from pycuda.reduction import ReductionKernel, get_sum_kernel
        import gpukit.reduction
        assert pycuda.reduction is gpukit.reduction and ReductionKernel is gpukit.reduction.ReductionKernel
        print("ok")
    """)


def test_names_pycuda_does_not_have_are_not_found():
    # gpukit.cuda (numba's API) and gpukit.info exist, but pycuda.cuda and pycuda.info must not.
    for module in ("pycuda.cuda", "pycuda.info", "pycuda.no_such_module"):
        assert import_error(module).startswith(
            f"ModuleNotFoundError {module} | No module named '{module}': PyCUDA has no such module"
        )
    assert import_error("pycudax") == "ModuleNotFoundError pycudax | No module named 'pycudax'"
