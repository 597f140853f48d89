"""Compiling CUDA C at run time (PyCUDA's ``pycuda.compiler``).

Sources and option lists written for PyCUDA's nvcc compile unchanged: NVRTC, loaded at run
time, compiles them with gpukit's built-in headers and the CUDA toolkit's include
directories, nvcc's options translated (see translate_options()); nvcc compiles what NVRTC
cannot (host code, nvcc-only options and headers) when it is installed. Compiled images are
cached on disk (see compile()). ``arch`` is ``"sm_XY"`` (a cubin) or ``"compute_XY"`` (PTX
that the driver compiles when it loads it); by default it is the current context's device,
or ``sm_90`` without a context. docs/kernels.md describes all of it.
"""

from __future__ import annotations

import importlib.util
import logging
import os
import struct
import weakref
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, Literal, TypedDict

from gpukit import _gpukit, driver
from gpukit._text import printable
from gpukit._gpukit import CompileOutcome
from gpukit.driver import Context, Function, module_from_buffer
from gpukit._warnings import warn

if TYPE_CHECKING:
    from gpukit._gpukit import Module, _PreparedCompile

_log = logging.getLogger("gpukit.compiler")


def _flags_from_environment() -> list[str]:
    value = os.environ.get("GPUKIT_DEFAULT_NVCC_FLAGS")
    if value is None:
        value = os.environ.get("PYCUDA_DEFAULT_NVCC_FLAGS", "")
    return value.split()


#: Options used when a call passes ``options=None``; read from GPUKIT_DEFAULT_NVCC_FLAGS
#: (else PYCUDA_DEFAULT_NVCC_FLAGS), split on whitespace. Shared by every caller: change
#: it with care.
DEFAULT_NVCC_FLAGS = _flags_from_environment()

#: The compiler used when a call passes ``compiler=None``: ``None`` or ``"auto"`` (NVRTC,
#: and nvcc for what NVRTC cannot compile), ``"nvrtc"`` or ``"nvcc"``. Read from the
#: environment variable GPUKIT_COMPILER when gpukit.compiler is imported; set it here to make
#: unchanged PyCUDA code use nvcc.
DEFAULT_COMPILER = os.environ.get("GPUKIT_COMPILER") or None

#: gpukit's device headers (``#include <gpukit/helpers.cuh>``), shipped inside the package.
#: Every compile searches it after the caller's include_dirs.
DEVICE_INCLUDE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "include")

_TARGETS = ("cubin", "ptx", "fatbin")

# What a path parameter takes: a str (os.fsdecode's for bytes that are no UTF-8), bytes, or
# an os.PathLike of either; gpukit passes its bytes on as they are.
_Path = str | bytes | os.PathLike[str] | os.PathLike[bytes]


def _nvidia_package_dirs() -> list[str]:
    """The directories of the ``nvidia`` namespace package, where NVIDIA's pip packages of
    the CUDA toolkit put their headers (found without importing it)."""
    try:
        spec = importlib.util.find_spec("nvidia")
    except (ImportError, ValueError):
        return []
    if spec is None or spec.submodule_search_locations is None:
        return []
    return [os.fspath(d) for d in spec.submodule_search_locations]


_gpukit._set_nvidia_package_dirs(_nvidia_package_dirs())


def _is_iterable(value: Any) -> bool:
    try:
        iter(value)
    except TypeError:
        return False
    return True


def _option_list(options: Iterable[str], what: str) -> list[str]:
    """`options`, a list of str as PyCUDA takes them, as a new list. TypeError naming `what`
    for a single str (which would be read as one option per character, as PyCUDA refuses it
    too) and for anything else that is not a list of str."""
    if isinstance(options, (str, bytes)) or not _is_iterable(options):
        hint = f"; for one option write [{options!r}]" if isinstance(options, str) else ""
        raise TypeError(f"{what} must be a list of str, got {type(options).__name__} {options!r}{hint}")
    options = list(options)
    for option in options:
        if not isinstance(option, str):
            raise TypeError(f"{what} must be a list of str, got an item of type {type(option).__name__}: {option!r}")
    return options


def _directory_list(directories: Iterable[_Path], what: str = "include_dirs") -> list[_Path]:
    """`directories`, a list of paths, as a list. TypeError naming `what` for a single path
    (which would be read as one directory per character; PyCUDA refuses it too); the items
    are checked where they become paths (str, bytes or os.PathLike: the bindings' path_args)."""
    if isinstance(directories, (str, bytes, os.PathLike)) or not _is_iterable(directories):
        hint = f"; for one directory write [{directories!r}]" if isinstance(directories, (str, os.PathLike)) else ""
        raise TypeError(f"{what} must be a list of directories, got {type(directories).__name__} {directories!r}{hint}")
    return list(directories)


def translate_options(options: Sequence[str], compiler: str = "nvrtc") -> tuple[list[str], list[tuple[str, str]]]:
    """How gpukit passes nvcc's ``options`` to ``compiler`` (``"nvrtc"`` or ``"nvcc"``):
    ``(options, notes)``, where ``notes`` holds an ``(option, what happened and why)`` pair
    for every option the compiler does not get as written. Raises LogicError for options
    that cannot be honoured (-m32, -arch=all, ...)."""
    if not isinstance(compiler, str) or compiler not in ("nvrtc", "nvcc"):
        raise ValueError(f"compiler must be 'nvrtc' or 'nvcc', got {compiler!r}")
    translated = _gpukit._translate_options(_option_list(options, "translate_options(options)"))
    return translated[compiler], translated[compiler + "_notes"]


def _target(arch: str | None, code: str | None) -> str:
    # nvcc's -code names the real target; NVRTC takes one target, so it wins over -arch.
    target = code if code is not None else arch
    if target is None:
        return ""
    if not isinstance(target, str):
        what = "code" if code is not None else "arch"
        raise TypeError(
            f"{what} must name one target as a str, such as 'sm_90' or 'compute_90', got "
            f"{type(target).__name__} {target!r}"
        )
    return target


def _choose_compiler(nvcc: _Path, compiler: str | None) -> str:
    """'auto', 'nvrtc' or 'nvcc': `compiler`, else DEFAULT_COMPILER. Left to choose, gpukit
    takes nvcc when the caller names another nvcc than the default or NVRTC is missing."""
    setting = "compiler"
    if compiler is None:
        compiler, setting = DEFAULT_COMPILER, "gpukit.compiler.DEFAULT_COMPILER (environment: GPUKIT_COMPILER)"
    if compiler is not None and not isinstance(compiler, str):
        raise TypeError(
            f"{setting} must be None, 'auto', 'nvrtc' or 'nvcc', got {type(compiler).__name__} {compiler!r}"
        )
    if compiler is None or compiler == "auto":
        if nvcc != "nvcc" or not _gpukit.nvrtc_available():
            return "nvcc"
        return "auto"
    if compiler == "nvrtc":
        if not _gpukit.nvrtc_available():
            raise _gpukit.RuntimeError(
                "NVRTC (libnvrtc.so.13 or .12) is not installed; install the CUDA toolkit's NVRTC, set CUDA_HOME, "
                "or pass compiler='nvcc'"
            )
        return "nvrtc"
    if compiler == "nvcc":
        return "nvcc"
    raise ValueError(f"{setting} must be None, 'auto', 'nvrtc' or 'nvcc', got {compiler!r}")


def _cache_directory(cache_dir: _Path | bool | None) -> _Path | None:
    """Where compiled images are cached (a path: str, bytes or os.PathLike, which the C++
    side checks), or None for no caching."""
    if cache_dir is False or _gpukit._cache_disabled_by_environment():
        return None
    if cache_dir is None or cache_dir is True:
        return _gpukit._default_cache_dir()
    return cache_dir


def get_cache_size_limit() -> int:
    """The most bytes the compile cache may hold (0: no limit); past it, storing a new image
    removes the least recently used ones. set_cache_size_limit()'s value, else the
    environment variable GPUKIT_CACHE_SIZE's, else 1 GiB."""
    return _gpukit._cache_size_limit()


def set_cache_size_limit(limit: int | str | None) -> None:
    """Sets the compile cache's size limit for this process: bytes (0: no limit), or a size
    such as ``"512M"`` or ``"2G"`` (powers of 1024); None returns to GPUKIT_CACHE_SIZE's, or
    the default."""
    if limit is None:
        _gpukit._set_cache_size_limit(None)
    elif isinstance(limit, str):
        _gpukit._set_cache_size_limit(_gpukit._parse_cache_size(limit, "set_cache_size_limit: the limit"))
    elif isinstance(limit, int) and not isinstance(limit, bool):
        if limit < 0:
            raise ValueError(f"set_cache_size_limit: the limit must be at least 0 bytes (0: no limit), got {limit}")
        _gpukit._set_cache_size_limit(limit)
    else:
        raise TypeError(
            f"set_cache_size_limit: expected bytes (an int), a size such as '512M', or None, got {type(limit).__name__}"
        )


class _Request(TypedDict):
    """The keyword arguments of _gpukit._prepare_compile but keep."""

    source: str
    options: list[str]
    arch: str
    include_dirs: list[_Path]
    system_include_dirs: list[_Path]
    no_extern_c: bool
    compiler: str
    nvcc: _Path
    output: str


def _request(
    source: str,
    nvcc: _Path,
    options: Sequence[str] | None,
    no_extern_c: bool,
    arch: str | None,
    code: str | None,
    include_dirs: Iterable[_Path],
    compiler: str | None,
    target: str,
) -> _Request:
    """The keyword arguments of _gpukit._prepare_compile but keep."""
    if not isinstance(target, str) or target not in _TARGETS:
        raise ValueError(f"target must be 'cubin', 'ptx' or 'fatbin', got {target!r}")
    if options is None:
        options = DEFAULT_NVCC_FLAGS
    return dict(
        source=source,
        options=_option_list(options, "options"),
        arch=_target(arch, code),
        include_dirs=_directory_list(include_dirs),
        system_include_dirs=[DEVICE_INCLUDE_DIR],
        no_extern_c=bool(no_extern_c),
        compiler=_choose_compiler(nvcc, compiler),
        nvcc=nvcc,
        output=target,
    )


def _warn_about_output(log: str) -> None:
    """What PyCUDA does when nvcc succeeds but prints something."""
    if "demoted" in log.lower() or "demoting" in log.lower():
        warn("nvcc said it demoted types in source code it compiled--this is likely not what you want.")
    warn("The CUDA compiler succeeded, but said the following:\n" + log)


def _debugging_overrides(
    options: Sequence[str] | None, keep: bool, cache_dir: _Path | Literal[False] | None
) -> tuple[Sequence[str] | None, bool, _Path | Literal[False] | None]:
    """With driver.set_debugging() (import gpukit.debug), as in PyCUDA: debug information
    (-g -G; NVRTC keeps -G only), no cache, and the compiler's files kept."""
    if not driver.CUDA_DEBUGGING:
        return options, keep, cache_dir
    return [*_option_list(DEFAULT_NVCC_FLAGS if options is None else options, "options"), "-g", "-G"], True, False


def compile_outcome(
    source: str,
    nvcc: _Path = "nvcc",
    options: Sequence[str] | None = None,
    keep: bool = False,
    no_extern_c: bool = False,
    arch: str | None = None,
    code: str | None = None,
    cache_dir: _Path | Literal[False] | None = None,
    include_dirs: Sequence[_Path] = [],
    target: str = "cubin",
    compiler: str | None = None,
) -> CompileOutcome:
    """compile(), returning the whole CompileOutcome: ``image``, ``arch``, ``compiled_by``
    (``"nvrtc"`` or ``"nvcc"``; ``""`` for an image from the cache), ``notes`` (what gpukit
    did with the options and compilers, and why), ``log``, ``ptx``, ``kept_dir``, ``key``,
    ``from_cache``."""
    options, keep, cache_dir = _debugging_overrides(options, keep, cache_dir)
    request = _request(source, nvcc, options, no_extern_c, arch, code, include_dirs, compiler, target)
    return _compiled(_gpukit._prepare_compile(**request, keep=bool(keep)), _cache_directory(cache_dir))


def _compiled(prepared: _PreparedCompile, directory: _Path | None) -> CompileOutcome:
    """`prepared` compiled through the cache in `directory` (None: no cache), its notes
    logged, the kept directory printed and the compiler's messages warned about."""
    outcome = prepared.compile(directory)
    for note in outcome.notes:
        _log.info("%s", note)
    if outcome.kept_dir:
        print(printable(f"*** compiler output in {outcome.kept_dir}"))
    if outcome.log:
        _warn_about_output(outcome.log)
    return outcome


def compile(
    source: str,
    nvcc: _Path = "nvcc",
    options: Sequence[str] | None = None,
    keep: bool = False,
    no_extern_c: bool = False,
    arch: str | None = None,
    code: str | None = None,
    cache_dir: _Path | Literal[False] | None = None,
    include_dirs: Sequence[_Path] = [],
    target: str = "cubin",
    compiler: str | None = None,
) -> bytes:
    """Compile CUDA C ``source`` and return the image as bytes: a cubin for ``sm_XY``
    targets, NUL-terminated PTX for ``compute_XY`` targets or ``target="ptx"``, a fatbin for
    ``target="fatbin"`` (nvcc). Raises CompileError with the compiler's log in ``.stderr``
    and its options in ``.command_line`` when it fails.

    ``compiler`` (else DEFAULT_COMPILER): ``None``/``"auto"`` compiles with NVRTC and falls
    back to nvcc for what NVRTC cannot compile; ``"nvrtc"`` and ``"nvcc"`` use that one.
    Left to choose, gpukit also takes nvcc when ``nvcc`` names another program than the
    default ``"nvcc"`` or NVRTC is not installed. ``options`` are nvcc's; see
    translate_options() for what NVRTC makes of them. Images are cached on disk in
    ``cache_dir`` (default: GPUKIT_CACHE_DIR, else $XDG_CACHE_HOME/gpukit, else
    ~/.cache/gpukit); ``cache_dir=False`` or the environment variable GPUKIT_DISABLE_CACHE
    turns the cache off, and ``keep=True`` (or ``--keep``) bypasses it and prints where the
    source, PTX, image and log were left.
    """
    return compile_outcome(
        source, nvcc, options, keep, no_extern_c, arch, code, cache_dir, include_dirs, target, compiler
    ).image


# Modules already loaded, by (context handle, cache key). Weak: a module stays reusable
# while some SourceModule holds it, and unloads as usual once none does. Only modules
# without variables are shared: each SourceModule has its own __constant__ and __device__
# variables, as in PyCUDA (reikna loads one source twice and sets each one's constants).
_loaded_modules: weakref.WeakValueDictionary[tuple[int, str], Module] = weakref.WeakValueDictionary()

_STT_OBJECT = 1  # ELF: a symbol naming a variable
_SHT_SYMTAB = 2  # ELF: a symbol table section


def _has_variables(image: bytes) -> bool:
    """Whether the cubin `image` defines a variable (a __constant__ or __device__ one): an
    ELF symbol of type OBJECT in some section. True for anything that is not a 64-bit ELF, so
    that only modules known to hold no state are shared."""
    if len(image) < 64 or image[:5] != b"\x7fELF\x02":
        return True
    (section_offset,) = struct.unpack_from("<Q", image, 0x28)
    section_size, section_count = struct.unpack_from("<HH", image, 0x3A)
    for k in range(section_count):
        header = section_offset + k * section_size
        (kind,) = struct.unpack_from("<I", image, header + 4)
        if kind != _SHT_SYMTAB:
            continue
        offset, size = struct.unpack_from("<QQ", image, header + 0x18)
        (entry_size,) = struct.unpack_from("<Q", image, header + 0x38)
        for symbol in range(offset, offset + size, entry_size or 24):
            info, _, section = struct.unpack_from("<BBH", image, symbol + 4)
            if info & 0xF == _STT_OBJECT and section != 0:
                return True
    return False


class SourceModule:
    """CUDA C compiled and loaded into the current context. Offers the Module interface
    (get_function, get_global, ...) without inheriting from it.

    With the cache on, a second SourceModule of the same request in the same context
    shares the module the first one loaded (while that one is alive) instead of loading
    another copy, unless the module has variables (__constant__ or __device__): each
    SourceModule has variables of its own, as in PyCUDA."""

    def __init__(
        self,
        source: str,
        nvcc: _Path = "nvcc",
        options: Sequence[str] | None = None,
        keep: bool = False,
        no_extern_c: bool = False,
        arch: str | None = None,
        code: str | None = None,
        cache_dir: _Path | Literal[False] | None = None,
        include_dirs: Sequence[_Path] = [],
        compiler: str | None = None,
    ) -> None:
        # One request, prepared once: its key finds a module already loaded, and compiles it.
        # Under driver.set_debugging() it has -G: never reuse a module loaded without.
        debugging = driver.CUDA_DEBUGGING
        options, keep, cache_dir = _debugging_overrides(options, keep, cache_dir)
        request = _request(source, nvcc, options, no_extern_c, arch, code, include_dirs, compiler, "cubin")
        prepared = _gpukit._prepare_compile(**request, keep=bool(keep))
        directory = _cache_directory(cache_dir)
        loaded_key = None
        if directory is not None and not prepared.keeps_files and not debugging:
            context = Context.get_current()
            if context is not None:
                loaded_key = (context.handle, prepared.key)
                module = _loaded_modules.get(loaded_key)
                if module is not None:
                    self.module = module
                    return
        image = _compiled(prepared, directory).image
        self.module = module_from_buffer(image)
        if loaded_key is not None and not _has_variables(image):
            _loaded_modules[loaded_key] = self.module

    def get_function(self, name: str) -> Function:
        """The kernel `name` (its extern "C" or mangled name) of the loaded module."""
        return self.module.get_function(name)

    def get_global(self, name: str) -> tuple[int, int]:
        """The device address and size in bytes of the global variable `name`."""
        return self.module.get_global(name)

    def get_texref(self, name: str) -> None:
        """PyCUDA's texture references, which CUDA 12 removed: raises LogicError (pass a
        TextureObject to a cudaTextureObject_t parameter instead)."""
        return self.module.get_texref(name)

    def get_surfref(self, name: str) -> None:
        """PyCUDA's surface references, which CUDA 12 removed: raises LogicError (pass a
        SurfaceObject to a cudaSurfaceObject_t parameter instead)."""
        return self.module.get_surfref(name)


# drv.jit_input_type values (CUjitInputType) -> the linker's input names.
_INPUT_TYPE_NAMES = {0: "cubin", 1: "ptx", 2: "fatbin", 3: "object", 4: "library"}


def _input_type_name(input_type: int | str) -> str:
    if isinstance(input_type, str):
        return input_type.lower()
    try:
        return _INPUT_TYPE_NAMES[int(input_type)]
    except (KeyError, TypeError, ValueError):
        raise ValueError(
            f"input_type must be a drv.jit_input_type (CUBIN, PTX, FATBINARY, OBJECT, LIBRARY) "
            f"or one of 'cubin', 'ptx', 'ltoir', 'fatbin', 'object', 'library'; got {input_type!r}"
        )


class DynamicModule:
    """Device code from several sources, PTX, cubins and libraries, linked with nvJitLink
    into one module: separate compilation and dynamic parallelism (add_stdlib('cudadevrt')).

    Sources are compiled with ``-rdc=true`` for the link architecture (``code``, else
    ``arch``, else the current device's). ``log_verbose=True`` asks nvJitLink for verbose
    messages (link_options ``-verbose``). Call link() once; then the object offers the
    Module interface (get_function, get_global)."""

    def __init__(
        self,
        nvcc: _Path = "nvcc",
        link_options: Sequence[str] | None = None,
        keep: bool = False,
        no_extern_c: bool = False,
        arch: str | None = None,
        code: str | None = None,
        cache_dir: _Path | Literal[False] | None = None,
        include_dirs: Sequence[_Path] = [],
        message_handler: Callable[..., Any] | None = None,
        log_verbose: bool = False,
        cuda_libdir: _Path | None = None,
        compiler: str | None = None,
    ) -> None:
        self.nvcc = nvcc
        self.keep = keep
        self.no_extern_c = no_extern_c
        self.cache_dir = cache_dir
        self.include_dirs = _directory_list(include_dirs)
        self.message_handler = message_handler
        self.cuda_libdir = cuda_libdir
        self.compiler = compiler
        self.arch = _target(arch, code) or _gpukit.nvrtc_default_arch()
        options = _option_list([] if link_options is None else link_options, "link_options")
        options += ["-verbose"] if log_verbose else []
        self._linker = _gpukit._Linker(self.arch, options)
        self.module: Module | None = None
        #: The linked cubin, set by link().
        self.image: bytes | None = None

    def add_source(
        self, source: str, nvcc_options: Sequence[str] | None = None, name: str = "kernel.ptx"
    ) -> DynamicModule:
        """Compile `source` as relocatable device code and add it."""
        options = _option_list(DEFAULT_NVCC_FLAGS if nvcc_options is None else nvcc_options, "nvcc_options")
        if not any(o.startswith(("-rdc", "--relocatable-device-code")) for o in options):
            options.append("-rdc=true")
        image = compile(
            source,
            self.nvcc,
            options,
            self.keep,
            self.no_extern_c,
            self.arch,
            None,
            self.cache_dir,
            self.include_dirs,
            compiler=self.compiler,
        )
        self._linker.add_data(image, "cubin", name)
        return self

    def add_data(self, data: bytes, input_type: int | str, name: str = "unknown") -> DynamicModule:
        """Add bytes of `input_type` (a drv.jit_input_type or a name such as 'ptx')."""
        self._linker.add_data(bytes(data), _input_type_name(input_type), name)
        return self

    def add_file(self, filename: _Path, input_type: int | str) -> DynamicModule:
        """Add the file `filename` of `input_type` (as add_data takes it)."""
        self._linker.add_file(filename, _input_type_name(input_type))
        return self

    def add_stdlib(self, libname: str) -> DynamicModule:
        """Add lib<libname>.a from cuda_libdir (else CUDA_HOME/lib64 or /usr/local/cuda/lib64),
        e.g. 'cudadevrt', the device runtime that kernels launching kernels need."""
        path = _gpukit._find_device_library(libname, self.cuda_libdir or "")
        self._linker.add_file(path, "library")
        return self

    def link(self) -> DynamicModule:
        """Link everything added, load the result into the current context, return self."""
        if self.module is not None:
            raise _gpukit.LogicError("DynamicModule.link(): already linked")
        self.image = self._linker.complete()
        self.module = module_from_buffer(self.image, message_handler=self.message_handler)
        return self

    def _linked(self) -> Module:
        if self.module is None:
            raise _gpukit.LogicError("DynamicModule: call link() before taking functions or globals")
        return self.module

    def get_function(self, name: str) -> Function:
        """The kernel `name` of the linked module."""
        return self._linked().get_function(name)

    def get_global(self, name: str) -> tuple[int, int]:
        """The device address and size in bytes of the global variable `name`."""
        return self._linked().get_global(name)


class DynamicSourceModule(DynamicModule):
    """`source` compiled with -rdc=true, linked with the device runtime (cudadevrt) and
    loaded: a SourceModule whose kernels may launch kernels."""

    def __init__(
        self,
        source: str,
        nvcc: _Path = "nvcc",
        options: Sequence[str] | None = None,
        keep: bool = False,
        no_extern_c: bool = False,
        arch: str | None = None,
        code: str | None = None,
        cache_dir: _Path | Literal[False] | None = None,
        include_dirs: Sequence[_Path] = [],
        cuda_libdir: _Path | None = None,
        compiler: str | None = None,
    ) -> None:
        super().__init__(
            nvcc=nvcc,
            keep=keep,
            no_extern_c=no_extern_c,
            arch=arch,
            code=code,
            cache_dir=cache_dir,
            include_dirs=include_dirs,
            cuda_libdir=cuda_libdir,
            compiler=compiler,
        )
        self.add_source(source, nvcc_options=options)
        self.add_stdlib("cudadevrt")
        self.link()
