"""The public-API fuzz of test_public_api_fuzz.py: every public callable of gpukit's Python
modules and of the drop-ins (pycuda.*, pyopencl.*), called with values from a catalogue of bad
inputs, each outcome checked.

The cases are a deterministic enumeration from a fixed seed (no hypothesis: the suite must run
without it). For every callable: a call without arguments, one with an unknown keyword, then
each parameter in turn given each bad value (the other required parameters given plausible
values, so that the call gets past its first check), then a few calls with every argument drawn
from the catalogue. Methods are called on a working object where one can be made here (OpenCL on
PoCL, the driver's plain structures, a GPUArray over a made-up address), on one made by
``__new__`` without ``__init__`` and on a released one. A case fails on:

- a crash of the process (the worker dies; the parent starts another after that case),
- a hang (no answer within the parent's timeout),
- a C++ name or nanobind's "incompatible function arguments" in any message it raises or warns,
  or the explanation of last resort that names no argument,
- SystemError (an extension returned an error without setting one) or SystemExit,
- an unknown keyword that is not a TypeError.

Run as a script it is the worker: ``python api_fuzz.py LEVEL SHARD SHARDS FIRST`` runs the
cases i >= FIRST with i % SHARDS == SHARD, printing ``START i label`` before each, ``FAIL i
json`` for each failure and ``DONE`` at the end; ``python api_fuzz.py LEVEL TEXT`` runs the
cases whose label holds TEXT (to reproduce one: add -X faulthandler). CUDA stays hidden
(CUDA_VISIBLE_DEVICES=""), so the fuzz checks the same calls on a machine with a GPU as on one
without.
"""

import importlib
import inspect
import json
import os
import random
import re
import sys
import time
import warnings

# What no message may contain: nanobind's generic text, C++ namespaces and library
# internals, mangled names.
FORBIDDEN = re.compile(
    r"incompatible function arguments|std::|gpukit::|nanobind::|\bnb::|bad_cast|"
    r"\b_Z[NSTZ]\w+|basic_string|__cxx11|::_M_|\bnb_func\b"
)
# The explanation of last resort (gpukit/_errors/arguments.py), which names no argument: the
# fuzz counts it as a failure too, so that every refusal it meets is a precise one.
VAGUE = re.compile(r"match none of its signatures|is not of a type this call takes")
# nanobind's warning before it refuses an uninitialised object; the TypeError says the same.
ALLOWED_WARNING = re.compile(r"^nanobind: attempted to access an uninitialized instance")

# The modules whose public callables are fuzzed, and the drop-in names that alias them (walked
# too: what they hold that the others do not is fuzzed under their names).
MODULES = [
    "gpukit.driver",
    "gpukit.compiler",
    "gpukit.tools",
    "gpukit.gpuarray",
    "gpukit.elementwise",
    "gpukit.reduction",
    "gpukit.scan",
    "gpukit.cumath",
    "gpukit.curandom",
    "gpukit.characterize",
    "gpukit.cl",
    "gpukit.cl.tools",
    "gpukit.cl.characterize",
    "gpukit.gl",
    "gpukit.pycuda_compat.compyte.array",
    "gpukit.pycuda_compat._cluda",
]
DROP_INS = {
    "gpukit.pycuda_compat": [
        "pycuda.driver",
        "pycuda.compiler",
        "pycuda.tools",
        "pycuda.gpuarray",
        "pycuda.elementwise",
        "pycuda.reduction",
        "pycuda.scan",
        "pycuda.cumath",
        "pycuda.curandom",
        "pycuda.characterize",
        "pycuda.gl",
        "pycuda.compyte.array",
    ],
    "gpukit.pyopencl_compat": ["pyopencl", "pyopencl.tools", "pyopencl.characterize"],
}
# Private functions that are fuzzed too: they run the argument conversion of a public call that
# needs a GPU (Function.__call__, prepared_call) without one.
PRIVATE_TARGETS = ["gpukit._gpukit._kernel_argument_bytes", "gpukit._gpukit._prepared_argument_bytes"]
# Callables that are not fuzzed, and why.
SKIPPED = {
    "create_some_context": "asks on the terminal when interactive",
    "pytest_generate_tests_for_opencl": "a pytest hook",
    "pytest_generate_tests_for_pyopencl": "a pytest hook",
}
# Parameters that take a raw handle: any integer is taken as one (as PyOpenCL takes it), so a
# made-up one crashes by design; they get the catalogue's other values.
RAW_HANDLES = {"int_ptr_value"}
# Parameters fuzzed only at the full level: a call with one of these takes seconds.
SLOW_PARAMETERS = {"keep": "keep=True compiles with nvcc"}
# Dunder methods Python calls for ordinary uses, fuzzed with the public methods.
DUNDERS = {
    "__call__",
    "__getitem__",
    "__setitem__",
    "__len__",
    "__iter__",
    "__enter__",
    "__exit__",
    "__int__",
    "__index__",
    "__bool__",
    "__repr__",
    "__str__",
    "__hash__",
    "__eq__",
    "__add__",
    "__mul__",
    "__truediv__",
    "__pow__",
    "__neg__",
    "__abs__",
    "__iadd__",
    "__lt__",
    "__array__",
    "__reduce__",
    "__cuda_array_interface__",
    "__dlpack__",
    "__dlpack_device__",
}

# A case slower than this (seconds) is reported, to keep the suite's share of CI small.
SLOW = 0.25
SEED = os.environ.get("GPUKIT_API_FUZZ_SEED", "29")
# Per level: bad values given to each parameter (rotating through the catalogue from one
# callable to the next, so that a smaller level still meets every value), calls drawing every
# argument from the catalogue, and how many parameters of a callable are fuzzed.
LEVELS = {
    "ci": {"values_per_parameter": 10, "mixed_calls": 2, "parameters": 5},
    "full": {"values_per_parameter": None, "mixed_calls": 6, "parameters": 12},
}

CL_SOURCE = "__kernel void k(__global float *x, int n) { x[0] = n; }"
CUDA_SOURCE = "__global__ void k(float *x) { x[0] = 1; }"


class Environment:
    """What the catalogue and the plausible values are made from: an OpenCL context and queue
    when OpenCL works here, and a directory for paths."""

    def __init__(self, directory):
        import numpy as np

        import gpukit.cl as cl
        import gpukit.gpuarray as gpuarray

        self.np, self.cl, self.gpuarray = np, cl, gpuarray
        self.directory = directory
        self.ctx = self.queue = self.device = self.program = None
        try:
            devices = [d for p in cl.get_platforms() for d in p.get_devices()]
            cpu = [d for d in devices if d.type & cl.device_type.CPU]
            self.device = (cpu or devices)[0]
            self.ctx = cl.Context([self.device])
            self.queue = cl.CommandQueue(self.ctx)
            self.program = cl.Program(self.ctx, CL_SOURCE).build()
        except Exception:  # noqa: BLE001  (no OpenCL here: the cl calls fail with its message)
            pass

    def buffer(self):
        return self.cl.Buffer(self.ctx, self.cl.mem_flags.READ_WRITE, 64) if self.ctx else None

    def released_buffer(self):
        """A PooledBuffer given back to its pool (cl.Buffer has no release())."""
        if self.queue is None:
            return None
        tools = importlib.import_module("gpukit.cl.tools")
        b = tools.MemoryPool(tools.ImmediateAllocator(self.queue)).allocate(64)
        b.release()
        return b

    def fake_array(self, shape=(4,), dtype=None):
        """A GPUArray over a made-up device address: enough for everything checked before a
        copy or launch (there is no driver, or CUDA is hidden)."""
        return self.gpuarray.GPUArray(shape, dtype or self.np.float32, gpudata=1 << 20)


# The catalogue's values that are integers (or convert to one with __index__).
INTEGERS = {"True", "0", "-1", "2**31", "2**64", "2**70", "-2**63-1", "np.int64(-1)", "0-d-array"}


class Pretender:
    """An object whose protocol attributes hold what `attributes` says (a bogus
    __cuda_array_interface__, an __index__ that raises, ...)."""

    def __init__(self, **attributes):
        self.__dict__.update(attributes)

    def __index__(self):
        raise ValueError("Pretender.__index__ refuses")


def catalogue(env):
    """The bad values: (name, value) pairs; each is made fresh for every case."""
    np, cl, drv = env.np, env.cl, importlib.import_module("gpukit.driver")
    non_utf8 = os.path.join(os.fsencode(env.directory), b"\xff\xfe")
    values = [
        ("None", lambda: None),
        ("True", lambda: True),
        ("0", lambda: 0),
        ("-1", lambda: -1),
        ("2**31", lambda: 2**31),
        ("2**64", lambda: 2**64),
        ("2**70", lambda: 2**70),
        ("-2**63-1", lambda: -(2**63) - 1),
        ("1.5", lambda: 1.5),
        ("nan", lambda: float("nan")),
        ("inf", lambda: float("inf")),
        ("1j", lambda: 1j),
        ("''", lambda: ""),
        ("'x'", lambda: "x"),
        ("str-with-NUL", lambda: "-DX=1\0junk"),
        ("non-UTF-8-str-path", lambda: os.fsdecode(non_utf8)),
        ("b''", lambda: b""),
        ("bytes", lambda: b"bytes"),
        ("non-UTF-8-bytes-path", lambda: non_utf8),
        ("[]", lambda: []),
        ("[None]", lambda: [None]),
        ("(4, 4)", lambda: (4, 4)),
        ("(-1,)", lambda: (-1,)),
        ("(2**70,)", lambda: (2**70,)),
        ("{}", lambda: {}),
        ("object()", lambda: object()),
        ("lambda", lambda: lambda *a, **k: None),
        ("np.float32-type", lambda: np.float32),
        ("np.int64(-1)", lambda: np.int64(-1)),
        ("np.float64(1.5)", lambda: np.float64(1.5)),
        ("0-d-array", lambda: np.array(3)),
        ("float32-array", lambda: np.zeros(4, np.float32)),
        ("empty-array", lambda: np.zeros(0, np.float32)),
        ("strided-array", lambda: np.zeros((4, 4), np.float64)[:, ::2]),
        ("object-array", lambda: np.array([None] * 4, dtype=object)),
        ("void-array", lambda: np.zeros(4, dtype="V3")),
        ("unicode-array", lambda: np.zeros(4, dtype="U4")),
        ("dtype-object", lambda: np.dtype(object)),
        ("dtype-void3", lambda: np.dtype("V3")),
        ("dtype-unicode", lambda: np.dtype("U4")),
        ("dtype-name-bogus", lambda: "not-a-dtype"),
        ("index-that-raises", lambda: Pretender()),
        (
            "bogus-cuda-array-interface",
            lambda: Pretender(
                __cuda_array_interface__={"typestr": "x", "shape": "no", "data": ("no", False), "version": 3}
            ),
        ),
        ("cuda-array-interface-of-int", lambda: Pretender(__cuda_array_interface__=5)),
        (
            "cuda-array-interface-huge",
            lambda: Pretender(
                __cuda_array_interface__={
                    "typestr": "<f4",
                    "shape": (2**62, 2**62),
                    "data": (2**70, False),
                    "version": 3,
                }
            ),
        ),
        ("bogus-array-interface", lambda: Pretender(__array_interface__={"typestr": "x", "shape": (4,), "version": 3})),
        ("bogus-cuda-stream", lambda: Pretender(__cuda_stream__=lambda: ("x", None))),
        ("get-pointer-of-str", lambda: Pretender(get_pointer=lambda: "x")),
        ("fake-gpuarray", lambda: env.fake_array()),
        # A GPUArray of object dtype cannot be made (its constructor refuses it); another
        # library's device array may still say it holds objects.
        (
            "cuda-array-interface-object-dtype",
            lambda: Pretender(
                __cuda_array_interface__={"typestr": "|O", "shape": (4,), "data": (1 << 20, False), "version": 3}
            ),
        ),
        ("released-pooled-buffer", env.released_buffer),
        ("cl-buffer", env.buffer),
        ("cl-queue", lambda: env.queue),
        ("cl-context", lambda: env.ctx),
    ]
    for cls in (
        cl.Context,
        cl.CommandQueue,
        cl.Buffer,
        cl.Event,
        cl.Program,
        cl.Kernel,
        drv.Stream,
        drv.Context,
        drv.Device,
        drv.DeviceAllocation,
        drv.Function,
        env.gpuarray.GPUArray,
    ):
        values.append((f"uninitialised-{cls.__name__}", lambda cls=cls: cls.__new__(cls)))
    return values


def plausible(env, name, target):
    """A value that a parameter of this name of `target` takes, so that a call gets past it;
    None when there is no such value here."""
    np, cl = env.np, env.cl
    host = lambda: np.zeros(4, np.float32)  # noqa: E731
    table = {
        "context": lambda: env.ctx,
        "ctx": lambda: env.ctx,
        "queue": lambda: env.queue,
        "command_queue": lambda: env.queue,
        "device": lambda: env.device,
        "dev": lambda: env.device,
        "devices": lambda: [env.device] if env.device else None,
        "platform": lambda: env.device.platform if env.device else None,
        "program": lambda: env.program,
        "kernel": lambda: env.program.k if env.program else None,
        "size": lambda: 16,
        "nbytes": lambda: 16,
        "bytes": lambda: 16,
        "count": lambda: 4,
        "n": lambda: 4,
        "byte_count": lambda: 16,
        "num": lambda: 4,
        "flags": lambda: cl.mem_flags.READ_WRITE,
        "mem_flags": lambda: cl.mem_flags.READ_WRITE,
        "hostbuf": host,
        "ary": host,
        "host": host,
        "dest": env.buffer,
        "src": env.buffer,
        "shape": lambda: (4,),
        "dtype": lambda: np.float32,
        "dtype_out": lambda: np.float32,
        "source": lambda: CL_SOURCE if ".cl." in target.label else CUDA_SOURCE,
        "arguments": lambda: "float *x",
        "operation": lambda: "x[i] = 0",
        "name": lambda: "k",
        "reduce_expr": lambda: "a+b",
        "neutral": lambda: "0",
        "map_expr": lambda: "x[i]",
        "scan_expr": lambda: "a+b",
        "options": lambda: [],
        "global_size": lambda: (4,),
        "global_work_size": lambda: (4,),
        "a": env.fake_array,
        "x": env.fake_array,
        "y": env.fake_array,
    }
    make = table.get(name)
    return make() if make is not None else None


class Target:
    """One callable to fuzz: `call(receiver, args, kwargs)`; its parameters as (name, kind) with
    kind 'positional', 'keyword' or 'var' (*args); `receivers` names the objects a method is
    called on ('made', 'uninitialised', 'released'), or [None] for a plain callable."""

    def __init__(self, label, call, parameters, receivers=(None,), required=(), cls=None):
        self.label, self.call, self.parameters = label, call, parameters
        self.receivers, self.required, self.cls = list(receivers), set(required), cls


def parameters_of(function):
    """[(name, kind)], required names: from inspect for Python functions, from nanobind's
    signature for the extension's."""
    signatures = getattr(function, "__nb_signature__", None)
    if signatures:
        from gpukit._errors.arguments import _parse

        form = _parse(signatures[0][0])
        if form is None:
            return [], set()
        positional = [p for p in form.positional if p[0] not in ("self", "cls")]
        result = [(name, "keyword" if name not in form.positional_only else "positional") for name, _, _ in positional]
        if form.var_positional:
            result.append(("args", "var"))
        result += [(name, "keyword") for name, _, _ in form.keyword_only]
        required = {name for name, _, d in positional + form.keyword_only if not d}
        return result, required
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return [], set()
    result, required = [], set()
    for p in signature.parameters.values():
        if p.name in ("self", "cls"):
            continue
        if p.kind == p.VAR_POSITIONAL:
            result.append((p.name, "var"))
        elif p.kind == p.POSITIONAL_ONLY:
            result.append((p.name, "positional"))
        elif p.kind != p.VAR_KEYWORD:
            result.append((p.name, "keyword"))
        if p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            required.add(p.name)
    return result, required


def public_names(module):
    names = getattr(module, "__all__", None) or [n for n in vars(module) if not n.startswith("_")]
    return sorted(n for n in names if hasattr(module, n))


def is_gpukit_object(obj):
    return (getattr(obj, "__module__", None) or "").startswith("gpukit")


def targets(env):
    """Every public callable once (the drop-ins' names are the same objects), in a fixed order."""
    for package in DROP_INS:
        importlib.import_module(package)
    seen, found = set(), []
    for module_name in MODULES + [alias for aliases in DROP_INS.values() for alias in aliases]:
        module = importlib.import_module(module_name)
        for name in public_names(module):
            obj = getattr(module, name)
            if name in SKIPPED or id(obj) in seen or not callable(obj) or not is_gpukit_object(obj):
                continue
            if isinstance(obj, type) and issubclass(obj, BaseException):
                continue
            if isinstance(obj, type) and _is_enum(obj):
                continue
            seen.add(id(obj))
            label = f"{module_name}.{name}"
            if isinstance(obj, type):
                found.append(_constructor(label, obj))
                found += _methods(label, obj, env, seen)
            else:
                parameters, required = parameters_of(obj)
                found.append(Target(label, lambda _, a, k, f=obj: f(*a, **k), parameters, required=required))
    for label in PRIVATE_TARGETS:
        module_name, _, name = label.rpartition(".")
        function = getattr(importlib.import_module(module_name), name)
        parameters, required = parameters_of(function)
        found.append(Target(label, lambda _, a, k, f=function: f(*a, **k), parameters, required=required))
    return found


def _is_enum(cls):
    import enum

    return issubclass(cls, enum.Enum)


def _constructor(label, cls):
    init = cls.__dict__.get("__init__") or cls.__init__
    parameters, required = parameters_of(init if hasattr(init, "__nb_signature__") else cls)
    return Target(f"{label}()", lambda _, a, k: cls(*a, **k), parameters, required=required)


def _methods(label, cls, env, seen):
    """The public methods and properties of cls, each called on the receivers made for cls
    (the arguments are fuzzed on the first)."""
    receivers = ["made", "uninitialised", "released"] if _class_name(cls) in RECEIVERS else ["uninitialised"]
    found = []
    for name in sorted(dir(cls)):
        if name.startswith("_") and name not in DUNDERS:
            continue
        try:
            member = inspect.getattr_static(cls, name)
        except AttributeError:
            continue
        owner = next((c for c in cls.__mro__ if name in vars(c)), None)
        if owner is None or not is_gpukit_object(owner):
            continue
        if isinstance(member, property):
            found.append(Target(f"{label}.{name} (get)", lambda r, a, k, n=name: getattr(r, n), [], receivers, cls=cls))
            if member.fset is not None:
                found.append(
                    Target(
                        f"{label}.{name} (set)",
                        lambda r, a, k, n=name: setattr(r, n, *a),
                        [("value", "positional")],
                        receivers,
                        required={"value"},
                        cls=cls,
                    )
                )
        elif isinstance(member, (staticmethod, classmethod)) or type(member).__name__ == "nb_func":
            function = getattr(cls, name)
            parameters, required = parameters_of(function)
            found.append(
                Target(f"{label}.{name}", lambda _, a, k, f=function: f(*a, **k), parameters, required=required)
            )
        elif callable(member):
            parameters, required = parameters_of(member)
            found.append(
                Target(
                    f"{label}.{name}",
                    lambda r, a, k, n=name: getattr(r, n)(*a, **k),
                    parameters,
                    receivers,
                    required=required,
                    cls=cls,
                )
            )
    return found


def receiver(env, cls, kind):
    """The object a method of cls is called on, or None when none of that kind can be made here."""
    if kind == "uninitialised":
        return cls.__new__(cls)
    maker = RECEIVERS.get(_class_name(cls))
    obj = maker(env) if maker is not None else None
    if obj is not None and kind == "released":
        release = next((getattr(obj, n) for n in ("release", "free", "close") if callable(getattr(obj, n, None))), None)
        if release is None:
            return None
        release()
    return obj


def _cl_tools():
    return importlib.import_module("gpukit.cl.tools")


def _drv():
    return importlib.import_module("gpukit.driver")


def _class_name(cls):
    return f"{cls.__module__}.{cls.__qualname__}"


def _tools_pool(e):
    tools = _cl_tools()
    return tools.MemoryPool(tools.ImmediateAllocator(e.queue)) if e.queue else None


# Working objects, per class, where one can be made without a CUDA device.
RECEIVERS = {
    "gpukit._gpukit.cl.Platform": lambda e: e.device.platform if e.device else None,
    "gpukit._gpukit.cl.Device": lambda e: e.device,
    "gpukit._gpukit.cl.Context": lambda e: e.cl.Context([e.device]) if e.device else None,
    "gpukit._gpukit.cl.CommandQueue": lambda e: e.cl.CommandQueue(e.ctx) if e.ctx else None,
    "gpukit._gpukit.cl.Buffer": lambda e: e.buffer(),
    "gpukit._gpukit.cl.Program": lambda e: e.cl.Program(e.ctx, CL_SOURCE).build() if e.ctx else None,
    "gpukit._gpukit.cl.Kernel": lambda e: e.program.k if e.program else None,
    "gpukit._gpukit.cl.LocalMemory": lambda e: e.cl.LocalMemory(16),
    "gpukit._gpukit.cl.Event": lambda e: e.cl.enqueue_marker(e.queue) if e.queue else None,
    "gpukit._gpukit.cl.tools.ImmediateAllocator": lambda e: (
        _cl_tools().ImmediateAllocator(e.queue) if e.queue else None
    ),
    "gpukit._gpukit.cl.tools.DeferredAllocator": lambda e: _cl_tools().DeferredAllocator(e.ctx) if e.ctx else None,
    "gpukit.cl.tools.MemoryPool": _tools_pool,
    "gpukit._gpukit.cl.tools.PooledBuffer": lambda e: _tools_pool(e).allocate(16) if e.queue else None,
    "gpukit.gpuarray.GPUArray": lambda e: e.fake_array(),
    "gpukit._gpukit.Memcpy2D": lambda e: _drv().Memcpy2D(),
    "gpukit._gpukit.Memcpy3D": lambda e: _drv().Memcpy3D(),
    "gpukit._gpukit.Memcpy3DPeer": lambda e: _drv().Memcpy3DPeer(),
    "gpukit._gpukit.ArrayDescriptor": lambda e: _drv().ArrayDescriptor(),
    "gpukit._gpukit.ArrayDescriptor3D": lambda e: _drv().ArrayDescriptor3D(),
    "gpukit.elementwise.ElementwiseKernel": lambda e: importlib.import_module("gpukit.elementwise").ElementwiseKernel(
        "float *x", "x[i] = 0", "fuzz_zero"
    ),
}


class Case:
    def __init__(self, index, target, receiver_kind, description, arguments):
        self.index, self.target, self.receiver_kind = index, target, receiver_kind
        self.description, self.arguments = description, arguments  # arguments: env -> (args, kwargs)

    @property
    def label(self):
        on = f" on a {self.receiver_kind} object" if self.receiver_kind else ""
        return f"{self.target.label}{on}: {self.description}"


def cases(env, level):
    """Every case of `level`, numbered in a fixed order."""
    settings = LEVELS[level]
    values = catalogue(env)
    found = []

    def add(target, receiver_kind, description, arguments):
        found.append(Case(len(found), target, receiver_kind, description, arguments))

    for t_index, target in enumerate(targets(env)):
        fuzzed = [(n, k) for n, k in target.parameters if level == "full" or n not in SLOW_PARAMETERS]
        fuzzed = fuzzed[: settings["parameters"]]
        for r_index, kind in enumerate(target.receivers):
            add(target, kind, "no arguments", lambda e: ((), {}))
            if r_index > 0:
                continue  # the other receivers get the call without arguments only
            if not target.label.endswith(("(get)", "(set)")):
                add(target, kind, "an unknown keyword", lambda e, t=target: _base(e, t, {"no_such_keyword_": 1}))
            for p_index, (name, p_kind) in enumerate(fuzzed):
                chosen = _rotation(len(values), settings["values_per_parameter"], t_index * 7 + p_index)
                for v in chosen:
                    value_name, make = values[v]
                    if name in RAW_HANDLES and value_name in INTEGERS:
                        continue
                    add(
                        target,
                        kind,
                        f"{name}={value_name}",
                        lambda e, t=target, n=name, k=p_kind, m=make: _with(e, t, n, k, m()),
                    )
            for m_index in range(settings["mixed_calls"] if fuzzed else 0):
                rng = random.Random(f"{SEED}:{target.label}:{m_index}")
                picks = [
                    (name, p_kind, rng.randrange(len(values))) for name, p_kind in fuzzed if name not in RAW_HANDLES
                ]
                description = ", ".join(f"{n}={values[v][0]}" for n, _, v in picks)
                add(
                    target,
                    kind,
                    description,
                    lambda e, t=target, p=picks: _mixed(e, t, [(n, k, values[v][1]()) for n, k, v in p]),
                )
    return found


def _rotation(count, how_many, start):
    if how_many is None or how_many >= count:
        return list(range(count))
    return [(start * how_many + i) % count for i in range(how_many)]


def _base(env, target, extra):
    """Plausible values for the required parameters, and `extra` keywords."""
    args, kwargs = [], {}
    for name, kind in target.parameters:
        if name not in target.required:
            continue
        value = plausible(env, name, target)
        if kind == "positional":
            args.append(value)
        elif kind == "keyword":
            kwargs[name] = value
    kwargs.update(extra)
    return tuple(args), kwargs


def _with(env, target, name, kind, value):
    """The base call with `name` given `value`."""
    args, kwargs = _base(env, target, {})
    if kind == "var":
        return (*args, value), kwargs
    if kind == "positional":
        positional = [n for n, k in target.parameters if k == "positional"]
        args = list(args) + [plausible(env, n, target) for n in positional[len(args) :]]
        args[positional.index(name)] = value
        return tuple(args), kwargs
    kwargs[name] = value
    return args, kwargs


def _mixed(env, target, picks):
    args, kwargs = [], {}
    for name, kind, value in picks:
        if kind == "keyword":
            kwargs[name] = value
        else:
            args.append(value)
    return tuple(args), kwargs


def problems_of(case, env):
    """The failures of one case: [] when it returned or raised acceptably."""
    target = case.target
    try:
        obj = receiver(env, target.cls, case.receiver_kind) if case.receiver_kind else None
        args, kwargs = case.arguments(env)
    except Exception as e:  # noqa: BLE001  (the fuzz's own values failed to make: a bug here)
        return [{"kind": "harness", "text": f"making the arguments: {type(e).__name__}: {e}"}]
    if case.receiver_kind and obj is None:
        return []  # no such receiver here
    problems = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            target.call(obj, args, kwargs)
            raised = None
        except (SystemExit, Exception) as e:  # noqa: BLE001  (judging every exception is the point)
            raised = e
    for w in caught:
        text = str(w.message)
        if FORBIDDEN.search(text) and not ALLOWED_WARNING.search(text):
            problems.append({"kind": "warning names C++ or nanobind", "text": f"{w.category.__name__}: {text}"})
    if case.description == "an unknown keyword" and not isinstance(raised, TypeError):
        problems.append(
            {
                "kind": "unknown keyword is no TypeError",
                "text": "returned" if raised is None else f"{type(raised).__name__}: {raised}",
            }
        )
    seen = 0
    while raised is not None and seen < 5:
        text = f"{type(raised).__module__}.{type(raised).__qualname__}: {raised}"
        if isinstance(raised, (SystemError, SystemExit)):
            problems.append({"kind": type(raised).__name__, "text": text})
        elif FORBIDDEN.search(text):
            problems.append({"kind": "message names C++ or nanobind", "text": text})
        elif VAGUE.search(text):
            problems.append({"kind": "message names no argument", "text": text})
        raised = raised.__cause__ or raised.__context__
        seen += 1
    return problems


def limit_memory():
    """At most 4 GiB of address space, so that a huge allocation fails with MemoryError instead
    of filling the machine's memory until the OOM killer comes. Not under ASan, whose shadow
    memory is terabytes of it: there ASAN_OPTIONS=max_allocation_size_mb does it."""
    if "asan" in os.environ.get("LD_PRELOAD", "") + os.environ.get("GPUKIT_SANITIZER_PRELOAD", ""):
        return
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (4 << 30, resource.RLIM_INFINITY))


def main(level, shard, shards, first, only=None):
    import tempfile

    limit_memory()
    # In the working directory (the test's own temporary one), so that a worker that crashes
    # leaves nothing behind in /tmp; removed when the worker finishes.
    with tempfile.TemporaryDirectory(
        prefix="gpukit-api-fuzz-", dir=os.getcwd(), ignore_cleanup_errors=True
    ) as directory:
        run_cases(Environment(directory), level, shard, shards, first, only)


def run_cases(env, level, shard, shards, first, only):
    spent = {}
    for case in cases(env, level):
        if only is not None:
            if only not in case.label:
                continue
        elif case.index < first or case.index % shards != shard:
            continue
        print(f"START {case.index} {case.label}", flush=True)
        started = time.monotonic()
        for problem in problems_of(case, env):
            print(f"FAIL {case.index} {json.dumps(dict(problem, case=case.label))}", flush=True)
        elapsed = time.monotonic() - started
        spent[case.target.label] = spent.get(case.target.label, 0.0) + elapsed
        if elapsed > SLOW:
            print(f"SLOW {elapsed:.2f} {case.label}", flush=True)
    for label, seconds in spent.items():
        if seconds > SLOW:
            print(f"SLOW {seconds:.2f} {label} (all its cases)", flush=True)
    print("DONE", flush=True)


if __name__ == "__main__":
    if len(sys.argv) == 3:  # python api_fuzz.py LEVEL TEXT: the cases whose label holds TEXT, in order
        main(sys.argv[1], 0, 1, 0, only=sys.argv[2])
    else:
        main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]))
