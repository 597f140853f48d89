"""``gpukit cache list|stats|prune|clear``: the compile cache as its user manages it
(docs/command-line.md). The entries are the C++ cache's (src/rtc/cache.cpp): this module only
chooses the directory, formats, and says what went wrong."""

from __future__ import annotations

import datetime
from typing import TYPE_CHECKING

from gpukit import _gpukit
from gpukit.info import _size

if TYPE_CHECKING:
    import argparse

ACTIONS = ("list", "stats", "prune", "clear")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "action",
        choices=ACTIONS,
        help="list: the entries, least recently used first; stats: where the cache is, its size "
        "and its limit; prune: remove the least recently used entries down to the limit (or "
        "--max-size); clear: remove every entry",
    )
    parser.add_argument(
        "--dir",
        metavar="DIR",
        help="the cache directory (default: GPUKIT_CACHE_DIR, else $XDG_CACHE_HOME/gpukit, else ~/.cache/gpukit)",
    )
    parser.add_argument(
        "--max-size",
        metavar="SIZE",
        help="prune: the size to prune to, such as 512M or 2G (default: the cache's limit)",
    )


def _directory(args: argparse.Namespace, parser: argparse.ArgumentParser) -> str:
    chosen: str | None = args.dir
    if chosen is not None:
        return chosen
    directory = _gpukit._default_cache_dir()
    if directory is None:
        why = (
            "GPUKIT_DISABLE_CACHE or PYCUDA_DISABLE_CACHE is set"
            if _gpukit._cache_disabled_by_environment()
            else "neither GPUKIT_CACHE_DIR, XDG_CACHE_HOME nor HOME is set"
        )
        parser.error(f"no cache directory: {why}; name one with --dir")
    return directory


def _limit_text(limit: int) -> str:
    return "none" if limit == 0 else _size(limit)


def _entries_text(count: int, size: int) -> str:
    return f"{count} {'entry' if count == 1 else 'entries'}, {_size(size)}"


def main(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """Runs `gpukit cache` with parsed `args`; returns the exit status."""
    if args.max_size is not None and args.action != "prune":
        parser.error("--max-size is for prune only")
    directory = _directory(args, parser)
    try:
        limit = _gpukit._cache_size_limit()
        max_size = limit if args.max_size is None else _gpukit._parse_cache_size(args.max_size, "--max-size")
    except ValueError as e:
        parser.error(str(e))
    entries = _gpukit._cache_entries(directory)
    if args.action == "list":
        for key, size, last_used_ns in entries:
            when = datetime.datetime.fromtimestamp(last_used_ns / 1e9, datetime.timezone.utc)
            print(f"{when.isoformat(timespec='seconds')}  {_size(size):>12}  {key}")
    elif args.action == "stats":
        print(f"directory: {directory}")
        print(f"holds:     {_entries_text(len(entries), sum(size for _, size, _ in entries))}")
        print(f"limit:     {_limit_text(limit)} (GPUKIT_CACHE_SIZE, default 1 GiB; 0: no limit)")
        distrust = _gpukit._cache_distrust(directory)
        if distrust:
            print(f"not used:  {distrust}")
    else:
        if args.action == "prune" and max_size == 0:
            parser.error("there is no limit to prune to (GPUKIT_CACHE_SIZE=0): give --max-size, or use clear")
        removed, removed_bytes = _gpukit._cache_prune(directory, 0 if args.action == "clear" else max_size)
        left = _gpukit._cache_usage(directory)
        print(f"removed {_entries_text(removed, removed_bytes)} from {directory}; left: {_entries_text(*left)}")
    return 0
