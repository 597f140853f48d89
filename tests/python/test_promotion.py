"""gpukit's binary-operator type table (gpukit/array/promotion.hpp) against numpy itself, for
every operator, every pair of dtypes, and every dtype with Python ints (small, negative, at
and beyond each type's range and 64 bits), floats, complex numbers and bools, on both sides:
the same result dtype, the computation type of numpy's ufunc loop, the answer numpy gives
every element of a comparison with an int out of range, or numpy's exception and message.
The table's functions (minimum, maximum, logical_and, logical_or) are checked the same way;
the logical ones test each operand for non-zero, so they compute in bool."""

import functools
import operator
import warnings

import numpy as np
import pytest

from gpukit import _gpukit

TYPES = [
    "bool",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float32",
    "float64",
    "complex64",
    "complex128",
]
INTEGER_TYPES = [t for t in TYPES if np.dtype(t).kind in "iu"]

OPERATORS = {
    "+": (operator.add, np.add),
    "-": (operator.sub, np.subtract),
    "*": (operator.mul, np.multiply),
    "/": (operator.truediv, np.true_divide),
    "**": (operator.pow, np.power),
    "==": (operator.eq, np.equal),
    "!=": (operator.ne, np.not_equal),
    "<": (operator.lt, np.less),
    "<=": (operator.le, np.less_equal),
    ">": (operator.gt, np.greater),
    ">=": (operator.ge, np.greater_equal),
    "minimum": (np.minimum, np.minimum),
    "maximum": (np.maximum, np.maximum),
    "logical_and": (np.logical_and, np.logical_and),
    "logical_or": (np.logical_or, np.logical_or),
}
COMPARISONS = {"==", "!=", "<", "<=", ">", ">="}
LOGICAL = {"logical_and", "logical_or"}


def edge_values():
    """Python ints around every integer type's range, the C long and 64-bit edges, and beyond."""
    values = {0, 1, -1, 2, -2, 1000, -1000, 2**64, -(2**64), 2**100, -(2**100)}
    for t in INTEGER_TYPES:
        info = np.iinfo(t)
        values |= {int(info.min), int(info.max), int(info.min) - 1, int(info.max) + 1}
    return sorted(values)


PYTHON_INTS = edge_values()

# Each operand as a value for numpy and as a description for _gpukit._resolve_binary.
# Arrays are typed operands (numpy 2 treats its scalars and 0-d arrays alike); a Python bool is
# a typed bool (numpy's bool scalars here, so that one with a Python int is typed as numpy
# types it; test_python_bools_type_as_numpy_bools shows they type alike).
OPERANDS = (
    [(np.ones(3, t), ("typed", t)) for t in TYPES]
    + [(v, ("int", v)) for v in PYTHON_INTS]
    + [(1.5, ("float",)), (2j, ("complex",)), (np.True_, ("typed", "bool")), (np.False_, ("typed", "bool"))]
)


def weak_type(value):
    """What ufunc.resolve_dtypes takes for an operand: a dtype, or Python's int, float or complex."""
    return value.dtype if isinstance(value, (np.ndarray, np.generic)) else type(value)


@functools.lru_cache(maxsize=None)
def numpy_loop(ufunc, *operand_types):
    """numpy's loop for the operand types (dtypes or Python types): its dtype names, inputs then output."""
    return tuple(d.name for d in ufunc.resolve_dtypes(operand_types + (None,)))


def numpy_answer(symbol, a, b):
    """(result dtype name, every element's answer or None) of `a symbol b` in numpy, or its exception.
    Integer arrays hold their type's minimum, 0 and maximum, so that a comparison answered the
    same for every element is one that holds for every value of the type."""

    def values(x):
        if isinstance(x, np.ndarray) and x.dtype.kind in "iu":
            info = np.iinfo(x.dtype)
            return np.array([info.min, 0, info.max], x.dtype)
        return x

    python_operator = OPERATORS[symbol][0]
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            result = python_operator(values(a), values(b)) if symbol in COMPARISONS else python_operator(a, b)
    except (TypeError, ValueError, OverflowError) as e:
        return e
    answers = set(np.asarray(result).ravel().tolist()) if symbol in COMPARISONS else set()
    return result.dtype.name, answers.pop() if len(answers) == 1 else None


def out_of_range(value, typed):
    """Whether Python int `value` lies outside integer dtype `typed`'s range."""
    info = np.iinfo(typed)
    return not info.min <= value <= info.max


def expected(symbol, a, a_description, b, b_description):
    """What _resolve_binary must return for `a symbol b`, derived from numpy, or the exception
    (class and message) it must raise."""
    answer = numpy_answer(symbol, a, b)
    if isinstance(answer, Exception):
        return type(answer), str(answer)
    result, uniform = answer
    ufunc = OPERATORS[symbol][1]
    if symbol == "**" and isinstance(a, np.ndarray) and b_description == ("int", 2):
        # ndarray's `**` squares for the exponent 2 (numpy.square, whose loop for bool is
        # int8's, where numpy.power's would be int64's).
        in1, out = numpy_loop(np.square, a.dtype)
        in2 = in1
    else:
        in1, in2, out = numpy_loop(ufunc, weak_type(a), weak_type(b))
    assert out == result  # numpy's loop gives the result type its operator gives
    if symbol in LOGICAL:
        # numpy's loop converts both operands to their common type and tests for non-zero;
        # testing each for non-zero first gives the same answer, in bool.
        compute, mixed = "bool", False
    elif symbol in COMPARISONS:
        # The loop's input type; only numpy's mixed int64-with-uint64 loops take two.
        mixed = in1 != in2
        assert not mixed or {in1, in2} == {"int64", "uint64"}
        compute = "int64" if mixed else in1
    else:
        # Arithmetic loops compute in their one input type (integers divide in float64: numpy's
        # only true_divide loops are float ones).
        assert in1 == in2 == out
        compute, mixed = in1, False
    # Comparing an integer array with an int its type cannot hold: numpy answers every element alike.
    constant = None
    descriptions = (a_description, b_description)
    typed = [d[1] for d in descriptions if d[0] == "typed"]
    if symbol in COMPARISONS and any(d[0] == "int" for d in descriptions) and typed[0] in INTEGER_TYPES:
        value = next(d[1] for d in descriptions if d[0] == "int")
        if out_of_range(value, typed[0]):
            assert uniform is not None
            constant = uniform
    return result, compute, constant, mixed


def cases():
    """Every (a, b) pair where at least one operand is an array, as in gpukit's operators
    (numpy's bool scalar with a Python scalar is outside them, and types one case apart:
    numpy.True_ ** 2 is int64, an array's ** 2 is int8)."""
    for a, a_description in OPERANDS:
        for b, b_description in OPERANDS:
            if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
                yield a, a_description, b, b_description


@pytest.mark.parametrize("symbol", list(OPERATORS))
def test_every_operand_pair_matches_numpy(symbol):
    checked = {"result": 0, "error": 0, "constant": 0}
    for a, a_description, b, b_description in cases():
        want = expected(symbol, a, a_description, b, b_description)
        if isinstance(want[0], type):
            error, message = want
            with pytest.raises(error) as info:
                _gpukit._resolve_binary(symbol, a_description, b_description)
            assert type(info.value) is error and str(info.value) == message, (a_description, b_description)
            checked["error"] += 1
            continue
        got = _gpukit._resolve_binary(symbol, a_description, b_description)
        assert got == want, (a_description, b_description)
        checked["constant" if want[2] is not None else "result"] += 1
    # Each outcome was reached (dividing converts every int to float64, so nothing overflows).
    assert checked["result"] > 500
    assert (checked["constant"] > 200) == (symbol in COMPARISONS)
    assert (checked["error"] > 0) == (symbol != "/")


def test_python_bools_type_as_numpy_bools():
    for symbol, (python_operator, _) in OPERATORS.items():
        for t in TYPES:
            for value in (True, False):
                outcomes = []
                for scalar in (value, np.bool_(value)):
                    for pair in ((np.ones(3, t), scalar), (scalar, np.ones(3, t))):
                        try:
                            with warnings.catch_warnings(), np.errstate(all="ignore"):
                                warnings.simplefilter("ignore")
                                outcomes.append(python_operator(*pair).dtype)
                        except TypeError as e:
                            outcomes.append(str(e))
                assert outcomes[:2] == outcomes[2:], (symbol, t, value)


def test_numpy_scalars_type_as_arrays():
    # The table's "typed" operands stand for numpy scalars and 0-d arrays too (numpy 2).
    for t in TYPES:
        for u in TYPES:
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                assert (np.ones(1, t) * np.ones(1, u)).dtype == (np.dtype(t).type(1) * np.ones((), u)).dtype


def test_bad_descriptions():
    with pytest.raises(ValueError, match="unknown operator"):
        _gpukit._resolve_binary("//", ("typed", "int8"), ("typed", "int8"))
    with pytest.raises(ValueError, match="an operand is"):
        _gpukit._resolve_binary("+", ("typed",), ("typed", "int8"))
    with pytest.raises(ValueError, match="an operand is"):
        _gpukit._resolve_binary("+", ("int", 1.5), ("typed", "int8"))
    with pytest.raises(ValueError, match="one operand must be an array"):
        _gpukit._resolve_binary("+", ("int", 1), ("float",))
    from gpukit.driver import LogicError

    with pytest.raises(LogicError, match="unsupported dtype 'float16'"):
        _gpukit._resolve_binary("+", ("typed", "float16"), ("float",))
