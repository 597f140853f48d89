"""PyCUDA's operators, written over its arithmetic back-ends.

PyCUDA's GPUArray computes ``a + b`` as ``a._axpbyz(1, b, 1, result)``, ``a * 2`` as
``a._axpbz(2, 0, result)`` and so on, so a subclass that overrides a back-end (``_axpbyz``,
``_axpbz``, ``_elwise_multiply``, ``_div``, ``_rdiv_scalar``) changes what its operators do.
gpukit's operators are one call into C++ each and call no back-end; GPUArray.__init_subclass__
gives a subclass that overrides a back-end these operators instead, which follow PyCUDA's
dispatch exactly (results from _new_like_me, PyCUDA's scalar shortcuts)."""

import numpy as np

BACKENDS = ("_axpbyz", "_axpbz", "_elwise_multiply", "_div", "_rdiv_scalar")


def _is_array(value):
    from gpukit.gpuarray import GPUArray

    return isinstance(value, GPUArray)


def _result(self, other):
    from gpukit.gpuarray import _get_broadcasted_binary_op_result, _get_common_dtype

    if _is_array(other):
        return _get_broadcasted_binary_op_result(self, other)
    return self._new_like_me(_get_common_dtype(self, other))


def add(self, other):
    if _is_array(other):
        return self._axpbyz(1, other, 1, _result(self, other))
    if not np.isscalar(other):
        return NotImplemented
    return self.copy() if other == 0 else self._axpbz(1, other, _result(self, other))


def sub(self, other):
    if _is_array(other):
        return self._axpbyz(1, other, -1, _result(self, other))
    if not np.isscalar(other):
        return NotImplemented
    return self.copy() if other == 0 else self._axpbz(1, -other, _result(self, other))


def rsub(self, other):
    return self._axpbz(-1, other, _result(self, other))


def iadd(self, other):
    return self._axpbyz(1, other, 1, self) if _is_array(other) else self._axpbz(1, other, self)


def isub(self, other):
    return self._axpbyz(1, other, -1, self) if _is_array(other) else self._axpbz(1, -other, self)


def neg(self):
    return self._axpbz(-1, 0, self._new_like_me())


def mul(self, other):
    if _is_array(other):
        return self._elwise_multiply(other, _result(self, other))
    if not np.isscalar(other):
        return NotImplemented
    return self._axpbz(other, 0, _result(self, other))


def rmul(self, other):
    return self._axpbz(other, 0, _result(self, other))


def imul(self, other):
    return self._elwise_multiply(other, self) if _is_array(other) else self._axpbz(other, 0, self)


def truediv(self, other):
    if _is_array(other):
        return self._div(other, _result(self, other))
    if not np.isscalar(other):
        return NotImplemented
    return self.copy() if other == 1 else self._axpbz(1 / other, 0, _result(self, other))


def rtruediv(self, other):
    return self._rdiv_scalar(other, _result(self, other))


def itruediv(self, other):
    if _is_array(other):
        return self._div(other, self)
    return self if other == 1 else self._axpbz(1 / other, 0, self)


OPERATORS = {
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


def install(cls, base):
    """Gives `cls` PyCUDA's operators when it overrides one of base's arithmetic back-ends,
    except operators it defines itself."""
    if all(getattr(cls, name) is getattr(base, name) for name in BACKENDS):
        return
    for name, operator in OPERATORS.items():
        if not any(name in vars(klass) for klass in cls.__mro__[: cls.__mro__.index(base)]):
            setattr(cls, name, operator)
