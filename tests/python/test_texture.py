"""Texture and surface objects: argument checks and NVRTC compiles of the device code (no
GPU needed), and kernels reading random data through TextureObject (arrays of 1 to 4
channels, 3-D, layered, linear and pitched memory, filtering, integers, float64 and
complex through <gpukit/helpers.cuh>) and writing it through SurfaceObject."""

import numpy as np
import pytest

import gpukit.driver as drv
from gpukit import _gpukit, compiler

KERNELS = r"""
#include <gpukit/helpers.cuh>

#define XY int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y; if (x >= w) return; int i = y * w + x;

__global__ void read_2d(float* out, cudaTextureObject_t tex, int w)
{ XY out[i] = tex2D<float>(tex, x + 0.5f, y + 0.5f); }
__global__ void read_2d_float4(float4* out, cudaTextureObject_t tex, int w) {
    XY out[i] = tex2D<float4>(tex, x + 0.5f, y + 0.5f);
}
__global__ void read_2d_ushort(unsigned int* out, cudaTextureObject_t tex, int w) {
    XY out[i] = tex2D<unsigned short>(tex, x + 0.5f, y + 0.5f);
}
__global__ void read_2d_double(double* out, cudaTextureObject_t tex, int w) {
    XY out[i] = fp_tex2D_double(tex, x + 0.5f, y + 0.5f);
}
__global__ void read_2d_cfloat(float2* out, cudaTextureObject_t tex, int w) {
    XY out[i] = fp_tex2D_cfloat(tex, x + 0.5f, y + 0.5f);
}
__global__ void read_2d_cdouble(double2* out, cudaTextureObject_t tex, int w) {
    XY out[i] = fp_tex2D_cdouble(tex, x + 0.5f, y + 0.5f);
}
__global__ void read_3d(float* out, cudaTextureObject_t tex, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y, z = blockIdx.z;
    if (x < w) out[(z * h + y) * w + x] = tex3D<float>(tex, x + 0.5f, y + 0.5f, z + 0.5f);
}
__global__ void read_3d_double(double* out, cudaTextureObject_t tex, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y, z = blockIdx.z;
    if (x < w) out[(z * h + y) * w + x] = fp_tex3D_double(tex, x + 0.5f, y + 0.5f, z + 0.5f);
}
__global__ void read_layered(float* out, cudaTextureObject_t tex, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y, layer = blockIdx.z;
    if (x < w) out[(layer * h + y) * w + x] = tex2DLayered<float>(tex, x + 0.5f, y + 0.5f, layer);
}
__global__ void fetch_1d(float* out, cudaTextureObject_t tex, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex1Dfetch<float>(tex, i);
}
__global__ void fetch_1d_double(double* out, cudaTextureObject_t tex, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = fp_tex1Dfetch_double(tex, i);
}
__global__ void fetch_1d_complex(float2* out_f, double2* out_d, cudaTextureObject_t tf, cudaTextureObject_t td,
                                 int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { out_f[i] = fp_tex1Dfetch_cfloat(tf, i); out_d[i] = fp_tex1Dfetch_cdouble(td, i); }
}
__global__ void sample_2d(float* out, cudaTextureObject_t tex, const float* xs, const float* ys, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex2D<float>(tex, xs[i], ys[i]);
}
__global__ void surface_2d(cudaSurfaceObject_t surf, int w) {
    XY
    float v = surf2Dread<float>(surf, x * (int)sizeof(float), y);
    surf2Dwrite(2.0f * v + i, surf, x * (int)sizeof(float), y);
}
__global__ void surface_3d(cudaSurfaceObject_t surf, int w) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y, z = blockIdx.z;
    if (x >= w) return;
    float v = surf3Dread<float>(surf, x * (int)sizeof(float), y, z);
    surf3Dwrite(v - 1.0f, surf, x * (int)sizeof(float), y, z);
}
"""

needs_nvrtc = pytest.mark.skipif(not _gpukit.nvrtc_available(), reason="NVRTC is not installed")
rng = np.random.default_rng(20240611)


# --- no GPU needed --------------------------------------------------------------------


def test_classes_are_exported():
    assert drv.TextureObject.from_array and drv.TextureObject.from_linear and drv.TextureObject.from_pitch2d
    assert drv.SurfaceObject


def test_bad_arguments_are_refused_before_the_driver():
    with pytest.raises(drv.LogicError, match="1, 2 or 4"):
        drv.TextureObject.from_linear(4096, drv.array_format.FLOAT, 3, 48)
    with pytest.raises(drv.LogicError, match="NORMALIZED_COORDINATES"):
        drv.TextureObject.from_linear(4096, drv.array_format.FLOAT, 1, 16, address_mode=drv.address_mode.WRAP)
    with pytest.raises(drv.LogicError, match="linear filtering"):
        drv.TextureObject.from_pitch2d(
            4096,
            drv.array_format.SIGNED_INT32,
            1,
            4,
            4,
            512,
            filter_mode=drv.filter_mode.LINEAR,
            flags=drv.TRSF_READ_AS_INTEGER,
        )
    with pytest.raises(ValueError, match="1 to 3"):
        drv.TextureObject.from_linear(4096, drv.array_format.FLOAT, 1, 16, address_mode=(drv.address_mode.CLAMP,) * 4)
    with pytest.raises(ValueError, match="four floats"):
        drv.TextureObject.from_linear(4096, drv.array_format.FLOAT, 1, 16, border_color=(0.0, 1.0))


@needs_nvrtc
def test_helpers_header_compiles_for_sm_90_with_nvrtc():
    source = r"""
    #include <gpukit/helpers.cuh>
    __global__ void k(double* d, float2* f, double2* c, cudaTextureObject_t t) {
        d[0] = fp_tex1Dfetch_double(t, 0) + fp_tex2D_double(t, 0.5f, 0.5f) + fp_tex3D_double(t, 0.5f, 0.5f, 0.5f);
        f[0] = fp_tex1Dfetch_cfloat(t, 1); f[1] = fp_tex2D_cfloat(t, 1.5f, 0.5f);
        f[2] = fp_tex3D_cfloat(t, 0.5f, 0.5f, 1.5f);
        c[0] = fp_tex1Dfetch_cdouble(t, 2); c[1] = fp_tex2D_cdouble(t, 0.5f, 1.5f);
        c[2] = fp_tex3D_cdouble(t, 1.5f, 0.5f, 0.5f);
    }
    """
    for no_extern_c in (False, True):
        image = compiler.compile(source, arch="sm_90", cache_dir=False, no_extern_c=no_extern_c)
        assert image[:4] == b"\x7fELF"


@needs_nvrtc
def test_test_kernels_compile_for_sm_90_with_nvrtc():
    assert compiler.compile(KERNELS, arch="sm_90", cache_dir=False)[:4] == b"\x7fELF"


def test_device_include_dir_ships_in_the_package():
    import os

    assert os.path.isfile(os.path.join(compiler.DEVICE_INCLUDE_DIR, "gpukit", "helpers.cuh"))


# --- on a GPU -------------------------------------------------------------------------


@pytest.fixture
def mod(ctx):
    return compiler.SourceModule(KERNELS)


def run_2d(mod, name, tex, shape, dtype):
    """Runs a kernel of the read_2d family over an (h, w) grid and returns its output."""
    h, w = shape
    out = np.zeros((h, w), dtype)
    mod.get_function(name)(drv.Out(out), tex, np.int32(w), block=(32, 1, 1), grid=((w + 31) // 32, h))
    return out


@pytest.mark.gpu
def test_2d_float_texture_reads_back_the_input(mod):
    a = rng.standard_normal((23, 45)).astype(np.float32)
    tex = drv.TextureObject.from_array(drv.np_to_array(a, "C"))  # the texture keeps the array alive
    assert int(tex) == tex.handle != 0
    np.testing.assert_array_equal(run_2d(mod, "read_2d", tex, a.shape, np.float32), a)


@pytest.mark.gpu
def test_prepared_call_takes_a_texture_object(mod):
    a = rng.standard_normal((7, 40)).astype(np.float32)
    tex = drv.TextureObject.from_array(drv.np_to_array(a, "C"))
    out = drv.mem_alloc(a.nbytes)
    f = mod.get_function("read_2d").prepare("PPi")
    f.prepared_call((2, 7), (32, 1, 1), out, tex, 40)
    np.testing.assert_array_equal(drv.from_device(out, a.shape, np.float32), a)
    g = mod.get_function("read_2d").prepare("PQi")
    g.prepared_call((2, 7), (32, 1, 1), out, tex, 40)
    np.testing.assert_array_equal(drv.from_device(out, a.shape, np.float32), a)


@pytest.mark.gpu
def test_3d_texture(mod):
    a = rng.standard_normal((5, 9, 33)).astype(np.float32)  # (depth, height, width)
    tex = drv.TextureObject.from_array(drv.np_to_array(a, "C"))
    out = np.zeros_like(a)
    mod.get_function("read_3d")(drv.Out(out), tex, np.int32(33), np.int32(9), block=(32, 1, 1), grid=(2, 9, 5))
    np.testing.assert_array_equal(out, a)


@pytest.mark.gpu
def test_2d_layered_texture(mod):
    layers, h, w = 4, 6, 21
    a = rng.standard_normal((layers, h, w)).astype(np.float32)
    d = drv.ArrayDescriptor3D()
    d.width, d.height, d.depth = w, h, layers
    d.format, d.num_channels, d.flags = drv.array_format.FLOAT, 1, drv.array3d_flags.LAYERED
    ary = drv.Array(d)
    drv.memcpy_htoa(ary, 0, a)
    tex = drv.TextureObject.from_array(ary)
    out = np.zeros_like(a)
    mod.get_function("read_layered")(drv.Out(out), tex, np.int32(w), np.int32(h), block=(32, 1, 1), grid=(1, h, layers))
    np.testing.assert_array_equal(out, a)


@pytest.mark.gpu
def test_multichannel_float4_texture(mod):
    a = rng.standard_normal((11, 30, 4)).astype(np.float32)
    tex = drv.TextureObject.from_array(drv.make_multichannel_2d_array(a, "C"))
    out = run_2d(mod, "read_2d_float4", tex, a.shape[:2], np.dtype((np.float32, 4)))
    np.testing.assert_array_equal(out.reshape(a.shape), a)


@pytest.mark.gpu
def test_linear_texture_fetch(mod):
    a = rng.standard_normal(1000).astype(np.float32)
    memory = drv.to_device(a)
    tex = drv.TextureObject.from_linear(memory, drv.array_format.FLOAT, 1, a.nbytes)
    out = np.zeros_like(a)
    mod.get_function("fetch_1d")(drv.Out(out), tex, np.int32(a.size), block=(128, 1, 1), grid=(8, 1))
    np.testing.assert_array_equal(out, a)
    with pytest.raises(drv.LogicError, match="exceeds"):
        drv.TextureObject.from_linear(memory, drv.array_format.FLOAT, 1, a.nbytes + 4)


@pytest.mark.gpu
def test_pitched_texture(mod):
    h, w = 13, 50
    a = rng.standard_normal((h, w)).astype(np.float32)
    memory, pitch = drv.mem_alloc_pitch(w * 4, h, 4)
    copy = drv.Memcpy2D()
    copy.set_src_host(a)
    copy.set_dst_device(memory)
    copy.src_pitch, copy.dst_pitch, copy.width_in_bytes, copy.height = w * 4, pitch, w * 4, h
    copy(aligned=True)
    tex = drv.TextureObject.from_pitch2d(memory, drv.array_format.FLOAT, 1, w, h, pitch)
    np.testing.assert_array_equal(run_2d(mod, "read_2d", tex, (h, w), np.float32), a)


def bilinear(img, xs, ys):
    """What a clamped, linearly filtered texture returns at normalized (xs, ys)."""
    h, w = img.shape
    u, v = xs * w - 0.5, ys * h - 0.5
    i0, j0 = np.floor(u).astype(int), np.floor(v).astype(int)
    a, b = u - i0, v - j0
    i1, j1 = np.clip(i0 + 1, 0, w - 1), np.clip(j0 + 1, 0, h - 1)
    i0, j0 = np.clip(i0, 0, w - 1), np.clip(j0, 0, h - 1)
    return (1 - a) * (1 - b) * img[j0, i0] + a * (1 - b) * img[j0, i1] + (1 - a) * b * img[j1, i0] + a * b * img[j1, i1]


@pytest.mark.gpu
def test_linear_filtering_with_normalized_coordinates(mod):
    img = rng.random((16, 24)).astype(np.float32)
    tex = drv.TextureObject.from_array(
        drv.np_to_array(img, "C"), filter_mode=drv.filter_mode.LINEAR, flags=drv.TRSF_NORMALIZED_COORDINATES
    )
    n = 500
    xs, ys = rng.random(n).astype(np.float32), rng.random(n).astype(np.float32)
    out = np.zeros(n, np.float32)
    mod.get_function("sample_2d")(
        drv.Out(out), tex, drv.In(xs), drv.In(ys), np.int32(n), block=(128, 1, 1), grid=(4, 1)
    )
    # The hardware interpolates with 8 fractional bits of weight: values in [0, 1) are off
    # by well under 1/128.
    np.testing.assert_allclose(out, bilinear(img, xs.astype(np.float64), ys.astype(np.float64)), atol=1 / 128)


@pytest.mark.gpu
def test_read_as_integer(mod):
    a = rng.integers(0, 65536, (9, 35)).astype(np.uint16)
    ary = drv.np_to_array(a, "C")
    raw = drv.TextureObject.from_array(ary, flags=drv.TRSF_READ_AS_INTEGER)
    np.testing.assert_array_equal(run_2d(mod, "read_2d_ushort", raw, a.shape, np.uint32), a)
    # Without the flag, 16-bit integers come back as floats scaled to [0, 1].
    scaled = drv.TextureObject.from_array(ary)
    np.testing.assert_allclose(run_2d(mod, "read_2d", scaled, a.shape, np.float32), a / 65535.0, rtol=1e-6)


@pytest.mark.gpu
def test_double_textures_through_the_helpers(mod):
    a = rng.standard_normal((10, 37))
    tex = drv.TextureObject.from_array(drv.np_to_array(a, "C"), flags=drv.TRSF_READ_AS_INTEGER)
    np.testing.assert_array_equal(run_2d(mod, "read_2d_double", tex, a.shape, np.float64), a)

    b = rng.standard_normal((3, 5, 40))
    tex3 = drv.TextureObject.from_array(drv.np_to_array(b, "C"), flags=drv.TRSF_READ_AS_INTEGER)
    out = np.zeros_like(b)
    mod.get_function("read_3d_double")(drv.Out(out), tex3, np.int32(40), np.int32(5), block=(32, 1, 1), grid=(2, 5, 3))
    np.testing.assert_array_equal(out, b)

    c = rng.standard_normal(777)
    memory = drv.to_device(c)
    lin = drv.TextureObject.from_linear(
        memory, drv.array_format.SIGNED_INT32, 2, c.nbytes, flags=drv.TRSF_READ_AS_INTEGER
    )
    out = np.zeros_like(c)
    mod.get_function("fetch_1d_double")(drv.Out(out), lin, np.int32(c.size), block=(128, 1, 1), grid=(7, 1))
    np.testing.assert_array_equal(out, c)


def random_complex(shape, dtype):
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)


@pytest.mark.gpu
def test_complex_textures_through_the_helpers(mod):
    a = random_complex((8, 33), np.complex64)
    tex = drv.TextureObject.from_array(drv.np_to_array(a, "C"))
    np.testing.assert_array_equal(run_2d(mod, "read_2d_cfloat", tex, a.shape, np.complex64), a)

    b = random_complex((8, 33), np.complex128)
    tex = drv.TextureObject.from_array(drv.np_to_array(b, "C"), flags=drv.TRSF_READ_AS_INTEGER)
    np.testing.assert_array_equal(run_2d(mod, "read_2d_cdouble", tex, b.shape, np.complex128), b)

    n = 300
    f, d = random_complex(n, np.complex64), random_complex(n, np.complex128)
    f_mem, d_mem = drv.to_device(f), drv.to_device(d)
    tf = drv.TextureObject.from_linear(f_mem, drv.array_format.FLOAT, 2, f.nbytes)
    td = drv.TextureObject.from_linear(
        d_mem, drv.array_format.SIGNED_INT32, 4, d.nbytes, flags=drv.TRSF_READ_AS_INTEGER
    )
    out_f, out_d = np.zeros_like(f), np.zeros_like(d)
    mod.get_function("fetch_1d_complex")(
        drv.Out(out_f), drv.Out(out_d), tf, td, np.int32(n), block=(128, 1, 1), grid=(3, 1)
    )
    np.testing.assert_array_equal(out_f, f)
    np.testing.assert_array_equal(out_d, d)


@pytest.mark.gpu
def test_surface_2d_read_write(mod):
    h, w = 12, 41
    a = rng.standard_normal((h, w)).astype(np.float32)
    ary = drv.np_to_array(a, "C", allowSurfaceBind=True)
    surf = drv.SurfaceObject(ary)
    assert int(surf) == surf.handle != 0
    mod.get_function("surface_2d")(surf, np.int32(w), block=(32, 1, 1), grid=(2, h))
    out = np.empty_like(a)
    drv.memcpy_atoh(out, ary, 0)
    np.testing.assert_array_equal(out, 2 * a + np.arange(h * w, dtype=np.float32).reshape(h, w))


@pytest.mark.gpu
def test_surface_3d_read_write(mod):
    d, h, w = 4, 7, 19
    a = rng.standard_normal((d, h, w)).astype(np.float32)
    ary = drv.np_to_array(a, "C", allowSurfaceBind=True)
    mod.get_function("surface_3d")(drv.SurfaceObject(ary), np.int32(w), block=(32, 1, 1), grid=(1, h, d))
    out = np.empty_like(a)
    drv.memcpy_atoh(out, ary, 0)
    np.testing.assert_array_equal(out, a - 1)


@pytest.mark.gpu
def test_surface_needs_surface_ldst_and_destroy_is_final(ctx):
    ary = drv.np_to_array(rng.standard_normal((4, 4)).astype(np.float32), "C")
    with pytest.raises(drv.LogicError, match="SURFACE_LDST"):
        drv.SurfaceObject(ary)
    tex = drv.TextureObject.from_array(ary)
    tex.destroy()
    tex.destroy()
    with pytest.raises(drv.LogicError, match="destroyed"):
        tex.handle
