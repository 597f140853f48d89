// CUDA C shared by the generated elementwise and reduction kernels.
#pragma once

#include "gpukit/array/dtype.hpp"
#include "gpukit/core/c_text.hpp"

#include <string>

namespace gpukit::array::detail {

// gk_ref<T> (an element seen through `name[i]`), gk_dims<N> (shape or strides by value),
// gk_load/gk_store (16-byte vector copies between memory and a register array), and
// gk_complex<T>, the complex64/complex128 element (numpy's layout: real then imaginary part).
inline const char* const common_source = R"(
template <class T> struct alignas(2 * sizeof(T)) gk_complex {
    T re, im;
    gk_complex() = default;
    __device__ __forceinline__ constexpr gk_complex(T r, T i) : re(r), im(i) {}
    // From a real number, and between precisions; casting to a real type keeps the real part
    // (numpy's astype does the same), to bool tests for non-zero.
    template <class U> __device__ __forceinline__ constexpr gk_complex(U r) : re(T(r)), im(T(0)) {}
    template <class U> __device__ __forceinline__ constexpr gk_complex(gk_complex<U> z) : re(T(z.re)), im(T(z.im)) {}
    template <class U> __device__ __forceinline__ explicit constexpr operator U() const { return U(re); }
    __device__ __forceinline__ explicit constexpr operator bool() const { return re != T(0) || im != T(0); }
    __device__ __forceinline__ constexpr T real() const { return re; }
    __device__ __forceinline__ constexpr T imag() const { return im; }
};
template <class T> __device__ __forceinline__ gk_complex<T> operator+(gk_complex<T> a, gk_complex<T> b) {
    return {a.re + b.re, a.im + b.im};
}
template <class T> __device__ __forceinline__ gk_complex<T> operator-(gk_complex<T> a, gk_complex<T> b) {
    return {a.re - b.re, a.im - b.im};
}
template <class T> __device__ __forceinline__ gk_complex<T> operator-(gk_complex<T> a) { return {-a.re, -a.im}; }
template <class T> __device__ __forceinline__ gk_complex<T> operator*(gk_complex<T> a, gk_complex<T> b) {
    return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}
// Smith's algorithm, as numpy: scaling by the larger part of b avoids overflow in |b|^2.
template <class T> __device__ __forceinline__ gk_complex<T> operator/(gk_complex<T> a, gk_complex<T> b) {
    if (fabs(b.re) >= fabs(b.im)) {
        if (b.re == T(0) && b.im == T(0))
            return {a.re / fabs(b.re), a.im / fabs(b.im)};  // inf or nan, as numpy
        const T r = b.im / b.re, d = b.re + b.im * r;
        return {(a.re + a.im * r) / d, (a.im - a.re * r) / d};
    }
    const T r = b.re / b.im, d = b.re * r + b.im;
    return {(a.re * r + a.im) / d, (a.im * r - a.re) / d};
}
template <class T> __device__ __forceinline__ bool operator==(gk_complex<T> a, gk_complex<T> b) {
    return a.re == b.re && a.im == b.im;
}
template <class T> __device__ __forceinline__ bool operator!=(gk_complex<T> a, gk_complex<T> b) { return !(a == b); }
template <class T> __device__ __forceinline__ T abs(gk_complex<T> z) { return hypot(z.re, z.im); }
template <class T> __device__ __forceinline__ gk_complex<T> conj(gk_complex<T> z) { return {z.re, -z.im}; }
template <class T> __device__ __forceinline__ T real(gk_complex<T> z) { return z.re; }
template <class T> __device__ __forceinline__ T imag(gk_complex<T> z) { return z.im; }

template <class T> struct gk_ref {
    T* p;
    __device__ __forceinline__ T& operator[](long long) const { return *p; }
};
template <int N> struct gk_dims { long long e[N]; };
template <class T, int V> __device__ __forceinline__ void gk_load(T (&dst)[V], const T* src) {
    static_assert(sizeof(T) * V % 16 == 0, "vector copies move whole 16-byte words");
#pragma unroll
    for (int j = 0; j < int(sizeof(T) * V / 16); ++j)
        reinterpret_cast<uint4*>(dst)[j] = reinterpret_cast<const uint4*>(src)[j];
}
template <class T, int V> __device__ __forceinline__ void gk_store(T* dst, const T (&src)[V]) {
#pragma unroll
    for (int j = 0; j < int(sizeof(T) * V / 16); ++j)
        reinterpret_cast<uint4*>(dst)[j] = reinterpret_cast<const uint4*>(src)[j];
}
)";

// The C type the generated kernels hold an element of `t` in: CUDA C's (c_type), or the
// OpenCL C one (opencl_element_type: uchar for bool).
std::string element_type(dtype t, kernel_language language);
// `value` converted to `t` in C: "((float)(value))"; to C's bool for bool, in both languages.
std::string c_cast(dtype t, const std::string& value, kernel_language language);

// logic_error `where` + why, when `name` cannot name a kernel or a parameter of a generated
// CUDA kernel (a keyword, not a C identifier: core/c_text.hpp).
void require_kernel_name(const std::string& name, const std::string& where);
// The same for the prefix of kernel names (name + "_stage1"): it need only be a C identifier.
void require_name_prefix(const std::string& prefix, const std::string& where);

}  // namespace gpukit::array::detail
