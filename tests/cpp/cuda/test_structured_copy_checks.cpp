// The checks memcpy_2d/memcpy_3d make before calling the driver: they need no GPU.
#include "gpukit/core/error.hpp"
#include "gpukit/cuda/structured_copy.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace {

using namespace gpukit::cuda;

TEST(StructuredCopyChecks, EmptyExtentDoesNothing) {
    copy_location unset;
    EXPECT_NO_THROW(memcpy_2d(unset, unset, copy_extent{.width_in_bytes = 0, .height = 3}, true));
    EXPECT_NO_THROW(memcpy_3d(unset, unset, copy_extent{.width_in_bytes = 4, .height = 3, .depth = 0}));
}

TEST(StructuredCopyChecks, UnsetSideIsNamed) {
    std::vector<char> host(64);
    copy_location src;
    src.set_host(host.data(), host.size());
    copy_location dst;
    try {
        memcpy_2d(src, dst, copy_extent{.width_in_bytes = 4, .height = 2}, true);
        FAIL() << "expected logic_error";
    } catch (const gpukit::logic_error& e) {
        EXPECT_NE(std::string(e.what()).find("set_dst_host"), std::string::npos) << e.what();
    }
}

TEST(StructuredCopyChecks, RegionMustFitTheHostBuffer) {
    std::vector<char> small(10), big(100);
    copy_location src, dst;
    src.set_host(big.data(), big.size());
    dst.set_host(small.data(), small.size());
    dst.pitch = 4;
    const copy_extent extent{.width_in_bytes = 4, .height = 2};
    EXPECT_THROW(memcpy_2d(src, dst, copy_extent{.width_in_bytes = 4, .height = 3}, true), gpukit::logic_error);
    dst.x_in_bytes = 3;  // 4 + 3 + 4 = 11 bytes > 10
    EXPECT_THROW(memcpy_2d(src, dst, extent, true), gpukit::logic_error);
    dst.pitch = 2;  // smaller than a row
    dst.x_in_bytes = 0;
    EXPECT_THROW(memcpy_2d(src, dst, extent, true), gpukit::logic_error);
}

TEST(StructuredCopyChecks, RegionsBeyond64BitsAreRefused) {
    std::vector<char> host(64);
    copy_location src, dst;
    src.set_host(host.data(), host.size());
    dst.set_host(host.data(), host.size());
    src.pitch = std::size_t{1} << 63;  // the second row would start at 2**63, the third wrap to 0
    EXPECT_THROW(memcpy_2d(src, dst, copy_extent{.width_in_bytes = 4, .height = 3}, true), gpukit::logic_error);
    src.pitch = 4;
    src.y = ~std::size_t{0};  // y + height wraps
    src.height = 4;
    EXPECT_THROW(memcpy_3d(src, dst, copy_extent{.width_in_bytes = 4, .height = 2, .depth = 2}), gpukit::logic_error);
}

TEST(StructuredCopyChecks, ThreeDimensionalBoxMustFit) {
    std::vector<char> host(2 * 3 * 4);
    copy_location src, dst;
    src.set_host(host.data(), host.size());
    dst.set_host(host.data(), host.size());
    src.pitch = dst.pitch = 4;
    src.height = dst.height = 3;
    src.z = 1;  // slices 1..2 of a 2-slice buffer
    EXPECT_THROW(memcpy_3d(src, dst, copy_extent{.width_in_bytes = 4, .height = 3, .depth = 2}), gpukit::logic_error);
    src.z = 0;
    src.height = 2;  // a slice of 2 rows cannot hold 3
    EXPECT_THROW(memcpy_3d(src, dst, copy_extent{.width_in_bytes = 4, .height = 3, .depth = 2}), gpukit::logic_error);
}

TEST(StructuredCopyChecks, PeerCopyNeedsContexts) {
    std::vector<char> host(16);
    copy_location src, dst;
    src.set_host(host.data(), host.size());
    dst.set_host(host.data(), host.size());
    EXPECT_THROW(memcpy_3d_peer(src, dst, copy_extent{.width_in_bytes = 16}), gpukit::logic_error);
}

}  // namespace
