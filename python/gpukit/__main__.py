"""Command line: ``python -m gpukit info`` and ``python -m gpukit bench [options]``."""
import os
import sys


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    command = argv.pop(0) if argv else "info"
    if command == "info":
        from gpukit.info import print_info
        print_info()
        return 0
    if command == "bench":
        # Before numpy is loaded: OpenBLAS's worker threads spin for a while after start-up
        # and take CPU from the host-side cases on small machines; no case uses BLAS.
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
        from gpukit.bench.harness import main as bench_main
        return bench_main(argv)
    print(f"usage: python -m gpukit [info | bench [--help]]  (unknown command '{command}')", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
