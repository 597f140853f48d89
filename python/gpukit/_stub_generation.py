"""Prepares gpukit._gpukit for nanobind's stub generator (python/CMakeLists.txt), which
sets NB_STUBGEN while it imports the module.

The extension creates its constant enums and exception classes at run time and names
gpukit.driver, gpukit.cl or gpukit.nccl as their module, so that tracebacks and reprs show
the public names. The stub generator would turn them into imports from those modules, which
import them from the extension: a cycle in which type checkers find no definition. For the
stubs, each class is declared in the extension module that holds it."""

from __future__ import annotations

from gpukit import _gpukit

_PUBLIC_HOMES = ("gpukit.driver", "gpukit.cl", "gpukit.nccl")


def declare_runtime_classes_in_place() -> None:
    """Give each class the extension created under a public module's name the name of the
    extension module (or submodule) that holds it, for the stub generator only."""
    for module in (_gpukit, _gpukit.cl, _gpukit.nccl):
        for value in vars(module).values():
            if isinstance(value, type) and value.__module__ in _PUBLIC_HOMES:
                value.__module__ = module.__name__
