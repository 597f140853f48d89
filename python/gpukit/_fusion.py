"""Fusing chained arithmetic on GPUArrays, such as ``a * x + b``, into one kernel.

Each GPUArray operator is one elementwise kernel, so ``a * x + b`` would read and write
memory twice and allocate a temporary. Instead, when the result of an operator can only
ever be an operand of the very next operator, its kernel is not launched: the result is
left *pending* (gpuarray._PendingGPUArray, holding an Expression) and the next operator
computes both steps in one kernel. ``a * x + b`` thus reads x and writes the result once.

When is that safe? The value of a pending result is computed later than the operator ran,
so nothing may change its inputs, or look at it, in between. feeds_next_operator() makes
sure of that from the caller's bytecode: after the operator's BINARY_OP come only plain
loads (local, global, closure and constant names, which run no user code), then the
BINARY_OP that takes the result as one of its operands. Anything else (a call, an
attribute, a subscript, storing the result in a variable) and the operator runs at once,
as it always did. A tracing or profiling hook, which could run code between instructions,
turns fusion off. And whatever touches a pending array other than a fusing operator (an
attribute, a method, another library's reflected operator reading
``__cuda_array_interface__``) first computes it.

The fused kernel evaluates each step in the dtype and with the casts the separate kernels
would use; only the compiler may contract a multiply and an add into one fused
multiply-add, as in any single CUDA kernel.
"""
import dis
import re
import sys

# Operators whose results may be left pending and which fuse pending operands (their
# argrepr in the bytecode). In-place operators write an existing array, which may overlap
# the inputs of a pending operand, so they never fuse.
FUSABLE_SYMBOLS = frozenset(("+", "-", "*", "/"))

# Beyond this many operands a pending result is computed on its own first, so long chains
# do not generate kernels with ever more parameters.
MAX_OPERANDS = 16

# Instructions that push names' values and run no user code, with how many values they push.
_PLAIN_LOADS = {
    "LOAD_FAST": 1, "LOAD_FAST_CHECK": 1, "LOAD_FAST_BORROW": 1, "LOAD_CONST": 1, "LOAD_SMALL_INT": 1,
    "LOAD_DEREF": 1, "LOAD_NAME": 1, "LOAD_FAST_LOAD_FAST": 2, "LOAD_FAST_BORROW_LOAD_FAST_BORROW": 2,
}
_NO_EFFECT = frozenset(("NOP", "EXTENDED_ARG", "CACHE"))

_decisions = {}  # (code object, instruction offset) -> bool
_MAX_DECISIONS = 4096


def feeds_next_operator(frame):
    """Whether `frame` is executing a fusable BINARY_OP whose result is an operand of the
    next BINARY_OP, with only plain loads in between (see the module documentation)."""
    if sys.gettrace() is not None or sys.getprofile() is not None:
        return False
    key = (frame.f_code, frame.f_lasti)
    decision = _decisions.get(key)
    if decision is None:
        if len(_decisions) >= _MAX_DECISIONS:
            _decisions.clear()
        decision = _decisions[key] = _analyse(*key)
    return decision


def _analyse(code, offset):
    instructions = list(dis.get_instructions(code))
    position = next((i for i, ins in enumerate(instructions) if ins.offset == offset), None)
    if position is None or not _is_fusable_operator(instructions[position]):
        return False
    pushed = 0
    for ins in instructions[position + 1:]:
        if ins.opname in _NO_EFFECT:
            continue
        if ins.opname == "LOAD_GLOBAL":  # the low bit of its argument pushes a NULL first
            pushed += 2 if ins.arg & 1 else 1
        elif ins.opname in _PLAIN_LOADS:
            pushed += _PLAIN_LOADS[ins.opname]
        else:
            # The next operator takes the result as its left (one value loaded since) or
            # right (none) operand; with more loaded, it works on those instead.
            return _is_fusable_operator(ins) and pushed <= 1
        if pushed > 1:
            return False
    return False


def _is_fusable_operator(instruction):
    return instruction.opname == "BINARY_OP" and instruction.argrepr in FUSABLE_SYMBOLS


class Scalar:
    """A scalar operand: its value's bytes in the dtype the expression computes with."""
    __slots__ = ("data", "dtype")

    def __init__(self, data, dtype):
        self.data, self.dtype = data, dtype


_PLACEHOLDER = re.compile(r"\{(\d+)\}")


class Expression:
    """Element i of an elementwise result as CUDA C: `text` is of C type `dtype`, and `{k}`
    in it stands for operand k (element i of an array, or a Scalar's value). Also carries
    what the result array is made with: shape, allocator and stream of its first array."""
    __slots__ = ("text", "operands", "dtype", "shape", "allocator", "stream", "preamble")

    def __init__(self, text, operands, dtype, shape, allocator, stream, preamble=""):
        self.text, self.operands, self.dtype = text, operands, dtype
        self.shape, self.allocator, self.stream, self.preamble = shape, allocator, stream, preamble

    @classmethod
    def of_array(cls, array):
        return cls("{0}", [array], array.dtype, array.shape, array.allocator, array.stream)

    @classmethod
    def of_scalar(cls, data, dtype):
        return cls("{0}", [Scalar(data, dtype)], dtype, None, None, None)

    def combine(self, other, make_text, dtype, preamble=""):
        """The expression make_text(self's text, other's text) of dtype `dtype`. An array
        that is an operand of both stays one operand. Shape, allocator and stream come
        from self unless self is a scalar."""
        operands = list(self.operands)
        renumber = {}
        for k, operand in enumerate(other.operands):
            same = next((j for j, mine in enumerate(operands)
                         if mine is operand and not isinstance(operand, Scalar)), None)
            if same is None:
                operands.append(operand)
                same = len(operands) - 1
            renumber[k] = same
        other_text = _PLACEHOLDER.sub(lambda m: "{%d}" % renumber[int(m.group(1))], other.text)
        first = self if self.shape is not None else other
        preambles = "".join(dict.fromkeys(p for p in (self.preamble, other.preamble, preamble) if p))
        return Expression(make_text(self.text, other_text), operands, dtype, first.shape, first.allocator,
                          first.stream, preambles)

    def operation(self):
        """The kernel body that stores the expression in the output array `z`; operand k
        is the parameter `p<k>`."""
        names = ["p%d[i]" % k if not isinstance(op, Scalar) else "p%d" % k for k, op in enumerate(self.operands)]
        return "z[i] = " + _PLACEHOLDER.sub(lambda m: names[int(m.group(1))], self.text)
