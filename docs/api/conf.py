"""Sphinx configuration of gpukit's documentation: the guides (docs/*.md, read by
myst-parser) and the API reference generated from the docstrings (docs/api/*.rst).

`make docs` runs `sphinx-build -c docs/api docs build/docs`: the source folder is docs/ so
that the guides and the reference are one site; this file lives beside the reference.
autodoc imports gpukit, which works without a GPU or a driver (both are loaded at run time).
"""
import inspect
import re

import gpukit
import gpukit.driver

# nanobind's functions are objects of its own type (nanobind.nb_func), which
# inspect.isroutine does not count as routines, so autodoc would leave module functions out
# and show static methods as "count = <nanobind.nb_func object>" (sphinx-doc/sphinx#13868).
_nanobind_function = type(gpukit.driver.Device.__dict__["count"])
_isroutine = inspect.isroutine
inspect.isroutine = lambda obj: isinstance(obj, _nanobind_function) or _isroutine(obj)

project = "gpukit"
author = "the gpukit authors"
release = gpukit.VERSION_TEXT
version = release

extensions = ["sphinx.ext.autodoc", "sphinx.ext.viewcode", "myst_parser"]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
# docs/cpp holds the C++ reference's Doxygen input (`make docs-cpp`), not pages of this site.
exclude_patterns = ["cpp"]
# An annotation names a class as its module imports it ("Context", "Array"); where the module
# being documented defines no class of that name, Sphinx finds several (gpukit.cl's and
# gpukit.driver's Context) and links the first. Resolving each properly would need the names
# the modules import only for type checkers, whose import cycles TYPE_CHECKING avoids.
suppress_warnings = ["ref.python"]

# Documented in the order of the source, as the modules group related functions.
autodoc_member_order = "bysource"
autodoc_default_options = {"members": True, "undoc-members": True, "show-inheritance": True}
# Signatures keep the source's annotations; descriptions stay as written.
autodoc_typehints = "signature"

# Guide headings become link targets (`[text](arrays.md#fusion)`), as on GitHub.
myst_heading_anchors = 3

html_theme = "alabaster"
html_title = f"gpukit {release}"


def _drop_property_signature(app, what, name, obj, options, lines):
    """nanobind gives a property without a docstring its getter's signature as the text
    ("(self) -> int"); the reference shows no text instead."""
    text = [line for line in lines if line.strip()]
    if what == "property" and len(text) == 1 and re.fullmatch(r"\(self\) -> .*", text[0]):
        lines.clear()


def _skip_typing_names(app, what, name, obj, skip, options):
    """:imported-members: would document the typing names a module imports for its annotations."""
    if getattr(obj, "__module__", None) in ("typing", "typing_extensions"):
        return True
    return None


def setup(app):
    app.connect("autodoc-process-docstring", _drop_property_signature)
    app.connect("autodoc-skip-member", _skip_typing_names)
