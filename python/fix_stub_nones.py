"""Removes the `| None` that nanobind writes after the integer parameters' types in the
generated stubs (run by python/CMakeLists.txt after the stub generator).

The bindings take integers as int_arg, shape_arg and int_sequence_arg (python/bindings/common/
int_args.hpp), declared with nanobind's `.none()` so that a None reaches their conversion and
is refused there with the argument's name (TypeError). nanobind renders such a parameter as
`<type> | None`, which would tell a type checker that None is fine. These types render as
typing.SupportsIndex, alone or as the items of a sequence, which no other parameter uses:
the `| None` after them is removed, and nothing else. Those that take None (`or_none<...>`)
render as `None | <type>`, so running this twice on a stub changes nothing more.

    python fix_stub_nones.py STUB.pyi ...
"""

import re
import sys

# The end of an integer parameter's type, then nanobind's `| None`.
INTEGER_TYPE_OR_NONE = re.compile(r"(SupportsIndex\]?) \| None\b")


def fix(text):
    return INTEGER_TYPE_OR_NONE.sub(r"\1", text)


def main(paths):
    for path in paths:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        fixed = fix(text)
        if fixed != text:
            with open(path, "w", encoding="utf-8") as f:
                f.write(fixed)


if __name__ == "__main__":
    main(sys.argv[1:])
