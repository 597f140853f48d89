// The CUDA C of a scan_spec: one kernel that scans tiles, with decoupled look-back between
// them (array/scan.hpp).
#include "gpukit/array/scan.hpp"

#include "gpukit/core/text.hpp"

namespace gpukit::array {

namespace {

// What every scan kernel shares, after the element type, its operator and the tile's
// constants (gk_threads, gk_warps, gk_per_group, gk_chunks, and GK_SCAN_VECTORIZED, 1 when
// whole tiles move 16-byte words) are declared.
//
// A tile is gk_threads * gk_chunks * gk_per_group consecutive elements; warp w holds the w-th
// share of it. In chunk c, lane l of a warp holds the gk_per_group consecutive elements of
// group c * 32 + l: a warp moves 32 consecutive groups (512 bytes when a group is a 16-byte
// word) with one load or store instruction.
//
// The look-back state of a scan with more than one tile (null for one tile): per tile, a
// 64-bit flag and two totals of gk_words words each, the tile's own (its "aggregate") and
// the combination of every element up to its end (its "inclusive prefix"). A flag holds
// epoch * 4 + 1 once the aggregate is written, epoch * 4 + 2 once the inclusive prefix is;
// the epoch is new for every scan, so flags left by earlier scans mean nothing.
const char* const kernel_body = R"(
constexpr long long gk_warp_items = 32LL * gk_chunks * gk_per_group;
constexpr long long gk_tile_items = gk_warp_items * gk_warps;
constexpr int gk_words = (int)((sizeof(scan_type) + 3) / 4);

// An element's bytes as 32-bit words: what shuffles and the look-back state move.
struct gk_words_of {
    unsigned w[gk_words];
};
__device__ __forceinline__ gk_words_of gk_to_words(const scan_type& v) {
    gk_words_of r = {};
    memcpy(r.w, &v, sizeof(scan_type));
    return r;
}
__device__ __forceinline__ scan_type gk_from_words(const gk_words_of& r) {
    scan_type v;
    memcpy(&v, r.w, sizeof(scan_type));
    return v;
}
__device__ __forceinline__ scan_type gk_shfl_up(const scan_type& v, int delta) {
    gk_words_of r = gk_to_words(v);
#pragma unroll
    for (int k = 0; k < gk_words; ++k) r.w[k] = __shfl_up_sync(0xffffffffu, r.w[k], delta);
    return gk_from_words(r);
}
__device__ __forceinline__ scan_type gk_shfl_down(const scan_type& v, int delta) {
    gk_words_of r = gk_to_words(v);
#pragma unroll
    for (int k = 0; k < gk_words; ++k) r.w[k] = __shfl_down_sync(0xffffffffu, r.w[k], delta);
    return gk_from_words(r);
}
__device__ __forceinline__ scan_type gk_shfl_idx(const scan_type& v, int lane) {
    gk_words_of r = gk_to_words(v);
#pragma unroll
    for (int k = 0; k < gk_words; ++k) r.w[k] = __shfl_sync(0xffffffffu, r.w[k], lane);
    return gk_from_words(r);
}

// ---- loading and storing this thread's elements of a tile

__device__ __forceinline__ scan_type gk_load(const char* base, long long stride, long long i) {
    return *reinterpret_cast<const scan_type*>(base + i * stride);
}
__device__ __forceinline__ void gk_store(char* base, long long stride, long long i, const scan_type& v) {
    *reinterpret_cast<scan_type*>(base + i * stride) = v;
}
// The first element of group `c * 32 + lane` of the warp whose elements start at `first`.
__device__ __forceinline__ long long gk_group_start(long long first, int c, int lane) {
    return first + (long long)(c * 32 + lane) * gk_per_group;
}

// `whole`: the tile lies inside the array. Past the end of the last tile each element is a
// copy of the last one: it only ever meets later positions, which are not written, and it
// keeps the operator within the values it is given.
__device__ __forceinline__ void gk_load_tile(scan_type (&v)[gk_chunks][gk_per_group], const char* in,
                                             long long stride, long long n, long long first, int lane, bool whole) {
#if GK_SCAN_VECTORIZED
    if (whole) {
#pragma unroll
        for (int c = 0; c < gk_chunks; ++c) {
            const uint4 word = __ldcs(reinterpret_cast<const uint4*>(in + gk_group_start(first, c, lane) * stride));
            memcpy(v[c], &word, sizeof(word));
        }
        return;
    }
#endif
    scan_type last;
    if (!whole) last = gk_load(in, stride, n - 1);
#pragma unroll
    for (int c = 0; c < gk_chunks; ++c)
#pragma unroll
        for (int j = 0; j < gk_per_group; ++j) {
            const long long i = gk_group_start(first, c, lane) + j;
            v[c][j] = whole || i < n ? gk_load(in, stride, i) : last;
        }
}
__device__ __forceinline__ void gk_store_tile(const scan_type (&v)[gk_chunks][gk_per_group], char* out,
                                              long long stride, long long n, long long first, int lane, bool whole) {
#if GK_SCAN_VECTORIZED
    if (whole) {
#pragma unroll
        for (int c = 0; c < gk_chunks; ++c) {
            uint4 word;
            memcpy(&word, v[c], sizeof(word));
            __stcs(reinterpret_cast<uint4*>(out + gk_group_start(first, c, lane) * stride), word);
        }
        return;
    }
#endif
#pragma unroll
    for (int c = 0; c < gk_chunks; ++c)
#pragma unroll
        for (int j = 0; j < gk_per_group; ++j) {
            const long long i = gk_group_start(first, c, lane) + j;
            if (whole || i < n) gk_store(out, stride, i, v[c][j]);
        }
}

// ---- the look-back between tiles

// Writes total `slot` (0: the tile's aggregate, 1: its inclusive prefix) of `tile`, then its
// flag: the fence orders the two for every reader that sees the flag.
__device__ __forceinline__ void gk_publish(unsigned long long* flags, unsigned* totals, long long tile, int slot,
                                           unsigned long long epoch, const scan_type& v) {
    const gk_words_of r = gk_to_words(v);
    unsigned* to = totals + (tile * 2 + slot) * gk_words;
#pragma unroll
    for (int k = 0; k < gk_words; ++k) to[k] = r.w[k];
    __threadfence();
    *reinterpret_cast<volatile unsigned long long*>(flags + tile) = epoch * 4 + 1 + slot;
}
__device__ __forceinline__ gk_words_of gk_read_total(const unsigned* totals, long long tile, int slot) {
    gk_words_of r;
#pragma unroll
    for (int k = 0; k < gk_words; ++k) r.w[k] = __ldcg(totals + (tile * 2 + slot) * gk_words + k);
    return r;
}
// A predecessor usually publishes within a few polls, and sleeping then only delays the
// chain of tiles (H100: 3% slower with a sleep from the first poll); one that takes long
// is polled less often.
__device__ __forceinline__ void gk_pause(unsigned spins) {
#if __CUDA_ARCH__ >= 700
    if (spins >= 16) __nanosleep(32u << (spins < 21 ? spins - 16 : 5));
#endif
}

// The combination of every element before `tile` (> 0), for all lanes of warp 0. The warp
// looks at 32 predecessors at once, lane l at tile newest - l, and waits until those up to
// the nearest one with an inclusive prefix have published something; it combines them
// oldest first, and goes on to the 32 before them when none had an inclusive prefix.
__device__ scan_type gk_look_back(const unsigned long long* flags, const unsigned* totals, long long tile,
                                  unsigned long long epoch, int lane) {
    const unsigned long long aggregate = epoch * 4 + 1, inclusive = epoch * 4 + 2;
    scan_type prefix;
    bool have = false;
    for (long long newest = tile - 1;; newest -= 32) {
        const long long t = newest - lane;  // higher lanes hold earlier tiles; t < 0: no tile
        unsigned long long flag = 0;
        unsigned inclusive_lanes;
        int last;  // the highest lane needed: the first with an inclusive prefix, else 31
        for (unsigned spins = 0;; ++spins) {
            if (t >= 0) flag = *reinterpret_cast<const volatile unsigned long long*>(flags + t);
            inclusive_lanes = __ballot_sync(0xffffffffu, t >= 0 && flag == inclusive);
            const unsigned waiting = __ballot_sync(0xffffffffu, t >= 0 && flag != inclusive && flag != aggregate);
            last = inclusive_lanes ? __ffs(inclusive_lanes) - 1 : 31;
            if ((waiting & ((2u << last) - 1u)) == 0) break;
            gk_pause(spins);
        }
        __threadfence();  // the totals were written before the flags announcing them
        gk_words_of words = {};
        if (lane <= last) words = gk_read_total(totals, t, flag == inclusive ? 1 : 0);
        scan_type value = gk_from_words(words);
        // Lane l takes the combination of lanes l+1.. on its left: lane 0 ends with lanes
        // last..0, oldest first.
#pragma unroll
        for (int d = 1; d < 32; d <<= 1) {
            const scan_type earlier = gk_shfl_down(value, d);
            if (lane + d <= last) value = gk_scan_op(earlier, value);
        }
        value = gk_shfl_idx(value, 0);
        prefix = have ? gk_scan_op(value, prefix) : value;
        have = true;
        if (inclusive_lanes) return prefix;
    }
}
)";

// The kernel's opening: parameters, loading, the scans inside the tile and the look-back,
// up to where each thread holds its warp's prefix (`prefix`, valid when `have`).
const char* const kernel_start = R"((
    const char* gk_in, long long gk_in_stride, char* gk_out, long long gk_out_stride, long long gk_n,
    long long gk_first_tile, unsigned long long* gk_flags, unsigned* gk_totals, unsigned long long gk_epoch) {
    __shared__ gk_words_of gk_shared[gk_warps + 1];  // each warp's total, then the tile's prefix
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const long long tile = gk_first_tile + blockIdx.x;
    const long long tile_first = tile * gk_tile_items;
    const long long warp_first = tile_first + warp * gk_warp_items;
    const bool whole = tile_first + gk_tile_items <= gk_n;

    scan_type v[gk_chunks][gk_per_group];
    gk_load_tile(v, gk_in, gk_in_stride, gk_n, warp_first, lane, whole);

    // Each group's inclusive scan, then each chunk's across the warp. Only the combination
    // of the chunk's groups up to this lane's is kept (lane 31 holds the chunk's total): the
    // outputs shuffle the rest out of it, which needs half the registers of keeping both.
    scan_type lane_inclusive[gk_chunks];
#pragma unroll
    for (int c = 0; c < gk_chunks; ++c) {
#pragma unroll
        for (int j = 1; j < gk_per_group; ++j) v[c][j] = gk_scan_op(v[c][j - 1], v[c][j]);
        scan_type x = v[c][gk_per_group - 1];
#pragma unroll
        for (int d = 1; d < 32; d <<= 1) {
            const scan_type earlier = gk_shfl_up(x, d);
            if (lane >= d) x = gk_scan_op(earlier, x);
        }
        lane_inclusive[c] = x;
    }
    if (lane == 31) {
        scan_type warp_total = lane_inclusive[0];
#pragma unroll
        for (int c = 1; c < gk_chunks; ++c) warp_total = gk_scan_op(warp_total, lane_inclusive[c]);
        gk_shared[warp] = gk_to_words(warp_total);
    }
    __syncthreads();

    // Warp 0 publishes the tile's total and finds the tile's prefix.
    if (warp == 0) {
        scan_type tile_total = gk_from_words(gk_shared[0]);
        for (int w = 1; w < gk_warps; ++w) tile_total = gk_scan_op(tile_total, gk_from_words(gk_shared[w]));
        if (tile == 0) {
            if (gk_flags && lane == 0) gk_publish(gk_flags, gk_totals, tile, 1, gk_epoch, tile_total);
        } else {
            if (lane == 0) gk_publish(gk_flags, gk_totals, tile, 0, gk_epoch, tile_total);
            const scan_type tile_prefix = gk_look_back(gk_flags, gk_totals, tile, gk_epoch, lane);
            if (lane == 0) {
                gk_publish(gk_flags, gk_totals, tile, 1, gk_epoch, gk_scan_op(tile_prefix, tile_total));
                gk_shared[gk_warps] = gk_to_words(tile_prefix);
            }
        }
    }
    __syncthreads();

    // This warp's prefix: the tile's, then the earlier warps' totals.
    scan_type prefix;
    bool have = tile > 0;
    if (have) prefix = gk_from_words(gk_shared[gk_warps]);
    for (int w = 0; w < warp; ++w) {
        const scan_type total = gk_from_words(gk_shared[w]);
        prefix = have ? gk_scan_op(prefix, total) : total;
        have = true;
    }

    // Each chunk: the prefix of this lane's group (p, valid when has), then the outputs.
#pragma unroll
    for (int c = 0; c < gk_chunks; ++c) {
        const scan_type lane_prefix = gk_shfl_up(lane_inclusive[c], 1);  // the groups before this lane's
        const scan_type chunk_total = gk_shfl_idx(lane_inclusive[c], 31);
        scan_type p = prefix;
        bool has = have;
        if (lane > 0) {
            p = has ? gk_scan_op(prefix, lane_prefix) : lane_prefix;
            has = true;
        }
)";

// The outputs of chunk c from its group's inclusive scan v[c] and its prefix p.
const char* const inclusive_outputs = R"(
#pragma unroll
        for (int j = 0; j < gk_per_group; ++j)
            if (has) v[c][j] = gk_scan_op(p, v[c][j]);
)";
const char* const exclusive_outputs = R"(
#pragma unroll
        for (int j = gk_per_group - 1; j > 0; --j) v[c][j] = has ? gk_scan_op(p, v[c][j - 1]) : v[c][j - 1];
        v[c][0] = has ? p : gk_neutral();
)";

const char* const kernel_end = R"(
        prefix = have ? gk_scan_op(prefix, chunk_total) : chunk_total;
        have = true;
    }
    gk_store_tile(v, gk_out, gk_out_stride, gk_n, warp_first, lane, whole);
}
)";

}  // namespace

std::string scan_source(const scan_spec& spec, scan_variant variant) {
    const scan_tile_shape shape = scan_tile_shape_of(spec.item_size());
    text_builder s;
    s << spec.preamble() << "\n\n"
      << "typedef " << spec.c_type() << " scan_type;\n"
      << "static_assert(sizeof(scan_type) == " << spec.item_size() << ", \"the scan's element type " << spec.c_type()
      << " is not " << spec.item_size() << " bytes, the size of the arrays' elements\");\n\n"
      << "// The scan's operator: a is the earlier operand, b the later one.\n"
      << "__device__ __forceinline__ scan_type gk_scan_op(scan_type a, scan_type b) {\n"
      << "    const bool across_seg_boundary = false;\n"
      << "    (void)across_seg_boundary;\n"
      << "    return (" << spec.scan_expr() << ");\n"
      << "}\n";
    if (spec.neutral())
        s << "__device__ __forceinline__ scan_type gk_neutral() { return (" << *spec.neutral() << "); }\n";
    s << "\nconstexpr int gk_threads = " << scan_threads << ";\n"
      << "constexpr int gk_warps = gk_threads / 32;\n"
      << "constexpr int gk_per_group = " << shape.per_group << ";\n"
      << "constexpr int gk_chunks = " << shape.chunks << ";\n"
      << "#define GK_SCAN_VECTORIZED " << (variant == scan_variant::vectorized ? "1\n" : "0\n") << kernel_body
      << "\nextern \"C\" __global__ void __launch_bounds__(gk_threads) " << spec.kernel_name() << kernel_start
      << (spec.kind() == scan_kind::exclusive ? exclusive_outputs : inclusive_outputs) << kernel_end;
    return s.str();
}

}  // namespace gpukit::array
