"""A small library built on PyCUDA the way real ones are (reikna's cluda.cuda, grunnur's CUDA
adapter): it subclasses GPUArray with its own constructor, allocator and offset, keeps its own
context and stream, compiles a templated kernel module once, calls kernels with numpy scalars,
0-d arrays and records, owns temporary buffers through an ArgumentHandler subclass, and reaches
for PyCUDA's private helpers. It imports ``pycuda`` only: the tests run it on gpukit through
``gpukit.pycuda_compat`` and, where PyCUDA is installed, on PyCUDA itself (test_pycuda_minilib.py)."""

from .array import Array
from .thread import Thread
from .kernels import Scaler, Normalizer

__all__ = ["Array", "Thread", "Scaler", "Normalizer"]
