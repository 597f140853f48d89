"""What was wrong with the arguments of a call into the extension module that failed to
convert them (python/bindings/common/argument_errors.hpp routes such failures here): which argument,
what it must be, and what it was, worked out from the function's signatures and the values.

Runs only on that error path, so it may be slow; it must not raise (a failure here leaves
nanobind's own message).
"""

from __future__ import annotations

import ast
import importlib
import operator
import re
from collections.abc import Callable
from typing import Any, Protocol, cast as _cast

from gpukit import _gpukit


class _NanobindFunction(Protocol):
    """A function (or property accessor) of the extension module, as nanobind makes it."""

    __name__: str
    __qualname__: str
    __module__: str
    #: Each overload's (signature text, docstring, default values).
    __nb_signature__: tuple[tuple[str, str | None, tuple[Any, ...] | None], ...]

    def __call__(self, *args: Any, **kwargs: Any) -> Any: ...


# One parameter of a signature: (name, annotation node or None, has default).
_Parameter = tuple[str, ast.expr | None, bool]
# What is wrong with a call for one signature: (parameter or None, its annotation, text).
_Problem = tuple[str | None, ast.expr | None, str]

# How many items of a sequence argument are looked at for one of the wrong type.
_ITEMS_CHECKED = 1000


def explain(function: _NanobindFunction, args: tuple[Any, ...], kwargs: dict[str, Any], cast: bool) -> str | None:
    """The message for ``function(*args, **kwargs)``, which raised nanobind's "incompatible
    function arguments" (or, when ``cast``, failed an nb::cast in its body); None keeps the
    original message (the public-API fuzz fails on it, so a fault here does not go unseen)."""
    try:
        return _explain(function, args, kwargs, cast)
    except Exception:  # noqa: BLE001  (an error while explaining one must not replace it)
        return None


def _explain(function: _NanobindFunction, args: tuple[Any, ...], kwargs: dict[str, Any], cast: bool) -> str | None:
    if not function.__qualname__:  # a property's getter or setter
        return _explain_property(function, args, cast)
    owner = _owner_class(function)
    receiver = owner if owner is not None and _takes_self(function) else None
    who = _call_name(function, args, owner)
    constructing = function.__name__ in ("__init__", "__new__")
    forms = [_parse(signature) for signature, *_ in function.__nb_signature__]
    problems = [_problem(form, receiver, constructing, args, kwargs, cast) for form in forms if form is not None]
    if problems and None not in problems and len(problems) == len(forms):
        return _merged(who, _cast("list[_Problem]", problems))  # (None is not among them)
    given = ", ".join(
        [_type_name(a) for a in (args[1:] if receiver else args)] + [f"{k}={_type_name(v)}" for k, v in kwargs.items()]
    )
    if cast:
        return _sentence(who, f"an argument, or an item of one, is not of a type this call takes (given: {given})")
    wanted = " or ".join(f"({_render(form, receiver)})" for form in forms if form is not None)
    return _sentence(who, f"the arguments ({given}) match none of its signatures: {wanted}")


def _sentence(who: str | None, text: str) -> str:
    return f"{who}: {text}" if who else text


def _explain_property(accessor: _NanobindFunction, args: tuple[Any, ...], cast: bool) -> str | None:
    """The message for a property's getter or setter (args: the object, and the value set)."""
    if not args:
        return None
    this = args[0]
    owner = _type_name(this)
    name = next(
        (
            n
            for cls in type(this).__mro__
            for n, p in vars(cls).items()
            if isinstance(p, property) and accessor in (p.fget, p.fset)
        ),
        "?",
    )
    if _gpukit._uninitialised(this):
        return f"{owner}.{name}: {_not_initialised('this', this)}"
    if len(args) == 2:
        form = _parse(accessor.__nb_signature__[0][0])
        annotation = form.positional[1][1] if form is not None and len(form.positional) == 2 else None
        text = next(
            (
                t
                for check in (_wrong_type, _wrong_text, _out_of_range)
                if (t := check(annotation, args[1], cast)) is not None
            ),
            None,
        )
        if text is not None:
            return f"{owner}.{name} {text}"
    return None


class _Form:
    """One signature: the parameters as (name, annotation node or None, has default), where
    *args, keyword-only and **kwargs start."""

    def __init__(self, arguments: ast.arguments) -> None:
        positional = arguments.posonlyargs + arguments.args
        first_default = len(positional) - len(arguments.defaults)
        self.positional: list[_Parameter] = [
            (a.arg, a.annotation, i >= first_default) for i, a in enumerate(positional)
        ]
        self.positional_only = {a.arg for a in arguments.posonlyargs}
        self.var_positional = arguments.vararg.arg if arguments.vararg is not None else None
        self.keyword_only: list[_Parameter] = [
            (a.arg, a.annotation, d is not None) for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults)
        ]
        self.var_keyword = arguments.kwarg is not None


def _parse(signature: str) -> _Form | None:
    """The _Form of nanobind's rendering of one overload ('def f(a: int, b: str = \\0) -> R'),
    or None when it is not Python syntax."""
    text = re.sub(r"\\\d+", "...", signature)
    # nanobind renders an array parameter as ndarray[order='C', device='cpu']: keywords in a
    # subscript are not Python syntax, so the type is read without them.
    text = re.sub(r"(\w)\[[^\[\]]*=[^\[\]]*\]", r"\1", text)
    try:
        function = ast.parse(text + ": ...").body[0]
    except SyntaxError:
        return None
    return _Form(function.args) if isinstance(function, ast.FunctionDef) else None


def _owner_class(function: _NanobindFunction) -> type | None:
    """The class whose method (static or not) `function` is, or None for a plain function."""
    owner, _, _ = function.__qualname__.rpartition(".")
    cls = _resolve(f"{function.__module__}.{owner}") if owner else None
    return cls if isinstance(cls, type) else None


def _takes_self(function: _NanobindFunction) -> bool:
    signatures = function.__nb_signature__
    return bool(signatures) and re.match(r"def \w+\((self|cls)\b", signatures[0][0]) is not None


def _call_name(function: _NanobindFunction, args: tuple[Any, ...], owner: type | None) -> str | None:
    """'Class.method()', 'Class()' for a constructor, 'function()'; None for the module's
    private functions and classes (a public one of the package calls them and shows in the
    traceback)."""
    name = function.__name__
    if owner is not None:
        owner_name = owner.__name__
        if owner_name.startswith("_") and args and isinstance(args[0], owner):
            owner_name = _type_name(args[0])  # GPUArray for the private _Array behind it
        if owner_name.startswith("_"):
            return None
        return f"{owner_name}()" if name in ("__init__", "__new__") else f"{owner_name}.{name}()"
    return None if name.startswith("_") and not name.startswith("__") else f"{name}()"


def _not_initialised(role: str, value: object) -> str:
    """'this Buffer object was not initialised: ...' (role 'this'), 'is a Buffer object that
    was not initialised: ...' (role 'is'), 'holds an Event object that ...' (role 'holds')."""
    kind = _type_name(value)
    subject = "this" if role == "this" else f"{role} {'an' if kind[:1] in 'AEIOU' else 'a'}"
    return f"{subject} {kind} object {'that ' * (role != 'this')}was not initialised: make it by calling {kind}(...)"


def _problem(
    form: _Form,
    receiver: type | None,
    constructing: bool,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    cast: bool,
) -> _Problem | None:
    """What is wrong with the call for `form`: a (parameter, expected, text) triple, where
    parameter is None for a wrong number of arguments; None when nothing is found. For a failed
    cast in the body (`cast`), text that cannot cross as UTF-8 is looked for as well."""
    values = list(args)
    if receiver is not None and values:
        this = values.pop(0)
        if constructing:
            pass  # the instance being made, or the class
        elif _gpukit._uninitialised(this):
            return None, None, _not_initialised("this", this)
        elif not isinstance(this, receiver):
            return "self", None, f"must be a {receiver.__name__} object, not {_type_name(this)}"
    positional = form.positional[1:] if receiver is not None else form.positional
    bound, binding_error = _bind(form, positional, values, kwargs)
    if binding_error is not None:
        return None, None, binding_error
    assert bound is not None  # _bind gives the arguments whenever it gives no error
    annotations = {name: annotation for name, annotation, _ in positional + form.keyword_only}
    # A value of the wrong type anywhere, then text that is no UTF-8, then an int out of range.
    for check in (_wrong_type, _wrong_text, _out_of_range):
        for name, value in bound.items():
            text = check(annotations.get(name), value, cast)
            if text is not None:
                return name, annotations.get(name), text
    return None


def _bind(
    form: _Form, positional: list[_Parameter], values: list[Any], kwargs: dict[str, Any]
) -> tuple[dict[str, Any], None] | tuple[None, str]:
    """The arguments by parameter name (those *args takes as 'args[i]', those **kwargs takes by
    their keywords), or an error text as Python words it for a call of a Python function."""
    names = [name for name, _, _ in positional]
    if len(values) > len(names) and not form.var_positional:
        return None, f"takes at most {len(names)} positional argument{'s' * (len(names) != 1)} ({len(values)} given)"
    bound = dict(zip(names, values))
    bound.update((f"{form.var_positional}[{i}]", v) for i, v in enumerate(values[len(names) :]))
    keyword_names = {name for name, _, _ in form.keyword_only}
    for key, value in kwargs.items():
        if key in keyword_names or (key in names and key not in form.positional_only):
            if key in bound:
                return None, f"got multiple values for argument '{key}'"
            bound[key] = value
        elif form.var_keyword:
            bound.setdefault(key, value)
        else:
            return None, f"got an unexpected keyword argument '{key}'"
    for name, _, has_default in positional + form.keyword_only:
        if not has_default and name not in bound:
            return None, f"missing required argument '{name}'"
    return bound, None


def _uninitialised_text(value: object) -> str | None:
    if _gpukit._uninitialised(value):
        return _not_initialised("is", value)
    if isinstance(value, (list, tuple)):
        for item in value[:_ITEMS_CHECKED]:
            if _gpukit._uninitialised(item):
                return _not_initialised("holds", item)
    return None


def _not_utf8_text(value: object) -> str | None:
    """Why text in `value` (or an item of it) cannot cross into C++ as UTF-8, or None."""
    for item in [value] + (list(value[:_ITEMS_CHECKED]) if isinstance(value, (list, tuple)) else []):
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return (
                    f"must be text that can be encoded as UTF-8; {item!r} holds undecodable bytes "
                    "(as os.fsdecode makes of a non-UTF-8 file name)"
                )
    return None


def _wrong_type(annotation: ast.expr | None, value: object, cast: bool) -> str | None:
    """Why `value` is not of a type the annotation takes (an uninitialised object is none), or None."""
    uninitialised = _uninitialised_text(value)
    if uninitialised is not None or annotation is None or _accepts(annotation, value):
        return uninitialised
    if value is None and _names(annotation) == {"object"}:
        return "must not be None"
    return f"must be {_describe(annotation)}, not {_type_name(value)}"


def _wrong_text(annotation: ast.expr | None, value: object, cast: bool) -> str | None:
    """Why text (of a parameter that takes text, or, for a failed cast in the body, `cast`, of
    any) cannot cross into C++, or None."""
    if cast or (annotation is not None and ("str" in _names(annotation) or isinstance(annotation, ast.Subscript))):
        return _not_utf8_text(value)
    return None


def _out_of_range(annotation: ast.expr | None, value: object, cast: bool) -> str | None:
    """An int of an int parameter beyond a C++ int (the signature does not say the parameter's
    C++ type; int is the commonest), or None."""
    int_parameter = annotation is not None and "int" in _names(annotation)
    if isinstance(value, int) and not isinstance(value, bool) and int_parameter and not -(2**31) <= value < 2**31:
        return f"is out of range: {value}"
    return None


def _accepts(node: ast.expr, value: Any) -> bool:
    """Whether nanobind's caster for the annotation `node` takes `value` (by its type; where
    the annotation is not understood, yes)."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _accepts(node.left, value) or _accepts(node.right, value)
    if isinstance(node, ast.Constant):
        return node.value is not None or value is None
    if isinstance(node, ast.Subscript):
        base = _dotted(node.value)
        items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if base in ("collections.abc.Sequence", "list", "typing.Sequence"):
            return _is_sequence(value) and all(_accepts(items[0], v) for v in _first_items(value))
        if base == "tuple":
            return (
                _is_sequence(value) and len(value) == len(items) and all(_accepts(i, v) for i, v in zip(items, value))
            )
        if base in ("collections.abc.Callable", "typing.Callable"):
            return callable(value)
        return True
    name = _dotted(node)
    if name is None:
        return True
    if name == "object":
        return value is not None  # nanobind refuses None unless the annotation says "| None"
    if name == "int":
        return isinstance(value, int) or _converts(operator.index, value)
    if name == "float":  # float() also parses text, which the caster does not
        return isinstance(value, (int, float)) or (not isinstance(value, (str, bytes)) and _converts(float, value))
    if name == "bool":
        return isinstance(value, bool) or type(value).__name__ == "bool"  # numpy.bool
    if name in ("str", "bytes", "list", "tuple", "dict"):
        return isinstance(value, {"str": str, "bytes": bytes, "list": list, "tuple": tuple, "dict": dict}[name])
    if name in ("collections.abc.Sequence", "typing.Sequence"):
        return _is_sequence(value)
    if name in ("collections.abc.Callable", "typing.Callable"):
        return callable(value)
    cls = _resolve(name) if "." in name else None
    return not isinstance(cls, type) or isinstance(value, cls)


def _converts(convert: Callable[[Any], object], value: object) -> bool:
    """Whether convert(value) works (an empty numpy array has __index__, which raises)."""
    try:
        convert(value)
    except Exception:  # noqa: BLE001  (any failure means the caster refuses it too)
        return False
    return True


def _describe(node: ast.expr) -> str:
    """An annotation in words: 'Context or None', 'a sequence of str'."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        alternatives = _alternatives(node)
        words = [_describe(a) for a in alternatives if not _is_none(a)]
        if any(_is_none(a) for a in alternatives):
            words.append("None")
        return ", ".join(words[:-1]) + " or " + words[-1] if len(words) > 1 else words[0]
    if _is_none(node):
        return "None"
    if isinstance(node, ast.Subscript):
        base = _dotted(node.value)
        items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if base in ("collections.abc.Sequence", "list", "typing.Sequence"):
            return f"a sequence of {_describe(items[0])}"
        if base == "tuple":
            return "a tuple (" + ", ".join(_describe(i) for i in items) + ")"
        if base in ("collections.abc.Callable", "typing.Callable"):
            return "a callable"
        return _describe(node.value)
    name = _dotted(node)
    if name in ("collections.abc.Sequence", "typing.Sequence"):
        return "a sequence"
    if name in ("collections.abc.Callable", "typing.Callable"):
        return "a callable"
    if name == "object":
        return "any object"
    return name.rpartition(".")[2] if name else "a value of another type"


def _render(form: _Form, receiver: type | None) -> str:
    """The parameters of a form as Python shows them, with classes by their bare names."""

    def shown(name: str, annotation: ast.expr | None, has_default: bool) -> str:
        typed = f"{name}: {_describe(annotation)}" if annotation is not None else name
        return typed + (" = ..." if has_default else "")

    parts = [shown(*p) for p in (form.positional[1:] if receiver is not None else form.positional)]
    if form.var_positional:
        parts.append(f"*{form.var_positional}")
    elif form.keyword_only:
        parts.append("*")
    parts += [shown(*p) for p in form.keyword_only]
    if form.var_keyword:
        parts.append("**kwargs")
    return ", ".join(parts)


def _merged(who: str | None, problems: list[_Problem]) -> str:
    """One message for the problems of every overload: the first one's when there is one form
    or they differ; "argument 'x' must be A or B, not T" when each refused the same argument."""
    parameters = {parameter for parameter, _, _ in problems}
    parameter, _, text = problems[0]
    if len(problems) > 1 and len(parameters) == 1 and parameter is not None and len({t for _, _, t in problems}) > 1:
        expected = " or ".join(dict.fromkeys(_describe(a) for _, a, _ in problems if a is not None))
        given = re.search(r", not (\w+)$", text)
        text = f"must be {expected}" + (f", not {given.group(1)}" if given else "")
    if parameter is not None:
        return _sentence(who, f"argument '{parameter}' {text}")
    if text.startswith("this "):
        return _sentence(who, text)
    return f"{who} {text}" if who else f"this call {text}"


def _alternatives(node: ast.expr) -> list[ast.expr]:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _alternatives(node.left) + _alternatives(node.right)
    return [node]


def _names(node: ast.expr) -> set[str | None]:
    """The plain names among an annotation's alternatives."""
    return {_dotted(a) for a in _alternatives(node)} - {None}


def _is_none(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _dotted(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr}" if base else None
    return None


def _resolve(path: str) -> object:
    """The object at a dotted path ('gpukit._gpukit.cl.Context'), or None."""
    parts = path.split(".")
    for split in range(len(parts) - 1, 0, -1):
        try:
            obj: object = importlib.import_module(".".join(parts[:split]))
        except ImportError:
            continue
        for part in parts[split:]:
            obj = getattr(obj, part, None)
        return obj
    return None


def _is_sequence(value: object) -> bool:
    """A sequence as nanobind's list casters take one: not str or bytes, not a mapping."""
    kind = type(value)
    return not isinstance(value, (str, bytes, dict)) and hasattr(kind, "__getitem__") and hasattr(kind, "__len__")


def _first_items(value: Any) -> list[Any]:
    try:
        return list(value[:_ITEMS_CHECKED]) if isinstance(value, (list, tuple)) else list(value)[:_ITEMS_CHECKED]
    except Exception:  # noqa: BLE001  (a sequence that fails to iterate: say nothing of its items)
        return []


def _type_name(value: object) -> str:
    return type(value).__name__
