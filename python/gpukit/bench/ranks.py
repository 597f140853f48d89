"""One process per GPU: starting the ranks of a job, and letting them find each other.

``launch(argv, nranks)`` starts ``nranks`` copies of a program, one per GPU: under
``mpiexec``/``mpirun`` (``use_mpi=True``; ``mpi_launcher()`` finds one on PATH), or as plain
processes that meet through files in a fresh directory, named by the environment variables
GPUKIT_RENDEZVOUS, GPUKIT_RANK and GPUKIT_WORLD_SIZE. Inside a rank, ``world()`` returns an
mpi4py-like communicator either way (mpi4py's COMM_WORLD under MPI, else a ``FileComm``) and
the rank's GPU on its node, so ``gpukit.nccl.from_mpi(world)`` runs the same under both. The
NCCL benchmarks (bench/nccl.py) and the multi-process tests start their ranks here.
"""

from __future__ import annotations

import dataclasses
import os
import pickle
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Mapping, Sequence
from typing import Any, Protocol, TypeVar

T = TypeVar("T")

RENDEZVOUS = "GPUKIT_RENDEZVOUS"
RANK = "GPUKIT_RANK"
WORLD_SIZE = "GPUKIT_WORLD_SIZE"

#: Open MPI refuses to start as root without these (containers often run as root); other MPIs
#: ignore them.
MPI_AS_ROOT = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}


class Comm(Protocol):
    """What world() returns: mpi4py's communicator or a FileComm, as far as the ranks use it."""

    def Get_rank(self) -> int: ...  # noqa: N802 (mpi4py's names)
    def Get_size(self) -> int: ...  # noqa: N802
    def bcast(self, obj: T, root: int = 0) -> T: ...
    def allgather(self, obj: T) -> list[T]: ...
    def barrier(self) -> None: ...


class FileComm:
    """The part of mpi4py's communicator that bootstrapping NCCL needs (``Get_rank``,
    ``Get_size``, ``bcast``, ``allgather``, ``barrier``), over pickles in a directory that
    every rank of one machine sees. Every rank must make the same calls in the same order,
    as with MPI. A rank that waits longer than ``timeout`` seconds for another raises
    TimeoutError naming what it waited for."""

    def __init__(self, directory: str, rank: int, size: int, timeout: float = 300.0) -> None:
        if not 0 <= rank < size:
            raise ValueError(f"rank {rank} is outside [0, {size})")
        self.directory, self.rank, self.size, self.timeout = directory, rank, size, timeout
        self._calls = 0

    def Get_rank(self) -> int:  # noqa: N802 (mpi4py's names)
        return self.rank

    def Get_size(self) -> int:  # noqa: N802
        return self.size

    def bcast(self, obj: T, root: int = 0) -> T:
        path = self._path(self._next_call(), "bcast", root)
        if self.rank == root:
            self._write(path, obj)
            return obj
        sent: T = self._read(path, f"rank {root}'s broadcast")  # what rank `root` passed
        return sent

    def allgather(self, obj: T) -> list[T]:
        call = self._next_call()
        self._write(self._path(call, "gather", self.rank), obj)
        return [self._read(self._path(call, "gather", r), f"rank {r}'s part of an allgather") for r in range(self.size)]

    def barrier(self) -> None:
        self.allgather(None)

    def _next_call(self) -> int:
        """The number of this call: every rank counts its calls alike, which keeps the files
        of successive calls apart."""
        self._calls += 1
        return self._calls

    def _path(self, call: int, kind: str, rank: int) -> str:
        return os.path.join(self.directory, f"{call:06d}-{kind}-{rank}.pickle")

    def _write(self, path: str, obj: object) -> None:
        partial = f"{path}.{os.getpid()}.partial"
        with open(partial, "wb") as f:
            pickle.dump(obj, f)
        os.replace(partial, path)  # readers never see half a file

    def _read(self, path: str, what: str) -> Any:  # the object another rank wrote
        deadline = time.monotonic() + self.timeout
        pause = 0.001
        while not os.path.exists(path):
            if time.monotonic() > deadline:
                raise TimeoutError(
                    f"rank {self.rank} waited {self.timeout:g} s for {what} ({path}); that rank failed or never started"
                )
            time.sleep(pause)
            pause = min(pause * 2, 0.05)
        with open(path, "rb") as f:
            return pickle.load(f)


def under_mpi() -> bool:
    """Whether this process was started by an MPI launcher (Open MPI, MPICH / Hydra, Intel
    MPI, Slurm's PMI) rather than by launch()'s own processes or by hand."""
    if os.environ.get(RENDEZVOUS):
        return False
    return any(os.environ.get(v) for v in ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MPI_LOCALNRANKS"))


def world() -> tuple[Comm, int]:
    """(communicator, GPU of this rank on its node) for a rank started by launch() or by an
    MPI launcher; a one-rank FileComm for a process started by hand."""
    if under_mpi():
        from mpi4py import MPI  # type: ignore[import-not-found, import-untyped, unused-ignore]  # optional, and has no type information

        comm = MPI.COMM_WORLD
        local = comm.Split_type(MPI.COMM_TYPE_SHARED).Get_rank()
        return comm, local
    directory = os.environ.get(RENDEZVOUS)
    if not directory:
        return FileComm(tempfile.mkdtemp(prefix="gpukit-rank-"), 0, 1), 0
    rank = int(os.environ[RANK])
    return FileComm(directory, rank, int(os.environ[WORLD_SIZE])), rank


def mpi_launcher() -> str | None:
    """The path of ``mpiexec`` (else ``mpirun``) on PATH, or None."""
    return shutil.which("mpiexec") or shutil.which("mpirun")


@dataclasses.dataclass
class Launch:
    """What launch() saw: the launcher ("mpiexec PATH" or "gpukit"), each process's exit
    status (one process, mpiexec, under MPI), its output, and whether the time ran out."""

    launcher: str
    returncodes: list[int]
    outputs: list[str]
    timed_out: bool

    @property
    def ok(self) -> bool:
        return not self.timed_out and all(code == 0 for code in self.returncodes)

    def describe(self, tail: int = 2000) -> str:
        """A report for an error message: how it ended and the end of each output."""
        ending = "timed out" if self.timed_out else f"exit status {self.returncodes}"
        parts = [f"{self.launcher}: {ending}"]
        for k, output in enumerate(self.outputs):
            parts.append(f"--- output {k} (last {tail} characters) ---\n{output[-tail:]}")
        return "\n".join(parts)


def _die_with_the_launcher() -> None:
    """In a rank, before its program starts: be killed when the launcher dies, so that a
    launcher killed at a time limit (its ranks are in sessions of their own, out of reach of
    the signal) leaves no rank behind holding a GPU (Linux's PR_SET_PDEATHSIG)."""
    import ctypes

    pr_set_pdeathsig = 1
    ctypes.CDLL(None).prctl(pr_set_pdeathsig, signal.SIGKILL)


def launch(
    argv: Sequence[str],
    nranks: int,
    timeout: float,
    use_mpi: bool = False,
    env: Mapping[str, str] | None = None,
    mpiexec: str | None = None,
) -> Launch:
    """Runs the command ``argv`` as ``nranks`` ranks, waiting at most ``timeout`` seconds for
    all of them; a Launch. Under MPI (``use_mpi``) one ``mpiexec -n nranks argv`` does it
    (``mpiexec``: the launcher's path, default mpi_launcher()); else one process per rank,
    each in a session of its own, so that a rank that hangs can be killed with what it
    started, and each killed should the launcher die first. ``env``: the environment (default:
    this process's)."""
    base = dict(os.environ if env is None else env)
    if use_mpi:
        mpiexec = mpiexec or mpi_launcher()
        if not mpiexec:
            raise RuntimeError("no mpiexec or mpirun on PATH")
        commands = [[mpiexec, "-n", str(nranks), *_forwarded(mpiexec, base), *argv]]
        envs = [{**MPI_AS_ROOT, **base}]
        name = f"mpiexec {mpiexec}"
    else:
        rendezvous = tempfile.mkdtemp(prefix="gpukit-ranks-")
        commands = [list(argv)] * nranks
        envs = [{**base, RENDEZVOUS: rendezvous, RANK: str(r), WORLD_SIZE: str(nranks)} for r in range(nranks)]
        name = "gpukit"
    logs = [tempfile.TemporaryFile(mode="w+") for _ in commands]  # files: a pipe could fill and stall a rank
    try:
        processes = [
            subprocess.Popen(
                command,
                env=e,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                preexec_fn=_die_with_the_launcher,
            )
            for command, e, log in zip(commands, envs, logs)
        ]
        deadline = time.monotonic() + timeout
        timed_out = False
        for process in processes:
            try:
                process.wait(timeout=max(deadline - time.monotonic(), 0.01))
            except subprocess.TimeoutExpired:
                timed_out = True
                break
        if timed_out:
            for process in processes:
                if process.poll() is None:
                    try:
                        os.killpg(process.pid, signal.SIGKILL)  # the session launch() started
                    except ProcessLookupError:
                        pass
                process.wait()
        outputs = []
        for log in logs:
            log.seek(0)
            outputs.append(log.read())
        return Launch(name, [p.returncode for p in processes], outputs, timed_out)
    finally:
        for log in logs:
            log.close()
        if not use_mpi:
            shutil.rmtree(rendezvous, ignore_errors=True)


#: What Open MPI's launcher must pass on to the ranks (it passes few variables by itself;
#: MPICH's Hydra passes them all): the import path, the libraries, and the settings of NCCL,
#: gpukit, CUDA, PyTorch and mpi4py.
FORWARDED = ("PATH", "LD_LIBRARY_PATH", "PYTHONPATH")
FORWARDED_PREFIXES = ("NCCL_", "GPUKIT_", "CUDA_", "TORCH_", "NVSHMEM_", "MPI4PY_")


def _forwarded(mpiexec: str, env: Mapping[str, str]) -> list[str]:
    """`-x NAME` for each variable Open MPI's launcher must pass on; nothing for others."""
    try:
        version = subprocess.run([mpiexec, "--version"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return []
    if not any(word in version.stdout + version.stderr for word in ("Open MPI", "OpenRTE", "PRRTE")):
        return []
    names = [n for n in sorted(env) if n in FORWARDED or n.startswith(FORWARDED_PREFIXES)]
    return [arg for n in names for arg in ("-x", n)]


def mpi_cuda_support() -> bool | None:
    """Whether the MPI library this process has loaded moves device memory itself (CUDA-aware):
    True or False by the library's own query (Open MPI's MPIX_Query_cuda_support, MPICH's
    MPIX_GPU_query_support), None when it has neither or none is loaded. Call it after
    ``from mpi4py import MPI``, which initialises MPI."""
    import ctypes

    library = _loaded_libmpi()
    if library is None:
        return None
    lib = ctypes.CDLL(library)
    if hasattr(lib, "MPIX_Query_cuda_support"):
        return bool(lib.MPIX_Query_cuda_support())
    if hasattr(lib, "MPIX_GPU_query_support"):
        supported = ctypes.c_int(0)
        cuda = 0  # MPIX_GPU_SUPPORT_CUDA
        if lib.MPIX_GPU_query_support(cuda, ctypes.byref(supported)) != 0:
            return None
        return bool(supported.value)
    return None


def _loaded_libmpi() -> str | None:
    """The file of the libmpi this process has loaded, or None."""
    try:
        with open("/proc/self/maps") as maps:
            for line in maps:
                path = line.split()[-1] if len(line.split()) >= 6 else ""
                if os.path.basename(path).startswith(("libmpi.so", "libmpi_abi.so")):
                    return path
    except OSError:
        pass
    return None


def mpi_summary() -> list[str]:
    """What MPI this machine offers, as lines of text: the launcher on PATH, whether mpi4py
    imports (and why not), the MPI library it loaded, its version and CUDA awareness. Imports
    mpi4py.MPI, which initialises MPI: run it in a process of its own."""
    lines = [f"launcher: {mpi_launcher() or 'none on PATH'}"]
    try:
        import mpi4py
        from mpi4py import MPI
    except Exception as e:  # ImportError, or RuntimeError: no MPI library to load
        lines.append(f"mpi4py: does not import: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}")
        return lines
    cuda = mpi_cuda_support()
    lines += [
        f"mpi4py {mpi4py.__version__}, MPI standard {'.'.join(map(str, MPI.Get_version()))}",
        f"library: {MPI.Get_library_version().strip().splitlines()[0]}",
        f"libmpi: {_loaded_libmpi() or 'not found in /proc/self/maps'}",
        "CUDA-aware: " + {True: "yes", False: "no", None: "unknown (no query in this MPI)"}[cuda],
    ]
    return lines


if __name__ == "__main__":
    print("\n".join(mpi_summary()))
