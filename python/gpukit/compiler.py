"""Compiling CUDA C at run time (PyCUDA's ``pycuda.compiler``).

NVRTC, loaded at run time, is the compiler: no nvcc and no temporary files are needed.
``arch`` is ``"sm_XY"`` (a cubin) or ``"compute_XY"`` (PTX that the driver compiles when it
loads it); by default it is the current context's device, or ``sm_90`` without a context.
"""
import os
import sys
import tempfile

from gpukit import _gpukit
from gpukit.driver import module_from_buffer


def _flags_from_environment():
    value = os.environ.get("GPUKIT_DEFAULT_NVCC_FLAGS")
    if value is None:
        value = os.environ.get("PYCUDA_DEFAULT_NVCC_FLAGS", "")
    return value.split()


#: Options used when a call passes ``options=None``; read from GPUKIT_DEFAULT_NVCC_FLAGS
#: (else PYCUDA_DEFAULT_NVCC_FLAGS), split on whitespace. Shared by every caller: change
#: it with care.
DEFAULT_NVCC_FLAGS = _flags_from_environment()


def _target(arch, code):
    # nvcc's -code names the real target; NVRTC takes one target, so it wins over -arch.
    target = code if code is not None else arch
    if target is None:
        return ""
    if isinstance(target, (list, tuple)):
        raise ValueError(f"arch/code must name one target such as 'sm_90', got {target!r}")
    return str(target)


def _keep(source, image, ptx, arch, log):
    directory = tempfile.mkdtemp(prefix="gpukit-compile-")
    with open(os.path.join(directory, "kernel.cu"), "w") as f:
        f.write(source)
    suffix = "ptx" if arch.startswith("compute_") else "cubin"
    with open(os.path.join(directory, "kernel." + suffix), "wb") as f:
        f.write(image)
    if ptx:
        with open(os.path.join(directory, "kernel.ptx"), "w") as f:
            f.write(ptx)
    with open(os.path.join(directory, "kernel.log"), "w") as f:
        f.write(log)
    print(f"*** compiler output in {directory}", file=sys.stderr)


def compile(source, nvcc="nvcc", options=None, keep=False, no_extern_c=False, arch=None, code=None,
            cache_dir=None, include_dirs=[]):
    """Compile CUDA C ``source`` and return the image as bytes: a cubin for ``sm_XY``
    targets, NUL-terminated PTX for ``compute_XY`` targets. Raises CompileError with the
    NVRTC log in ``.stderr`` and the option list in ``.command_line`` when it fails.

    ``nvcc`` is accepted for compatibility; compilation always uses NVRTC. ``cache_dir`` is
    accepted and ignored: NVRTC compiles in memory and nothing is cached on disk yet.
    """
    if nvcc != "nvcc":
        raise _gpukit.RuntimeError(
            f"compile(nvcc={nvcc!r}): gpukit compiles with NVRTC and cannot run another compiler; "
            "leave nvcc at its default")
    if not _gpukit.nvrtc_available():
        raise _gpukit.RuntimeError(
            "NVRTC (libnvrtc.so.13 or .12) is not installed, and gpukit does not fall back to nvcc; "
            "install the CUDA toolkit's NVRTC or set CUDA_HOME")
    if options is None:
        options = DEFAULT_NVCC_FLAGS
    want_ptx = bool(keep)
    image, used_arch, ptx, log, _ = _gpukit._nvrtc_compile(
        source, [str(o) for o in options], _target(arch, code), [str(d) for d in include_dirs],
        bool(no_extern_c), want_ptx)
    if keep:
        _keep(source, image, ptx, used_arch, log)
    return image


class SourceModule:
    """CUDA C compiled and loaded into the current context. Offers the Module interface
    (get_function, get_global, ...) without inheriting from it."""

    def __init__(self, source, nvcc="nvcc", options=None, keep=False, no_extern_c=False, arch=None, code=None,
                 cache_dir=None, include_dirs=[]):
        image = compile(source, nvcc, options, keep, no_extern_c, arch, code, cache_dir, include_dirs)
        self.module = module_from_buffer(image)

    def get_function(self, name):
        return self.module.get_function(name)

    def get_global(self, name):
        return self.module.get_global(name)

    def get_texref(self, name):
        return self.module.get_texref(name)

    def get_surfref(self, name):
        return self.module.get_surfref(name)
