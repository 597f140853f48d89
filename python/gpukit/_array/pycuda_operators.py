"""PyCUDA's operators, written over its arithmetic back-ends.

PyCUDA's GPUArray computes ``a + b`` as ``a._axpbyz(1, b, 1, result)``, ``a * 2`` as
``a._axpbz(2, 0, result)`` and so on, so a subclass that overrides a back-end (``_axpbyz``,
``_axpbz``, ``_elwise_multiply``, ``_div``, ``_rdiv_scalar``) changes what its operators do.
gpukit's operators are one call into C++ each and call no back-end; GPUArray.__init_subclass__
gives a subclass that overrides a back-end these operators instead, which follow PyCUDA's
dispatch exactly (results from _new_like_me, PyCUDA's scalar shortcuts)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # gpukit.gpuarray imports this module
    from types import NotImplementedType

    from typing_extensions import TypeIs  # (typing's from Python 3.13)

    from gpukit.gpuarray import GPUArray, ScalarLike

BACKENDS = ("_axpbyz", "_axpbz", "_elwise_multiply", "_div", "_rdiv_scalar")

# numpy.isscalar, typed as the plain test it is here: numpy declares it a TypeGuard of any
# scalar (str and bytes included), which would retype the numbers it is asked about.
_isscalar: Callable[[object], bool] = np.isscalar


def _is_array(value: object) -> TypeIs[GPUArray]:
    from gpukit.gpuarray import GPUArray

    return isinstance(value, GPUArray)


def _result(self: GPUArray, other: GPUArray | ScalarLike) -> GPUArray:
    from gpukit.gpuarray import _get_broadcasted_binary_op_result, _get_common_dtype

    if _is_array(other):
        return _get_broadcasted_binary_op_result(self, other)
    return self._new_like_me(_get_common_dtype(self, other))


def add(self: GPUArray, other: GPUArray | ScalarLike) -> GPUArray | NotImplementedType:
    if _is_array(other):
        return self._axpbyz(1, other, 1, _result(self, other))
    if not _isscalar(other):
        return NotImplemented  # type: ignore[no-any-return]  # (as the operator it becomes returns it)
    return self.copy() if other == 0 else self._axpbz(1, other, _result(self, other))


def sub(self: GPUArray, other: GPUArray | complex | np.number[Any]) -> GPUArray | NotImplementedType:
    if _is_array(other):
        return self._axpbyz(1, other, -1, _result(self, other))
    if not _isscalar(other):
        return NotImplemented  # type: ignore[no-any-return]  # (as the operator it becomes returns it)
    return self.copy() if other == 0 else self._axpbz(1, -other, _result(self, other))


def rsub(self: GPUArray, other: ScalarLike) -> GPUArray:
    return self._axpbz(-1, other, _result(self, other))


def iadd(self: GPUArray, other: GPUArray | ScalarLike) -> GPUArray:
    return self._axpbyz(1, other, 1, self) if _is_array(other) else self._axpbz(1, other, self)


def isub(self: GPUArray, other: GPUArray | complex | np.number[Any]) -> GPUArray:
    return self._axpbyz(1, other, -1, self) if _is_array(other) else self._axpbz(1, -other, self)


def neg(self: GPUArray) -> GPUArray:
    return self._axpbz(-1, 0, self._new_like_me())


def mul(self: GPUArray, other: GPUArray | ScalarLike) -> GPUArray | NotImplementedType:
    if _is_array(other):
        return self._elwise_multiply(other, _result(self, other))
    if not _isscalar(other):
        return NotImplemented  # type: ignore[no-any-return]  # (as the operator it becomes returns it)
    return self._axpbz(other, 0, _result(self, other))


def rmul(self: GPUArray, other: ScalarLike) -> GPUArray:
    return self._axpbz(other, 0, _result(self, other))


def imul(self: GPUArray, other: GPUArray | ScalarLike) -> GPUArray:
    return self._elwise_multiply(other, self) if _is_array(other) else self._axpbz(other, 0, self)


def truediv(self: GPUArray, other: GPUArray | ScalarLike) -> GPUArray | NotImplementedType:
    if _is_array(other):
        return self._div(other, _result(self, other))
    if not _isscalar(other):
        return NotImplemented  # type: ignore[no-any-return]  # (as the operator it becomes returns it)
    return self.copy() if other == 1 else self._axpbz(1 / other, 0, _result(self, other))


def rtruediv(self: GPUArray, other: ScalarLike) -> GPUArray:
    return self._rdiv_scalar(other, _result(self, other))


def itruediv(self: GPUArray, other: GPUArray | ScalarLike) -> GPUArray:
    if _is_array(other):
        return self._div(other, self)
    return self if other == 1 else self._axpbz(1 / other, 0, self)


OPERATORS: dict[str, Callable[..., GPUArray | NotImplementedType]] = {
    "__add__": add,
    "__radd__": add,
    "__sub__": sub,
    "__rsub__": rsub,
    "__iadd__": iadd,
    "__isub__": isub,
    "__neg__": neg,
    "__mul__": mul,
    "__rmul__": rmul,
    "__imul__": imul,
    "__truediv__": truediv,
    "__rtruediv__": rtruediv,
    "__itruediv__": itruediv,
}


def install(cls: type[GPUArray], base: type[GPUArray]) -> None:
    """Gives `cls` PyCUDA's operators when it overrides one of base's arithmetic back-ends,
    except operators it defines itself."""
    if all(getattr(cls, name) is getattr(base, name) for name in BACKENDS):
        return
    for name, operator in OPERATORS.items():
        if not any(name in vars(klass) for klass in cls.__mro__[: cls.__mro__.index(base)]):
            setattr(cls, name, operator)
