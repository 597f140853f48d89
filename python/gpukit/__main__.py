"""The command line: ``gpukit`` (installed as a console script) or ``python -m gpukit``,
with the subcommands ``info`` (the default), ``bench`` and ``cache``. docs/command-line.md
describes them."""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING

import gpukit
from gpukit import _cache_command
from gpukit.bench import harness

if TYPE_CHECKING:
    from collections.abc import Sequence


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose epilog may be a function, called only when the help is
    shown: the bench cases listed there import numpy and OpenCL, which `gpukit info` and
    `--version` need not wait for."""

    def format_help(self) -> str:
        if callable(self.epilog):
            self.epilog = self.epilog()
        return super().format_help()


def _program_name() -> str:
    return "python -m gpukit" if os.path.basename(sys.argv[0]) == "__main__.py" else "gpukit"


def _parsers() -> tuple[_Parser, dict[str, _Parser]]:
    """The command's parser and its subcommands' parsers by name."""
    version = f"gpukit {gpukit.VERSION_TEXT}"
    parser = _Parser(
        prog=_program_name(),
        description="gpukit's command line: what gpukit finds on this "
        "machine (info, the default), benchmarks against other libraries (bench) and the compile "
        "cache (cache).",
    )
    parser.add_argument("--version", action="version", version=version)
    commands = parser.add_subparsers(dest="command", metavar="{info,bench,cache}")
    info = commands.add_parser(
        "info",
        help="what gpukit finds here: build, libraries, devices, cache, environment",
        description="What gpukit finds on this machine: its version and build, the host, "
        "the CUDA driver, NVRTC, nvJitLink, nvcc and toolkit headers, CUDA and OpenCL "
        "devices, the compile cache and the environment variables gpukit reads. "
        "What is missing is said, with the reason.",
    )
    info.add_argument("--version", action="version", version=version)
    info.add_argument("--json", action="store_true", help="print JSON instead of text")
    bench = commands.add_parser(
        "bench",
        help="run benchmark cases side by side with other libraries",
        description=harness.DESCRIPTION,
        # A function, which _Parser calls; argparse's stubs take only a str.
        epilog=harness.case_list_text,  # type: ignore[arg-type]
    )
    bench.add_argument("--version", action="version", version=version)
    harness.add_arguments(bench)
    cache = commands.add_parser(
        "cache",
        help="list, measure, prune or clear the compile cache",
        description="The compile cache of compiled kernels: list its entries, say its "
        "size and limit (GPUKIT_CACHE_SIZE, default 1 GiB), prune the least recently "
        "used entries, or clear it. Safe while other processes compile.",
    )
    cache.add_argument("--version", action="version", version=version)
    _cache_command.add_arguments(cache)
    return parser, {"info": info, "bench": bench, "cache": cache}


def main(argv: Sequence[str] | None = None) -> int:
    """Runs the command line `argv` (sys.argv[1:] when None); returns the exit status."""
    parser, commands = _parsers()
    args = parser.parse_args(argv)
    if args.command == "bench":
        # Before numpy is loaded: OpenBLAS's worker threads spin for a while after start-up
        # and take CPU from the host-side cases on small machines; no case uses BLAS.
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
        return harness.run(args, commands["bench"])
    if args.command == "cache":
        return _cache_command.main(args, commands["cache"])
    from gpukit import info

    return info.main(as_json=args.command == "info" and args.json)


if __name__ == "__main__":
    sys.exit(main())
