// The layout arithmetic (the Python tests also compare it with numpy on random cases).
#include "gpukit/core/error.hpp"
#include "gpukit/core/layout.hpp"

#include <gtest/gtest.h>

namespace {

using gpukit::layout;
using gpukit::order;
using gpukit::slice;
using V = std::vector<std::int64_t>;

TEST(Layout, ContiguousAndFlags) {
    layout c = layout::contiguous({3, 4}, 4);
    EXPECT_EQ(c.strides(), (V{16, 4}));
    EXPECT_TRUE(c.is_c_contiguous());
    EXPECT_FALSE(c.is_f_contiguous());
    layout f = layout::contiguous({3, 4}, 4, order::f);
    EXPECT_EQ(f.strides(), (V{4, 12}));
    EXPECT_TRUE(f.is_f_contiguous());
    EXPECT_EQ(c.nbytes(), 48);
    EXPECT_TRUE(layout::contiguous({1, 5}, 8).is_f_contiguous());  // length-1 axes don't count
}

TEST(Layout, SlicingAndReshape) {
    layout a = layout::contiguous({4, 6}, 4);
    layout every_other = a.index({slice{}, slice{1, std::nullopt, 2}});  // a[:, 1::2]
    EXPECT_EQ(every_other.shape(), (V{4, 3}));
    EXPECT_EQ(every_other.strides(), (V{24, 8}));
    EXPECT_EQ(every_other.offset(), 4);
    EXPECT_FALSE(every_other.is_c_contiguous());
    EXPECT_EQ(every_other.reshape({12}).strides(), (V{8}));  // rows 24 bytes apart: still one stride
    EXPECT_THROW(a.index({slice{}, slice{0, 3}}).reshape({12}), gpukit::logic_error);  // needs a copy
    EXPECT_EQ(every_other.reshape({2, 2, 3}).strides(), (V{48, 24, 8}));               // splitting an axis is a view
    layout reversed = a.index({slice{std::nullopt, std::nullopt, -1}});                // a[::-1]
    EXPECT_EQ(reversed.offset(), 72);
    EXPECT_EQ(reversed.strides(), (V{-24, 4}));
    EXPECT_EQ(a.reshape({-1, 8}).shape(), (V{3, 8}));
    EXPECT_EQ(layout::contiguous({4, 6}, 4, order::f).reshape({6, 4}, order::f).strides(), (V{4, 24}));
    EXPECT_THROW(a.reshape({6, 4}, order::f), gpukit::logic_error);  // a C array read in F order: a copy
    EXPECT_THROW(a.reshape({5, 5}), std::invalid_argument);          // 25 elements are not 24
    EXPECT_THROW(a.index({std::int64_t{4}}), std::out_of_range);
    EXPECT_THROW(a.index({slice{0, 2, 0}}), std::invalid_argument);
}

TEST(Layout, TransposeSqueezeSplit) {
    layout a = layout::contiguous({2, 1, 6}, 8);
    EXPECT_EQ(a.transpose().shape(), (V{6, 1, 2}));
    EXPECT_EQ(a.squeeze().shape(), (V{2, 6}));
    auto parts = a.split(3, 2);
    ASSERT_EQ(parts.size(), 3u);
    EXPECT_EQ(parts[1].offset(), 16);
    EXPECT_EQ(parts[1].shape(), (V{2, 1, 2}));
    EXPECT_THROW(a.split(4, 2), std::invalid_argument);
    EXPECT_THROW(a.split(0, 2), std::invalid_argument);
    EXPECT_THROW(a.squeeze({0}), std::invalid_argument);
    EXPECT_THROW(a.transpose({0, 0, 1}), std::invalid_argument);
    EXPECT_THROW(layout({2}, {4}, 0), std::invalid_argument);
    EXPECT_THROW(layout({-2}, {4}, 4), std::invalid_argument);
}

TEST(Layout, EmptyAxisListsAreNotTheDefault) {
    // numpy: a.squeeze(()) removes no axis, a.transpose(()) is an error for a 1-d or larger
    // array; only the calls without axes remove every length-1 axis or reverse them.
    const layout a = layout::contiguous({1, 3, 1}, 4);
    EXPECT_EQ(a.squeeze(std::vector<int>{}).shape(), (V{1, 3, 1}));
    EXPECT_EQ(a.squeeze().shape(), (V{3}));
    EXPECT_THROW(a.transpose(std::vector<int>{}), std::invalid_argument);
    EXPECT_EQ(layout::contiguous({}, 4).transpose(std::vector<int>{}).shape(), V{});
}

TEST(Layout, SplitAtTakesIndicesAsNumpySplitDoes) {
    // numpy.split(np.arange(10), [5, 2, 8]): [0:5], [5:2] (empty), [2:8], [8:].
    const layout a = layout::contiguous({10}, 1);
    auto parts = a.split_at({5, 2, 8});
    ASSERT_EQ(parts.size(), 4u);
    EXPECT_EQ(parts[0].shape(), (V{5}));
    EXPECT_EQ(parts[1].shape(), (V{0}));
    EXPECT_EQ(parts[2].shape(), (V{6}));
    EXPECT_EQ(parts[2].offset(), 2);
    EXPECT_EQ(parts[3].shape(), (V{2}));
    EXPECT_EQ(parts[3].offset(), 8);
    // Negative indices count from the end: [0:-3], [-3:2] (empty), [2:].
    parts = a.split_at({-3, 2});
    ASSERT_EQ(parts.size(), 3u);
    EXPECT_EQ(parts[0].shape(), (V{7}));
    EXPECT_EQ(parts[1].shape(), (V{0}));
    EXPECT_EQ(parts[2].shape(), (V{8}));
    EXPECT_EQ(parts[2].offset(), 2);
    // Beyond the axis: clamped, as slicing clamps.
    parts = a.split_at({INT64_MAX, INT64_MIN});
    EXPECT_EQ(parts[0].shape(), (V{10}));
    EXPECT_EQ(parts[1].shape(), (V{0}));
    EXPECT_EQ(parts[2].shape(), (V{10}));
}

TEST(Layout, SqueezeRefusesARepeatedAxis) {
    const layout a = layout::contiguous({1, 3, 1}, 4);
    EXPECT_EQ(a.squeeze({0, -1}).shape(), (V{3}));
    EXPECT_THROW(a.squeeze({0, 0}), std::invalid_argument);
    EXPECT_THROW(a.squeeze({2, -1}), std::invalid_argument);  // the same axis spelled twice
    EXPECT_THROW(a.squeeze({3}), std::out_of_range);
}

TEST(Layout, SizesBeyond64BitsAreRefused) {
    // 2**32 + 1 rows of 2**32 bytes: 2**64 + 2**32 bytes, which used to wrap to 2**32.
    EXPECT_THROW(layout::contiguous({(1LL << 32) + 1, 1LL << 32}, 1), std::length_error);
    EXPECT_THROW(layout::contiguous({1LL << 40, 1LL << 40}, 1), std::length_error);     // used to give size 0
    EXPECT_THROW(layout::contiguous({1LL << 62}, 2), std::length_error);                // the bytes overflow
    EXPECT_THROW(layout::contiguous({0, 1LL << 62, 1LL << 62}, 1), std::length_error);  // as numpy: zeros don't help
    EXPECT_EQ(layout::contiguous({0, 1LL << 61}, 2).size(), 0);
    EXPECT_EQ(layout::contiguous({INT64_MAX}, 1).nbytes(), INT64_MAX);
    // A strided layout whose bytes reach beyond 64-bit offsets.
    EXPECT_THROW(layout({1LL << 40}, {1LL << 40}, 1), std::length_error);
    EXPECT_THROW(layout({2}, {8}, 8, INT64_MAX - 8), std::length_error);
    EXPECT_THROW(layout({3}, {INT64_MIN}, 8, 0), std::length_error);
    EXPECT_NO_THROW(layout({1}, {INT64_MIN}, 8, 0));                // a length-1 axis never uses its stride
    EXPECT_NO_THROW(layout({0, 3}, {INT64_MAX, INT64_MIN}, 8, 0));  // nor does an empty array
    // The layout of the issue that crashed reshape is refused when it is made.
    EXPECT_THROW(layout({(1LL << 33) + 1, 1LL << 31}, {1LL << 31, 1}, 1), std::length_error);
    // A reshape target that overflows.
    const layout empty = layout::contiguous({0}, 8);
    EXPECT_THROW(empty.reshape({1LL << 40, 1LL << 40, 0}), std::length_error);
    EXPECT_THROW(empty.reshape({1LL << 62, 1LL << 62, -1}), std::length_error);
    EXPECT_THROW(empty.reshape({0, -1}), std::invalid_argument);
}

TEST(Layout, SliceStepsNear64BitsKeepOneElement) {
    const layout a = layout::contiguous({10}, 8);
    for (std::int64_t step : {INT64_MAX, INT64_MIN, INT64_MIN + 1, std::int64_t{1} << 62}) {
        const layout s = a.index({slice{std::nullopt, std::nullopt, step}});
        EXPECT_EQ(s.shape(), (V{1})) << step;
        EXPECT_EQ(s.offset(), step > 0 ? 0 : 72) << step;
    }
    // Bounds far outside the axis clamp, as Python's slice.indices() does.
    EXPECT_EQ(a.index({slice{INT64_MIN, INT64_MAX, 3}}).shape(), (V{4}));
    EXPECT_EQ(a.index({slice{INT64_MAX, INT64_MIN, -3}}).shape(), (V{4}));
    EXPECT_EQ(a.index({slice{INT64_MAX, INT64_MIN, -3}}).offset(), 72);
    EXPECT_THROW(a.index({INT64_MIN}), std::out_of_range);
    EXPECT_THROW(a.index({INT64_MAX}), std::out_of_range);
}

TEST(Layout, BroadcastShapesFollowNumpy) {
    using gpukit::broadcast_shapes;
    EXPECT_EQ(broadcast_shapes({3, 1}, {1, 4}), (V{3, 4}));
    EXPECT_EQ(broadcast_shapes({5}, {2, 3, 1}), (V{2, 3, 5}));  // missing leading axes are 1
    EXPECT_EQ(broadcast_shapes({2, 3, 1}, {5}), (V{2, 3, 5}));
    EXPECT_EQ(broadcast_shapes({}, {4, 2}), (V{4, 2}));  // a 0-d array with anything
    EXPECT_EQ(broadcast_shapes({}, {}), V{});
    EXPECT_EQ(broadcast_shapes({0}, {1}), (V{0}));  // 0 with 1 gives 0
    EXPECT_EQ(broadcast_shapes({1, 0}, {7, 1}), (V{7, 0}));
    EXPECT_EQ(broadcast_shapes({1, 1}, {1}), (V{1, 1}));
    try {
        broadcast_shapes({2, 3}, {4});
        FAIL() << "(2,3) with (4,) broadcast";
    } catch (const std::invalid_argument& e) {
        EXPECT_STREQ(e.what(), "operands could not be broadcast together with shapes (2,3) (4,)");
    }
    EXPECT_THROW(broadcast_shapes({0}, {3}), std::invalid_argument);  // 0 only stretches from 1
    EXPECT_THROW(broadcast_shapes({3}, {0}), std::invalid_argument);
    EXPECT_THROW(broadcast_shapes({2, 1}, {8, 4, 3}), std::invalid_argument);
    EXPECT_THROW(broadcast_shapes({-1}, {1}), std::invalid_argument);
    EXPECT_THROW(broadcast_shapes({1}, {3, -2}), std::invalid_argument);
}

TEST(Layout, BroadcastToGivesZeroStrides) {
    const layout column = layout::contiguous({3, 1}, 4);
    const layout b = column.broadcast_to({2, 3, 5});
    EXPECT_EQ(b.shape(), (V{2, 3, 5}));
    EXPECT_EQ(b.strides(), (V{0, 4, 0}));  // new axis and stretched axis: stride 0
    EXPECT_EQ(b.itemsize(), 4);
    EXPECT_FALSE(b.is_c_contiguous());
    EXPECT_FALSE(b.is_f_contiguous());
    EXPECT_EQ(b.byte_extent(), (std::pair<std::int64_t, std::int64_t>{0, 12}));
    EXPECT_EQ(b.size(), 30);

    // A reversed view with an offset keeps both; every length-1 axis gets stride 0, as numpy.
    const layout reversed = layout::contiguous({4, 1}, 8).index({slice{std::nullopt, std::nullopt, -1}});
    EXPECT_EQ(reversed.broadcast_to({4, 1}), layout({4, 1}, {-8, 0}, 8, 24));
    const layout wide = reversed.broadcast_to({4, 6});
    EXPECT_EQ(wide.strides(), (V{-8, 0}));
    EXPECT_EQ(wide.offset(), 24);
    EXPECT_EQ(wide.byte_extent(), (std::pair<std::int64_t, std::int64_t>{0, 32}));

    // A 0-d array to any shape; stretching only to length 1 keeps the view contiguous, as numpy.
    const layout scalar = layout({}, {}, 2, 10);
    EXPECT_EQ(scalar.broadcast_to({3}).strides(), (V{0}));
    EXPECT_EQ(scalar.broadcast_to({3}).offset(), 10);
    EXPECT_TRUE(scalar.broadcast_to({1, 1}).is_c_contiguous());
    EXPECT_TRUE(scalar.broadcast_to({1, 1}).is_f_contiguous());
    EXPECT_EQ(scalar.broadcast_to({}), scalar);

    // Empty axes: 1 stretches to 0, 0 stays 0; an empty view is contiguous.
    EXPECT_EQ(layout::contiguous({1, 0}, 4).broadcast_to({5, 0, 0}).shape(), (V{5, 0, 0}));
    EXPECT_TRUE(layout::contiguous({1}, 4).broadcast_to({0}).is_c_contiguous());
}

TEST(Layout, BroadcastToRefusesWhatNumpyRefuses) {
    const layout a = layout::contiguous({2, 1}, 4);
    try {
        a.broadcast_to({8, 4, 3});
        FAIL() << "(2,1) broadcast to (8,4,3)";
    } catch (const std::invalid_argument& e) {
        EXPECT_STREQ(e.what(), "cannot broadcast an array of shape (2,1) to the requested shape (8,4,3)");
    }
    EXPECT_THROW(a.broadcast_to({1}), std::invalid_argument);     // fewer axes
    EXPECT_THROW(a.broadcast_to({1, 1}), std::invalid_argument);  // only this layout's axes stretch
    EXPECT_THROW(layout::contiguous({0}, 4).broadcast_to({3}), std::invalid_argument);
    EXPECT_THROW(a.broadcast_to({2, -1}), std::invalid_argument);
    // Sizes stay within 64 bits (counted in bytes, as every layout's are).
    EXPECT_THROW(layout::contiguous({1}, 8).broadcast_to({1LL << 62}), std::length_error);
    EXPECT_EQ(layout::contiguous({1}, 1).broadcast_to({INT64_MAX}).size(), INT64_MAX);
}

// A new array laid out like an existing one (numba's device_array_like): contiguous, in the
// memory order of the original's axes.
TEST(Layout, ContiguousLikeKeepsTheMemoryOrder) {
    const layout c = layout::contiguous({3, 4, 5}, 8);
    EXPECT_EQ(layout::contiguous_like(c, 8), c);
    EXPECT_EQ(layout::contiguous_like(c, 2), layout::contiguous({3, 4, 5}, 2));
    EXPECT_EQ(layout::contiguous_like(c.transpose(), 8), layout::contiguous({5, 4, 3}, 8, order::f));
    // Axes (0, 2, 1) of a C array: axis 1 innermost, then 2, then 0.
    const layout permuted = c.transpose({0, 2, 1});
    EXPECT_EQ(layout::contiguous_like(permuted, 8).strides(), (std::vector<std::int64_t>{160, 8, 40}));
    // A strided slice keeps C order; reversed axes count by the magnitude of their strides.
    const layout sliced =
        c.index({slice{}, slice{std::nullopt, std::nullopt, 2}, slice{1, std::nullopt, std::nullopt}});
    EXPECT_EQ(layout::contiguous_like(sliced, 8), layout::contiguous(sliced.shape(), 8));
    const layout reversed = c.transpose({2, 0, 1}).index({slice{std::nullopt, std::nullopt, -1}});
    EXPECT_EQ(layout::contiguous_like(reversed, 4).strides(), (std::vector<std::int64_t>{4, 80, 20}));
    // A broadcast axis (stride 0) becomes the innermost.
    const layout broadcast = layout::contiguous({1, 6}, 4).broadcast_to({3, 6});
    EXPECT_EQ(layout::contiguous_like(broadcast, 4), layout::contiguous({3, 6}, 4, order::f));
    EXPECT_THROW(layout::contiguous_like(permuted, 0), std::invalid_argument);
}

layout strided_layout(std::vector<std::int64_t> shape, std::vector<std::int64_t> strides, std::int64_t itemsize = 4,
                      std::int64_t offset = 0) {
    return layout(std::move(shape), std::move(strides), itemsize, offset);
}

TEST(Layout, ContiguousLikeIsNumpysOrderK) {
    // numpy.empty_like(a, order='K') for the same arrays.
    EXPECT_EQ(layout::contiguous_like(layout::contiguous({3, 4, 5}, 4), 4).strides(),
              (std::vector<std::int64_t>{80, 20, 4}));
    EXPECT_EQ(layout::contiguous_like(layout::contiguous({3, 4, 5}, 4, order::f), 8).strides(),
              (std::vector<std::int64_t>{8, 24, 96}));
    // transpose(2, 0, 1) of a C array of shape (3, 4, 5): shape (5, 3, 4), strides (4, 80, 20)
    EXPECT_EQ(layout::contiguous_like(strided_layout({5, 3, 4}, {4, 80, 20}), 4).strides(),
              (std::vector<std::int64_t>{4, 80, 20}));
    // A slice with gaps and a reversed axis: compact, positive, same order.
    EXPECT_EQ(layout::contiguous_like(strided_layout({3, 2, 5}, {-160, 80, 8}, 4, 320), 4).strides(),
              (std::vector<std::int64_t>{40, 20, 4}));
    // Broadcast (zero) strides are innermost.
    EXPECT_EQ(layout::contiguous_like(strided_layout({4, 3}, {0, 8}, 8), 8).strides(),
              (std::vector<std::int64_t>{8, 32}));
    // Empty arrays are C-contiguous.
    EXPECT_EQ(layout::contiguous_like(strided_layout({3, 0, 2}, {0, 0, 0}), 4), layout::contiguous({3, 0, 2}, 4));
    EXPECT_EQ(layout::contiguous_like(layout::contiguous({}, 4), 2).strides(), std::vector<std::int64_t>{});
}

}  // namespace
