// Device helpers for kernels compiled through gpukit (SourceModule and compile() put this
// directory on the include path): fetches of double and complex values from texture
// objects.
//
// Textures have no 64-bit channel format, so a double is stored as two 32-bit signed
// integer channels (its low word first, as on the little-endian host) and put back
// together here; a complex number is two floats, or two doubles as four integer channels.
// Textures holding these must be read as integers (TRSF_READ_AS_INTEGER) with point
// filtering: linear filtering of the bit halves would produce garbage.
//
// Complex results use plain CUDA vector types (float2 / double2: real in .x, imaginary in
// .y), so this header needs no complex-number library. <pycuda-helpers.hpp> offers the same
// fetches under PyCUDA's names, returning pycuda::complex.
#pragma once

// A double from the two 32-bit halves a texture stores it as (low word in .x).
__device__ inline double fp_int2_to_double(int2 v) { return __hiloint2double(v.y, v.x); }

// One double from the two-channel int texture `tex`.
__device__ inline double fp_tex1Dfetch_double(cudaTextureObject_t tex, int i) {
    return fp_int2_to_double(tex1Dfetch<int2>(tex, i));
}

__device__ inline double fp_tex2D_double(cudaTextureObject_t tex, float x, float y) {
    return fp_int2_to_double(tex2D<int2>(tex, x, y));
}

__device__ inline double fp_tex3D_double(cudaTextureObject_t tex, float x, float y, float z) {
    return fp_int2_to_double(tex3D<int2>(tex, x, y, z));
}

// One single-precision complex from the two-channel float texture `tex`.
__device__ inline float2 fp_tex1Dfetch_cfloat(cudaTextureObject_t tex, int i) { return tex1Dfetch<float2>(tex, i); }

__device__ inline float2 fp_tex2D_cfloat(cudaTextureObject_t tex, float x, float y) {
    return tex2D<float2>(tex, x, y);
}

__device__ inline float2 fp_tex3D_cfloat(cudaTextureObject_t tex, float x, float y, float z) {
    return tex3D<float2>(tex, x, y, z);
}

// One double-precision complex from the four-channel int texture `tex`.
__device__ inline double2 fp_int4_to_cdouble(int4 v) {
    return make_double2(fp_int2_to_double(make_int2(v.x, v.y)), fp_int2_to_double(make_int2(v.z, v.w)));
}

__device__ inline double2 fp_tex1Dfetch_cdouble(cudaTextureObject_t tex, int i) {
    return fp_int4_to_cdouble(tex1Dfetch<int4>(tex, i));
}

__device__ inline double2 fp_tex2D_cdouble(cudaTextureObject_t tex, float x, float y) {
    return fp_int4_to_cdouble(tex2D<int4>(tex, x, y));
}

__device__ inline double2 fp_tex3D_cdouble(cudaTextureObject_t tex, float x, float y, float z) {
    return fp_int4_to_cdouble(tex3D<int4>(tex, x, y, z));
}
