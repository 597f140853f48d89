// gpukit::nccl on one GPU: a one-rank communicator runs every collective (NCCL refuses two
// ranks on one device), checked byte for byte against the input, with a sentinel past the
// count; send/recv to itself in a group; split; destroy and abort; what check_call refuses
// (another context's memory, host memory, a bad root); groups with NCCL's semantics
// (communicators made in a group are pending until it ends, a refused call or an exception
// launches none of the group's calls, nested groups, a communicator destroyed in a group);
// the agreement check. On two GPUs or more (skipped with the reason on fewer): ranks made
// and split by one thread in groups.
// Skips without a device, and without libnccl.so.2 (set LD_LIBRARY_PATH to a pip package's
// site-packages/nvidia/nccl/lib where the toolkit has none).
#include "gpukit/core/error.hpp"
#include "gpukit/cuda/copy.hpp"
#include "gpukit/cuda/memory.hpp"
#include "gpukit/nccl/agreement.hpp"
#include "gpukit/nccl/call_checks.hpp"
#include "gpukit/nccl/communicator.hpp"
#include "gpukit/nccl/error.hpp"
#include "gpukit/nccl/group.hpp"
#include "expect_error.hpp"
#include "gpu_test.hpp"

#include <cstdint>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using namespace gpukit;
using namespace gpukit::nccl;

class NcclGpu : public ::testing::Test {
protected:
    void SetUp() override {
        GPUKIT_REQUIRE_GPU();
        if (!nccl_available())
            GTEST_SKIP() << "libnccl.so.2 could not be loaded (set LD_LIBRARY_PATH to its directory)";
        primary.emplace(cuda::context::retain_primary(cuda::device::get(0)));
        primary->push();
        comm.emplace(communicator::create(get_unique_id(), 1, 0, cuda::device::get(0)));
    }
    void TearDown() override {
        comm.reset();
        if (primary) {
            cuda::context::pop();
            primary->detach();
        }
    }
    std::optional<cuda::context> primary;
    std::optional<communicator> comm;
};

// Bits of the small integer v (0..7, exact in every type) in a float format.
std::uint64_t float_bits(unsigned v, int mantissa_bits, int bias) {
    if (v == 0)
        return 0;
    int e = 0;
    while ((v >> (e + 1)) != 0)
        ++e;
    const std::uint64_t mantissa = (static_cast<std::uint64_t>(v) << mantissa_bits >> e) & ((1u << mantissa_bits) - 1);
    return (static_cast<std::uint64_t>(e + bias) << mantissa_bits) | mantissa;
}

// n elements of `t` holding 0..7 in turn, as bytes.
std::vector<std::uint8_t> pattern(data_type t, std::size_t n) {
    const std::size_t size = size_of(t);
    std::vector<std::uint8_t> bytes(n * size);
    for (std::size_t k = 0; k < n; ++k) {
        const unsigned v = static_cast<unsigned>((k * 5 + 3) % 8);
        std::uint64_t bits = v;  // the integer types
        switch (t) {
        case data_type::float16:
            bits = float_bits(v, 10, 15);
            break;
        case data_type::bfloat16:
            bits = float_bits(v, 7, 127);
            break;
        case data_type::float32:
            bits = float_bits(v, 23, 127);
            break;
        case data_type::float64:
            bits = float_bits(v, 52, 1023);
            break;
        case data_type::float8_e4m3:
            bits = float_bits(v, 3, 7);
            break;
        case data_type::float8_e5m2:
            bits = float_bits(v, 2, 15);
            break;
        default:
            break;
        }
        std::memcpy(bytes.data() + k * size, &bits, size);  // little-endian: the low bytes
    }
    return bytes;
}

struct device_buffer {
    explicit device_buffer(const std::vector<std::uint8_t>& bytes)
        : memory(cuda::device_allocation::allocate(bytes.size())), size(bytes.size()) {
        cuda::memcpy_htod(memory.get(), bytes.data(), bytes.size());
    }
    std::vector<std::uint8_t> read() const {
        std::vector<std::uint8_t> host(size);
        cuda::memcpy_dtoh(host.data(), memory.get(), size);
        return host;
    }
    void* ptr() const { return reinterpret_cast<void*>(memory.get()); }
    cuda::device_allocation memory;
    std::size_t size;
};

const data_type every_type[] = {data_type::int8,     data_type::uint8,       data_type::int32,
                                data_type::uint32,   data_type::int64,       data_type::uint64,
                                data_type::float16,  data_type::float32,     data_type::float64,
                                data_type::bfloat16, data_type::float8_e4m3, data_type::float8_e5m2};
const reduce_op every_op[] = {reduce_op::sum, reduce_op::prod, reduce_op::max, reduce_op::min, reduce_op::avg};

TEST_F(NcclGpu, OneRankDescribesItself) {
    EXPECT_EQ(comm->rank(), 0);
    EXPECT_EQ(comm->size(), 1);
    EXPECT_EQ(comm->device_ordinal(), 0);
    EXPECT_EQ(comm->context()->handle, primary->handle());
}

// On one rank every reduction gives back its input; 37 of 41 elements, so the last 4 of the
// receiving buffer (a sentinel) must stay as they were.
TEST_F(NcclGpu, AllReduceEveryTypeAndOpOutOfPlaceAndInPlace) {
    const std::size_t n = 41, count = 37;
    for (data_type t : every_type)
        for (reduce_op op : every_op) {
            const std::string what = std::string(name(t)) + " " + std::string(name(op));
            SCOPED_TRACE(what);
            const auto input = pattern(t, n);
            device_buffer send(input);
            device_buffer recv(std::vector<std::uint8_t>(input.size(), 0xAB));
            const bool float8 = t == data_type::float8_e4m3 || t == data_type::float8_e5m2;
            if (!loaded_nccl_supports(t) || (float8 && op == reduce_op::avg)) {  // refused before NCCL sees it
                EXPECT_THROW(comm->all_reduce(send.ptr(), recv.ptr(), count, t, op, {}), argument_error) << what;
                continue;
            }
            try {
                comm->all_reduce(send.ptr(), recv.ptr(), count, t, op, {});
                auto expected = std::vector<std::uint8_t>(input.begin(), input.begin() + count * size_of(t));
                expected.resize(input.size(), 0xAB);
                EXPECT_EQ(recv.read(), expected);
                comm->all_reduce(send.ptr(), send.ptr(), n, t, op, {});
                EXPECT_EQ(send.read(), input);
            } catch (const std::exception& e) {
                ADD_FAILURE() << what << ": " << e.what();
            }
        }
}

TEST_F(NcclGpu, EveryOtherCollectiveOnOneRank) {
    const data_type t = data_type::int32;
    const std::size_t n = 29;
    const auto input = pattern(t, n);
    const std::vector<std::uint8_t> blank(input.size(), 0x5C);
    {
        device_buffer send(input), recv(blank);
        comm->reduce(send.ptr(), recv.ptr(), n, t, reduce_op::max, 0, {});
        EXPECT_EQ(recv.read(), input);
    }
    {
        device_buffer send(input), recv(blank);
        comm->broadcast(send.ptr(), recv.ptr(), n, t, 0, {});
        EXPECT_EQ(recv.read(), input);
    }
    {
        device_buffer send(input), recv(blank);
        comm->all_gather(send.ptr(), recv.ptr(), n, t, {});
        EXPECT_EQ(recv.read(), input);
    }
    {
        device_buffer send(input), recv(blank);
        comm->reduce_scatter(send.ptr(), recv.ptr(), n, t, reduce_op::sum, {});
        EXPECT_EQ(recv.read(), input);
    }
}

TEST_F(NcclGpu, SendAndReceiveToItselfInAGroupOnAStream) {
    const auto input = pattern(data_type::float64, 17);
    device_buffer send(input), recv(std::vector<std::uint8_t>(input.size(), 0));
    cuda::stream s = cuda::stream::create();
    group g;
    comm->send(send.ptr(), 17, data_type::float64, 0, s);
    comm->recv(recv.ptr(), 17, data_type::float64, 0, s);
    g.end();
    s.synchronize();
    EXPECT_EQ(recv.read(), input);
    EXPECT_THROW(g.end(), gpukit::logic_error);
}

TEST_F(NcclGpu, GroupEndLeavesTheCallersContextCurrent) {
    cuda::context own = cuda::context::create(cuda::device::get(0));  // made current
    const auto input = pattern(data_type::uint8, 9);
    // Buffers in the primary context, where the communicator works.
    primary->push();
    device_buffer send(input), recv(std::vector<std::uint8_t>(input.size(), 0));
    cuda::context::pop();
    {
        group g;
        comm->send(send.ptr(), 9, data_type::uint8, 0, {});
        comm->recv(recv.ptr(), 9, data_type::uint8, 0, {});
        g.end();
    }
    EXPECT_EQ(cuda::context::current()->handle(), own.handle());
    primary->synchronize();
    primary->push();
    EXPECT_EQ(recv.read(), input);
    cuda::context::pop();
    own.detach();
}

TEST_F(NcclGpu, SplitAndNoColor) {
    std::optional<communicator> half = comm->split(3, 0);
    ASSERT_TRUE(half);
    EXPECT_EQ(half->size(), 1);
    EXPECT_EQ(half->rank(), 0);
    const auto input = pattern(data_type::float32, 8);
    device_buffer a(input), b(std::vector<std::uint8_t>(input.size(), 0));
    half->all_reduce(a.ptr(), b.ptr(), 8, data_type::float32, reduce_op::sum, {});
    EXPECT_EQ(b.read(), input);
    EXPECT_FALSE(comm->split(split_no_color, 0));
    EXPECT_THROW(comm->split(-2, 0), argument_error);
}

TEST_F(NcclGpu, DestroyAndAbortEndTheCommunicator) {
    communicator other = communicator::create(get_unique_id(), 1, 0, cuda::device::get(0));
    other.abort();
    EXPECT_TRUE(other.is_destroyed());
    EXPECT_THROW(other.handle(), gpukit::logic_error);
    EXPECT_NO_THROW(other.abort());
    EXPECT_NO_THROW(other.destroy());
    comm->destroy();
    EXPECT_THROW(comm->all_reduce(nullptr, nullptr, 0, data_type::int8, reduce_op::sum, {}), gpukit::logic_error);
    // The current context stayed the primary one throughout.
    EXPECT_EQ(cuda::context::current()->handle(), primary->handle());
}

TEST_F(NcclGpu, InitAllOverOneDevice) {
    std::vector<communicator> all = communicator::init_all({cuda::device::get(0)});
    ASSERT_EQ(all.size(), 1u);
    EXPECT_EQ(all[0].size(), 1);
    EXPECT_EQ(all[0].device_ordinal(), 0);
    EXPECT_THROW(communicator::init_all({cuda::device::get(0), cuda::device::get(0)}), argument_error);
    EXPECT_THROW(communicator::init_all({}), argument_error);
}

TEST_F(NcclGpu, CheckCallRefusesForeignMemoryAndBadRanks) {
    const auto input = pattern(data_type::float32, 4);
    device_buffer mine(input);
    const buffer_arg good{reinterpret_cast<std::uintptr_t>(mine.ptr()), data_type::float32, 4, "sendbuf"};
    EXPECT_EQ(check_call(collective::all_reduce, *comm, good, good, std::nullopt, {}).count, 4u);

    cuda::context own = cuda::context::create(cuda::device::get(0));
    device_buffer foreign(input);  // in `own`, not the primary context
    cuda::context::pop();
    const buffer_arg other{reinterpret_cast<std::uintptr_t>(foreign.ptr()), data_type::float32, 4, "recvbuf"};
    try {
        check_call(collective::all_reduce, *comm, good, other, std::nullopt, {});
        FAIL() << "nothing thrown";
    } catch (const argument_error& e) {
        EXPECT_NE(std::string(e.what()).find("primary context"), std::string::npos) << e.what();
    }
    // A context the owner names spares the driver query only when it is the primary one.
    buffer_arg named_foreign = other;
    named_foreign.context = own.handle();
    EXPECT_THROW(check_call(collective::all_reduce, *comm, good, named_foreign, std::nullopt, {}), argument_error);
    buffer_arg named_primary = good;
    named_primary.context = comm->context()->handle;
    EXPECT_EQ(check_call(collective::all_reduce, *comm, named_primary, named_primary, std::nullopt, {}).count, 4u);
    // A stream whose owner names another context is refused without asking the driver.
    own.push();
    cuda::stream foreign_stream = cuda::stream::create();
    cuda::context::pop();
    EXPECT_THROW(check_call(collective::all_reduce, *comm, good, good, std::nullopt, foreign_stream.view(),
                            own.handle()),
                 argument_error);
    EXPECT_THROW(check_call(collective::all_reduce, *comm, good, good, std::nullopt, foreign_stream.view()),
                 argument_error);
    std::vector<float> host(4);
    const buffer_arg on_host{reinterpret_cast<std::uintptr_t>(host.data()), data_type::float32, 4, "recvbuf"};
    EXPECT_THROW(check_call(collective::all_reduce, *comm, good, on_host, std::nullopt, {}), argument_error);
    EXPECT_THROW(comm->reduce(mine.ptr(), mine.ptr(), 4, data_type::float32, reduce_op::sum, 1, {}), argument_error);
    EXPECT_THROW(comm->send(mine.ptr(), 4, data_type::float32, -1, {}), argument_error);
    own.push();
    foreign.memory.free();
    own.detach();
}

// --- groups ----------------------------------------------------------------------------

std::vector<std::uint8_t> filled(std::size_t bytes, std::uint8_t value) {
    return std::vector<std::uint8_t>(bytes, value);
}

TEST_F(NcclGpu, ACommunicatorMadeInAGroupIsPendingUntilTheGroupEnds) {
    group g;
    communicator made = communicator::create(get_unique_id(), 1, 0, cuda::device::get(0));
    EXPECT_TRUE(made.is_pending());
    EXPECT_FALSE(made.is_destroyed());
    EXPECT_EQ(made.rank(), 0);  // given to create(), so known before NCCL makes it
    EXPECT_EQ(made.size(), 1);
    EXPECT_THROW(made.handle(), gpukit::logic_error);
    EXPECT_THROW(made.destroy(), gpukit::logic_error);
    g.end();
    EXPECT_FALSE(made.is_pending());
    const auto input = pattern(data_type::int32, 12);
    device_buffer a(input), b(filled(input.size(), 0));
    made.all_reduce(a.ptr(), b.ptr(), 12, data_type::int32, reduce_op::sum, {});
    EXPECT_EQ(b.read(), input);
}

TEST_F(NcclGpu, ASplitInAGroupIsMadeWhenTheGroupEnds) {
    std::optional<communicator> half;
    {
        group g;
        half = comm->split(5, 0);
        ASSERT_TRUE(half);
        EXPECT_TRUE(half->is_pending());
        EXPECT_THROW(half->rank(), gpukit::logic_error);  // NCCL works it out at the end
        g.end();
    }
    EXPECT_FALSE(half->is_pending());
    EXPECT_EQ(half->rank(), 0);
    EXPECT_EQ(half->size(), 1);
    const auto input = pattern(data_type::float64, 6);
    device_buffer a(input), b(filled(input.size(), 0));
    half->broadcast(a.ptr(), b.ptr(), 6, data_type::float64, 0, {});
    EXPECT_EQ(b.read(), input);
    {
        group g;  // one split of a communicator per group: NCCL runs a group's splits side by side
        EXPECT_FALSE(comm->split(split_no_color, 0));
        g.end();
    }
}

TEST_F(NcclGpu, CommunicatorsDroppedInsideTheirGroupAreMadeAndDestroyedByIt) {
    {
        group g;
        { communicator dropped = communicator::create(get_unique_id(), 1, 0, cuda::device::get(0)); }
        { std::optional<communicator> dropped_half = comm->split(0, 0); }
        g.end();
    }
    // The group destroyed both; the parent works on.
    const auto input = pattern(data_type::uint8, 5);
    device_buffer a(input), b(filled(input.size(), 0));
    comm->all_reduce(a.ptr(), b.ptr(), 5, data_type::uint8, reduce_op::max, {});
    EXPECT_EQ(b.read(), input);
}

TEST_F(NcclGpu, ARefusedCallFailsTheGroupWhichLaunchesNothing) {
    const auto input = pattern(data_type::float32, 8);
    device_buffer a(input), b(filled(input.size(), 0x77));
    std::optional<communicator> made;
    {
        group g;
        made.emplace(communicator::create(get_unique_id(), 1, 0, cuda::device::get(0)));
        comm->all_reduce(a.ptr(), b.ptr(), 8, data_type::float32, reduce_op::sum, {});
        EXPECT_THROW(comm->send(a.ptr(), 8, data_type::float32, 3, {}), argument_error);  // peer 3 of 1
        gpukit::test::expect_error<nccl_error>([&] { g.end(); }, "a call in it was refused",
                                               "none of its calls was issued", "peer 3 is outside [0, 1)");
    }
    primary->synchronize();
    EXPECT_EQ(b.read(), filled(input.size(), 0x77));  // the all_reduce never ran
    EXPECT_TRUE(made->is_destroyed());                // never made
    EXPECT_FALSE(made->is_pending());
    gpukit::test::expect_error<gpukit::logic_error>([&] { made->handle(); },
                                                    "group that was making this communicator failed");
    EXPECT_NO_THROW(made->destroy());
    // NCCL is out of the group: calls run at once again.
    comm->all_reduce(a.ptr(), b.ptr(), 8, data_type::float32, reduce_op::sum, {});
    EXPECT_EQ(b.read(), input);
}

TEST_F(NcclGpu, AnExceptionLeavingTheScopeCancelsTheGroup) {
    const auto input = pattern(data_type::int64, 4);
    device_buffer a(input), b(filled(input.size(), 0x31));
    try {
        group g;
        comm->all_reduce(a.ptr(), b.ptr(), 4, data_type::int64, reduce_op::sum, {});
        throw std::runtime_error("leaving");
    } catch (const std::runtime_error&) {
    }
    primary->synchronize();
    EXPECT_EQ(b.read(), filled(input.size(), 0x31));
    comm->all_reduce(a.ptr(), b.ptr(), 4, data_type::int64, reduce_op::sum, {});
    EXPECT_EQ(b.read(), input);
}

TEST_F(NcclGpu, OnlyTheOutermostGroupLaunchesAndACancelledInnerOneFailsIt) {
    std::optional<communicator> made;
    {
        group outer;
        {
            group inner;
            made.emplace(communicator::create(get_unique_id(), 1, 0, cuda::device::get(0)));
            inner.end();
        }
        EXPECT_TRUE(made->is_pending());
        outer.end();
    }
    EXPECT_FALSE(made->is_pending());
    EXPECT_EQ(made->size(), 1);

    const auto input = pattern(data_type::uint32, 9);
    device_buffer a(input), b(filled(input.size(), 0x42));
    {
        group outer;
        comm->all_reduce(a.ptr(), b.ptr(), 9, data_type::uint32, reduce_op::sum, {});
        {
            group inner;
            inner.cancel();
            inner.cancel();  // once only
            EXPECT_THROW(inner.end(), gpukit::logic_error);
        }
        gpukit::test::expect_error<nccl_error>([&] { outer.end(); }, "a group inside it was cancelled");
    }
    {
        group g;
        comm->all_reduce(a.ptr(), b.ptr(), 9, data_type::uint32, reduce_op::sum, {});
        g.cancel();
    }
    primary->synchronize();
    EXPECT_EQ(b.read(), filled(input.size(), 0x42));
}

// destroy() and the destructor inside a group wait for its end: its calls use the communicator.
TEST_F(NcclGpu, ACommunicatorDestroyedInAGroupServesItsCallsFirst) {
    const auto input = pattern(data_type::int32, 10);
    device_buffer a(input), b(filled(input.size(), 0x21)), c(filled(input.size(), 0x22));
    communicator destroyed = communicator::create(get_unique_id(), 1, 0, cuda::device::get(0));
    std::optional<communicator> dropped(communicator::create(get_unique_id(), 1, 0, cuda::device::get(0)));
    {
        group g;
        destroyed.all_reduce(a.ptr(), b.ptr(), 10, data_type::int32, reduce_op::sum, {});
        destroyed.destroy();
        EXPECT_TRUE(destroyed.is_destroyed());
        EXPECT_THROW(destroyed.handle(), gpukit::logic_error);
        dropped->broadcast(a.ptr(), c.ptr(), 10, data_type::int32, 0, {});
        dropped.reset();
        g.end();
    }
    primary->synchronize();
    EXPECT_EQ(b.read(), input);
    EXPECT_EQ(c.read(), input);
    EXPECT_NO_THROW(destroyed.destroy());  // nothing left to do
}

TEST_F(NcclGpu, TheAgreementCheckPassesARankThatAgreesWithItself) {
    EXPECT_FALSE(comm->checks_agreement());
    comm->set_checks_agreement(true);
    const auto input = pattern(data_type::float16, 10);
    device_buffer a(input), b(filled(input.size(), 0));
    cuda::stream s = cuda::stream::create();
    comm->all_reduce(a.ptr(), b.ptr(), 10, data_type::float16, reduce_op::sum, s);
    s.synchronize();
    EXPECT_EQ(b.read(), input);
    // A root outside the communicator is refused after the check, by this rank's own.
    EXPECT_THROW(comm->broadcast(a.ptr(), b.ptr(), 10, data_type::float16, 1, {}), argument_error);
    // On one rank the gathering itself sees one signature.
    EXPECT_NO_THROW(check_agreement(*comm, signature_of(collective::all_gather, 3, data_type::int8), {}));
    {
        group g;  // no check inside a group: nothing is launched before it ends
        comm->all_reduce(a.ptr(), b.ptr(), 10, data_type::float16, reduce_op::max, {});
        g.end();
    }
    primary->synchronize();
    EXPECT_EQ(b.read(), input);
}

// --- two GPUs or more ----------------------------------------------------------------------

class NcclTwoGpus : public ::testing::Test {
protected:
    void SetUp() override {
        GPUKIT_REQUIRE_GPU();
        if (cuda::device::count() < 2)
            GTEST_SKIP() << "needs two CUDA devices (NCCL runs one rank per GPU)";
        if (!nccl_available())
            GTEST_SKIP() << "libnccl.so.2 could not be loaded (set LD_LIBRARY_PATH to its directory)";
        for (int k = 0; k < 2; ++k)
            primaries.push_back(cuda::context::retain_primary(cuda::device::get(k)));
    }
    void TearDown() override {
        for (auto& p : primaries)
            p.detach();
    }
    // `make()` with device k's primary context current.
    template <class Make>
    auto on(int k, Make make) {
        primaries[static_cast<std::size_t>(k)].push();
        struct pop_after {
            ~pop_after() { cuda::context::pop(); }
        } pop;
        return make();
    }
    std::vector<cuda::context> primaries;
};

TEST_F(NcclTwoGpus, OneThreadMakesAndSplitsTheRanksInGroups) {
    const unique_id id = get_unique_id();
    std::vector<communicator> comms;
    {
        group g;  // without it, rank 0 would wait for rank 1 forever
        for (int k = 0; k < 2; ++k)
            comms.push_back(communicator::create(id, 2, k, cuda::device::get(k)));
        EXPECT_TRUE(comms[0].is_pending() && comms[1].is_pending());
        g.end();
    }
    std::vector<std::vector<std::uint8_t>> inputs;
    std::vector<device_buffer> sends, recvs;
    for (int k = 0; k < 2; ++k) {
        std::vector<std::uint8_t> bytes(16 * 4);  // rank k: 3e + 100k
        for (std::size_t e = 0; e < 16; ++e) {
            const std::int32_t v = static_cast<std::int32_t>(e * 3 + 100 * k);
            std::memcpy(bytes.data() + e * 4, &v, 4);
        }
        inputs.push_back(bytes);
        sends.push_back(on(k, [&] { return device_buffer(bytes); }));
        recvs.push_back(on(k, [&] { return device_buffer(filled(bytes.size(), 0)); }));
    }
    {
        group g;
        for (std::size_t k = 0; k < 2; ++k)
            comms[k].all_reduce(sends[k].ptr(), recvs[k].ptr(), 16, data_type::int32, reduce_op::sum, {});
        g.end();
    }
    for (int k = 0; k < 2; ++k) {
        primaries[static_cast<std::size_t>(k)].synchronize();
        const auto got = on(k, [&] { return recvs[static_cast<std::size_t>(k)].read(); });
        for (std::size_t e = 0; e < 16; ++e) {
            std::int32_t v = 0;
            std::memcpy(&v, got.data() + e * 4, 4);
            EXPECT_EQ(v, static_cast<std::int32_t>(2 * e * 3 + 100)) << "rank " << k << " element " << e;
        }
    }
    // Rank 0 alone in a new communicator, rank 1 in none: one split each, grouped.
    std::vector<std::optional<communicator>> halves;
    {
        group g;
        for (auto& c : comms)
            halves.push_back(c.split(c.rank() == 0 ? 0 : split_no_color, 0));
        ASSERT_TRUE(halves[0]);
        EXPECT_TRUE(halves[0]->is_pending());
        EXPECT_FALSE(halves[1]);
        g.end();
    }
    EXPECT_EQ(halves[0]->size(), 1);
    EXPECT_EQ(halves[0]->rank(), 0);
    EXPECT_EQ(halves[0]->device_ordinal(), 0);
    halves[0]->destroy();
    for (auto& c : comms)
        c.destroy();
}

}  // namespace
