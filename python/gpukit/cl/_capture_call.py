"""Kernel.capture_call, as PyOpenCL's: writes a Python script that replays one kernel call on
its own — the program's source and build options, and every argument's value (a Buffer's
contents as they are when the call is captured) — for bug reports and for timing a kernel
outside its program. The script defines ``main()``, which makes a context with
``create_some_context()``, runs the call, waits for it, and returns the queue and the
arguments (so that a caller can read the buffers back)."""

from __future__ import annotations

import base64
import os
import zlib
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, SupportsIndex, cast

import numpy as np

from gpukit._gpukit import cl as _cl

if TYPE_CHECKING:
    from _typeshed import StrOrBytesPath, SupportsWrite
    from numpy.typing import NDArray

_PROGRAM_SOURCE = dict(_cl._info_parameters["program_info"])["SOURCE"]
_BUILD_OPTIONS = dict(_cl._info_parameters["program_build_info"])["OPTIONS"]

_HEADER = '''"""A kernel call captured by gpukit.cl's Kernel.capture_call: run main()."""
import base64
import zlib

import numpy as np

import gpukit.cl as cl


def _data(text):
    return np.frombuffer(zlib.decompress(base64.b64decode(text)), np.uint8)

'''


def _blob(data: NDArray[np.uint8] | bytes) -> str:
    return base64.b64encode(zlib.compress(bytes(data))).decode("ascii")


def _dtype_text(dtype: np.dtype[Any]) -> str:
    return repr(dtype.descr) if dtype.fields else repr(dtype.str)


def _argument(queue: _cl.CommandQueue, index: int, arg: object) -> tuple[str | None, str]:
    """(setup line or None, expression) of argument `index` in the script."""
    if arg is None:
        return None, "None"
    if isinstance(arg, _cl.Buffer):
        contents = np.empty(arg.size, np.uint8)
        _cl.enqueue_copy(queue, contents, arg)
        flags = "cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR"
        return f"    arg{index} = cl.Buffer(ctx, {flags}, hostbuf=_data({_blob(contents)!r}))", f"arg{index}"
    if isinstance(arg, _cl.LocalMemory):
        return None, f"cl.LocalMemory({arg.size})"
    if isinstance(arg, np.ndarray) and arg.ndim == 0:
        arg = arg[()]
    if isinstance(arg, np.generic):
        if arg.dtype.hasobject:
            raise TypeError(f"capture_call: argument {index} holds Python objects; expected plain data")
        value = f"np.frombuffer(_data({_blob(arg.tobytes())!r}), np.dtype({_dtype_text(arg.dtype)}))[0]"
        return None, value
    raise TypeError(
        f"capture_call: argument {index} is a {type(arg).__name__}, which a captured call cannot "
        "carry; expected a Buffer, None, a numpy scalar (or 0-d array) or LocalMemory"
    )


def _sizes(value: SupportsIndex | Sequence[SupportsIndex] | None) -> tuple[int, ...] | None:
    return None if value is None else tuple(int(v) for v in (value if np.iterable(value) else (value,)))


def capture_call(
    self: _cl.Kernel,
    output_file: StrOrBytesPath | SupportsWrite[str],
    queue: _cl.CommandQueue,
    global_size: SupportsIndex | Sequence[SupportsIndex],
    local_size: SupportsIndex | Sequence[SupportsIndex] | None,
    *args: object,
    wait_for: Iterable[_cl.Event] | None = None,
    g_times_l: bool = False,
    allow_empty_ndrange: bool = False,
    global_offset: SupportsIndex | Sequence[SupportsIndex] | None = None,
) -> None:
    """Write to `output_file` (a path or a text file) a Python script that replays
    ``self(queue, global_size, local_size, *args, ...)``; the call itself is not run. Buffers
    are read after `wait_for`, so the script holds their contents as the call would see them."""
    if wait_for:
        _cl.wait_for_events(wait_for)
    program = cast(_cl.Program, self.program)  # a Program (the stub types Kernel.program as object)
    source = program.get_info(_PROGRAM_SOURCE)
    if not source:
        raise _cl.LogicError(
            "capture_call: the kernel's program was not made from source (binaries or IL): "
            "there is no source to capture"
        )
    options = program.get_build_info(queue.device, _BUILD_OPTIONS)
    setup, expressions = [], []
    for index, arg in enumerate(args):
        line, expression = _argument(queue, index, arg)
        if line:
            setup.append(line)
        expressions.append(expression)
    call_keywords = (
        f"global_offset={_sizes(global_offset)!r}, g_times_l={bool(g_times_l)!r}, "
        f"allow_empty_ndrange={bool(allow_empty_ndrange)!r}"
    )
    script = (
        _HEADER + f"SOURCE = {source!r}\nOPTIONS = {options!r}\n\n\ndef main():\n"
        "    ctx = cl.create_some_context()\n    queue = cl.CommandQueue(ctx)\n"
        f"    kernel = cl.Kernel(cl.Program(ctx, SOURCE).build(options=OPTIONS), {self.function_name!r})\n"
        + "".join(line + "\n" for line in setup)
        + f"    arguments = [{', '.join(expressions)}]\n"
        + f"    kernel(queue, {_sizes(global_size)!r}, {_sizes(local_size)!r}, *arguments, {call_keywords})\n"
        + "    queue.finish()\n    return queue, arguments\n\n\n"
        'if __name__ == "__main__":\n    main()\n'
    )
    if isinstance(output_file, (str, bytes, os.PathLike)):
        with open(output_file, "w", encoding="utf-8") as out:
            out.write(script)
    else:
        output_file.write(script)
