"""PyCUDA's two-pass reduction kernels, for code that drives a ReductionKernel's passes itself
(pycbc's subclass calls ``stage1_func`` and ``stage2_func``).

gpukit's ReductionKernel runs its own one-pass kernels; these are made only when a program
asks for the passes, with PyCUDA's parameters: ``(out, *arguments, seq_count, n)``, where
each block of ``block_size`` threads (a power of two) reduces ``block_size * seq_count``
elements from index ``blockIdx.x * block_size * seq_count`` into ``out[blockIdx.x]``, with
``shared_size = block_size * sizeof(out_type)`` bytes of dynamic shared memory. The second
pass takes the first one's partial results as an extra first argument
``pycuda_reduction_inp`` and reads them with ``pycuda_reduction_inp[i]``."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from gpukit import driver
from gpukit._array.c_types import get_arg_type

_SOURCE = """
#include <pycuda-complex.hpp>

{preamble}

typedef {out_type} out_type;
#define GK_MAP(i) ({map_expr})
#define GK_REDUCE(a, b) ({reduce_expr})

extern "C" __global__ void {name}(out_type *out, {arguments}, unsigned int seq_count, size_t n)
{{
    // Raw bytes: a struct accumulator needs no constructor run on shared memory.
    extern __shared__ unsigned char gk_shared_bytes[];
    out_type *partial = reinterpret_cast<out_type *>(gk_shared_bytes);
    const unsigned int t = threadIdx.x;
    size_t i = (size_t)blockIdx.x * blockDim.x * seq_count + t;
    out_type acc = {neutral};
    for (unsigned int s = 0; s < seq_count && i < n; ++s, i += blockDim.x)
        acc = GK_REDUCE(acc, GK_MAP(i));
    partial[t] = acc;
    __syncthreads();
    for (unsigned int half = blockDim.x / 2; half > 0; half /= 2) {{
        if (t < half)
            partial[t] = GK_REDUCE(partial[t], partial[t + half]);
        __syncthreads();
    }}
    if (t == 0)
        out[blockIdx.x] = partial[0];
}}
"""


class TwoPassKernels:
    """The two passes of one reduction, compiled on first use in each context."""

    def __init__(
        self,
        name: str,
        out_type: str,
        neutral: str,
        reduce_expr: str,
        map_expr: str,
        declarations: Iterable[str],
        preamble: str,
        compile_options: dict[str, Any],
    ) -> None:
        self.name = name
        self.out_type = out_type
        self.neutral = neutral  # C code
        self.reduce_expr = reduce_expr
        self.map_expr = map_expr
        self.declarations = list(declarations)
        self.preamble = preamble
        self.compile_options = compile_options  # SourceModule's keywords
        self.functions: dict[tuple[int, int], driver.Function] = {}  # (context handle, stage) -> prepared Function

    def arg_types(self, stage: int) -> list[str]:
        """PyCUDA's stage1_arg_types / stage2_arg_types: 'P' or a struct letter per argument."""
        types = [get_arg_type(declaration) for declaration in self.declarations]
        return types if stage == 1 else ["P", *types]

    def source(self, stage: int) -> str:
        declarations = (
            self.declarations if stage == 1 else [f"const {self.out_type} *pycuda_reduction_inp", *self.declarations]
        )
        return _SOURCE.format(
            preamble=self.preamble,
            out_type=self.out_type,
            name=f"{self.name}_stage{stage}",
            map_expr=self.map_expr if stage == 1 else "pycuda_reduction_inp[i]",
            reduce_expr=self.reduce_expr,
            neutral=self.neutral,
            arguments=", ".join(declarations),
        )

    def function(self, stage: int) -> driver.Function:
        """The prepared kernel of pass `stage` in the current context."""
        from gpukit.compiler import SourceModule

        context = driver.Context.get_current()
        if context is None:
            raise driver.LogicError(f"ReductionKernel {self.name!r}: its stage{stage}_func needs a current context")
        key = (context.handle, stage)
        if key not in self.functions:
            module = SourceModule(self.source(stage), no_extern_c=True, **self.compile_options)
            function = module.get_function(f"{self.name}_stage{stage}")
            function.prepare("P" + "".join(self.arg_types(stage)) + "IN")
            self.functions[key] = function
        return self.functions[key]
