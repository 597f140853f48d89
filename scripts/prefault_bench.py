"""How fast a new host array can be filled, on the CPU alone: the page-fault part of
GPUArray.get() into a new array.

For each size, a copy into an array that already exists (its pages mapped) is compared with
numpy.empty + copy and prefaulted memory + copy (allocation, copy and freeing timed
together, as get() pays for them; prefaulted memory at every size, even below the
threshold from which gpukit.driver.prefaulted_empty uses it). Two ways of copying:

  free   one memcpy (numpy.copyto) as fast as this thread goes;
  paced  the CPU side of a staged device-to-host copy, with the bus simulated by a clock:
         pieces of up to 16 MiB arrive through three staging buffers at --bus GB/s (by
         default half the rate measured into existing memory, since on a GPU machine the
         bus, not the CPU copy, is the slower side), and the CPU copies each piece out
         when it has arrived, as staged_memcpy_dtoh does.

--no-thp disables transparent huge pages for this process (prctl PR_SET_THP_DISABLE), which
is what a system with THP "never" gives. Prints medians in GB/s and the ratio to the copy
into existing memory.

    PYTHONPATH=python python scripts/prefault_bench.py [--mib 4 32 256] [--repeats 9] [--bus GBPS] [--no-thp]
"""
import argparse
import ctypes
import os
import statistics
import time

import numpy as np

from gpukit import _gpukit

MiB = 1 << 20
PR_SET_THP_DISABLE = 41
STAGING_BUFFERS = 3


def disable_thp():
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_THP_DISABLE) failed")


def thp_mode():
    try:
        with open("/sys/kernel/mm/transparent_hugepage/enabled") as f:
            return f.read().split("[")[1].split("]")[0]
    except (OSError, IndexError):
        return "unavailable"


def piece_bytes(nbytes):
    # staged_copy.cpp's piece_size: a quarter of the copy, between 1 MiB and 16 MiB.
    return min(max(nbytes // 4, MiB), 16 * MiB)


def copy_free(dst, src, bus_bytes_per_s):
    np.copyto(dst, src[:dst.size])


def copy_paced(dst, src, bus_bytes_per_s):
    """The staged device-to-host copy's CPU side, the bus replaced by a clock: piece i's
    transfer starts when the bus is free and its staging buffer has been emptied (the CPU
    has copied out piece i - 3), and lands after its bytes / bus rate."""
    n = dst.size
    piece = piece_bytes(n)
    starts = list(range(0, n, piece))
    staging = src[:STAGING_BUFFERS * piece]
    start = time.perf_counter()
    bus_free = start
    emptied = [start] * len(starts)
    for i, offset in enumerate(starts):
        length = min(piece, n - offset)
        buffer_free = emptied[i - STAGING_BUFFERS] if i >= STAGING_BUFFERS else start
        bus_free = max(bus_free, buffer_free) + length / bus_bytes_per_s
        wait = bus_free - time.perf_counter()
        if wait > 0:
            time.sleep(wait)
        b = (i % STAGING_BUFFERS) * piece
        np.copyto(dst[offset:offset + length], staging[b:b + length])
        emptied[i] = time.perf_counter()


def prefaulted(nbytes, dtype):
    """prefaulted_empty's large-array path at any size, so that the sizes around its
    threshold can be compared."""
    return np.frombuffer(_gpukit._prefaulted_alloc(nbytes), dtype)


def rate(nbytes, seconds):
    return nbytes / seconds / 1e9


def measure(nbytes, repeats, copy, bus):
    src = np.ones(max(nbytes, STAGING_BUFFERS * piece_bytes(nbytes)), np.uint8)
    existing = np.empty(nbytes, np.uint8)
    existing[:] = 2
    results = {"existing": [], "numpy.empty": [], "prefaulted": []}
    for _ in range(repeats):
        start = time.perf_counter()
        copy(existing, src, bus)
        results["existing"].append(rate(nbytes, time.perf_counter() - start))
        for name, new in (("numpy.empty", np.empty), ("prefaulted", prefaulted)):
            start = time.perf_counter()
            dst = new(nbytes, np.uint8)
            copy(dst, src, bus)
            del dst
            results[name].append(rate(nbytes, time.perf_counter() - start))
    return {name: statistics.median(values) for name, values in results.items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mib", type=int, nargs="+", default=[1, 2, 4, 8, 16, 32, 64, 256])
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--bus", type=float, default=None, help="simulated bus GB/s of the paced copy")
    parser.add_argument("--no-thp", action="store_true", help="disable transparent huge pages here")
    args = parser.parse_args()
    if args.no_thp:
        disable_thp()
    print(f"THP mode {thp_mode()}{', disabled for this process' if args.no_thp else ''}; "
          f"prefaulted_empty from {_gpukit._prefaulted_min_bytes // MiB} MiB; "
          f"{os.cpu_count()} CPUs")
    print(f"{'MiB':>5} {'copy':>6} {'existing':>9} {'np.empty':>9} {'prefaulted':>11} {'np ratio':>9} {'pf ratio':>9}")
    for mib in args.mib:
        nbytes = mib * MiB
        for label, copy in (("free", copy_free), ("paced", copy_paced)):
            bus = None
            if copy is copy_paced:
                bus = (args.bus * 1e9) if args.bus else measure(nbytes, 3, copy_free, None)["existing"] * 1e9 / 2
            r = measure(nbytes, args.repeats, copy, bus)
            e = r["existing"]
            print(f"{mib:>5} {label:>6} {e:>9.2f} {r['numpy.empty']:>9.2f} {r['prefaulted']:>11.2f} "
                  f"{r['numpy.empty'] / e:>9.2f} {r['prefaulted'] / e:>9.2f}", flush=True)


if __name__ == "__main__":
    main()
