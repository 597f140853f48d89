#include "gpukit/array/splay.hpp"

#include "gpukit/core/error.hpp"
#include "gpukit/cuda/occupancy.hpp"

#include <string>

namespace gpukit::array {

splay_shape splay(long long n, const cuda::device& dev) {
    if (n < 0)
        throw logic_error("splay: n must not be negative, got " + std::to_string(n));
    const cuda::device_data data = cuda::device_data::of(dev);
    const long long warp = data.warp_size, widest = 128;
    const long long most_blocks =
        4LL * data.thread_blocks_per_mp * dev.attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    long long blocks = most_blocks, threads = widest;
    if (n < warp) {
        blocks = 1;
        threads = warp;
    } else if (n < most_blocks * warp) {
        blocks = (n + warp - 1) / warp;
        threads = warp;
    } else if (n < most_blocks * widest) {
        const long long warps = (n + warp - 1) / warp;
        threads = (warps + most_blocks - 1) / most_blocks * warp;
    }
    return {{static_cast<unsigned>(blocks), 1}, {static_cast<unsigned>(threads), 1, 1}};
}

}  // namespace gpukit::array
