"""NCCL collectives on GPU arrays, across the GPUs of one process, of one machine, or of many
machines (through MPI).

``Communicator`` is one rank of a group of GPUs. Make one per rank from a unique id that one
process makes with ``get_unique_id()`` and sends to the others (by MPI, a file, a socket:
it is 128 bytes), or one per local GPU with ``Communicator.init_all(devices)``; over an
mpi4py communicator, ``from_mpi(comm)`` does both steps.

Collectives take gpukit arrays (GPUArray, gpukit.cuda device arrays), any object with
``__cuda_array_interface__`` (CuPy, PyTorch, numba), or bare device addresses with
``count=`` and ``dtype=``; contiguous buffers only. Without ``recvbuf`` a call works in
place. ``stream=`` takes gpukit streams or any object with ``__cuda_stream__``; the default
is the legacy default stream. Calls return when the work is queued on the stream.

``group()`` is NCCL's group, with its semantics: calls and communicators made in it are
launched and made when the outermost block ends, and a refused call fails the whole group,
which then launches none of its calls.
``Communicator.check_agreement`` makes every collective first check that the ranks make the
same call, raising ValueError on every rank where NCCL would hang.

Communicators work in their device's primary context, like NCCL itself, CuPy and PyTorch:
buffers and streams must come from that context (``import gpukit.autoprimaryctx``).
NCCL is loaded on first use from the CUDA toolkit or the pip package ``nvidia-nccl-cu13``
(or ``-cu12``); ``available()`` says whether it can be.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

# Importing gpukit.compiler passes the `nvidia` pip packages' directories to C++, where the
# loader looks for nvidia/nccl/lib (pip's nvidia-nccl-cu13 and -cu12) before the first load.
from gpukit import compiler as _compiler  # noqa: F401
from gpukit._gpukit import nccl as _nccl

if TYPE_CHECKING:
    from gpukit._gpukit import Device

Communicator = _nccl.Communicator
NcclError = _nccl.NcclError
available = _nccl.available
version = _nccl.version
library_path = _nccl.library_path
get_unique_id = _nccl.get_unique_id
UNIQUE_ID_BYTES = _nccl.UNIQUE_ID_BYTES
SPLIT_NOCOLOR = _nccl.SPLIT_NOCOLOR

__all__ = [
    "Communicator",
    "NcclError",
    "available",
    "version",
    "library_path",
    "get_unique_id",
    "group",
    "from_mpi",
    "UNIQUE_ID_BYTES",
    "SPLIT_NOCOLOR",
]


class _MPIComm(Protocol):
    """What from_mpi() uses of an mpi4py communicator."""

    def Get_rank(self) -> int: ...

    def Get_size(self) -> int: ...

    def bcast(self, obj: Any, root: int) -> Any: ...


def group() -> _nccl._Group:
    """A with-block whose NCCL calls wait for the end of the outermost block (NCCL's
    ncclGroupStart / ncclGroupEnd): send/recv pairs, collectives on several communicators of
    this process, and communicators made there (``Communicator(...)``, ``init_all``,
    ``split``), which are pending (``is_pending``) until the block ends. Each call is checked
    when it is made and recorded, with the arrays and stream it uses kept alive; the end of
    the outermost block issues them all, in order, in one NCCL group, and raises the errors
    NCCL reports. A call refused inside the block makes the whole group fail there, issuing
    none of its calls (even when the refusal was caught inside), and a block left by an
    exception issues none either. ``destroy()`` and ``abort()`` in a block take effect after
    it ends. Blocks nest; use one on one thread."""
    return _nccl._Group()


def from_mpi(comm: _MPIComm, device: Device | int | None = None, check_agreement: bool = False) -> _nccl.Communicator:
    """A Communicator with one rank per process of the mpi4py communicator ``comm`` (rank r
    of ``comm`` is rank r here): rank 0 makes the unique id and broadcasts it. ``device``:
    this process's GPU (a Device or number); default: the current context's.
    ``check_agreement``: the communicator's check_agreement (each collective first checks
    that every rank makes the same call). Every process of ``comm`` must call it, alike.
    ``comm`` may be any object with mpi4py's ``Get_rank()``, ``Get_size()`` and
    ``bcast(obj, root)``."""
    unique_id = get_unique_id() if comm.Get_rank() == 0 else None
    unique_id = comm.bcast(unique_id, root=0)
    communicator = Communicator(comm.Get_size(), unique_id, comm.Get_rank(), device=device)
    communicator.check_agreement = check_agreement
    return communicator
