// PyCUDA's <pycuda-helpers.hpp>, as far as CUDA 12 and later allow: double and complex values
// read from textures and read or written through surfaces. Written for gpukit: PyCUDA's
// names, not its code.
//
// PyCUDA's fp_tex* and fp_surf* functions take texture and surface *references*
// (texture<...>, surface<...>), which CUDA 12 removed; those overloads cannot exist. Here the
// same names take texture and surface *objects* (the kernel parameter becomes
// cudaTextureObject_t / cudaSurfaceObject_t, made with drv.TextureObject / drv.SurfaceObject):
//   - a texture object does not carry its element type, so the fetches name it:
//     fp_tex1Dfetch<double>(tex, i) where PyCUDA wrote fp_tex1Dfetch(tex_ref, i);
//   - the surface functions keep PyCUDA's argument lists, with the object in place of the
//     reference: fp_surf3Dwrite(value, surf, i, j, k, mode), fp_surf3Dread(&value, surf, ...),
//     i being the element index (not a byte offset), mode defaulting to cudaBoundaryModeTrap.
// Storage is that of <gpukit/helpers.cuh>: a double as two 32-bit int channels (low word
// first), complex<float> as two floats, complex<double> as four int channels; textures of
// doubles and complex<double> are read as integers with point filtering.
#pragma once

#include <pycuda-complex.hpp>
#include <gpukit/helpers.cuh>

extern "C++" {

// The channel types PyCUDA declares textures of doubles and complex numbers with.
typedef float fp_tex_float;
typedef int2 fp_tex_double;
typedef uint2 fp_tex_cfloat;
typedef int4 fp_tex_cdouble;

// How a value of type T lies in a texture or surface: `type` is the CUDA channel type read or
// written, pack/unpack convert. T itself for CUDA's own types (float, int, float2, ...).
template <class T> struct fp_storage {
    typedef T type;
    __device__ static T pack(T v) { return v; }
    __device__ static T unpack(T v) { return v; }
};
template <> struct fp_storage<double> {
    typedef int2 type;
    __device__ static int2 pack(double v) { return make_int2(__double2loint(v), __double2hiint(v)); }
    __device__ static double unpack(int2 v) { return fp_int2_to_double(v); }
};
template <> struct fp_storage<pycuda::complex<float> > {
    typedef float2 type;
    __device__ static float2 pack(pycuda::complex<float> v) { return make_float2(v._M_re, v._M_im); }
    __device__ static pycuda::complex<float> unpack(float2 v) { return pycuda::complex<float>(v.x, v.y); }
};
template <> struct fp_storage<pycuda::complex<double> > {
    typedef int4 type;
    __device__ static int4 pack(pycuda::complex<double> v) {
        const int2 re = fp_storage<double>::pack(v._M_re), im = fp_storage<double>::pack(v._M_im);
        return make_int4(re.x, re.y, im.x, im.y);
    }
    __device__ static pycuda::complex<double> unpack(int4 v) {
        const double2 z = fp_int4_to_cdouble(v);
        return pycuda::complex<double>(z.x, z.y);
    }
};

// --- Texture fetches: fp_tex2D<double>(tex, x, y), fp_tex1Dfetch<pycuda::complex<float> >(tex, i), ...

template <class T> __device__ inline T fp_tex1Dfetch(cudaTextureObject_t tex, int i) {
    return fp_storage<T>::unpack(tex1Dfetch<typename fp_storage<T>::type>(tex, i));
}
template <class T> __device__ inline T fp_tex2D(cudaTextureObject_t tex, float x, float y) {
    return fp_storage<T>::unpack(tex2D<typename fp_storage<T>::type>(tex, x, y));
}
template <class T> __device__ inline T fp_tex2DLayered(cudaTextureObject_t tex, float x, float y, int layer) {
    return fp_storage<T>::unpack(tex2DLayered<typename fp_storage<T>::type>(tex, x, y, layer));
}
template <class T> __device__ inline T fp_tex3D(cudaTextureObject_t tex, float x, float y, float z) {
    return fp_storage<T>::unpack(tex3D<typename fp_storage<T>::type>(tex, x, y, z));
}

// --- Surfaces: element i of row j of layer `layer` (or slice k).

// The x coordinate of element i: CUDA addresses a surface's x in bytes of the channel type.
template <class T> __device__ inline int fp_surf_x(int i) { return i * int(sizeof(typename fp_storage<T>::type)); }

template <class T>
__device__ inline void fp_surf2DLayeredwrite(T var, cudaSurfaceObject_t surf, int i, int j, int layer,
                                             cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap) {
    surf2DLayeredwrite(fp_storage<T>::pack(var), surf, fp_surf_x<T>(i), j, layer, mode);
}
template <class T>
__device__ inline void fp_surf3Dwrite(T var, cudaSurfaceObject_t surf, int i, int j, int k,
                                      cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap) {
    surf3Dwrite(fp_storage<T>::pack(var), surf, fp_surf_x<T>(i), j, k, mode);
}
template <class T>
__device__ inline void fp_surf2DLayeredread(T* var, cudaSurfaceObject_t surf, int i, int j, int layer,
                                            cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap) {
    *var = fp_storage<T>::unpack(
        surf2DLayeredread<typename fp_storage<T>::type>(surf, fp_surf_x<T>(i), j, layer, mode));
}
template <class T>
__device__ inline void fp_surf3Dread(T* var, cudaSurfaceObject_t surf, int i, int j, int k,
                                     cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap) {
    *var = fp_storage<T>::unpack(
        surf3Dread<typename fp_storage<T>::type>(surf, fp_surf_x<T>(i), j, k, mode));
}

}  // extern "C++"
