"""Sparse matrices and the conjugate gradient solver (PyCUDA's ``pycuda.sparse``), on
scipy.sparse input, for CUDA 12 and 13 (PyCUDA's needs texture references, which CUDA 12
removed, and pymetis).

- ``gpukit.sparse.packeted.PacketedSpMV(mat, is_symmetric, dtype)``: y = A x for a square
  matrix, in the solver's ordering (``permute`` / ``unpermute``);
- ``gpukit.sparse.coordinate.CoordinateSpMV(mat, dtype)``: y = A x for any shape;
- ``gpukit.sparse.cg.solve_pkt_with_cg(pkt_spmv, b, precon=None, x=None, tol=1e-7, ...)``:
  the conjugate gradient solver, returning (x, it_count, res_count);
- ``gpukit.sparse.operator``: IdentityOperator and DiagonalPreconditioner;
- ``gpukit.sparse.inner.AsyncInnerProduct``: an inner product read back without waiting.

scipy is needed to build matrices (an ImportError says so when it is missing); docs/sparse.md
is the guide. Import the submodules: this package imports none of them.
"""
