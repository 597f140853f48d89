"""The dtype <-> C type registry and C argument declarations of gpukit.tools (PyCUDA's
dtype_to_ctype, get_or_register_dtype, parse_c_arg, VectorArg, ScalarArg, ...)."""

import numpy as np
import pytest

import gpukit.driver as drv
from gpukit import _gpukit, tools
from gpukit._array import c_types as _c_types
from gpukit.gpuarray import vec

needs_nvrtc = pytest.mark.skipif(not _gpukit.nvrtc_available(), reason="NVRTC (libnvrtc.so) is not installed")


@pytest.fixture
def scratch_registry(monkeypatch):
    """Registrations made by a test are undone after it."""
    monkeypatch.setattr(_c_types.CUDA_TYPES, "_name_to_dtype", dict(_c_types.CUDA_TYPES._name_to_dtype))
    monkeypatch.setattr(_c_types.CUDA_TYPES, "_dtype_to_name", dict(_c_types.CUDA_TYPES._dtype_to_name))


@pytest.mark.parametrize(
    "dtype,ctype",
    [
        (np.bool_, "bool"),
        (np.int8, "signed char"),
        (np.uint8, "unsigned char"),
        (np.int16, "short"),
        (np.uint16, "unsigned short"),
        (np.int32, "int"),
        (np.uint32, "unsigned"),
        (np.int64, "long"),
        (np.uint64, "unsigned long"),
        (np.float32, "float"),
        (np.float64, "double"),
        (np.complex64, "pycuda::complex<float>"),
        (np.complex128, "pycuda::complex<double>"),
        (np.intp, "long"),
        (np.uintp, "unsigned long"),
        (np.longlong, "long"),
        ("i4", "int"),
    ],
)
def test_dtype_to_ctype_gives_pycudas_names(dtype, ctype):
    assert tools.dtype_to_ctype(dtype) == ctype


def test_dtype_to_ctype_refuses_what_it_cannot_name():
    with pytest.raises(ValueError, match="may not be None"):
        tools.dtype_to_ctype(None)
    with pytest.raises(ValueError, match="unable to map dtype float16"):
        tools.dtype_to_ctype(np.float16)
    with pytest.raises(ValueError, match="get_or_register_dtype"):
        tools.dtype_to_ctype(np.dtype([("a", np.int32), ("b", np.float64)]))
    with pytest.raises(drv.LogicError, match="texture references"):
        tools.dtype_to_ctype(np.float64, with_fp_tex_hack=True)


@pytest.mark.parametrize(
    "ctype,dtype",
    [
        ("char", np.int8),
        ("signed char", np.int8),
        ("unsigned char", np.uint8),
        ("short", np.int16),
        ("short int", np.int16),
        ("unsigned short int", np.uint16),
        ("signed", np.int32),
        ("unsigned", np.uint32),
        ("unsigned int", np.uint32),
        ("long", np.int64),
        ("long int", np.int64),
        ("unsigned long", np.uint64),
        ("long long", np.int64),
        ("long long int", np.int64),
        ("unsigned long long", np.uint64),
        ("size_t", np.uint64),
        ("ptrdiff_t", np.int64),
        ("int8_t", np.int8),
        ("uint64_t", np.uint64),
        ("bool", np.bool_),
        ("double", np.float64),
        ("pycuda::complex<double>", np.complex128),
        ("pycuda::complex<float>", np.complex64),
        ("float3", vec.float3),
        ("ulonglong2", vec.ulonglong2),
    ],
)
def test_c_names_map_to_dtypes(ctype, dtype):
    assert tools.get_or_register_dtype(ctype) == np.dtype(dtype)
    assert tools.parse_c_arg(f"{ctype} value").dtype == np.dtype(dtype)


def test_vector_types_are_registered_by_their_cuda_names():
    for name in ("char1", "uchar4", "short3", "int2", "uint4", "long3", "ulong1", "float4", "double2"):
        assert tools.dtype_to_ctype(getattr(vec, name)) == name
    # long2 and longlong2 have one layout, so one dtype: the name registered first wins.
    assert vec.longlong2 == vec.long2 and tools.dtype_to_ctype(vec.longlong2) == "long2"


def test_parse_c_arg_pointers_and_scalars():
    arg = tools.parse_c_arg("const float *x")
    assert type(arg) is tools.VectorArg and arg.name == "x" and arg.dtype == np.float32
    assert arg.struct_char == "P" and arg.declarator() == "float *x"
    for text in [
        "float* x",
        "float *__restrict__ x",
        "const float * const x",
        "volatile float x[]",
        "float x [ 16 ]",
        "float\t*\nx",
    ]:
        assert tools.parse_c_arg(text) == tools.VectorArg(np.float32, "x"), text
    scalar = tools.parse_c_arg("float3 a")
    assert type(scalar) is tools.ScalarArg and scalar.dtype == vec.float3 and scalar.name == "a"
    assert scalar.declarator() == "float3 a" and scalar.struct_char == "12s"
    z = tools.parse_c_arg("pycuda::complex<float> *z")
    assert type(z) is tools.VectorArg and z.dtype == np.complex64
    assert tools.parse_c_arg("pycuda :: complex< double > w").dtype == np.complex128
    assert tools.parse_c_arg("unsigned   long  n").dtype == np.uint64
    assert tools.parse_c_arg("const int constant").name == "constant"  # qualifiers go as whole words only


def test_parse_c_arg_refuses_bad_declarations():
    with pytest.raises(ValueError, match="unknown C type 'mystery'"):
        tools.parse_c_arg("mystery *m")
    with pytest.raises(ValueError, match="unknown C type 'unsigned float'"):
        tools.parse_c_arg("unsigned float f")
    for text in ["float", "*x", "float *", "", "float x[2][3]"]:
        with pytest.raises(ValueError, match="couldn't parse"):
            tools.parse_c_arg(text)
    with pytest.raises(ValueError, match="unknown C type 'float 2'"):
        tools.parse_c_arg("float 2x")
    with pytest.raises(ValueError, match="pointer to pointers"):
        tools.parse_c_arg("float **x")
    with pytest.raises(ValueError, match="pointer to pointers"):
        tools.parse_c_arg("float *x[]")
    with pytest.raises(TypeError):
        tools.parse_c_arg(3)


def test_keywords_are_no_argument_names():
    # "float *if" went into the kernel source and failed to compile at the first launch.
    for declaration, why in [
        ("float *if", "'if' is a keyword of C"),
        ("int class", "'class' is a keyword of C\\+\\+"),
        ("float *threadIdx", "'threadIdx' is a variable CUDA defines"),
        ("float __shared__", "'__shared__' is a CUDA C\\+\\+ qualifier"),
    ]:
        with pytest.raises(ValueError, match=f"argument name {why}"):
            tools.parse_c_arg(declaration)
    with pytest.raises(ValueError, match="keyword of C"):
        tools.VectorArg(np.float32, "for")
    with pytest.raises(ValueError, match="not a C identifier"):
        tools.ScalarArg(np.int32, "é")  # a Python identifier, not a C one
    for name in ("kernel", "global", "float4", "x"):  # OpenCL C's words are names in CUDA C++
        assert tools.parse_c_arg(f"float *{name}").name == name
    with pytest.raises(TypeError, match="argument name must be a str, got int"):
        tools.ScalarArg(np.int32, 3)


def test_dtypes_and_names_that_are_no_such_are_named(scratch_registry):
    with pytest.raises(TypeError, match="dtype: expected a numpy dtype, got None"):
        tools.VectorArg(None, "x")
    with pytest.raises(TypeError, match="dtype: expected a numpy dtype, got 'quux'"):
        tools.dtype_to_ctype("quux")
    with pytest.raises(TypeError, match="dtype: expected a numpy dtype"):
        tools.get_or_register_dtype("mine", "quux")
    for c_names in (b"int", 5, None, ["int", 5]):
        with pytest.raises(TypeError, match="c_names must be a C type name"):
            tools.get_or_register_dtype(c_names)
    assert tools.get_or_register_dtype(("int", "signed")) == np.int32  # a tuple of names


def test_get_arg_type():
    assert tools.get_arg_type("double *p") == "P"
    assert tools.get_arg_type("double d") == "d"
    assert tools.get_arg_type("unsigned short s") == "H"
    assert tools.get_arg_type("long n") == "l"
    assert tools.get_arg_type("double2 v") == "16s"


def test_arguments_compare_by_class_name_and_dtype():
    assert tools.ScalarArg(np.int32, "n") == tools.ScalarArg("i4", "n")
    assert tools.ScalarArg(np.int32, "n") != tools.VectorArg(np.int32, "n")
    assert tools.ScalarArg(np.int32, "n") != tools.ScalarArg(np.int32, "m")
    assert tools.ScalarArg(np.int32, "n") != tools.ScalarArg(np.int64, "n")
    assert len({tools.ScalarArg(np.int32, "n"), tools.ScalarArg("int32", "n")}) == 1
    assert repr(tools.VectorArg(np.float32, "x")) == "VectorArg('x', float32)"
    assert tools.Argument is tools.DtypedArgument
    assert isinstance(tools.VectorArg(np.float32, "x"), tools.Argument)
    with pytest.raises(ValueError, match="C identifier"):
        tools.ScalarArg(np.int32, "2n")


def test_register_a_struct_and_use_it(scratch_registry):
    pair = np.dtype([("lo", np.float32), ("hi", np.float32)])
    assert tools.get_or_register_dtype(["minmax", "struct minmax"], pair) == pair
    assert tools.dtype_to_ctype(pair) == "minmax"
    assert tools.dtype_to_ctype(np.dtype([("lo", "f4"), ("hi", "f4")])) == "minmax"  # an equal dtype
    assert tools.parse_c_arg("minmax *m") == tools.VectorArg(pair, "m")
    assert tools.parse_c_arg("struct minmax m").struct_char == "8s"
    # Registering again with equal dtypes returns the first object; a new alias is added.
    again = tools.get_or_register_dtype(["minmax", "mm_t"], np.dtype([("lo", "f4"), ("hi", "f4")]))
    assert again is tools.get_or_register_dtype("minmax")
    assert tools.get_or_register_dtype("mm_t") is again and tools.dtype_to_ctype(pair) == "minmax"


def test_conflicting_registration_changes_nothing(scratch_registry):
    with pytest.raises(RuntimeError, match="'int' is already registered to dtype int32"):
        tools.get_or_register_dtype(["my_int", "int"], np.int64)
    with pytest.raises(ValueError, match="unknown C type 'my_int'"):
        tools.get_or_register_dtype("my_int")
    with pytest.raises(ValueError, match="different dtypes"):
        tools.get_or_register_dtype(["int", "long"])
    with pytest.raises(ValueError, match="non-empty"):
        tools.get_or_register_dtype([], np.int32)


def test_register_dtype_is_deprecated_and_refuses_aliases_unless_asked(scratch_registry):
    rec = np.dtype([("a", np.int16), ("b", np.int16)])
    with pytest.warns(DeprecationWarning):
        tools.register_dtype(rec, "two_shorts")
    assert tools.dtype_to_ctype(rec) == "two_shorts"
    with pytest.warns(DeprecationWarning), pytest.raises(RuntimeError, match="already registered as 'two_shorts'"):
        tools.register_dtype(rec, "short_pair")
    with pytest.warns(DeprecationWarning):
        tools.register_dtype(rec, "short_pair", alias_ok=True)
    assert tools.get_or_register_dtype("short_pair") == rec and tools.dtype_to_ctype(rec) == "two_shorts"


@needs_nvrtc
def test_declarators_compile_and_match_the_sizes_cuda_sees():
    # Every built-in name, declared by its ScalarArg, has the dtype's size in CUDA C++. NVRTC
    # has no <cstdint>, so the intN_t / intptr_t names are left out; the complex types are
    # PyCUDA's pycuda::complex<T>, not CUDA's.
    import gpukit.compiler as compiler

    names = [
        n
        for n in _c_types.CUDA_TYPES._name_to_dtype
        if not n.startswith("pycuda::") and not (n.endswith("_t") and "int" in n)
    ]
    assert "size_t" in names and "long long" in names and "float3" in names
    checks = [f'static_assert(sizeof({n}) == {_c_types.CUDA_TYPES._name_to_dtype[n].itemsize}, "{n}");' for n in names]
    params = ", ".join(tools.parse_c_arg(f"{n} a{i}").declarator() for i, n in enumerate(names))
    source = "\n".join(checks) + f"\n__global__ void f({params}) {{}}\n"
    compiler.compile(source, arch="sm_90", options=["-D__NV_NO_VECTOR_DEPRECATION_DIAG"])


@pytest.mark.gpu
def test_prepare_with_the_format_of_parsed_arguments(ctx):
    # The struct_char of parsed arguments is a prepare() format, "<n>s" for vector types.
    from gpukit.compiler import SourceModule

    args = [tools.parse_c_arg(a) for a in ("float *out", "short s", "float3 v", "double d")]
    mod = SourceModule(
        "__global__ void f(%s) { out[0] = s; out[1] = v.x; out[2] = v.z; out[3] = (float) d; }"
        % ", ".join(a.declarator() for a in args)
    )
    f = mod.get_function("f").prepare("".join(a.struct_char for a in args))
    out = drv.mem_alloc(16)
    f.prepared_call((1, 1), (1, 1, 1), out, -7, vec.make_float3(1.5, 0, 2.5), 0.25)
    result = np.empty(4, np.float32)
    drv.memcpy_dtoh(result, out)
    assert result.tolist() == [-7.0, 1.5, 2.5, 0.25]
