// Prefix scans (PyCUDA's InclusiveScanKernel and ExclusiveScanKernel): out[i] is the
// combination, by an associative operator, of in[0] .. in[i] (inclusive) or of in[0] ..
// in[i-1] (exclusive, out[0] being the neutral element).
//
// The element type is any type CUDA C names (a built-in or vector type, or a struct the
// preamble declares) of a given size; the operator is a C expression of two elements `a`
// (the earlier) and `b` (the later). It must be associative, not commutative: elements are
// always combined in their order.
//
// One kernel, one pass (Merrill & Garland's decoupled look-back): each block scans one tile
// of consecutive elements in registers (16-byte loads where the arrays allow), publishes
// its tile's total, finds the total of everything before its tile from the totals its
// predecessors published, and writes its outputs. Each element is read once and written
// once. A scan of one tile (4096 float32, for instance) is one block and needs no state
// beyond the launch; longer ones use the look-back state of their context (see scan()).
#pragma once

#include "gpukit/cuda/stream.hpp"
#include "gpukit/rtc/compiler.hpp"

#include <cuda.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace gpukit::array {

// Whether out[i] combines in[0] .. in[i] (inclusive) or in[0] .. in[i-1] (exclusive).
enum class scan_kind { inclusive, exclusive };

// A scan's description, checked once when made and never changed after; its compiled
// kernels are found by key() (a number taken when the spec is made), never by source text.
class scan_spec {
public:
    // kind:        inclusive or exclusive.
    // c_type:      the element type in CUDA C ("float", "float2", "struct pair", ...);
    //              the generated kernel calls it scan_type.
    // item_size:   its size in bytes, that of the arrays' elements (the kernel checks that
    //              sizeof(c_type) agrees with a static_assert).
    // scan_expr:   a C expression of scan_type combining `a` (earlier) and `b` (later),
    //              associative; `across_seg_boundary` (always false) is defined, as in PyCUDA.
    // neutral:     a C expression of scan_type, the element `a` combines with to give `a`;
    //              required for exclusive scans (out[0]), optional for inclusive ones (then
    //              only compiled, so a wrong one is still reported).
    // name_prefix: a C identifier; the kernel is name_prefix + "_tiles".
    // preamble:    CUDA C placed before the kernel (the element type, helper functions).
    // compile:     how to compile (nvcc options, include directories, compiler, architecture);
    //              its source is ignored. cache_dir: the compilation cache (nullopt: none).
    // logic_error for an empty (or blank) expression, a missing neutral, a name that is not a
    // C identifier, an item size of 0, or an empty C type; std::invalid_argument for text or
    // compile settings holding a NUL character (core/c_text.hpp).
    scan_spec(scan_kind kind, std::string c_type, std::size_t item_size, std::string scan_expr,
              std::optional<std::string> neutral, std::string name_prefix = "scan", std::string preamble = {},
              rtc::compile_request compile = {}, std::optional<std::filesystem::path> cache_dir = std::nullopt);

    // Inclusive or exclusive.
    scan_kind kind() const noexcept { return kind_; }
    // The element type in CUDA C, as given.
    const std::string& c_type() const noexcept { return c_type_; }
    // The element's size in bytes.
    std::size_t item_size() const noexcept { return item_size_; }
    // The expression combining `a` (earlier) and `b` (later).
    const std::string& scan_expr() const noexcept { return scan_expr_; }
    // The expression of the neutral element; nullopt when none was given (inclusive scans only).
    const std::optional<std::string>& neutral() const noexcept { return neutral_; }
    // The prefix of the kernel's name.
    const std::string& name_prefix() const noexcept { return name_prefix_; }
    // The CUDA C placed before the kernel; may be empty.
    const std::string& preamble() const noexcept { return preamble_; }
    // How the kernel is compiled (its source is ignored).
    const rtc::compile_request& compile() const noexcept { return compile_; }
    // The compilation cache's directory; nullopt: no disk cache.
    const std::optional<std::filesystem::path>& cache_dir() const noexcept { return cache_dir_; }
    // The kernel's name: name_prefix + "_tiles".
    const std::string& kernel_name() const noexcept { return kernel_name_; }
    // Unique to this spec for the life of the process (see src/array/kernel_cache.hpp).
    std::uint64_t key() const noexcept { return key_; }

private:
    scan_kind kind_;
    std::string c_type_;
    std::size_t item_size_;
    std::string scan_expr_;
    std::optional<std::string> neutral_;
    std::string name_prefix_;
    std::string preamble_;
    rtc::compile_request compile_;
    std::optional<std::filesystem::path> cache_dir_;
    std::string kernel_name_;
    std::uint64_t key_;
};

// vectorized: both arrays contiguous and 16-byte aligned, and the item size divides 16:
// each thread moves 16-byte words. strided: anything else (misaligned or strided views,
// negative strides); one element at a time.
enum class scan_variant { vectorized, strided };

// Threads per block of the scan kernel; a block scans one tile.
inline constexpr int scan_threads = 512;
// How a tile is laid out: each of the scan_threads threads of a block holds `chunks` groups
// of `per_group` consecutive elements (per_group * item_size = 16 bytes where the item size
// divides 16, else 1 element); a warp's 32 threads take 32 consecutive groups at a time.
struct scan_tile_shape {
    int per_group;                        // consecutive elements per group
    int chunks;                           // groups per thread
    std::int64_t items() const noexcept;  // per tile: scan_threads * chunks * per_group
};
// The tile layout for elements of `item_size` bytes: about 256 bytes per thread, at most 64
// elements and 16 chunks.
scan_tile_shape scan_tile_shape_of(std::size_t item_size) noexcept;

// The CUDA C of `variant`: one kernel, spec.kernel_name().
std::string scan_source(const scan_spec& spec, scan_variant variant);

// A one-dimensional array: element k at data + k * stride (bytes; negative for reversed
// views, 0 repeats one element).
struct scan_operand {
    CUdeviceptr data;     // the address of element 0
    std::int64_t stride;  // bytes from one element to the next
};

// Scans the `n` elements of `in` into `out` on `s`. out may be in itself (same data and
// stride: in place); an out that shares bytes with in otherwise is written from a copy of
// in (from the context's default pool), as if in had been read first. logic_error for a
// negative n, an output stride of 0 (n > 1), or an address or stride that is not a multiple
// of the element's alignment (the largest power of two dividing its size, at most 16).
//
// A scan of more than one tile uses its context's look-back state: one buffer of per-tile
// flags and totals, kept by the context (made or grown when needed), which these scans use
// one after the other. A scan on another stream than the previous one therefore waits for
// it (on the GPU, not the host), and growing the buffer waits on the host for the scans
// still using the old one. Each scan marks its flags with a number of its own, so the
// buffer is never cleared between scans. Such a scan cannot be captured into a CUDA graph
// (a replay would find its own flags from the last replay): logic_error while `s` captures.
void scan(const scan_spec& spec, scan_operand in, scan_operand out, std::int64_t n, cuda::stream_view s = {});

}  // namespace gpukit::array
