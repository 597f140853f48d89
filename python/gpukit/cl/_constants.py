"""PyOpenCL's classes of constants (mem_info, device_info, ...): class attributes that are
plain ints, and ``to_string(value, default_format=None)``, so that code which walks
``dir(cls)`` (PyOpenCL's own tests do) finds the members, ``to_string`` and ``_is_bitfield``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def _to_string(cls: type[Any], value: int, default_format: str | None = None) -> str:
    """The member name of `value`; with no such member, ``default_format % value`` when
    given, else ValueError."""
    members: tuple[tuple[str, int], ...] = cls._members
    for name, member in members:
        if member == value:
            return name
    if default_format is None:
        raise ValueError(f"a name for value {value!r} was not found in {cls.__name__}")
    return default_format % value


def constant_class(name: str, members: Sequence[tuple[str, int]]) -> type[Any]:
    """A class named `name` whose attributes are the (name, int) pairs of `members`.

    Typed ``type[Any]``: its attributes are made at run time, one per member."""
    namespace: dict[str, Any] = dict(members)
    namespace.update(
        _members=tuple(members),
        _is_bitfield=False,
        to_string=classmethod(_to_string),
        __module__="gpukit.cl",
        __doc__=f"The {name} parameters of get_info (PyOpenCL's constants: plain ints).",
    )
    return type(name, (), namespace)
