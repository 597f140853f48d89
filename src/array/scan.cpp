#include "gpukit/array/scan.hpp"

#include "kernel_cache.hpp"
#include "kernel_text.hpp"
#include "scan_state.hpp"

#include "gpukit/core/c_text.hpp"
#include "gpukit/core/checked.hpp"
#include "gpukit/core/error.hpp"
#include "gpukit/core/text.hpp"
#include "gpukit/cuda/copy.hpp"
#include "gpukit/cuda/default_pool.hpp"
#include "gpukit/cuda/launch.hpp"

#include <algorithm>
#include <functional>

namespace gpukit::array {

scan_spec::scan_spec(scan_kind kind, std::string c_type, std::size_t item_size, std::string scan_expr,
                     std::optional<std::string> neutral, std::string name_prefix, std::string preamble,
                     rtc::compile_request compile, std::optional<std::filesystem::path> cache_dir)
    : kind_(kind), c_type_(std::move(c_type)), item_size_(item_size), scan_expr_(std::move(scan_expr)),
      neutral_(std::move(neutral)), name_prefix_(std::move(name_prefix)), preamble_(std::move(preamble)),
      compile_(std::move(compile)), cache_dir_(std::move(cache_dir)), kernel_name_(name_prefix_ + "_tiles"),
      key_(detail::new_kernel_key()) {
    detail::require_name_prefix(name_prefix_, "scan: name_prefix ");
    const std::string where = "scan kernel " + kernel_name_ + ": ";
    if (c_type_.empty())
        throw logic_error(where + "the element's C type is empty");
    if (item_size_ == 0)
        throw logic_error(where + "the element size must be at least 1 byte");
    // Blank expressions too: the kernel would only fail to compile at its first launch.
    if (split_words(scan_expr_).empty())
        throw logic_error(where + "the scan expression is empty");
    if (neutral_ && split_words(*neutral_).empty())
        throw logic_error(where + "the neutral element is an empty expression");
    if (kind_ == scan_kind::exclusive && !neutral_)
        throw logic_error(where + "an exclusive scan needs the neutral element (its first output)");
    // What goes into the source, and the compiler settings, are checked now rather than when
    // the first launch compiles them.
    require_c_string(c_type_, "the element type");
    require_c_string(scan_expr_, "scan_expr");
    require_c_string(neutral_.value_or(""), "neutral");
    require_c_string(preamble_, "preamble");
    rtc::require_c_strings(compile_);
}

std::int64_t scan_tile_shape::items() const noexcept {
    return static_cast<std::int64_t>(scan_threads) * chunks * per_group;
}

scan_tile_shape scan_tile_shape_of(std::size_t item_size) noexcept {
    // A group is one 16-byte word where the size divides 16. A thread holds about 256 bytes,
    // at most 64 elements and 128 bytes of per-chunk totals (registers: a block of 512
    // threads may use 128 a thread), and at most 16 chunks (each costs a warp scan). Fewer,
    // bigger tiles pay for fewer look-backs: on the H100, float32 sums of 2^26 elements ran
    // at 1790 GB/s with 256 threads of 128 bytes and 2490 GB/s with 512 threads of 256 bytes
    // (copy: 2900); docs/performance.md has the other shapes tried.
    const std::size_t per_group = 16 % item_size == 0 ? 16 / item_size : 1;
    const std::size_t group_bytes = per_group * item_size;
    const std::size_t chunks = std::min({256 / group_bytes, 64 / per_group, 128 / item_size});
    return {static_cast<int>(per_group), static_cast<int>(std::clamp<std::size_t>(chunks, 1, 16))};
}

namespace {

// Blocks one launch may have (the grid's x limit of every device gpukit runs on).
constexpr std::int64_t max_blocks = 2147483647;

// The largest power of two dividing the element's size, at most 16: C sizes are multiples
// of the alignment, so arrays of the type are aligned at least this much.
std::int64_t alignment_of(std::size_t item_size) {
    return std::min<std::int64_t>(16, static_cast<std::int64_t>(item_size & (~item_size + 1)));
}

// A logic_error naming the spec's kernel; the text is made only when refusing.
[[noreturn]] void refuse(const scan_spec& spec, const std::string& why) {
    throw logic_error("scan kernel " + spec.kernel_name() + ": " + why);
}

// The bytes [first, end) the `n` elements of `a` occupy.
struct byte_range {
    std::int64_t first, end;
};

byte_range bytes_of(const scan_spec& spec, const scan_operand& a, std::int64_t n) {
    const std::optional<std::int64_t> span = checked_mul<std::int64_t>(n - 1, a.stride);
    const auto base = static_cast<std::int64_t>(a.data);
    const std::optional<std::int64_t> low = span ? checked_add(base, std::min<std::int64_t>(*span, 0)) : std::nullopt;
    const std::optional<std::int64_t> high =
        span ? checked_add(base, std::max<std::int64_t>(*span, 0) + static_cast<std::int64_t>(spec.item_size()))
             : std::nullopt;
    if (!low || !high)
        refuse(spec, "the array's " + std::to_string(n) + " elements " + std::to_string(a.stride) +
                         " bytes apart do not fit in the address space");
    return {*low, *high};
}

void check_operands(const scan_spec& spec, const scan_operand& in, const scan_operand& out, std::int64_t n) {
    if (n < 0)
        refuse(spec, "the element count must not be negative, got " + std::to_string(n));
    if (n == 0)
        return;
    const std::int64_t alignment = alignment_of(spec.item_size());
    for (const auto& [a, name] : {std::pair{in, "input"}, std::pair{out, "output"}})
        if (a.data % static_cast<CUdeviceptr>(alignment) != 0 || a.stride % alignment != 0)
            refuse(spec, std::string("the ") + name + " array (address " + std::to_string(a.data) + ", stride " +
                             std::to_string(a.stride) + ") is not aligned to " + std::to_string(alignment) +
                             " bytes, as elements of " + std::to_string(spec.item_size()) + " bytes must be");
    if (out.stride == 0 && n > 1)
        refuse(spec, "the output has stride 0: its elements would all be one");
}

bool is_vectorized(const scan_spec& spec, const scan_operand& in, const scan_operand& out) {
    const auto size = static_cast<std::int64_t>(spec.item_size());
    return 16 % size == 0 && in.stride == size && out.stride == size && in.data % 16 == 0 && out.data % 16 == 0;
}

}  // namespace

void scan(const scan_spec& spec, scan_operand in, scan_operand out, std::int64_t n, cuda::stream_view s) {
    check_operands(spec, in, out, n);
    if (n == 0)
        return;
    // An output that shares bytes with the input without being it (in place is safe: each
    // thread reads its elements before it writes them) is written from a copy of the input,
    // the bytes it spans in one copy, as if the input had been read first.
    const byte_range read = bytes_of(spec, in, n), written = bytes_of(spec, out, n);
    const bool in_place = in.data == out.data && in.stride == out.stride;
    cuda::pooled_device_memory input_copy;
    if (!in_place && read.first < written.end && written.first < read.end) {
        const auto bytes = static_cast<std::size_t>(read.end - read.first);
        input_copy = cuda::allocate_from_default_pool(bytes);
        const CUdeviceptr copy = input_copy.block.pointer();
        cuda::memcpy_dtod_async(copy, static_cast<CUdeviceptr>(read.first), bytes, s);
        in.data = copy + (in.data - static_cast<CUdeviceptr>(read.first));
    }
    const scan_variant variant = is_vectorized(spec, in, out) ? scan_variant::vectorized : scan_variant::strided;
    const detail::cached_kernel k = detail::kernel(
        spec.key() + static_cast<std::uint64_t>(variant), spec.kernel_name(),
        [&] { return scan_source(spec, variant); }, spec.compile(), spec.cache_dir());
    const std::int64_t tile_items = scan_tile_shape_of(spec.item_size()).items();
    const std::int64_t tiles = n / tile_items + (n % tile_items != 0);
    const CUdeviceptr in_data = in.data, out_data = out.data;
    const long long in_stride = in.stride, out_stride = out.stride, count = n;
    // Tiles [first, first + blocks) in one launch; a tile's look-back may reach into the
    // launches before it, which have finished.
    const auto launch_tiles = [&](long long first, std::int64_t blocks, CUdeviceptr flags, CUdeviceptr totals,
                                  unsigned long long epoch) {
        const auto config = cuda::launch_config()
                                .grid({static_cast<unsigned>(blocks)})
                                .block({static_cast<unsigned>(scan_threads)})
                                .stream(s);
        cuda::launch(*k.function, config, in_data, in_stride, out_data, out_stride, count, first, flags, totals, epoch);
    };
    if (tiles == 1) {
        launch_tiles(0, 1, 0, 0, 0);  // no look-back: no state
        return;
    }
    const std::size_t total_words = (spec.item_size() + 3) / 4;
    detail::with_scan_state(tiles, total_words, s, [&](const detail::scan_state& state) {
        for (std::int64_t first = 0; first < tiles; first += max_blocks)
            launch_tiles(first, std::min(max_blocks, tiles - first), state.flags, state.totals, state.epoch);
    });
}

}  // namespace gpukit::array
