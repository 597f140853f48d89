"""Struct layouts in the kernels gpukit compiles: sizeof, offsetof and alignof of aligned,
packed and nested structs and of arrays of them, against numpy's itemsizes and offsets for the
same dtypes and against nvcc. NVRTC gives attributes written after a struct's closing brace to
the declarator, nvcc (GCC's dialect) to the struct, so gpukit moves them before compiling
(issue 28, grunnur's structs). NVRTC compiles without a GPU: all but the gpu tests run on
CPU-only machines."""

import re

import numpy as np
import pytest

from conftest import installed_nvcc, run_in_fresh_process

import gpukit.compiler as compiler
from gpukit import _gpukit
from gpukit._array.vec import vec

needs_nvrtc = pytest.mark.skipif(not _gpukit.nvrtc_available(), reason="NVRTC (libnvrtc.so) is not installed")

# --- C structs for numpy dtypes, written the ways CUDA programs write them ---------------------

_SCALARS = {
    "i1": "char",
    "u1": "unsigned char",
    "i2": "short",
    "u2": "unsigned short",
    "i4": "int",
    "u4": "unsigned int",
    "i8": "long long",
    "u8": "unsigned long long",
    "f4": "float",
    "f8": "double",
}
# CUDA's vector types and their alignment (numpy aligns these records on their component).
_VECTORS = {vec.float2: ("float2", 8), vec.float4: ("float4", 16), vec.double2: ("double2", 16), vec.int3: ("int3", 4)}

# How an alignment the natural layout lacks is written: the attribute, and where the struct's
# goes. "grunnur" is grunnur.dtypes' own text: ALIGN(n) on fields and after the closing brace.
_ALIGNED_STYLES = {
    "grunnur": ("ALIGN({})", "after brace"),
    "__align__ after brace": ("__align__({})", "after brace"),
    "__attribute__ after brace": ("__attribute__((aligned({})))", "after brace"),
    "__align__ after struct": ("__align__({})", "after key"),
    "alignas": ("alignas({})", "after key"),
}
# Packed structs (numpy's unaligned dtypes): where __attribute__((packed)) goes.
_PACKED_STYLES = ("packed after brace", "packed after struct")
PRELUDE = "#include <cstddef>\n#define ALIGN(bytes) __align__(bytes)\n"


def _round_up(value, alignment):
    return -(-value // alignment) * alignment


def _smallest_alignment(natural, start, target, what):
    """The smallest power of two from `natural` up that moves `start` to `target`."""
    alignment = natural
    while _round_up(start, alignment) != target:
        alignment *= 2
        if alignment > max(target, natural) * 2:
            raise ValueError(f"{what}: no alignment puts {start} at {target}")
    return alignment


class StructWriter:
    """C definitions of numpy record dtypes (nested ones first), in one of the styles above,
    and the C type name of each."""

    def __init__(self, style, prefix=""):
        self.style = style
        self.prefix = prefix
        self.definitions = []
        self.structs = {}  # dtype -> (C name, C alignment), in the order defined

    def ctype(self, dtype):
        """(C type name, its alignment) of a field's base dtype, defining structs as needed."""
        if dtype in _VECTORS:
            return _VECTORS[dtype]
        if dtype.names is None:
            return _SCALARS[dtype.str[1:]], dtype.itemsize
        if dtype not in self.structs:
            self.structs[dtype] = self._define(dtype)
        return self.structs[dtype]

    def _define(self, dtype):
        packed = self.style in _PACKED_STYLES
        attribute, place = _ALIGNED_STYLES.get(self.style, ("", ""))
        lines, end, alignment = [], 0, 1
        for field in dtype.names:
            field_dtype, offset = dtype.fields[field][:2]
            ctype, natural = self.ctype(field_dtype.base)
            dims = "".join(f"[{n}]" for n in field_dtype.shape)
            if packed:
                assert offset == end, "a packed struct's fields follow each other"
                lines.append(f"    {ctype} {field}{dims};")
            elif _round_up(end, natural) == offset:
                lines.append(f"    {ctype} {field}{dims};")
            else:
                natural = _smallest_alignment(natural, end, offset, field)
                text = attribute.format(natural)
                lines.append(
                    f"    {text} {ctype} {field}{dims};"
                    if text.startswith("alignas")
                    else f"    {ctype} {text} {field}{dims};"
                )
            alignment = max(alignment, natural)
            end = offset + field_dtype.itemsize
        name = f"{self.prefix}S{len(self.structs)}"
        if packed:
            alignment, struct_attribute = 1, "__attribute__((packed))"
        elif _round_up(end, alignment) == dtype.itemsize:
            struct_attribute = ""
        else:
            alignment = _smallest_alignment(alignment, end, dtype.itemsize, name)
            struct_attribute = attribute.format(alignment)
        body = "\n".join(lines)
        if place == "after key" or self.style == "packed after struct":
            self.definitions.append(f"typedef struct {struct_attribute} {name}_ {{\n{body}\n}} {name};")
        else:
            self.definitions.append(f"typedef struct {name}_ {{\n{body}\n}} {struct_attribute} {name};")
        return name, alignment


def _field_offsets(dtype, offset=0, path=""):
    """(C member designator, offset) of every scalar in `dtype`, array elements one by one."""
    if dtype.names is None:
        return [(path, offset)]
    found = []
    for field in dtype.names:
        field_dtype, field_offset = dtype.fields[field][:2]
        base, shape = field_dtype.base, field_dtype.shape
        for index in np.ndindex(shape):  # one empty index for a field that is no array
            element = int(np.ravel_multi_index(index, shape)) if index else 0
            designator = field + "".join(f"[{i}]" for i in index)
            found += _field_offsets(
                base, offset + field_offset + element * base.itemsize, f"{path}.{designator}" if path else designator
            )
    return found


def layout_probe(dtype, style, prefix="", array="layout_values"):
    """(source, expressions, numpy's values): a source (without PRELUDE) defining `dtype`'s
    struct in `style`, its names starting with `prefix`; static_asserts that its sizeof and
    offsetof equal numpy's itemsize and offsets (the nested structs' too, and arrays of them);
    and the __device__ array `array` holding those expressions and each struct's alignof."""
    writer = StructWriter(style, prefix)
    name, _ = writer.ctype(dtype)
    checks = [(f"sizeof({name})", dtype.itemsize), (f"sizeof({name}[3])", 3 * dtype.itemsize)]
    checks += [(f"offsetof({name}, {path})", offset) for path, offset in _field_offsets(dtype)]
    checks += [
        (f"sizeof({inner})", inner_dtype.itemsize)
        for inner_dtype, (inner, _) in writer.structs.items()
        if inner != name
    ]
    asserts = [
        f'static_assert({expression} == {value}, "numpy: {expression} == {value}");' for expression, value in checks
    ]
    expressions = [expression for expression, _ in checks]
    expressions += [f"alignof({struct})" for struct, _ in writer.structs.values()]
    values = f'extern "C" __device__ long long {array}[] = {{{", ".join(expressions)}}};'
    source = "\n".join([*writer.definitions, *asserts, values, ""])
    return source, expressions, [value for _, value in checks]


def values_in_ptx(ptx, array="layout_values"):
    """The values of `array` from PTX, which may write them as 64-bit words or as
    little-endian bytes, trailing zeros left out (an array of zeros without initializer)."""
    text = ptx.rstrip(b"\0").decode()
    found = re.search(rf"\.([bus])(8|64) {array}\[(\d+)\](?: = \{{([^}}]*)\}})?;", text)
    assert found, text
    count = int(found.group(3))
    items = [int(item) for item in found.group(4).split(",")] if found.group(4) else []
    items += [0] * (count - len(items))
    if found.group(2) == "8":
        return [int.from_bytes(bytes(items[i : i + 8]), "little", signed=True) for i in range(0, count, 8)]
    return items


def compile_ptx(source, **kwargs):
    return compiler.compile(source, arch="sm_90", target="ptx", cache_dir=False, **kwargs)


def without_asserts(source):
    return "\n".join(line for line in source.splitlines() if not line.startswith("static_assert"))


# --- the dtypes ------------------------------------------------------------------------------


def _dtype(names, formats, offsets, itemsize):
    return np.dtype({"names": names, "formats": formats, "offsets": offsets, "itemsize": itemsize, "aligned": True})


_INNER_16 = _dtype(["val1", "pad"], [np.int32, np.int8], [0, 4], 16)
# grunnur's tests (tests/test_dtypes_on_device.py), explicit itemsizes and offsets.
GRUNNUR_DTYPES = {
    "simple": _dtype(["val1", "pad"], [np.int32, np.int8], [0, 4], 8),
    "nested": _dtype(
        ["val1", "val2", "nested"],
        [np.int32, np.int16, _dtype(["val1", "pad"], [np.int32, np.int8], [0, 4], 8)],
        [0, 4, 8],
        32,
    ),
    "arrays": _dtype(["val1", "val2"], [(np.int8, 3), (np.int8, 2)], [0, 8], 16),
    "custom itemsize": _dtype(["x", "y", "z"], [np.int8, np.int16, np.int32], [0, 4, 16], 32),
    "custom itemsize nested": _dtype(["val1", "val2", "nested"], [np.int32, np.int16, _INNER_16], [0, 4, 16], 64),
}
# numpy's own C layout (align=True): natural alignment, so no attributes at all.
NATURAL_DTYPES = {
    "numpy aligned nested": np.dtype(
        [
            ("c", np.int8),
            ("d", np.float64),
            ("inner", np.dtype([("s", np.int16), ("f", np.float32), ("b", np.uint8, (3,))], align=True), (2,)),
            ("i", np.int32),
        ],
        align=True,
    ),
    "vector types": _dtype(
        ["c", "f4", "d2", "f2", "i3"], [np.int8, vec.float4, vec.double2, vec.float2, vec.int3], [0, 16, 32, 48, 56], 80
    ),
}
# Arrays of aligned structs inside a struct: a stride error shows in every later element.
ARRAY_DTYPES = {
    "array of aligned structs": _dtype(["head", "items", "tail"], [np.int8, (_INNER_16, 3), np.int16], [0, 16, 64], 80),
    "aligned vector array": _dtype(
        ["n", "v"], [np.int32, (_dtype(["a", "b"], [vec.float4, np.int8], [0, 16], 32), 2)], [0, 32], 128
    ),
}
PACKED_DTYPES = {
    "packed": np.dtype([("a", np.int8), ("b", np.int32), ("c", np.float64)]),
    "packed nested array": np.dtype(
        [("a", np.int8), ("p", np.dtype([("x", np.int16), ("y", np.float64)]), (3,)), ("z", np.int32)]
    ),
}

ALIGNED_CASES = [
    pytest.param(dtype, style, id=f"{name}, {style}")
    for name, dtype in {**GRUNNUR_DTYPES, **NATURAL_DTYPES, **ARRAY_DTYPES}.items()
    for style in _ALIGNED_STYLES
]
PACKED_CASES = [
    pytest.param(dtype, style, id=f"{name}, {style}")
    for name, dtype in PACKED_DTYPES.items()
    for style in _PACKED_STYLES
]


# --- the tests -------------------------------------------------------------------------------

# grunnur's text for "custom itemsize nested" exactly as grunnur.dtypes renders it, with
# grunnur's CUDA prelude line.
GRUNNUR_SOURCE = """
#define ALIGN(bytes) __align__(bytes)

typedef struct _mod__module_1__ {
    int  val1;
    char  pad;
} ALIGN(16) _mod__module_1_;


typedef struct _mod__module_0__ {
    int  val1;
    short  val2;
    _mod__module_1_  nested;
} ALIGN(64) _mod__module_0_;
"""


def test_the_writer_writes_grunnurs_text():
    writer = StructWriter("grunnur")
    writer.ctype(GRUNNUR_DTYPES["custom itemsize nested"])
    grunnurs = GRUNNUR_SOURCE.split("\n", 2)[2].replace("_mod__module_1_", "S0").replace("_mod__module_0_", "S1")
    assert " ".join("\n".join(writer.definitions).split()) == " ".join(grunnurs.split())


@needs_nvrtc
@pytest.mark.parametrize("dtype, style", ALIGNED_CASES + PACKED_CASES)
def test_nvrtc_layout_equals_numpys(dtype, style):
    source, expressions, expected = layout_probe(dtype, style)
    ptx = compile_ptx(PRELUDE + source, compiler="nvrtc")  # a CompileError names a failed static_assert
    values = values_in_ptx(ptx)
    assert dict(zip(expressions, values[: len(expected)])) == dict(zip(expressions, expected))


@needs_nvrtc
def test_nvrtc_layout_equals_nvccs():
    # Every case in one source, so nvcc (seconds a run) runs once; alignof is compared too.
    if installed_nvcc() is None:
        pytest.skip("nvcc is not installed: nothing to compare NVRTC's layout with")
    cases = [case.values for case in ALIGNED_CASES + PACKED_CASES]
    probes = [layout_probe(dtype, style, f"C{i}_", f"layout_values_{i}") for i, (dtype, style) in enumerate(cases)]
    source = PRELUDE + "\n".join(without_asserts(probe_source) for probe_source, _, _ in probes)
    nvrtc_ptx, nvcc_ptx = compile_ptx(source, compiler="nvrtc"), compile_ptx(source, compiler="nvcc")
    differing = {}
    for i, ((dtype, style), (_, expressions, _)) in enumerate(zip(cases, probes)):
        nvrtc = dict(zip(expressions, values_in_ptx(nvrtc_ptx, f"layout_values_{i}")))
        nvcc = dict(zip(expressions, values_in_ptx(nvcc_ptx, f"layout_values_{i}")))
        if nvrtc != nvcc:
            differing[f"{dtype}, {style}"] = {e: (nvrtc[e], nvcc[e]) for e in expressions if nvrtc[e] != nvcc[e]}
    assert differing == {}, "(NVRTC, nvcc) where they differ"


@needs_nvrtc
@pytest.mark.parametrize("no_extern_c", [False, True], ids=["extern C", "no_extern_c"])
@pytest.mark.parametrize(
    "options",
    [[], ["-std=c++17"], ["-O3", "--use_fast_math"], ["-rdc=true"]],
    ids=["no options", "-std=c++17", "fast math", "-rdc=true (DynamicModule)"],
)
def test_every_compile_path_keeps_the_layout(no_extern_c, options):
    # SourceModule, no_extern_c, nvcc's options translated for NVRTC, and the -rdc=true of
    # DynamicModule.add_source all compile through compiler.compile.
    source, _, expected = layout_probe(GRUNNUR_DTYPES["custom itemsize nested"], "grunnur")
    ptx = compile_ptx(PRELUDE + source, compiler="nvrtc", no_extern_c=no_extern_c, options=options)
    assert values_in_ptx(ptx)[: len(expected)] == expected


def _grunnur_checks():
    """What numpy says of the structs in GRUNNUR_SOURCE."""
    dtype = GRUNNUR_DTYPES["custom itemsize nested"]
    nested = dtype.fields["nested"][1]
    return {
        "sizeof(_mod__module_1_)": _INNER_16.itemsize,
        "sizeof(_mod__module_0_)": dtype.itemsize,
        "offsetof(_mod__module_0_, val2)": dtype.fields["val2"][1],
        "offsetof(_mod__module_0_, nested)": nested,
        "offsetof(_mod__module_0_, nested.pad)": nested + _INNER_16.fields["pad"][1],
        "sizeof(_mod__module_0_[2])": 2 * dtype.itemsize,
    }


@needs_nvrtc
def test_grunnurs_own_text_gets_numpys_layout():
    checks = _grunnur_checks()
    source = (
        "#include <cstddef>\n"
        + GRUNNUR_SOURCE
        + "\n".join(f'static_assert({expression} == {value}, "{expression}");' for expression, value in checks.items())
    )
    source += f'\nextern "C" __device__ long long layout_values[] = {{{", ".join(checks)}}};\n'
    assert values_in_ptx(compile_ptx(source, compiler="nvrtc")) == list(checks.values())


# grunnur's check_offsets_on_device, and a kernel reading an array of the structs.
KERNELS = (
    GRUNNUR_SOURCE
    + r"""
#define KERNEL extern "C" __global__
KERNEL void offsets(int* dest)
{
    _mod__module_0_ temp;
    dest[0] = (size_t)&(temp.val2) - (size_t)&temp;
    dest[1] = (size_t)&(temp.nested) - (size_t)&temp;
    dest[2] = (size_t)&(temp.nested.pad) - (size_t)&temp;
    dest[3] = sizeof(_mod__module_0_);
    dest[4] = sizeof(_mod__module_0_[2]);
}
KERNEL void read_items(const _mod__module_0_* items, int* out)
{
    const int i = threadIdx.x;
    out[4 * i] = items[i].val1;
    out[4 * i + 1] = items[i].val2;
    out[4 * i + 2] = items[i].nested.val1;
    out[4 * i + 3] = items[i].nested.pad;
}
"""
)


@pytest.mark.gpu
def test_kernels_read_the_structs_at_numpys_offsets_through_pycuda_compat():
    checks = _grunnur_checks()
    expected = [
        checks[key]
        for key in (
            "offsetof(_mod__module_0_, val2)",
            "offsetof(_mod__module_0_, nested)",
            "offsetof(_mod__module_0_, nested.pad)",
            "sizeof(_mod__module_0_)",
            "sizeof(_mod__module_0_[2])",
        )
    ]
    out = run_in_fresh_process(f"""
        import numpy as np
        import gpukit.pycuda_compat
        import pycuda.autoinit
        import pycuda.driver as drv
        from pycuda.compiler import DynamicSourceModule, SourceModule

        inner = np.dtype(dict(names=["val1", "pad"], formats=[np.int32, np.int8], offsets=[0, 4], itemsize=16,
                              aligned=True))
        dtype = np.dtype(dict(names=["val1", "val2", "nested"], formats=[np.int32, np.int16, inner],
                              offsets=[0, 4, 16], itemsize=64, aligned=True))
        items = np.zeros(5, dtype)
        items["val1"] = np.arange(5) * 1000 + 1
        items["val2"] = np.arange(5) * 100 + 2
        items["nested"]["val1"] = np.arange(5) * 10 + 3
        items["nested"]["pad"] = np.arange(5) + 4
        wanted = np.stack([items["val1"], items["val2"], items["nested"]["val1"], items["nested"]["pad"]], axis=1)
        source = {KERNELS!r}
        modules = {{
            "SourceModule": lambda: SourceModule(source),
            "no_extern_c": lambda: SourceModule(source, no_extern_c=True),
            "options": lambda: SourceModule(source, options=["-std=c++17", "-O3", "--use_fast_math"]),
            "DynamicSourceModule": lambda: DynamicSourceModule(source),
        }}
        for name, make in modules.items():
            module = make()
            dest = np.full(5, -1, np.int32)
            module.get_function("offsets")(drv.Out(dest), block=(1, 1, 1), grid=(1, 1))
            assert dest.tolist() == {expected!r}, (name, dest.tolist())
            got = np.full((5, 4), -1, np.int32)
            module.get_function("read_items")(drv.In(items), drv.Out(got), block=(5, 1, 1), grid=(1, 1))
            assert (got == wanted).all(), (name, got.tolist(), wanted.tolist())
        print("ok")
        """)
    assert out.strip() == "ok"
