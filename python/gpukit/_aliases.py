"""Import aliases for the drop-in packages (gpukit.pycuda_compat, gpukit.pyopencl_compat):
a finder that answers for every name of a foreign package (``pycuda``, ``pyopencl``) before
any installed copy of it is looked at, with the gpukit module that stands for it, or an
ImportError saying why there is none."""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from importlib.machinery import ModuleSpec
    from types import ModuleType


class _AliasLoader(importlib.abc.Loader):
    def __init__(self, target: str) -> None:
        self.target = target

    def create_module(self, spec: ModuleSpec) -> ModuleType:
        # The gpukit module itself, so both names share one module and its state.
        return importlib.import_module(self.target)

    def exec_module(self, module: ModuleType) -> None:
        pass  # already executed when gpukit imported it


class AliasFinder(importlib.abc.MetaPathFinder):
    """Maps the modules of `package` onto gpukit's: `aliases` gives the gpukit module of each
    name; `unavailable` gives, for a module (and its submodules) gpukit does not implement,
    the ImportError message."""

    def __init__(self, package: str, project: str, aliases: Mapping[str, str], unavailable: Mapping[str, str]) -> None:
        self.package = package
        self.project = project  # the package's project name for messages: "PyCUDA"
        self.aliases = aliases
        self.unavailable = unavailable

    def unavailable_message(self, fullname: str) -> str | None:
        """The message of `fullname` or of the package it is in, else None."""
        for module, message in self.unavailable.items():
            if fullname == module or fullname.startswith(module + "."):
                return message
        return None

    def foreign_name(self, fullname: str) -> str | None:
        """The package's name of a submodule of a gpukit module that stands for one of the
        package's (``gpukit.cl.clrandom`` -> ``pyopencl.clrandom``), else None: what
        ``from pyopencl import clrandom`` imports after finding no such attribute."""
        for foreign, own in self.aliases.items():
            if fullname.startswith(own + "."):
                return foreign + fullname[len(own) :]
        return None

    def find_spec(
        self, fullname: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        """importlib's finder hook: a spec loading the aliased module for a name under the
        package, else None (other finders go on)."""
        if fullname != self.package and not fullname.startswith(self.package + "."):
            foreign = self.foreign_name(fullname)
            message = self.unavailable_message(foreign) if foreign else None
            if message is not None and importlib.machinery.PathFinder.find_spec(fullname, path) is None:
                raise ImportError(message, name=foreign)
            return None
        if fullname in self.aliases:
            return importlib.util.spec_from_loader(fullname, _AliasLoader(self.aliases[fullname]))
        message = self.unavailable_message(fullname)
        if message is not None:
            raise ImportError(message, name=fullname)
        # Not a module of the package either; without this, pycuda.X would find gpukit's own X.
        raise ModuleNotFoundError(
            f"No module named {fullname!r}: {self.project} has no such module, and gpukit "
            f"maps only {self.project}'s ({', '.join(sorted(self.aliases))})",
            name=fullname,
        )


def install(package: str, project: str, aliases: Mapping[str, str], unavailable: Mapping[str, str]) -> None:
    """Put a finder for `package` first on sys.meta_path (once per package)."""
    if not any(isinstance(f, AliasFinder) and f.package == package for f in sys.meta_path):
        sys.meta_path.insert(0, AliasFinder(package, project, aliases, unavailable))
