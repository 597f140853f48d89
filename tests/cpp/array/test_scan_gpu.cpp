// Scans on a real device (gpukit::array::scan), checked against sequential scans on the CPU:
// one tile and many, both variants, in place, reversed views, a non-commutative operator,
// several streams and the look-back state growing.
#include "gpukit/array/ndarray.hpp"
#include "gpukit/array/scan.hpp"
#include "gpukit/cuda/copy.hpp"
#include "gpukit/cuda/stream.hpp"
#include "device_arrays.hpp"
#include "gpu_test.hpp"

#include <cstdint>
#include <random>
#include <vector>

namespace {

using namespace gpukit;
using namespace gpukit::array;

class ScanGpu : public gpukit::testing::gpu_test {};

std::vector<std::int32_t> random_ints(std::size_t n, unsigned seed) {
    std::mt19937 gen(seed);
    std::uniform_int_distribution<std::int32_t> d(-1000, 1000);
    std::vector<std::int32_t> v(n);
    for (auto& x : v)
        x = d(gen);
    return v;
}

using test::download;
using test::upload;

// The sums of `in` up to each element (inclusive) or before it (exclusive).
std::vector<std::int32_t> sums(const std::vector<std::int32_t>& in, scan_kind kind) {
    std::vector<std::int32_t> out(in.size());
    std::int32_t total = 0;
    for (std::size_t i = 0; i < in.size(); ++i) {
        if (kind == scan_kind::exclusive)
            out[i] = total;
        total += in[i];
        if (kind == scan_kind::inclusive)
            out[i] = total;
    }
    return out;
}

scan_operand contiguous(const ndarray& a) { return {a.data(), 4}; }

const scan_spec& sum_spec(scan_kind kind) {
    static const scan_spec inclusive(scan_kind::inclusive, "int", 4, "a + b", std::nullopt);
    static const scan_spec exclusive(scan_kind::exclusive, "int", 4, "a + b", std::string("0"));
    return kind == scan_kind::inclusive ? inclusive : exclusive;
}

TEST_F(ScanGpu, SumsOfOneTileAndOfManyInPlaceAndNot) {
    // Tile boundaries, and more tiles than one 32-tile window of the look-back.
    const auto tile = static_cast<std::size_t>(scan_tile_shape_of(4).items());
    for (const scan_kind kind : {scan_kind::inclusive, scan_kind::exclusive})
        for (const std::size_t n : {std::size_t{1}, std::size_t{31}, std::size_t{1000}, tile, tile + 1, 3 * tile + 5,
                                    (std::size_t{1} << 20) + 3, 70 * tile + 11}) {
            const auto host = random_ints(n, static_cast<unsigned>(n));
            const ndarray in = upload(host, dtype::int32);
            const ndarray out = ndarray::empty({static_cast<std::int64_t>(n)}, dtype::int32);
            scan(sum_spec(kind), contiguous(in), contiguous(out), static_cast<std::int64_t>(n));
            EXPECT_EQ(download<std::int32_t>(out.data(), n), sums(host, kind)) << n;
            EXPECT_EQ(download<std::int32_t>(in.data(), n), host) << "the input was changed, n = " << n;
            scan(sum_spec(kind), contiguous(in), contiguous(in), static_cast<std::int64_t>(n));
            EXPECT_EQ(download<std::int32_t>(in.data(), n), sums(host, kind)) << "in place, n = " << n;
        }
}

TEST_F(ScanGpu, MisalignedAndReversedViewsTakeTheStridedKernel) {
    const std::size_t n = 100003;
    const auto host = random_ints(n + 1, 7);
    const ndarray in = upload(host, dtype::int32);
    const ndarray out = ndarray::empty({static_cast<std::int64_t>(n + 1)}, dtype::int32);
    // in[1:] into out[1:]: 4 bytes past a 16-byte boundary.
    scan(sum_spec(scan_kind::inclusive), {in.data() + 4, 4}, {out.data() + 4, 4}, static_cast<std::int64_t>(n));
    const std::vector<std::int32_t> tail(host.begin() + 1, host.end());
    EXPECT_EQ(download<std::int32_t>(out.data() + 4, n), sums(tail, scan_kind::inclusive));
    // in[::-1] into out: the last element first.
    scan(sum_spec(scan_kind::exclusive), {in.data() + 4 * n, -4}, contiguous(out), static_cast<std::int64_t>(n + 1));
    const std::vector<std::int32_t> reversed(host.rbegin(), host.rend());
    EXPECT_EQ(download<std::int32_t>(out.data(), n + 1), sums(reversed, scan_kind::exclusive));
}

TEST_F(ScanGpu, AnOutputOverlappingTheInputIsWrittenFromACopy) {
    const std::size_t n = 20000;
    const auto host = random_ints(n + 1, 5);
    for (const scan_kind kind : {scan_kind::inclusive, scan_kind::exclusive}) {
        // in[:-1] into in[1:], the way to shift while scanning; then in[1:] into in[:-1].
        const ndarray a = upload(host, dtype::int32);
        scan(sum_spec(kind), {a.data(), 4}, {a.data() + 4, 4}, static_cast<std::int64_t>(n));
        const std::vector<std::int32_t> head(host.begin(), host.end() - 1), tail(host.begin() + 1, host.end());
        EXPECT_EQ(download<std::int32_t>(a.data() + 4, n), sums(head, kind));
        const ndarray b = upload(host, dtype::int32);
        scan(sum_spec(kind), {b.data() + 4, 4}, {b.data(), 4}, static_cast<std::int64_t>(n));
        EXPECT_EQ(download<std::int32_t>(b.data(), n), sums(tail, kind));
        // Reversed onto itself: out[i] is written where in[n-1-i] was.
        const ndarray c = upload(host, dtype::int32);
        scan(sum_spec(kind), {c.data() + 4 * n, -4}, {c.data(), 4}, static_cast<std::int64_t>(n + 1));
        const std::vector<std::int32_t> reversed(host.rbegin(), host.rend());
        EXPECT_EQ(download<std::int32_t>(c.data(), n + 1), sums(reversed, kind));
    }
}

// A 2x2 matrix product (wrapping unsigned arithmetic, exact on both sides): the scan must
// combine the elements in their order.
struct mat2 {
    std::uint32_t a, b, c, d;
    bool operator==(const mat2&) const = default;
};
mat2 mul(const mat2& p, const mat2& q) {
    return {p.a * q.a + p.b * q.c, p.a * q.b + p.b * q.d, p.c * q.a + p.d * q.c, p.c * q.b + p.d * q.d};
}

TEST_F(ScanGpu, ANonCommutativeOperatorCombinesInOrder) {
    const scan_spec products(scan_kind::inclusive, "mat2", 16, "mul(a, b)", std::nullopt, "products",
                             "struct mat2 { unsigned a, b, c, d; };\n"
                             "__device__ mat2 mul(mat2 p, mat2 q) {\n"
                             "    return {p.a * q.a + p.b * q.c, p.a * q.b + p.b * q.d, p.c * q.a + p.d * q.c,\n"
                             "            p.c * q.b + p.d * q.d};\n"
                             "}\n");
    const auto n = static_cast<std::size_t>(40 * scan_tile_shape_of(16).items() + 1);  // past one look-back window
    // Matrices of determinant +-1: their products never become 0 mod 2^32 (random ones soon
    // would, and every later output would be 0 whatever the order).
    const mat2 unimodular[] = {{1, 1, 0, 1}, {1, 0, 1, 1}, {0, 1, 1, 0}};
    std::mt19937 gen(3);
    std::vector<mat2> host(n);
    for (auto& m : host)
        m = unimodular[gen() % 3];
    const ndarray bytes = ndarray::empty({static_cast<std::int64_t>(n * 16)}, dtype::uint8);
    cuda::memcpy_htod(bytes.data(), host.data(), n * sizeof(mat2));
    scan(products, {bytes.data(), 16}, {bytes.data(), 16}, static_cast<std::int64_t>(n));
    const std::vector<mat2> result = download<mat2>(bytes.data(), n);
    mat2 expected = host[0];
    for (std::size_t i = 0; i < n; ++i) {
        if (i > 0)
            expected = mul(expected, host[i]);
        ASSERT_EQ(result[i], expected) << "element " << i;
    }
}

TEST_F(ScanGpu, ScansOnSeveralStreamsAndAGrowingStateStayCorrect) {
    const cuda::stream first = cuda::stream::create(CU_STREAM_NON_BLOCKING);
    const cuda::stream second = cuda::stream::create(CU_STREAM_NON_BLOCKING);
    // Growing sizes (the state grows), alternating streams (each waits for the other).
    for (const std::size_t n : {5000u, 50000u, 500000u, 5000000u}) {
        const auto host = random_ints(n, 11);
        const ndarray a = upload(host, dtype::int32), b = upload(host, dtype::int32);
        scan(sum_spec(scan_kind::inclusive), contiguous(a), contiguous(a), static_cast<std::int64_t>(n), first);
        scan(sum_spec(scan_kind::exclusive), contiguous(b), contiguous(b), static_cast<std::int64_t>(n), second);
        first.view().synchronize();
        second.view().synchronize();
        EXPECT_EQ(download<std::int32_t>(a.data(), n), sums(host, scan_kind::inclusive)) << n;
        EXPECT_EQ(download<std::int32_t>(b.data(), n), sums(host, scan_kind::exclusive)) << n;
    }
}

}  // namespace
