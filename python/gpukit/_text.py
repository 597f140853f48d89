"""Text that any stream can print."""

from __future__ import annotations


def printable(text: str) -> str:
    """`text` with the surrogate escapes that stand for bytes that are no UTF-8 (in paths and
    environment values: os.fsdecode's str) shown as \\xNN, so that a stream that encodes
    strictly (stdout in a UTF-8 locale) prints it instead of raising UnicodeEncodeError."""
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
