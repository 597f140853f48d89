"""Doxygen's input filter for gpukit's public headers (docs/cpp/Doxyfile runs it on each).

The headers document themselves in plain `//` comments, the house style: a comment directly
above a declaration says what it is, one after a member on its line says what the member
holds. Doxygen reads only `///` comments, so this filter hands it each header with those
comments turned into `///` (above) and `///<` (after), line for line, so that Doxygen's
warnings name the header's own lines. Comments that stand apart (a blank line, a preprocessor
line or a closing brace after them, a `// ----` section rule, a NOLINT) are left as they are.

    python doxygen_filter.py HEADER   (writes the filtered text to standard output)
"""

import re
import sys

COMMENT = re.compile(r"^(\s*)//(?![/!])(.*)$")
# Lines a comment above does not document: a section rule, a lint directive.
STANDALONE = re.compile(r"^\s*//\s*(-{3,}|={3,}|NOLINT)")
# What may follow a documenting comment: anything but a blank, preprocessor, brace or access line.
NOT_A_DECLARATION = re.compile(r"^\s*($|#|}|public:|private:|protected:)")
# A member, enumerator or parameter with a comment after it on its line (no string literal).
TRAILING = re.compile(r'^(\s*[^/\s"][^"]*?[;,])(\s+)//(?![/!<])(.*)$')


def filtered(lines):
    out = list(lines)
    i = 0
    while i < len(lines):
        if not COMMENT.match(lines[i]) or STANDALONE.match(lines[i]):
            i += 1
            continue
        end = i
        while end < len(lines) and COMMENT.match(lines[end]) and not STANDALONE.match(lines[end]):
            end += 1
        following = lines[end] if end < len(lines) else ""
        if not NOT_A_DECLARATION.match(following) and not COMMENT.match(following):
            for k in range(i, end):
                indent, text = COMMENT.match(lines[k]).groups()
                out[k] = f"{indent}///{text}"
        i = end
    for k, line in enumerate(out):
        match = TRAILING.match(line)
        if match and "///" not in line:
            code, space, text = match.groups()
            out[k] = f"{code}{space}///<{text}"
    return out


def main(path):
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    sys.stdout.write("\n".join(filtered(lines)))


if __name__ == "__main__":
    main(sys.argv[1])
