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
    EXPECT_EQ(every_other.reshape({2, 2, 3}).strides(), (V{48, 24, 8}));  // splitting an axis is a view
    layout reversed = a.index({slice{std::nullopt, std::nullopt, -1}});   // a[::-1]
    EXPECT_EQ(reversed.offset(), 72);
    EXPECT_EQ(reversed.strides(), (V{-24, 4}));
    EXPECT_EQ(a.reshape({-1, 8}).shape(), (V{3, 8}));
    EXPECT_EQ(layout::contiguous({4, 6}, 4, order::f).reshape({6, 4}, order::f).strides(), (V{4, 24}));
    EXPECT_THROW(a.reshape({6, 4}, order::f), gpukit::logic_error);  // a C array read in F order: a copy
    EXPECT_THROW(a.reshape({5, 5}), gpukit::logic_error);
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
    EXPECT_THROW(a.split(4, 2), gpukit::logic_error);
    EXPECT_THROW(a.squeeze({0}), gpukit::logic_error);
    EXPECT_THROW(a.transpose({0, 0, 1}), gpukit::logic_error);
    EXPECT_THROW(layout({2}, {4}, 0), gpukit::logic_error);
}

}  // namespace
