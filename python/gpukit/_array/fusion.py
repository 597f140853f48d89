"""Fusing chained arithmetic on GPUArrays, such as ``a * x + b``, into one kernel.

Each GPUArray operator is one elementwise kernel, so ``a * x + b`` would read and write
memory twice and allocate a temporary. Instead, when the result of an operator can only
ever be an operand of the very next operator, its kernel is not launched: the result is
left *pending* (a GPUArray holding the expression, without memory; see
python/bindings/array/array_object.hpp) and the next operator computes both steps in one kernel.
``a * x + b`` thus reads x and writes the result once.

When is that safe? The value of a pending result is computed later than the operator ran,
so nothing may change its inputs, or look at it, in between. feeds_next_operator() makes
sure of that from the caller's bytecode: after the operator's BINARY_OP come only plain
loads (local, global, closure and constant names, which run no user code), then the
BINARY_OP that takes the result as one of its operands. Anything else (a call, an
attribute, a subscript, storing the result in a variable) and the operator runs at once,
as it always did. A tracing or profiling hook, or a debugger registered with
sys.monitoring, could run code between instructions: they turn fusion off. And whatever
touches a pending array's memory other than a fusing operator (an attribute, a method,
another library's reflected operator reading ``__cuda_array_interface__``) first computes it.

What it costs when it does not fire: the operators are C++ (array_fusion.cpp), and each
place in the program is analysed here once, by _analyse(); afterwards an operator pays one
lookup of (code object, instruction offset) in a C++ table. ``gpuarray.set_fusion(False)``
(or ``GPUKIT_FUSION=0``) turns it off for the process.

The fused kernel evaluates each step in the dtype and with the casts the separate kernels
would use; only the compiler may contract a multiply and an add into one fused
multiply-add, as in any single CUDA kernel.
"""

from __future__ import annotations

import dis
import sys
from types import CodeType, FrameType

# Operators whose results may be left pending and which fuse pending operands (their
# argrepr in the bytecode; array_operators.cpp's fusable() names the same four). In-place
# operators write an existing array, which may overlap the inputs of a pending operand, so
# they never fuse.
FUSABLE_SYMBOLS = frozenset(("+", "-", "*", "/"))

# Instructions that push names' values and run no user code, with how many values they push.
_PLAIN_LOADS = {
    "LOAD_FAST": 1,
    "LOAD_FAST_CHECK": 1,
    "LOAD_FAST_BORROW": 1,
    "LOAD_CONST": 1,
    "LOAD_SMALL_INT": 1,
    "LOAD_DEREF": 1,
    "LOAD_NAME": 1,
    "LOAD_FAST_LOAD_FAST": 2,
    "LOAD_FAST_BORROW_LOAD_FAST_BORROW": 2,
}
_NO_EFFECT = frozenset(("NOP", "EXTENDED_ARG", "CACHE"))


def feeds_next_operator(frame: FrameType) -> bool:
    """Whether `frame` is executing a fusable BINARY_OP whose result is an operand of the
    next BINARY_OP, with only plain loads in between (see the module documentation). The
    operators ask the same of their caller's frame in C++; this form is for tests."""
    if sys.gettrace() is not None or sys.getprofile() is not None:
        return False
    return _analyse(frame.f_code, frame.f_lasti)


def _analyse(code: CodeType, offset: int) -> bool:
    instructions = list(dis.get_instructions(code))
    position = next((i for i, ins in enumerate(instructions) if ins.offset == offset), None)
    if position is None or not _is_fusable_operator(instructions[position]):
        return False
    pushed = 0
    for ins in instructions[position + 1 :]:
        if ins.opname in _NO_EFFECT:
            continue
        if ins.opname == "LOAD_GLOBAL":  # the low bit of its argument pushes a NULL first
            assert ins.arg is not None  # (LOAD_GLOBAL always has one)
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


def _is_fusable_operator(instruction: dis.Instruction) -> bool:
    return instruction.opname == "BINARY_OP" and instruction.argrepr in FUSABLE_SYMBOLS
