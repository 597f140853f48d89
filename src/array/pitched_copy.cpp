#include "gpukit/array/pitched_copy.hpp"

#include "gpukit/core/error.hpp"
#include "gpukit/cuda/copy.hpp"
#include "gpukit/cuda/structured_copy.hpp"

#include <algorithm>
#include <vector>

namespace gpukit::array {

namespace {

struct axis {
    std::int64_t src_stride, dst_stride, extent;
};

// One side of a 2-D or 3-D copy: its region is exactly the bytes the copy touches.
cuda::copy_location location(const copy_side& side, const pitched_copy& plan, std::size_t pitch,
                             std::size_t rows_per_slice) {
    const std::size_t rows = (plan.depth - 1) * rows_per_slice + plan.height;
    const std::size_t bytes = (rows - 1) * pitch + plan.width_in_bytes;
    cuda::copy_location at;
    if (side.on_host)
        at.set_host(side.host, bytes);
    else
        at.set_device(cuda::device_pointer(side.device, bytes));
    at.pitch = pitch;
    at.height = rows_per_slice;
    return at;
}

void linear_copy(const copy_side& dst, const copy_side& src, std::size_t bytes, bool async, cuda::stream_view s) {
    if (dst.on_host && src.on_host)
        throw logic_error("run_pitched_copy: both sides are host memory");
    if (src.on_host) {
        if (async)
            cuda::memcpy_htod_async(dst.device, src.host, bytes, s);
        else
            cuda::memcpy_htod(dst.device, src.host, bytes);
    } else if (dst.on_host) {
        if (async)
            cuda::memcpy_dtoh_async(const_cast<void*>(dst.host), src.device, bytes, s);
        else
            cuda::memcpy_dtoh(const_cast<void*>(dst.host), src.device, bytes);
    } else if (async) {
        cuda::memcpy_dtod_async(dst.device, src.device, bytes, s);
    } else {
        cuda::memcpy_dtod(dst.device, src.device, bytes);
    }
}

}  // namespace

std::optional<pitched_copy> plan_pitched_copy(const gpukit::layout& dst, const gpukit::layout& src) {
    if (dst.shape() != src.shape() || dst.itemsize() != src.itemsize())
        throw logic_error("plan_pitched_copy: the layouts differ (" + dst.describe() + " and " + src.describe() + ")");
    if (src.size() == 0)
        return std::nullopt;
    const std::int64_t itemsize = src.itemsize();
    std::vector<axis> axes;
    for (int k = 0; k < src.ndim(); ++k) {
        if (src.shape()[k] == 1)
            continue;
        if (src.strides()[k] <= 0 || dst.strides()[k] <= 0)
            return std::nullopt;
        axes.push_back({src.strides()[k], dst.strides()[k], src.shape()[k]});
    }
    // Innermost first; both sides must step through the axes in the same order.
    std::sort(axes.begin(), axes.end(), [](const axis& a, const axis& b) { return a.src_stride < b.src_stride; });
    for (std::size_t k = 1; k < axes.size(); ++k)
        if (axes[k].src_stride <= axes[k - 1].src_stride || axes[k].dst_stride <= axes[k - 1].dst_stride)
            return std::nullopt;
    // Axes contiguous with the one inside them on both sides are one axis.
    std::vector<axis> joined;
    for (const axis& a : axes) {
        if (!joined.empty()) {
            axis& inner = joined.back();
            if (a.src_stride == inner.src_stride * inner.extent && a.dst_stride == inner.dst_stride * inner.extent) {
                inner.extent *= a.extent;
                continue;
            }
        }
        joined.push_back(a);
    }
    pitched_copy plan;
    plan.width_in_bytes = static_cast<std::size_t>(itemsize);
    std::size_t first_row_axis = 0;
    if (!joined.empty() && joined[0].src_stride == itemsize && joined[0].dst_stride == itemsize) {
        plan.width_in_bytes = static_cast<std::size_t>(itemsize * joined[0].extent);
        first_row_axis = 1;
    }
    const std::size_t row_axes = joined.size() - first_row_axis;
    if (row_axes > 2)
        return std::nullopt;
    if (row_axes >= 1) {
        const axis& rows = joined[first_row_axis];
        plan.height = static_cast<std::size_t>(rows.extent);
        plan.src_pitch = static_cast<std::size_t>(rows.src_stride);
        plan.dst_pitch = static_cast<std::size_t>(rows.dst_stride);
        if (plan.src_pitch < plan.width_in_bytes || plan.dst_pitch < plan.width_in_bytes)
            return std::nullopt;  // rows that overlap
    }
    if (row_axes == 2) {
        const axis& slices = joined[first_row_axis + 1];
        const axis& rows = joined[first_row_axis];
        if (slices.src_stride % rows.src_stride != 0 || slices.dst_stride % rows.dst_stride != 0)
            return std::nullopt;
        plan.depth = static_cast<std::size_t>(slices.extent);
        plan.src_rows_per_slice = static_cast<std::size_t>(slices.src_stride / rows.src_stride);
        plan.dst_rows_per_slice = static_cast<std::size_t>(slices.dst_stride / rows.dst_stride);
        if (plan.src_rows_per_slice < plan.height || plan.dst_rows_per_slice < plan.height)
            return std::nullopt;  // slices that overlap
    }
    return plan;
}

void run_pitched_copy(const pitched_copy& plan, const copy_side& dst, const copy_side& src, bool async,
                      cuda::stream_view s) {
    switch (plan.dimensions()) {
    case 1:
        linear_copy(dst, src, plan.width_in_bytes, async, s);
        return;
    case 2: {
        const cuda::copy_location from = location(src, plan, plan.src_pitch, 0),
                                  to = location(dst, plan, plan.dst_pitch, 0);
        const cuda::copy_extent extent{plan.width_in_bytes, plan.height, 1};
        if (async)
            cuda::memcpy_2d_async(from, to, extent, s);
        else
            cuda::memcpy_2d(from, to, extent, false);
        return;
    }
    default: {
        const cuda::copy_location from = location(src, plan, plan.src_pitch, plan.src_rows_per_slice),
                                  to = location(dst, plan, plan.dst_pitch, plan.dst_rows_per_slice);
        const cuda::copy_extent extent{plan.width_in_bytes, plan.height, plan.depth};
        if (async)
            cuda::memcpy_3d_async(from, to, extent, s);
        else
            cuda::memcpy_3d(from, to, extent);
    }
    }
}

}  // namespace gpukit::array
