"""Types for gpukit's users: the generated stubs declare everything the extension module
holds, and ``mypy --strict`` accepts a typical user program (tests/typing/user_script.py)
against the in-tree package while reporting each mistake planted in
tests/typing/planted_errors.py, on its line."""

import ast
import importlib
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import gpukit

REPO = Path(__file__).resolve().parents[2]
TYPING = REPO / "tests" / "typing"
STUBS = REPO / "python" / "gpukit" / "_gpukit"
PLANTED = re.compile(r"#\s*planted:\s*([a-z-]+)")


def stub_of(module_name):
    """The generated stub of an extension (sub)module, as the build writes it."""
    parts = module_name.split(".")[2:]  # below gpukit._gpukit
    candidates = [STUBS.joinpath(*parts, "__init__.pyi"), STUBS.joinpath(*parts).with_suffix(".pyi")]
    for path in candidates:
        if path.is_file():
            return path
    pytest.fail(f"no stub for {module_name}: none of {[str(p) for p in candidates]} (the build generates them)")


def declared_names(stub):
    """The names a stub file declares at its top level."""
    names = set()
    for node in ast.parse(stub.read_text()).body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef)):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.Assign):
            names.update(target.id for target in node.targets if isinstance(target, ast.Name))
        elif isinstance(node, ast.ImportFrom):
            names.update(alias.asname for alias in node.names if alias.asname == alias.name)
    return names


@pytest.mark.parametrize("module_name", ["gpukit._gpukit", "gpukit._gpukit.cl", "gpukit._gpukit.cl.tools"])
def test_the_stubs_declare_every_name_of_the_module(module_name):
    module = importlib.import_module(module_name)
    runtime = {name for name in vars(module) if not (name.startswith("__") and name.endswith("__"))}
    missing = runtime - declared_names(stub_of(module_name))
    assert not missing, f"{module_name} holds names its stub does not declare: {sorted(missing)}"


def test_the_stubs_define_the_runtime_classes_themselves():
    """The enums and exceptions the module creates at run time are defined in the stub, not
    imported from gpukit.driver or gpukit.cl (which import them from the module: a cycle)."""
    for module_name in ("gpukit._gpukit", "gpukit._gpukit.cl"):
        tree = ast.parse(stub_of(module_name).read_text())
        classes = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}
        for name in ("Error", "LogicError", "RuntimeError", "MemoryError"):
            assert name in classes, f"{module_name}'s stub does not define {name}"
        for node in tree.body:
            if isinstance(node, ast.ImportFrom):
                assert node.module not in ("gpukit.driver", "gpukit.cl"), ast.unparse(node)
    main = {
        node.name: node
        for node in ast.parse(stub_of("gpukit._gpukit").read_text()).body
        if isinstance(node, ast.ClassDef)
    }
    assert ast.unparse(main["device_attribute"].bases[0]) == "enum.IntEnum"
    assert "MAX_THREADS_PER_BLOCK" in ast.unparse(main["device_attribute"])
    assert ast.unparse(main["ctx_flags"].bases[0]) == "enum.IntFlag"


def test_the_package_is_marked_typed():
    assert (Path(gpukit.__file__).parent / "py.typed").is_file()


@pytest.fixture(scope="module")
def mypy(tmp_path_factory):
    """Runs mypy --strict (tests/typing/mypy.ini, or `config`) on files; returns its exit status and output."""
    pytest.importorskip(
        "mypy", reason="mypy is not installed (scripts/setup.sh installs it where a registry is reachable)"
    )
    cache = tmp_path_factory.mktemp("mypy-cache")

    # mypy is a tool, not gpukit: under `make sanitize-python` it runs without the sanitizer
    # runtimes (tests/sanitize/sitecustomize.py would otherwise preload them into it).
    environment = {name: value for name, value in os.environ.items() if name != "GPUKIT_SANITIZER_PRELOAD"}

    def run(*paths, config=TYPING / "mypy.ini"):
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "mypy",
                "--config-file",
                str(config),
                "--cache-dir",
                str(cache),
                "--no-pretty",
                "--show-error-codes",
                *map(str, paths),
            ],
            cwd=TYPING,
            env=environment,
            capture_output=True,
            text=True,
            timeout=600,
        )
        return result.returncode, result.stdout + result.stderr

    return run


@pytest.mark.compile_sweep
def test_mypy_strict_accepts_a_user_program(mypy):
    status, output = mypy(TYPING / "user_script.py")
    assert status == 0, output
    assert "Success: no issues found" in output


@pytest.mark.compile_sweep
def test_mypy_strict_accepts_the_package_itself(mypy):
    status, output = mypy("-p", "gpukit", config=TYPING / "package.ini")
    assert status == 0, output
    assert "Success: no issues found" in output


def test_mypy_strict_reports_each_planted_error_on_its_line(mypy):
    path = TYPING / "planted_errors.py"
    expected = {
        (number, match.group(1))
        for number, line in enumerate(path.read_text().splitlines(), start=1)
        if (match := PLANTED.search(line))
    }
    assert len(expected) >= 10
    status, output = mypy(path)
    reported = {
        (int(m.group(1)), m.group(2))
        for m in re.finditer(r"^planted_errors\.py:(\d+): error: .*\[([a-z-]+)\]$", output, re.M)
    }
    assert status == 1
    assert reported == expected, output


# ---- The documentation's snippets (tools/typecheck_doc_snippets.py)


@pytest.fixture(scope="module")
def snippets():
    """tools/typecheck_doc_snippets.py as a module."""
    path = REPO / "tools" / "typecheck_doc_snippets.py"
    spec = importlib.util.spec_from_file_location("typecheck_doc_snippets", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules[spec.name]
    return module


def test_the_docs_snippets_are_found_and_every_skip_says_why(snippets):
    modules = snippets.collect(snippets.default_markdown_files(REPO))
    found = [snippet for module in modules for snippet in module.snippets]
    skipped = [f"{snippet.markdown.name}:{snippet.line - 1}" for snippet in found if snippet.skip is not None]
    fences = sum(
        line.strip() == "```python"
        for markdown in snippets.default_markdown_files(REPO)
        for line in markdown.read_text().splitlines()
    )
    assert len(found) == fences >= 30
    assert len(skipped) <= 3, f"few skips, each with its reason: {skipped}"
    assert all(snippet.skip.strip() for snippet in found if snippet.skip is not None)


@pytest.mark.compile_sweep
def test_mypy_strict_accepts_every_docs_snippet(mypy, snippets, tmp_path):
    """Every ```python block of README.md and docs/*.md, each page's blocks one module, as a
    user's program (tools/typecheck_doc_snippets.py says how); errors at the Markdown lines."""
    modules = snippets.collect(snippets.default_markdown_files(REPO))
    paths, config = snippets.write(modules, tmp_path)
    status, output = mypy(*paths, config=config)
    errors = snippets.map_output(output, modules)
    assert status == 0 and not errors, "\n".join(errors or [output])


DOC_WITH_MISTAKES = """\
# A page

```python
import math
radius = 2.0
```

Some prose, then a block that uses the one above and what the prose introduced:

<!-- typecheck: given
count: int
label: str = 3  # planted: assignment
-->
```python
area = math.pi * radius**2
print(label.upper() + count, area)  # planted: operator
```

<!-- typecheck: skip (a signature listing) -->
```python
def area(radius, *, exact=...) -> float
```

```sh
not python at all
```
"""


def test_docs_snippet_errors_are_reported_at_their_markdown_lines(mypy, snippets, tmp_path):
    page = tmp_path / "page.md"
    page.write_text(DOC_WITH_MISTAKES)
    modules = snippets.collect([page])
    assert [(s.line, s.skip) for s in modules[0].snippets] == [(4, None), (15, None), (21, "a signature listing")]
    build = tmp_path / "build"
    build.mkdir()
    paths, config = snippets.write(modules, build)
    status, output = mypy(*paths, config=config)
    errors = snippets.map_output(output, modules)
    assert status == 1
    reported = [re.search(r"page\.md:(\d+): error: .*\[([a-z-]+)\]$", line) for line in errors]
    assert all(reported), errors
    assert [(int(m.group(1)), m.group(2)) for m in reported] == [(12, "assignment"), (16, "operator")], output

    # A directive that would be ignored is an error: misspelt, without its reason or lines,
    # parted from its fence by a blank line, above a block of another language.
    for bad in (
        "<!-- typecheck: skipp (typo) -->\n```python\n",
        "<!-- typecheck: skip -->\n```python\n",
        "<!-- typecheck: given -->\n```python\n",
        "<!-- typecheck: skip (a listing) -->\n\n```python\n",
        "<!-- typecheck: skip (a listing) -->\n```sh\n",
    ):
        page.write_text(f"{bad}x = 1\n```\n")
        with pytest.raises(snippets.SnippetError, match=r"page\.md:1: "):
            snippets.collect([page])


# ---- None in the stubs and at run time

# The end of the integer parameters' types (python/bindings/common/int_args.hpp): their
# conversion refuses None, though nanobind's run-time signatures say `| None`.
INTEGER_TYPE = re.compile(r"SupportsIndex\]?$")


def split_parameters(text):
    """The parameters of a signature's parameter list, split at the top-level commas."""
    parts, depth, start = [], 0, 0
    for i, c in enumerate(text):
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    if text[start:].strip():
        parts.append(text[start:].strip())
    return [p for p in parts if p not in ("/", "*") and not p.startswith("*")]


def runtime_none_parameters(signature):
    """{parameter: its type accepts None} of one nanobind signature ("def f(a: int | None = ...) -> ...")."""
    head = signature[signature.index("(") + 1 :]
    depth = 1
    for i, c in enumerate(head):
        depth += c in "([{"
        depth -= c in ")]}"
        if depth == 0:
            head = head[:i]
            break
    result = {}
    for parameter in split_parameters(head):
        name, _, annotation = parameter.partition(":")
        annotation = annotation.split("=")[0].strip()
        if annotation.endswith("| None"):
            # An integer type then nanobind's `| None` refuses None; one that says None itself
            # first (or_none, "... | None | None") takes it.
            rest = annotation[: -len("| None")].strip()
            result[name.strip()] = takes_none(rest) or not INTEGER_TYPE.search(rest)
        else:
            result[name.strip()] = takes_none(annotation)
    return result


def takes_none(annotation):
    """Whether a stub annotation admits None: it names None, or is object or Any."""
    return re.search(r"\bNone\b", annotation) is not None or annotation in ("object", "typing.Any", "Any")


def stub_none_parameters(stub_path):
    """{qualified name: [{parameter: its annotation mentions None} per overload]} of a stub."""
    found = {}

    def visit(nodes, prefix):
        for node in nodes:
            if isinstance(node, ast.ClassDef):
                visit(node.body, f"{prefix}{node.name}.")
            elif isinstance(node, ast.FunctionDef):
                arguments = node.args.posonlyargs + node.args.args + node.args.kwonlyargs
                found.setdefault(prefix + node.name, []).append(
                    {a.arg: a.annotation is not None and takes_none(ast.unparse(a.annotation)) for a in arguments}
                )

    visit(ast.parse(stub_path.read_text()).body, "")
    return found


def bound_callables(module):
    """(qualified name below the module, callable) of the module's functions and its classes' methods."""
    for name, value in vars(module).items():
        if hasattr(value, "__nb_signature__"):
            yield name, value
        elif isinstance(value, type) and value.__module__.startswith("gpukit._gpukit"):
            for attribute, member in vars(value).items():
                member = getattr(member, "__func__", member)  # static and class methods
                if hasattr(member, "__nb_signature__"):
                    yield f"{name}.{attribute}", member


@pytest.mark.parametrize(
    "module_name", ["gpukit._gpukit", "gpukit._gpukit.cl", "gpukit._gpukit.cl.tools", "gpukit._gpukit.nccl"]
)
def test_the_stubs_accept_none_exactly_where_the_call_does(module_name):
    """A parameter's stub type includes None where the function takes None, and not where it
    refuses it: the integer parameters, whose run-time signatures say `| None` only so that
    the conversion can name the argument, are plain SupportsIndex in the stubs."""
    module = importlib.import_module(module_name)
    stubs = stub_none_parameters(stub_of(module_name))
    checked, disagreements = 0, []
    for name, function in bound_callables(module):
        overloads = [runtime_none_parameters(entry[0]) for entry in function.__nb_signature__]
        declared = stubs.get(name)
        if declared is None or len(declared) != len(overloads):
            continue  # the stubs' pattern file rewrote it (see python/stubs.pat)
        for runtime, stub in zip(overloads, declared):
            for parameter, takes_none in runtime.items():
                if parameter in stub and parameter != "self":
                    checked += 1
                    if stub[parameter] != takes_none:
                        disagreements.append(
                            f"{name}({parameter}): stub {'takes' if stub[parameter] else 'refuses'}"
                            f" None, the call {'takes' if takes_none else 'refuses'} it"
                        )
    assert checked > (100 if module_name == "gpukit._gpukit" else 0)
    assert not disagreements, "\n".join(disagreements)


def test_integer_parameters_refuse_none_naming_the_argument():
    from gpukit import _gpukit

    with pytest.raises(TypeError, match=r"init\(flags\)"):
        _gpukit.init(None)
    with pytest.raises(TypeError, match="None"):
        _gpukit.broadcast_shapes(None, (2,))
    stub = stub_of("gpukit._gpukit").read_text()
    assert "def mem_alloc(bytes: SupportsIndex) ->" in stub
    assert "axes: None | SupportsIndex | Sequence[SupportsIndex] = None" in stub  # or_none keeps its None
    sys.path.insert(0, str(REPO / "python"))
    try:
        from fix_stub_nones import fix
    finally:
        sys.path.remove(str(REPO / "python"))
    assert fix(stub) == stub  # running it again changes nothing
