// CUDA C shared by the generated elementwise and reduction kernels.
#pragma once

#include <string>

namespace gpukit::array::detail {

// gk_ref<T> (an element seen through `name[i]`), gk_dims<N> (shape or strides by value),
// gk_load/gk_store (16-byte vector copies between memory and a register array).
inline const char* const common_source = R"(
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

// True for a C identifier.
bool is_identifier(const std::string& s);

}  // namespace gpukit::array::detail
