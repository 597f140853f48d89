#!/usr/bin/env python3
"""Type-check the documentation's Python snippets with ``mypy --strict``, as a user checks a program.

Usage: typecheck_doc_snippets.py [--list] [MARKDOWN ...]

Without arguments it reads README.md and docs/*.md. Each error is printed at the Markdown
file and line of the snippet (``docs/memory.md:57: error: ... [arg-type]``); the exit status
is 1 when mypy reports any error, 0 when it reports none, 2 when the snippets or mypy
itself could not be run. ``--list`` prints the snippets found (checked or skipped) and
runs nothing. tests/python/test_typing.py runs the same check in the test suite.

How snippets are checked
------------------------
* A snippet is a fenced block opened by a line ```python (the fence may be indented, as in a
  list item). Blocks of other languages (```sh, ```cpp, a bare ```) are not read.
* The snippets of one Markdown file are concatenated in order into one module, as a reader
  reads the page: a later snippet may use the names an earlier one imported or defined.
  Each Markdown file is a module of its own (docs/arrays.md -> doc_arrays.py).
* The modules are checked by ``mypy --strict`` with tests/typing/mypy.ini, the configuration
  of a user of the installed package: strict, the in-tree package (python/) read but its own
  errors not reported. The copy used here adds two things to it:
  - ``ignore_missing_imports`` for pycuda.*, pyopencl.*, mpi4py.*, OpenGL.* and scipy.*:
    the drop-ins (gpukit.pycuda_compat, gpukit.pyopencl_compat) register the pycuda and
    pyopencl names only at run time, so mypy cannot find them and a snippet that imports them
    sees them untyped (Any); mpi4py, PyOpenGL and scipy are optional dependencies the checking
    environment need not have (and scipy ships no types).
  - ``allow_redefinition``: the snippets of a page rebind a name to a new kind of value
    from one example to the next (``mod = SourceModule(...)``, later ``mod =
    DynamicModule(...)``), which a reader reads as a new example, not a mistake.
* An HTML comment ending on the line just above a fence directs the check of that block:

  ``<!-- typecheck: skip (REASON) -->``
      The block is not checked: it cannot be a program (a signature listing, a fragment
      with ``...`` placeholders, shell output). The reason in parentheses is required.
      Keep such skips few and honest: most fragments can be checked with ``given``.

  ``<!-- typecheck: given`` ... ``-->``
      The lines between are Python placed just before the block in the module, never run:
      the context the surrounding prose gives a fragment. Declare a new name with its type
      (``x_gpu: GPUArray``, ``stream: drv.Stream``: a bare declaration only tells mypy what
      the prose said the name is), with the imports the declarations need; a name that an
      earlier snippet of the page bound to another kind of value is rebound by an assignment
      instead (``a = np.zeros((480, 640), np.float32)``), since a declared name keeps its type.
      A snippet that starts as a program (with its imports) imports what it uses itself; a
      fragment (``drv.memcpy_dtod(dest, src, nbytes)``) gets the page's modules and names here.
      Never use it to hide what a snippet should show.

  A ``typecheck:`` comment anywhere else (a misspelt directive, a blank line between it and
  the fence, above a block of another language) is an error, so that none is ignored.

Snippets are checked as they read: code that defines functions annotates them, as strict
code must, and a value that may be None is narrowed before use.
"""

from __future__ import annotations

import argparse
import configparser
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
USER_CONFIG = REPO / "tests" / "typing" / "mypy.ini"

OPENING_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^`]*?)[ \t]*$")
DIRECTIVE = re.compile(r"<!--\s*typecheck:\s*(?P<body>.*?)\s*-->\s*$", re.S)
SKIP = re.compile(r"skip\s*\((?P<reason>.+)\)", re.S)
STRAY_DIRECTIVE = re.compile(r"<!--\s*typecheck:")
GIVEN = re.compile(r"given(?:[ \t]*\n(?P<code>.*?))?\n?[ \t]*$", re.S)

# Added to the user's configuration (see the docstring): {section: {option: value}}.
EXTRA_CONFIG = {
    "mypy": {"allow_redefinition": "True"},
    "mypy-pycuda.*,pyopencl.*,mpi4py.*,OpenGL.*,scipy.*": {"ignore_missing_imports": "True"},
}


class SnippetError(Exception):
    """A Markdown file the tool cannot read as its convention says (a bad directive, an unclosed fence)."""


@dataclass
class Snippet:
    markdown: Path
    line: int  # the line of the first line of code (1-based)
    code: list[str]  # the block's lines, the fence's indentation removed
    given: list[str] = field(default_factory=list)
    given_line: int = 0  # the line of the directive's first line
    skip: str | None = None  # the reason, when the block is skipped


@dataclass
class Module:
    """The module a Markdown file's snippets make, and where each of its lines came from."""

    markdown: Path
    name: str
    snippets: list[Snippet]
    lines: list[str] = field(default_factory=list)
    origin: list[int] = field(default_factory=list)  # the Markdown line of each module line

    def build(self) -> None:
        self.lines, self.origin = [], []
        for snippet in self.snippets:
            if snippet.skip is not None:
                continue
            for offset, text in enumerate(snippet.given):
                self.lines.append(text)
                self.origin.append(snippet.given_line + 1 + offset)
            for offset, text in enumerate(snippet.code):
                self.lines.append(text)
                self.origin.append(snippet.line + offset)

    def text(self) -> str:
        return "".join(line + "\n" for line in self.lines)


def display(path: Path) -> str:
    """A path as the report names it: relative to the repository where it lies inside it."""
    try:
        return str(path.resolve().relative_to(REPO))
    except ValueError:
        return str(path)


def dedent_lines(lines: list[str]) -> list[str]:
    widths = [len(line) - len(line.lstrip()) for line in lines if line.strip()]
    cut = min(widths, default=0)
    return [line[cut:] if line.strip() else "" for line in lines]


def directive_above(lines: list[str], fence_index: int) -> tuple[str, int] | None:
    """The body of a ``<!-- typecheck: ... -->`` comment ending on the line above the fence, and its first line."""
    end = fence_index - 1
    if end < 0 or not lines[end].rstrip().endswith("-->"):
        return None
    start = end
    while start >= 0 and "<!--" not in lines[start]:
        start -= 1
    if start < 0:
        return None
    comment = "\n".join(lines[start : end + 1])
    comment = comment[comment.rindex("<!--") :]
    match = DIRECTIVE.search(comment)
    if match is None:
        return None
    return match.group("body"), start + 1


def read_snippets(markdown: Path) -> list[Snippet]:
    """The ```python blocks of a Markdown file, with their directives."""
    lines = markdown.read_text(encoding="utf-8").splitlines()
    snippets: list[Snippet] = []
    directive_lines: set[int] = set()  # the lines of the directives that direct a block
    index = 0
    while index < len(lines):
        opening = OPENING_FENCE.match(lines[index])
        if opening is None:
            index += 1
            continue
        fence, indent = opening.group("fence"), opening.group("indent")
        language = opening.group("info").split()[0].lower() if opening.group("info") else ""
        closing = re.compile(rf"^[ \t]*{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$")
        end = index + 1
        while end < len(lines) and not closing.match(lines[end]):
            end += 1
        if end == len(lines):
            raise SnippetError(f"{display(markdown)}:{index + 1}: the fence opened here is never closed")
        if language == "python":
            block = lines[index + 1 : end]
            body = [line[len(indent) :] if line.startswith(indent) else line.lstrip() for line in block]
            snippet = Snippet(markdown, index + 2, body)
            found = directive_above(lines, index)
            if found is not None:
                text, first_line = found
                directive_lines.add(first_line)
                where = f"{display(markdown)}:{first_line}"
                if (skip := SKIP.fullmatch(text)) is not None:
                    snippet.skip = " ".join(skip.group("reason").split())
                elif (given := GIVEN.fullmatch(text)) is not None:
                    code = dedent_lines((given.group("code") or "").splitlines())
                    if not any(line.strip() for line in code):
                        raise SnippetError(f"{where}: `typecheck: given` declares nothing")
                    snippet.given, snippet.given_line = code, first_line
                else:
                    raise SnippetError(
                        f"{where}: unknown directive `typecheck: {text.splitlines()[0]}`"
                        " (say `skip (REASON)` or `given` followed by lines of Python)"
                    )
            snippets.append(snippet)
        index = end + 1
    for number, line in enumerate(lines, start=1):
        if STRAY_DIRECTIVE.search(line) and number not in directive_lines:
            raise SnippetError(
                f"{display(markdown)}:{number}: a `typecheck:` comment directs only a ```python block"
                " whose fence is on the line just after the comment's end"
            )
    return snippets


def default_markdown_files(repo: Path = REPO) -> list[Path]:
    return [repo / "README.md", *sorted((repo / "docs").glob("*.md"))]


def collect(markdown_files: list[Path]) -> list[Module]:
    """One module per Markdown file that has a ```python block."""
    modules: list[Module] = []
    for markdown in markdown_files:
        snippets = read_snippets(markdown)
        if not snippets:
            continue
        name = "doc_" + re.sub(r"\W", "_", markdown.stem)
        module = Module(markdown, name, snippets)
        module.build()
        modules.append(module)
    names = [module.name for module in modules]
    duplicates = sorted({name for name in names if names.count(name) > 1})
    if duplicates:
        raise SnippetError(f"two Markdown files make the same module name: {duplicates}")
    return modules


def write(modules: list[Module], directory: Path, user_config: Path = USER_CONFIG) -> tuple[list[Path], Path]:
    """Writes the modules and the configuration into directory; returns (the modules' paths, the config's path)."""
    paths = []
    for module in modules:
        if not module.lines:
            continue  # every block skipped
        path = directory / f"{module.name}.py"
        path.write_text(module.text(), encoding="utf-8")
        paths.append(path)
    # The user's configuration, $MYPY_CONFIG_FILE_DIR made absolute (the copy lies elsewhere), and the additions.
    config = configparser.ConfigParser(interpolation=None)
    text = user_config.read_text(encoding="utf-8")
    config.read_string(text.replace("$MYPY_CONFIG_FILE_DIR", str(user_config.parent)))
    for section, options in EXTRA_CONFIG.items():
        if not config.has_section(section):
            config.add_section(section)
        for option, value in options.items():
            config.set(section, option, value)
    config_path = directory / "mypy.ini"
    with config_path.open("w", encoding="utf-8") as stream:
        stream.write("# tests/typing/mypy.ini and tools/typecheck_doc_snippets.py's additions\n")
        config.write(stream)
    return paths, config_path


MYPY_LINE = re.compile(r"^(?P<path>[^:\n]+\.py):(?P<line>\d+):(?:(?P<column>\d+):)? (?P<rest>.*)$")


def map_output(output: str, modules: list[Module]) -> list[str]:
    """mypy's error and note lines about the modules, each at its Markdown file and line.

    Other lines about the modules' files are kept as they are; mypy's summary line is dropped.
    """
    by_name = {module.name: module for module in modules}
    mapped = []
    for line in output.splitlines():
        match = MYPY_LINE.match(line)
        if match is None:
            if line.strip() and not re.match(r"^(Found \d+ errors?|Success:)", line):
                mapped.append(line)
            continue
        module = by_name.get(Path(match.group("path")).stem)
        if module is None:
            mapped.append(line)
            continue
        number = int(match.group("line"))
        origin = module.origin[number - 1] if 0 < number <= len(module.origin) else 0
        mapped.append(f"{display(module.markdown)}:{origin}: {match.group('rest')}")
    return mapped


def mypy_command(paths: list[Path], config: Path, cache: Path | None = None) -> list[str]:
    command = [sys.executable, "-m", "mypy", "--config-file", str(config), "--no-pretty", "--show-error-codes"]
    if cache is not None:
        command += ["--cache-dir", str(cache)]
    return command + [str(path) for path in paths]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("markdown", nargs="*", type=Path, help="Markdown files (default: README.md, docs/*.md)")
    parser.add_argument("--list", action="store_true", help="print the snippets found; check nothing")
    parser.add_argument(
        "--cache-dir", type=Path, default=REPO / ".mypy_cache", help="mypy's cache directory (default: %(default)s)"
    )
    arguments = parser.parse_args(argv)

    try:
        modules = collect(arguments.markdown or default_markdown_files())
    except SnippetError as error:
        print(f"typecheck_doc_snippets: {error}", file=sys.stderr)
        return 2
    snippets = [snippet for module in modules for snippet in module.snippets]
    skipped = [snippet for snippet in snippets if snippet.skip is not None]
    if arguments.list:
        for snippet in snippets:
            state = f"skipped ({snippet.skip})" if snippet.skip is not None else "checked"
            print(f"{display(snippet.markdown)}:{snippet.line - 1}: {state}")
    print(
        f"{len(snippets) - len(skipped)} snippets to check, {len(skipped)} skipped, in {len(modules)} Markdown files",
        file=sys.stderr,
    )
    if arguments.list:
        return 0

    environment = {name: value for name, value in os.environ.items() if name != "GPUKIT_SANITIZER_PRELOAD"}
    with tempfile.TemporaryDirectory(prefix="doc-snippets-") as directory:
        paths, config = write(modules, Path(directory))
        if not paths:
            return 0
        result = subprocess.run(
            mypy_command(paths, config, arguments.cache_dir),
            cwd=directory,
            env=environment,
            capture_output=True,
            text=True,
        )
        output = result.stdout + result.stderr
    if result.returncode not in (0, 1):
        print(output, end="", file=sys.stderr)
        return 2
    errors = map_output(output, modules)
    for line in errors:
        print(line)
    error_count = sum(": error: " in line for line in errors)
    if result.returncode == 1 or error_count:
        print(f"{error_count} errors in the documentation's snippets", file=sys.stderr)
        return 1
    print("the documentation's snippets: no errors", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
