"""Checks of what the kernel builders are given (ElementwiseKernel, ReductionKernel, the scan
kernels, PyCUDA's kernel factories): each error names the argument and what it expects, and
comes where the builder is called, not from numpy or from the compiler at the first launch."""
from gpukit import _gpukit


def argument_name(name, language):
    """`name`, when it can name a parameter of a kernel in `language` ("cuda" or "opencl"):
    TypeError for a non-str, ValueError for a name that is not a C identifier or is a keyword
    or type name of the language (a kernel's source would fail to compile)."""
    if not isinstance(name, str):
        raise TypeError(f"argument name must be a str, got {type(name).__name__} {name!r}")
    problem = _gpukit._kernel_name_problem(name, language)
    if problem:
        raise ValueError(f"argument name {problem}")
    return name
