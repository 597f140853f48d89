"""The C types of kernel arguments (PyCUDA's names in ``pycuda.tools``).

A registry maps numpy dtypes to CUDA C type names and back (``dtype_to_ctype``,
``get_or_register_dtype``), and ``parse_c_arg`` turns a C parameter declaration such as
``"const float *x"`` into a ``VectorArg`` or ``ScalarArg`` carrying its name and dtype, for
code that generates kernels. The built-in names are CUDA C++'s on x86-64 Linux (LP64):
``long`` and ``size_t`` are 64 bits and ``char`` is signed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

import numpy as np
import numpy.typing as npt

from gpukit._array import vec as _vec
from gpukit._array import builder_arguments
from gpukit._array.builder_arguments import argument_name
from gpukit._gpukit import LogicError, _c_type_names
from gpukit._warnings import warn

#: One C type name, or a list of equivalent ones.
CNames = str | list[str] | tuple[str, ...]


def _normalized(c_name: str) -> str:
    """One spelling per type: single blanks between words, none around < > , : * &."""
    if not isinstance(c_name, str):
        raise TypeError(f"a C type name must be a str, got {type(c_name).__name__}")
    return re.sub(r"\s*([<>,:*&])\s*", r"\1", " ".join(c_name.split()))


def _names_list(c_names: CNames) -> list[str]:
    names = [c_names] if isinstance(c_names, str) else c_names
    if (
        isinstance(names, (bytes, bytearray))
        or not isinstance(names, (list, tuple))
        or not all(isinstance(n, str) for n in names)
    ):
        raise TypeError(
            f"c_names must be a C type name (a str) or a list of them, got {type(c_names).__name__} {c_names!r}"
        )
    names = [_normalized(n) for n in names]
    if not names or not all(names):
        raise ValueError(f"expected one or more non-empty C type names, got {c_names!r}")
    return names


class UnknownCTypeError(KeyError, ValueError):
    """A C type name nobody registered: a KeyError as in PyOpenCL's and PyCUDA's registries,
    and a ValueError as gpukit's other refusals of a value."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class CTypeRegistry:
    """Maps numpy dtypes to the C type names of one kernel language, and back."""

    def __init__(self, language: str, builtin_names: Iterable[tuple[str, CNames]]) -> None:
        self.language = language
        # C type name -> dtype, and dtype -> the name dtype_to_ctype() gives (the first one
        # registered). Names are kept in the form _normalized() gives them.
        self._name_to_dtype: dict[str, np.dtype[Any]] = {}
        self._dtype_to_name: dict[np.dtype[Any], str] = {}
        for dtype_name, names in builtin_names:
            if names:
                self.get_or_register_dtype(names, np.dtype(dtype_name))

    def lookup(self, name: str) -> np.dtype[Any]:
        """The dtype registered to the normalized C type `name`."""
        try:
            return self._name_to_dtype[name]
        except KeyError:
            raise UnknownCTypeError(
                f"unknown {self.language} type {name!r}; register it with get_or_register_dtype({name!r}, dtype)"
            ) from None

    def get_or_register_dtype(self, c_names: CNames, dtype: npt.DTypeLike | None = None) -> np.dtype[Any]:
        """The numpy dtype of the C type name(s) `c_names` (a str or a list of equivalent names).

        Without `dtype`, the names must be registered already (UnknownCTypeError, a KeyError
        and a ValueError, otherwise). With it, the names are registered to `dtype`; names
        already registered to an equal dtype are kept, a name registered to a different dtype
        is a RuntimeError (and nothing is registered). The first name of the first
        registration is what dtype_to_ctype() gives. Returns the registered dtype object (the
        one registered first, for equal dtypes).
        """
        names = _names_list(c_names)
        if dtype is None:
            found = {self.lookup(name) for name in names}
            if len(found) != 1:
                raise ValueError(f"the names {names} are registered to different dtypes: {sorted(map(str, found))}")
            return found.pop()
        dtype = builder_arguments.dtype(dtype, "dtype")
        for name in names:
            known = self._name_to_dtype.get(name)
            if known is not None and known != dtype:
                raise RuntimeError(f"C type {name!r} is already registered to dtype {known}, not {dtype}")
        if dtype in self._dtype_to_name:
            dtype = self._name_to_dtype[self._dtype_to_name[dtype]]
        else:
            self._dtype_to_name[dtype] = names[0]
        for name in names:
            self._name_to_dtype.setdefault(name, dtype)
        return dtype

    def register_dtype(self, dtype: npt.DTypeLike, c_names: CNames, alias_ok: bool = False) -> None:
        """Deprecated in PyCUDA and PyOpenCL in favour of get_or_register_dtype(c_names,
        dtype). Refuses a dtype that is already registered unless `alias_ok`."""
        warn("register_dtype is deprecated; use get_or_register_dtype(c_names, dtype)", DeprecationWarning)
        names = _names_list(c_names)
        dtype = builder_arguments.dtype(dtype, "dtype")
        if not alias_ok and dtype in self._dtype_to_name:
            raise RuntimeError(
                f"dtype {dtype} is already registered as {self._dtype_to_name[dtype]!r} "
                f"(new names {', '.join(names)}); pass alias_ok=True to add names"
            )
        self.get_or_register_dtype(names, dtype)

    def dtype_to_ctype(self, dtype: npt.DTypeLike) -> str:
        """The C type name of a numpy dtype (``float32`` -> ``"float"``); ValueError for a
        dtype nobody registered."""
        if dtype is None:
            raise ValueError("dtype may not be None")
        dtype = builder_arguments.dtype(dtype, "dtype")
        try:
            return self._dtype_to_name[dtype]
        except KeyError:
            raise ValueError(
                f"unable to map dtype {dtype} to a {self.language} type; register it with "
                f"get_or_register_dtype(c_name, dtype)"
            ) from None


# CUDA C's registry (pycuda.tools'): the C++ core's table (gpukit/array/dtype.hpp), whose first
# name of each type is the one dtype_to_ctype() gives; the complex types are
# pycuda-complex.hpp's, which every ElementwiseKernel includes; then the vector types.
CUDA_TYPES = CTypeRegistry("C", _c_type_names())
for _name, _dtype in _vec.TYPES.items():  # float3, int4, ...
    CUDA_TYPES.get_or_register_dtype(_name, _dtype)


def get_or_register_dtype(c_names: CNames, dtype: npt.DTypeLike | None = None) -> np.dtype[Any]:
    """CUDA C's CTypeRegistry.get_or_register_dtype (pycuda.tools')."""
    return CUDA_TYPES.get_or_register_dtype(c_names, dtype)


def register_dtype(dtype: npt.DTypeLike, c_names: CNames, alias_ok: bool = False) -> None:
    """CUDA C's CTypeRegistry.register_dtype (deprecated in PyCUDA)."""
    CUDA_TYPES.register_dtype(dtype, c_names, alias_ok)


def dtype_to_ctype(dtype: npt.DTypeLike, with_fp_tex_hack: bool = False) -> str:
    """The CUDA C type name of a numpy dtype (``float32`` -> ``"float"``); ValueError for a
    dtype nobody registered. ``with_fp_tex_hack`` named PyCUDA's element types of texture
    references, which CUDA 12 removed: it raises LogicError."""
    if with_fp_tex_hack:
        raise LogicError(
            "dtype_to_ctype(with_fp_tex_hack=True): the fp_tex_* types declared texture references, "
            "which CUDA 12 removed; read float64 and complex textures with the fp_tex*_double/_cfloat/"
            "_cdouble functions of <gpukit/helpers.cuh> on a TextureObject"
        )
    return CUDA_TYPES.dtype_to_ctype(dtype)


# ---- C argument declarations


class DtypedArgument:
    """A named kernel argument of a numpy dtype. Equal (and hashing alike) when class, name
    and dtype are."""

    def __init__(self, dtype: npt.DTypeLike, name: str) -> None:
        self.name = argument_name(name, "cuda")
        self.dtype = builder_arguments.dtype(dtype, "dtype")

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and self.name == other.name and self.dtype == other.dtype

    def __hash__(self) -> int:
        return hash((type(self), self.name, self.dtype))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r}, {self.dtype})"


class VectorArg(DtypedArgument):
    """A pointer argument: ``float *x``. Its prepare() format letter is ``P``."""

    struct_char = "P"

    def declarator(self) -> str:
        """The C parameter declaration: ``float *x``."""
        return f"{dtype_to_ctype(self.dtype)} *{self.name}"


class ScalarArg(DtypedArgument):
    """A by-value argument: ``float a``, or a registered struct or vector type."""

    def declarator(self) -> str:
        """The C parameter declaration: ``float a``."""
        return f"{dtype_to_ctype(self.dtype)} {self.name}"

    @property
    def struct_char(self) -> str:
        """The prepare() format of the value: the dtype's letter, or ``<itemsize>s`` for a
        record (struct) dtype."""
        return f"{self.dtype.itemsize}s" if self.dtype.char == "V" else self.dtype.char


# Words that qualify a declaration without changing the argument's type.
_QUALIFIERS = {"const", "volatile", "__restrict__", "__restrict", "restrict"}
_DECLARATOR = re.compile(r"^(?P<type>.*?)\s*(?P<stars>(\*\s*)*)(?P<name>[A-Za-z_]\w*)\s*(?P<array>(\[\s*\d*\s*\])?)$")


def parse_c_arg(c_arg: str) -> VectorArg | ScalarArg:
    """A VectorArg for a pointer or array parameter (``"const float *x"``, ``"int a[]"``), a
    ScalarArg otherwise (``"float3 v"``). Qualifiers (const, volatile, __restrict__) are
    dropped; the type must be registered. ValueError for anything else, including pointers
    to pointers."""
    if not isinstance(c_arg, str):
        raise TypeError(f"parse_c_arg expects a C declaration string, got {type(c_arg).__name__}")
    # Qualifiers go as whole words, so a name such as `constant` stays intact.
    words = re.sub(r"\*", " * ", c_arg).split()
    declaration = " ".join(w for w in words if w not in _QUALIFIERS)
    match = _DECLARATOR.match(declaration)
    if match is None or not match.group("type"):
        raise ValueError(
            f"couldn't parse C declaration {c_arg!r}; expected '<type> <name>', '<type> *<name>' or '<type> <name>[]'"
        )
    indirection = match.group("stars").count("*") + (1 if match.group("array") else 0)
    if indirection > 1:
        raise ValueError(
            f"C declaration {c_arg!r} is a pointer to pointers; kernel arguments are values or "
            "pointers to elements of a registered type"
        )
    dtype = CUDA_TYPES.lookup(_normalized(match.group("type")))
    return (VectorArg if indirection else ScalarArg)(dtype, match.group("name"))


def get_arg_type(c_arg: str) -> str:
    """The prepare() format of a C declaration: ``"P"`` for pointers, else the dtype's."""
    return parse_c_arg(c_arg).struct_char
