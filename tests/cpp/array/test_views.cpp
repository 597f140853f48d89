// Layouts derived for gpuarray's copies and views (array/views.hpp) and the plans of one-copy
// transfers between two layouts (array/pitched_copy.hpp), checked on the CPU.
#include "gpukit/array/pitched_copy.hpp"
#include "gpukit/array/views.hpp"
#include "gpukit/core/error.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <stdexcept>
#include <tuple>
#include <vector>

namespace {

using namespace gpukit;
using namespace gpukit::array;
using extents = std::vector<std::int64_t>;

layout strided(extents shape, extents strides, std::int64_t itemsize = 4, std::int64_t offset = 0) {
    return layout(std::move(shape), std::move(strides), itemsize, offset);
}

TEST(IsDense, ContiguousAndPermutedLayoutsOnly) {
    EXPECT_TRUE(is_dense(layout::contiguous({3, 4}, 4)));
    EXPECT_TRUE(is_dense(layout::contiguous({3, 4}, 4, order::f)));
    EXPECT_TRUE(is_dense(strided({5, 3, 4}, {4, 80, 20})));
    EXPECT_TRUE(is_dense(strided({3, 1}, {4, 100})));  // a length-1 axis's stride does not matter
    EXPECT_TRUE(is_dense(strided({0, 3}, {4, 4})));
    EXPECT_FALSE(is_dense(strided({3, 2}, {16, 4})));  // gaps
    EXPECT_FALSE(is_dense(strided({3}, {-4}, 4, 8)));  // reversed
    EXPECT_FALSE(is_dense(strided({3, 4}, {0, 4})));   // broadcast
}

TEST(WithItemsize, NumpysViewRules) {
    const layout a = layout::contiguous({4, 6}, 4);
    EXPECT_EQ(with_itemsize(a, 8).shape(), (extents{4, 3}));
    EXPECT_EQ(with_itemsize(a, 8).strides(), (extents{24, 8}));
    EXPECT_EQ(with_itemsize(a, 1).shape(), (extents{4, 24}));
    EXPECT_EQ(with_itemsize(a, 4), a);
    // A last axis of one element may have any stride; the others keep theirs, and the offset.
    const layout column = strided({4, 1}, {24, 24}, 4, 12);
    EXPECT_EQ(with_itemsize(column, 2).strides(), (extents{24, 2}));
    EXPECT_EQ(with_itemsize(column, 2).offset(), 12);
    EXPECT_EQ(with_itemsize(strided({4, 6}, {-24, 4}, 4, 72), 8).strides(), (extents{-24, 8}));
    EXPECT_EQ(with_itemsize(strided({4, 0}, {24, 8}), 8).shape(), (extents{4, 0}));
    const auto refused = [](const layout& l, std::int64_t itemsize, const std::string& message) {
        try {
            (void)with_itemsize(l, itemsize);
            ADD_FAILURE() << "accepted, expected: " << message;
        } catch (const std::invalid_argument& e) {
            EXPECT_EQ(e.what(), message);
        }
    };
    refused(a.transpose(), 8, "To change to a dtype of a different size, the last axis must be contiguous");
    refused(strided({4, 3}, {24, 8}), 8, "To change to a dtype of a different size, the last axis must be contiguous");
    refused(strided({4, 5}, {24, 4}), 8,
            "When changing to a larger dtype, its size must be a divisor of the total size in bytes of the last axis "
            "of the array.");
    refused(layout::contiguous({3}, 12), 8,
            "When changing to a smaller dtype, its size must be a divisor of the size of original dtype");
    refused(layout::contiguous({}, 4), 2,
            "Changing the dtype of a 0d array is only supported if the itemsize is unchanged");
}

TEST(Words, WidestWordAndItsLayout) {
    const layout float3s = layout::contiguous({5}, 12);
    EXPECT_EQ(word_size(float3s, 256), 4);
    EXPECT_EQ(word_size(float3s, 258), 2);
    EXPECT_EQ(word_size(layout::contiguous({5}, 16), 256), 8);
    EXPECT_EQ(word_size(strided({5, 2}, {36, 12}, 12), 0), 4);
    EXPECT_EQ(word_size(strided({5}, {-12}, 12, 48), 0), 4);
    EXPECT_EQ(word_size(strided({5}, {6}, 12), 0), 2);  // overlapping elements, but aligned so
    EXPECT_EQ(word_size(layout::contiguous({5}, 3), 0), 1);
    const layout words = as_words(strided({5, 2}, {-48, 24}, 24, 200), 8);
    EXPECT_EQ(words.shape(), (extents{5, 2, 3}));
    EXPECT_EQ(words.strides(), (extents{-48, 24, 8}));
    EXPECT_EQ(words.itemsize(), 8);
    EXPECT_EQ(words.offset(), 200);
    EXPECT_THROW(as_words(float3s, 8), logic_error);
}

// `plan` is a copy of `dimensions` dimensions with the fields of `expected`, unused ones
// included (a plan leaves them at their defaults).
void expect_plan(const std::optional<pitched_copy>& plan, int dimensions, const pitched_copy& expected) {
    ASSERT_TRUE(plan);
    EXPECT_EQ(plan->dimensions(), dimensions);
    const auto fields = [](const pitched_copy& p) {
        return std::tuple(p.width_in_bytes, p.height, p.depth, p.src_pitch, p.dst_pitch, p.src_rows_per_slice,
                          p.dst_rows_per_slice);
    };
    EXPECT_EQ(fields(*plan), fields(expected));
}

TEST(PitchedCopy, LinearWhenBothSidesAreTheSameBlock) {
    expect_plan(plan_pitched_copy(layout::contiguous({3, 4}, 4), layout::contiguous({3, 4}, 4)), 1,
                {.width_in_bytes = 48});
    EXPECT_TRUE(plan_pitched_copy(layout::contiguous({6, 4}, 4, order::f), layout::contiguous({4, 6}, 4).transpose()));
    // Permuted but equal on both sides (a transposed array and its host copy).
    const layout t = strided({5, 3, 4}, {4, 80, 20});
    expect_plan(plan_pitched_copy(t, t), 1, {.width_in_bytes = 240});
}

TEST(PitchedCopy, RowsAndSlices) {
    // a[:, :5] of a (10, 8) float64 array into a packed (10, 5) array: 10 rows of 40 bytes.
    expect_plan(plan_pitched_copy(layout::contiguous({10, 5}, 8), strided({10, 5}, {64, 8}, 8)), 2,
                {.width_in_bytes = 40, .height = 10, .src_pitch = 64, .dst_pitch = 40});
    // Every other element: rows of one element.
    expect_plan(plan_pitched_copy(layout::contiguous({6}, 4), strided({6}, {8})), 2,
                {.width_in_bytes = 4, .height = 6, .src_pitch = 8, .dst_pitch = 4});
    // a[:, :3, :2] of a (4, 5, 6) float32 array: slices of 3 rows of 8 bytes, 5 rows apart.
    expect_plan(plan_pitched_copy(layout::contiguous({4, 3, 2}, 4), strided({4, 3, 2}, {120, 24, 4})), 3,
                {.width_in_bytes = 8,
                 .height = 3,
                 .depth = 4,
                 .src_pitch = 24,
                 .dst_pitch = 8,
                 .src_rows_per_slice = 5,
                 .dst_rows_per_slice = 3});
}

TEST(PitchedCopy, RefusedLayouts) {
    const layout c = layout::contiguous({4, 6}, 4);
    // Different orders of axes, reversed and broadcast axes.
    EXPECT_EQ(plan_pitched_copy(layout::contiguous({4, 6}, 4, order::f), c), std::nullopt);
    EXPECT_EQ(plan_pitched_copy(c, strided({4, 6}, {-24, 4}, 4, 72)), std::nullopt);
    EXPECT_EQ(plan_pitched_copy(c, strided({4, 6}, {0, 4})), std::nullopt);
    // Four axes of rows, and slices not a whole number of rows apart.
    EXPECT_EQ(plan_pitched_copy(layout::contiguous({2, 2, 2, 2}, 4), strided({2, 2, 2, 2}, {256, 64, 16, 8})),
              std::nullopt);
    EXPECT_EQ(plan_pitched_copy(layout::contiguous({2, 3, 2}, 4), strided({2, 3, 2}, {100, 12, 4})), std::nullopt);
    // Nothing to copy, and layouts that do not match.
    EXPECT_EQ(plan_pitched_copy(layout::contiguous({0, 3}, 4), layout::contiguous({0, 3}, 4)), std::nullopt);
    EXPECT_THROW(plan_pitched_copy(layout::contiguous({3}, 4), layout::contiguous({4}, 4)), logic_error);
    EXPECT_THROW(plan_pitched_copy(layout::contiguous({3}, 4), layout::contiguous({3}, 8)), logic_error);
}

TEST(Views, OverlapsDifferentlyWhenSharedBytesAreOtherElements) {
    const layout row = layout::contiguous({8}, 4);
    const CUdeviceptr base = 1 << 20;
    // The same elements: no race, whatever reads and writes them.
    EXPECT_FALSE(overlaps_differently(base, row, base, row));
    // Read as another type, the same bytes are other elements.
    EXPECT_TRUE(overlaps_differently(base, row, base, row, true));
    // Disjoint memory, and empty arrays, never overlap.
    EXPECT_FALSE(overlaps_differently(base, row, base + 32, row));
    EXPECT_FALSE(overlaps_differently(base, layout::contiguous({0}, 4), base, row));
    // Shifted by one element, reversed, or every other element: shared bytes, other elements.
    EXPECT_TRUE(overlaps_differently(base, row, base + 4, row));
    EXPECT_TRUE(overlaps_differently(base, row, base, row.index({slice{{}, {}, -1}})));
    EXPECT_TRUE(overlaps_differently(base, row.index({slice{{}, {}, 2}}), base, row.index({slice{{}, 4, {}}})));
    // The same elements through an offset.
    const layout tail = row.index({slice{2, {}, {}}});  // offset 8, 6 elements
    EXPECT_FALSE(overlaps_differently(base, tail, base, tail));
    EXPECT_TRUE(overlaps_differently(base, tail, base, row));
}

}  // namespace
