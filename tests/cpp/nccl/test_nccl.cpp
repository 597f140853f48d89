// gpukit::nccl without a GPU: the loader's candidates and failure message, the ABI gpukit
// declares against nccl.h (where the header exists), error translation, the dtype and op
// tables, unique ids, the size rules of every collective, the record of open groups (the
// calls recorded in them, the communicators they make, the calls refused in them), groups
// that issue nothing (refused, cancelled) and the comparison of the ranks' calls behind
// check_agreement.
#include "gpukit/core/detail/nvidia_packages.hpp"
#include "gpukit/core/error.hpp"
#include "gpukit/nccl/agreement.hpp"
#include "gpukit/nccl/api.hpp"
#include "gpukit/nccl/call_checks.hpp"
#include "gpukit/nccl/detail/group_book.hpp"
#include "gpukit/nccl/error.hpp"
#include "gpukit/nccl/group.hpp"
#include "gpukit/nccl/types.hpp"
#include "gpukit/nccl/unique_id.hpp"
#include "gpukit/rtc/toolkit.hpp"
#include "expect_error.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#if __has_include(<nccl.h>)
#include <nccl.h>
#define GPUKIT_HAVE_NCCL_H 1
#endif

namespace {

using namespace gpukit;
using namespace gpukit::nccl;

std::ptrdiff_t position(const std::vector<std::string>& list, const std::string& item) {
    const auto found = std::find(list.begin(), list.end(), item);
    return found == list.end() ? -1 : found - list.begin();
}

TEST(NcclLoader, FailureNamesTheLibraryAndEveryCandidate) {
    const auto loaded = nccl::detail::load({"/nonexistent/libnccl.so.2", "libnccl-bogus.so.7"});
    const std::string& why = loaded.load_failure;
    EXPECT_NE(why.find("NCCL (libnccl.so.2"), std::string::npos) << why;
    EXPECT_NE(why.find("nvidia-nccl-cu13"), std::string::npos) << why;
    EXPECT_NE(why.find("/nonexistent/libnccl.so.2: not found"), std::string::npos) << why;
    EXPECT_NE(why.find("libnccl-bogus.so.7: not found"), std::string::npos) << why;
    EXPECT_EQ(loaded.table.ncclAllReduce, nullptr);
}

TEST(NcclLoader, ALibraryWithoutTheEntryPointsIsRefused) {
    const auto loaded = nccl::detail::load({"libc.so.6"});
    EXPECT_NE(loaded.load_failure.find("libc.so.6: lacks ncclAllGather"), std::string::npos) << loaded.load_failure;
}

TEST(NcclLoader, CandidatesInTheDocumentedOrder) {
    const char* saved_path = std::getenv("LD_LIBRARY_PATH");
    const std::string saved = saved_path ? saved_path : "";
    const char* saved_home = std::getenv("CUDA_HOME");
    const std::string home = saved_home ? saved_home : "";
    ::setenv("LD_LIBRARY_PATH", "/first:/second", 1);
    ::setenv("CUDA_HOME", "/toolkit", 1);
    gpukit::detail::set_nvidia_package_dirs({"/site/nvidia"});
    const std::vector<std::string> c = nccl::detail::default_candidates();
    gpukit::detail::set_nvidia_package_dirs({});
    saved_path ? ::setenv("LD_LIBRARY_PATH", saved.c_str(), 1) : ::unsetenv("LD_LIBRARY_PATH");
    saved_home ? ::setenv("CUDA_HOME", home.c_str(), 1) : ::unsetenv("CUDA_HOME");

    const std::vector<std::string> expected_order = {
        "/first/libnccl.so.2",
        "/second/libnccl.so.2",
        "/toolkit/lib64/libnccl.so.2",
        "/toolkit/lib/libnccl.so.2",
        "/usr/local/cuda/lib64/libnccl.so.2",
        "/usr/local/cuda/lib/libnccl.so.2",
        "/site/nvidia/nccl/lib/libnccl.so.2",
        "/site/nvidia/cu13/lib/libnccl.so.2",
        "libnccl.so.2",
        "libnccl.so",
    };
    std::ptrdiff_t previous = -1;
    for (const auto& item : expected_order) {
        const std::ptrdiff_t at = position(c, item);
        ASSERT_GE(at, 0) << item << " is not a candidate";
        EXPECT_GT(at, previous) << item << " is out of order";
        previous = at;
    }
    EXPECT_EQ(c.back(), "libnccl.so");               // the dynamic linker's search comes last
    EXPECT_GE(position(c, "/first/libnccl.so"), 0);  // the unversioned name too
}

#ifdef GPUKIT_HAVE_NCCL_H
// gpukit declares NCCL's ABI itself (api.hpp); here it is checked against the real header.
static_assert(sizeof(raw_unique_id) == sizeof(ncclUniqueId));
static_assert(unique_id_bytes == NCCL_UNIQUE_ID_BYTES);
static_assert(split_no_color == NCCL_SPLIT_NOCOLOR);
static_assert(static_cast<int>(result::success) == ncclSuccess);
static_assert(static_cast<int>(result::unhandled_cuda_error) == ncclUnhandledCudaError);
static_assert(static_cast<int>(result::system_error) == ncclSystemError);
static_assert(static_cast<int>(result::internal_error) == ncclInternalError);
static_assert(static_cast<int>(result::invalid_argument) == ncclInvalidArgument);
static_assert(static_cast<int>(result::invalid_usage) == ncclInvalidUsage);
static_assert(static_cast<int>(result::remote_error) == ncclRemoteError);
static_assert(static_cast<int>(result::in_progress) == ncclInProgress);
static_assert(static_cast<int>(data_type::int8) == ncclInt8);
static_assert(static_cast<int>(data_type::uint8) == ncclUint8);
static_assert(static_cast<int>(data_type::int32) == ncclInt32);
static_assert(static_cast<int>(data_type::uint32) == ncclUint32);
static_assert(static_cast<int>(data_type::int64) == ncclInt64);
static_assert(static_cast<int>(data_type::uint64) == ncclUint64);
static_assert(static_cast<int>(data_type::float16) == ncclFloat16);
static_assert(static_cast<int>(data_type::float32) == ncclFloat32);
static_assert(static_cast<int>(data_type::float64) == ncclFloat64);
static_assert(static_cast<int>(data_type::bfloat16) == ncclBfloat16);
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 24, 0)
static_assert(static_cast<int>(data_type::float8_e4m3) == ncclFloat8e4m3);
static_assert(static_cast<int>(data_type::float8_e5m2) == ncclFloat8e5m2);
#endif
static_assert(static_cast<int>(reduce_op::sum) == ncclSum);
static_assert(static_cast<int>(reduce_op::prod) == ncclProd);
static_assert(static_cast<int>(reduce_op::max) == ncclMax);
static_assert(static_cast<int>(reduce_op::min) == ncclMin);
static_assert(static_cast<int>(reduce_op::avg) == ncclAvg);
#endif

TEST(NcclErrors, CarryCodeRoutineAndName) {
    try {
        throw_nccl_error(result::invalid_argument, "ncclAllReduce");
        FAIL() << "nothing thrown";
    } catch (const nccl_error& e) {
        EXPECT_EQ(e.code(), 4);
        EXPECT_EQ(e.routine(), "ncclAllReduce");
        EXPECT_EQ(std::string(e.what()).rfind("ncclAllReduce failed: ncclInvalidArgument", 0), 0u) << e.what();
        const api_error& base = e;  // the same base as cuda_error and cl_error
        EXPECT_EQ(base.code(), 4);
    }
    EXPECT_NO_THROW(check(result::success, "ncclGroupStart"));
    EXPECT_THROW(check(result::remote_error, "ncclSend"), nccl_error);
    EXPECT_EQ(result_name(result::system_error), "ncclSystemError");
    EXPECT_EQ(result_name(static_cast<result>(42)), "ncclResult_t 42");
    EXPECT_THROW(throw argument_error("x"), gpukit::logic_error);
}

TEST(NcclErrors, MessageHasNcclsTextWhenTheLibraryLoads) {
    if (!nccl_available())
        GTEST_SKIP() << "libnccl.so.2 is not on this machine";
    try {
        throw_nccl_error(result::invalid_usage, "ncclGroupEnd");
    } catch (const nccl_error& e) {
        const std::string text = api().ncclGetErrorString(result::invalid_usage);
        EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
    }
}

TEST(NcclTypes, NamesSizesAndNcclNumbering) {
    struct expected {
        const char* name;
        std::size_t size;
        int value;
    };
    const expected all[] = {{"int8", 1, 0},    {"uint8", 1, 1},    {"int32", 4, 2},          {"uint32", 4, 3},
                            {"int64", 8, 4},   {"uint64", 8, 5},   {"float16", 2, 6},        {"float32", 4, 7},
                            {"float64", 8, 8}, {"bfloat16", 2, 9}, {"float8_e4m3fn", 1, 10}, {"float8_e5m2", 1, 11}};
    for (const auto& e : all) {
        const auto t = data_type_from_name(e.name);
        ASSERT_TRUE(t) << e.name;
        EXPECT_EQ(static_cast<int>(*t), e.value) << e.name;
        EXPECT_EQ(size_of(*t), e.size) << e.name;
        EXPECT_EQ(name(*t), e.name);
        EXPECT_NE(data_type_names().find(e.name), std::string_view::npos) << e.name;
    }
    EXPECT_EQ(data_type_from_name("float8_e4m3"), data_type::float8_e4m3);
    for (const char* refused : {"float", "double", "int16", "bool", "complex64", "", "Float32"})
        EXPECT_FALSE(data_type_from_name(refused)) << refused;
}

TEST(NcclTypes, ReduceOps) {
    const std::pair<const char*, int> all[] = {{"sum", 0}, {"prod", 1}, {"max", 2}, {"min", 3}, {"avg", 4}};
    for (const auto& [n, value] : all) {
        const auto op = reduce_op_from_name(n);
        ASSERT_TRUE(op) << n;
        EXPECT_EQ(static_cast<int>(*op), value);
        EXPECT_EQ(name(*op), n);
    }
    EXPECT_FALSE(reduce_op_from_name("mean"));
    EXPECT_FALSE(reduce_op_from_name("SUM"));
}

TEST(NcclUniqueId, BytesRoundTripAndWrongSizes) {
    std::vector<std::byte> bytes(unique_id_bytes);
    for (std::size_t k = 0; k < bytes.size(); ++k)
        bytes[k] = static_cast<std::byte>(k * 7 + 3);
    const unique_id id = unique_id::from_bytes(bytes);
    EXPECT_TRUE(std::equal(bytes.begin(), bytes.end(), id.bytes().begin()));
    const raw_unique_id raw = id.raw();
    EXPECT_EQ(static_cast<unsigned char>(raw.internal[127]), static_cast<unsigned char>(127 * 7 + 3));
    EXPECT_EQ(unique_id::from_bytes(bytes), id);
    bytes[5] = std::byte{0};
    EXPECT_FALSE(unique_id::from_bytes(bytes) == id);
    EXPECT_THROW(unique_id::from_bytes(std::vector<std::byte>(127)), argument_error);
    EXPECT_THROW(unique_id::from_bytes(std::vector<std::byte>(129)), argument_error);
}

// plan_call: the size rules, on made-up addresses (nothing is dereferenced).
buffer_arg sized(std::uintptr_t address, std::size_t n, data_type t = data_type::float32,
                 const char* name = "sendbuf") {
    return {address, t, n, name};
}
buffer_arg bare(std::uintptr_t address, data_type t = data_type::float32, const char* name = "recvbuf") {
    return {address, t, std::nullopt, name};
}

TEST(NcclPlanCall, CountComesFromTheBuffers) {
    const auto a = plan_call(collective::all_reduce, 4, 1, sized(0x1000, 10),
                             sized(0x9000, 10, data_type::float32, "recvbuf"), std::nullopt);
    EXPECT_EQ(a.count, 10u);
    EXPECT_EQ(a.send, reinterpret_cast<const void*>(0x1000));
    EXPECT_EQ(a.recv, reinterpret_cast<void*>(0x9000));
    // all_gather: recvbuf holds ranks * count; reduce_scatter: sendbuf does.
    EXPECT_EQ(plan_call(collective::all_gather, 4, 0, sized(0x1000, 3), sized(0x9000, 12), std::nullopt).count, 3u);
    EXPECT_EQ(plan_call(collective::reduce_scatter, 4, 0, sized(0x1000, 12), sized(0x9000, 3), std::nullopt).count, 3u);
    // From recvbuf when sendbuf is a bare pointer.
    EXPECT_EQ(plan_call(collective::all_gather, 4, 0, bare(0x1000), sized(0x9000, 12), std::nullopt).count, 3u);
}

TEST(NcclPlanCall, InPlaceAllGatherAndReduceScatterUseThisRanksPart) {
    // One buffer of 4 ranks * 5 float64: rank 2's part starts 2 * 5 * 8 bytes in.
    const buffer_arg one = sized(0x10000, 20, data_type::float64);
    const auto gather = plan_call(collective::all_gather, 4, 2, one, one, std::nullopt);
    EXPECT_EQ(gather.count, 5u);
    EXPECT_EQ(gather.send, reinterpret_cast<const void*>(0x10000 + 80));
    EXPECT_EQ(gather.recv, reinterpret_cast<void*>(0x10000));
    const auto scatter = plan_call(collective::reduce_scatter, 4, 3, one, one, std::nullopt);
    EXPECT_EQ(scatter.count, 5u);
    EXPECT_EQ(scatter.send, reinterpret_cast<const void*>(0x10000));
    EXPECT_EQ(scatter.recv, reinterpret_cast<void*>(0x10000 + 120));
    // Other collectives in place: the buffer is the count.
    const auto reduce = plan_call(collective::all_reduce, 4, 3, one, one, std::nullopt);
    EXPECT_EQ(reduce.count, 20u);
    EXPECT_EQ(reduce.send, reduce.recv);
}

TEST(NcclPlanCall, MismatchesAreRefusedWithWhatWasExpected) {
    try {
        plan_call(collective::all_gather, 2, 0, sized(0x1000, 3), sized(0x9000, 5, data_type::float32, "recvbuf"),
                  std::nullopt);
        FAIL() << "nothing thrown";
    } catch (const argument_error& e) {
        EXPECT_NE(std::string(e.what()).find("all_gather: recvbuf holds 5 elements but must hold 6 elements"),
                  std::string::npos)
            << e.what();
    }
    EXPECT_THROW(plan_call(collective::all_reduce, 2, 0, sized(0x1000, 3), sized(0x9000, 4), std::nullopt),
                 argument_error);
    // An in-place all_gather buffer must split into one part per rank.
    EXPECT_THROW(plan_call(collective::all_gather, 4, 0, sized(0x1000, 10), sized(0x1000, 10), std::nullopt),
                 argument_error);
    EXPECT_THROW(plan_call(collective::reduce_scatter, 3, 0, sized(0x1000, 10), sized(0x9000, 3), std::nullopt),
                 argument_error);
    // Types must agree: TypeError in Python.
    EXPECT_THROW(plan_call(collective::all_reduce, 1, 0, sized(0x1000, 3, data_type::float32),
                           sized(0x9000, 3, data_type::int32), std::nullopt),
                 gpukit::type_error);
    // Bare pointers only: count= is needed.
    try {
        plan_call(collective::broadcast, 1, 0, bare(0x1000), bare(0x9000), std::nullopt);
        FAIL() << "nothing thrown";
    } catch (const argument_error& e) {
        EXPECT_NE(std::string(e.what()).find("count= is needed"), std::string::npos) << e.what();
    }
}

TEST(NcclPlanCall, AnExplicitCountNeedsAtLeastThatMuch) {
    const auto a = plan_call(collective::all_reduce, 2, 0, sized(0x1000, 10), bare(0x9000), 4);
    EXPECT_EQ(a.count, 4u);  // a prefix of a larger buffer
    EXPECT_EQ(plan_call(collective::all_gather, 2, 0, bare(0x1000), bare(0x9000), 7).count, 7u);
    EXPECT_THROW(plan_call(collective::all_gather, 2, 0, sized(0x1000, 4), sized(0x9000, 7), 4), argument_error);
    EXPECT_THROW(plan_call(collective::all_reduce, 2, 0, sized(0x1000, 3), bare(0x9000), 4), argument_error);
    EXPECT_EQ(plan_call(collective::all_reduce, 2, 0, sized(0x1000, 0), sized(0x9000, 0), std::nullopt).count, 0u);
}

// The group book: what gpukit knows of the groups open on a thread, driven without NCCL
// (made-up handles, never dereferenced).
using nccl::detail::group_book;
using nccl::detail::pending_comm;
using nccl::detail::recorded_call;

comm_t fake_handle(std::uintptr_t n) { return reinterpret_cast<comm_t>(n); }

std::shared_ptr<pending_comm> waiting_on(comm_t handle) {
    auto p = std::make_shared<pending_comm>();
    p->handle = handle;
    return p;
}

TEST(NcclGroupBook, NestsAndSaysWhenTheOutermostEnds) {
    group_book book;
    EXPECT_FALSE(book.open());
    book.enter();
    book.enter();
    EXPECT_EQ(book.depth(), 2);
    EXPECT_FALSE(book.leave());  // the inner one
    EXPECT_TRUE(book.open());
    EXPECT_TRUE(book.leave());  // the outermost
    EXPECT_FALSE(book.open());
    EXPECT_THROW(book.leave(), gpukit::logic_error);
    EXPECT_THROW(book.enroll(waiting_on(fake_handle(0x10))), gpukit::logic_error);
}

TEST(NcclGroupBook, AGroupThatEndsWellMakesWhatItWaitedFor) {
    group_book book;
    book.enter();
    auto kept = waiting_on(fake_handle(0x10));     // its communicator object still holds it
    auto dropped = waiting_on(fake_handle(0x20));  // its communicator went away inside the group
    auto no_color = waiting_on(nullptr);           // a split_no_color rank: NCCL writes null
    book.enroll(kept);
    book.enroll(dropped);
    book.enroll(no_color);
    EXPECT_EQ(book.enrolled(), 3u);
    dropped.reset();
    no_color.reset();
    EXPECT_TRUE(book.leave());
    const group_book::release_list out = book.settle(true);
    EXPECT_EQ(kept->state, pending_comm::phase::made);
    EXPECT_EQ(kept->handle, fake_handle(0x10));
    ASSERT_EQ(out.destroy.size(), 1u);  // only the one nobody holds, and it has a handle
    EXPECT_EQ(out.destroy[0]->handle, fake_handle(0x20));
    EXPECT_EQ(out.destroy[0]->state, pending_comm::phase::made);
    EXPECT_TRUE(out.abort.empty());
    EXPECT_EQ(book.enrolled(), 0u);
}

TEST(NcclGroupBook, AGroupThatFailsAbortsEverythingItWasMaking) {
    group_book book;
    book.enter();
    auto kept = waiting_on(fake_handle(0x10));
    auto split = waiting_on(nullptr);  // a split NCCL never ran: no handle to abort
    book.enroll(kept);
    book.enroll(split);
    book.refuse("all_reduce: sendbuf holds 3 elements but must hold 4 elements");
    EXPECT_TRUE(book.leave());
    const group_book::release_list out = book.settle(false);
    EXPECT_EQ(kept->state, pending_comm::phase::failed);
    EXPECT_EQ(split->state, pending_comm::phase::failed);
    ASSERT_EQ(out.abort.size(), 1u);
    EXPECT_EQ(out.abort[0], kept);
    EXPECT_TRUE(out.destroy.empty());
    EXPECT_FALSE(book.refused());  // the next group starts clean
    EXPECT_EQ(book.enrolled(), 0u);
}

TEST(NcclGroupBook, KeepsTheFirstRefusal) {
    group_book book;
    book.refuse("first");
    book.refuse("second");
    EXPECT_EQ(book.refusal(), "first");
    group_book other;
    other.refuse("");
    EXPECT_TRUE(other.refused());
}

TEST(NcclGroupBook, RefusalsAreRecordedOnlyInsideAGroupOfThisThread) {
    group_book& book = nccl::detail::this_thread_groups();
    ASSERT_FALSE(book.open());
    EXPECT_EQ(nccl::detail::refusing_in_group([] { return 7; }), 7);
    EXPECT_THROW(nccl::detail::refusing_in_group([]() -> int { throw std::invalid_argument("outside"); }),
                 std::invalid_argument);
    EXPECT_FALSE(book.refused());
    book.enter();
    EXPECT_THROW(nccl::detail::refusing_in_group([] { throw argument_error("peer 3 is outside [0, 2)"); }),
                 argument_error);
    EXPECT_THROW(nccl::detail::refusing_in_group([] { throw 42; }), int);
    EXPECT_EQ(book.refusal(), "peer 3 is outside [0, 2)");
    // Another thread has groups of its own, as NCCL's group state is per thread.
    std::thread([] { EXPECT_FALSE(nccl::detail::this_thread_groups().open()); }).join();
    EXPECT_TRUE(book.leave());
    book.settle(false);
    EXPECT_FALSE(book.refused());
}

TEST(NcclGroupBook, AnErrorWithoutAMessageRefusesInWordsWithoutCppNames) {
    group_book& book = nccl::detail::this_thread_groups();
    book.enter();
    EXPECT_THROW(nccl::detail::refusing_in_group([] { throw 42; }), int);
    EXPECT_EQ(book.refusal(), "a call in the group failed with an error that carries no message");
    EXPECT_TRUE(book.leave());
    book.settle(false);
}

// A call recorded in a group: counts how often it is issued, and records its order in `log`.
recorded_call counted_call(const char* routine, std::vector<std::string>& log) {
    return {routine, nullptr, [routine, &log] {
                log.push_back(routine);
                return result::success;
            }};
}

TEST(NcclGroupBook, RecordsCallsInOrderAndKeepsOwnersUntilItSettles) {
    group_book book;
    std::vector<std::string> issued;
    EXPECT_THROW(book.record(counted_call("ncclAllReduce", issued)), gpukit::logic_error);
    EXPECT_THROW(book.keep(std::make_shared<int>(1)), gpukit::logic_error);
    EXPECT_THROW(book.release_at_end(fake_handle(0x10), nullptr, false), gpukit::logic_error);
    book.enter();
    book.record(counted_call("ncclSend", issued));
    book.enter();
    book.record(counted_call("ncclRecv", issued));
    EXPECT_FALSE(book.leave());
    book.record(counted_call("ncclAllReduce", issued));
    auto owner = std::make_shared<int>(7);  // a binding's references to the buffers
    book.keep(owner);
    book.release_at_end(fake_handle(0x30), nullptr, false);  // destroy() inside the group
    book.release_at_end(fake_handle(0x40), nullptr, true);   // abort() inside the group
    EXPECT_EQ(book.recorded(), 3u);
    EXPECT_EQ(book.kept(), 1u);
    EXPECT_TRUE(issued.empty());  // recording issues nothing
    EXPECT_TRUE(book.leave());
    const std::vector<recorded_call> calls = book.take_calls();
    EXPECT_EQ(book.recorded(), 0u);
    for (const auto& call : calls)
        EXPECT_EQ(call.issue(), result::success);
    EXPECT_EQ(issued, (std::vector<std::string>{"ncclSend", "ncclRecv", "ncclAllReduce"}));
    EXPECT_EQ(owner.use_count(), 2);  // still kept while the calls are issued
    const group_book::release_list out = book.settle(true);
    EXPECT_EQ(owner.use_count(), 1);
    EXPECT_EQ(book.kept(), 0u);
    ASSERT_EQ(out.destroy.size(), 1u);
    EXPECT_EQ(out.destroy[0]->handle, fake_handle(0x30));
    ASSERT_EQ(out.abort.size(), 1u);
    EXPECT_EQ(out.abort[0]->handle, fake_handle(0x40));
}

TEST(NcclGroupBook, AFailedGroupDropsItsCallsAndStillReleasesWhatWasDestroyedInIt) {
    group_book book;
    std::vector<std::string> issued;
    book.enter();
    book.record(counted_call("ncclAllReduce", issued));
    auto owner = std::make_shared<int>(7);
    book.keep(owner);
    book.release_at_end(fake_handle(0x30), nullptr, false);
    book.refuse("peer 3 is outside [0, 1)");
    EXPECT_TRUE(book.leave());
    const group_book::release_list out = book.settle(false);
    EXPECT_EQ(book.recorded(), 0u);  // dropped, never issued
    EXPECT_TRUE(issued.empty());
    EXPECT_EQ(owner.use_count(), 1);
    ASSERT_EQ(out.destroy.size(), 1u);  // the caller destroyed it: gone whatever the group did
    EXPECT_EQ(out.destroy[0]->handle, fake_handle(0x30));
    EXPECT_TRUE(out.abort.empty());
}

// The group object's ways of issuing nothing need no NCCL: gpukit discards what it recorded.
TEST(NcclGroup, ARefusedCallFailsTheGroupWhichIssuesNoneOfItsCalls) {
    group_book& book = nccl::detail::this_thread_groups();
    ASSERT_FALSE(book.open());
    std::vector<std::string> issued;
    auto made = waiting_on(nullptr);  // a communicator the group was making
    {
        group g;
        book.record(counted_call("ncclAllReduce", issued));
        book.enroll(made);
        EXPECT_THROW(nccl::detail::refusing_in_group([] { throw argument_error("peer 3 is outside [0, 1)"); }),
                     argument_error);
        gpukit::test::expect_error<nccl_error>([&] { g.end(); }, "a call in it was refused",
                                               "none of its calls was issued", "peer 3 is outside [0, 1)");
        EXPECT_THROW(g.end(), gpukit::logic_error);
    }
    EXPECT_TRUE(issued.empty());
    EXPECT_EQ(made->state, pending_comm::phase::failed);
    EXPECT_FALSE(book.open());
    EXPECT_FALSE(book.refused());  // the next group starts clean
}

TEST(NcclGroup, CancelledGroupsIssueNothingAndFailTheirEnclosingGroup) {
    group_book& book = nccl::detail::this_thread_groups();
    std::vector<std::string> issued;
    auto owner = std::make_shared<int>(7);
    {
        group g;
        book.record(counted_call("ncclSend", issued));
        book.keep(owner);
        g.cancel();
        g.cancel();  // once only
    }
    EXPECT_EQ(owner.use_count(), 1);
    try {
        group g;
        book.record(counted_call("ncclRecv", issued));
        throw std::runtime_error("leaving");
    } catch (const std::runtime_error&) {
    }
    {
        group outer;
        book.record(counted_call("ncclAllGather", issued));
        {
            group inner;
            book.record(counted_call("ncclBroadcast", issued));
            inner.cancel();
        }
        EXPECT_EQ(book.depth(), 1);
        gpukit::test::expect_error<nccl_error>([&] { outer.end(); }, "a group inside it was cancelled");
    }
    EXPECT_TRUE(issued.empty());
    EXPECT_FALSE(book.open());
    EXPECT_EQ(book.recorded(), 0u);
}

// The comparison behind check_agreement: every rank's call against rank 0's.
TEST(NcclAgreement, DescribesACall) {
    EXPECT_EQ(describe(
                  signature_of(collective::all_reduce, 1000, data_type::float32, static_cast<int>(reduce_op::sum))),
              "all_reduce of 1000 float32, op sum");
    EXPECT_EQ(describe(signature_of(collective::broadcast, 8, data_type::int64, -1, 1)),
              "broadcast of 8 int64, root 1");
    EXPECT_EQ(describe(signature_of(collective::all_gather, 3, data_type::bfloat16)), "all_gather of 3 bfloat16");
    EXPECT_EQ(describe(refused_signature(collective::reduce)),
              "reduce that the rank's own checks refused (its error says why)");
    // Values another rank sent that name nothing are shown as numbers, never indexed.
    EXPECT_EQ(describe({99, 4, 77, 12, -1}), "collective #99 of 4 type #77, op #12");
}

TEST(NcclAgreement, RanksThatAgreePass) {
    const call_signature same = signature_of(collective::reduce_scatter, 16, data_type::float64, 2);
    const std::vector<call_signature> ranks(4, same);
    EXPECT_NO_THROW(require_agreement("reduce_scatter", ranks));
    EXPECT_NO_THROW(require_agreement("all_reduce", std::vector<call_signature>(1, same)));
}

TEST(NcclAgreement, SizesDtypesOpsRootsAndCollectivesThatDifferAreNamed) {
    const call_signature base = signature_of(collective::all_reduce, 1000, data_type::float32, 0);
    std::vector<call_signature> ranks(3, base);
    ranks[2].count = 500;
    gpukit::test::expect_error<argument_error>(
        [&] { require_agreement("all_reduce", ranks); }, "all_reduce: the ranks disagree on the call",
        "nothing was run: rank 0: all_reduce of 1000 float32, op sum; rank 2: all_reduce of 500 float32, op sum");
    for (auto change : {+[](call_signature& c) { c.type = static_cast<std::int64_t>(data_type::float64); },
                        +[](call_signature& c) { c.op = static_cast<std::int64_t>(reduce_op::max); },
                        +[](call_signature& c) { c.root = 1; },
                        +[](call_signature& c) { c.what = static_cast<std::int64_t>(collective::broadcast); },
                        +[](call_signature& c) { c = refused_signature(collective::all_reduce); }}) {
        std::vector<call_signature> two(2, base);
        change(two[1]);
        EXPECT_THROW(require_agreement("all_reduce", two), argument_error);
    }
}

TEST(NcclAgreement, ManyDifferingRanksAreCounted) {
    std::vector<call_signature> ranks(8, signature_of(collective::all_gather, 1, data_type::uint8));
    for (std::size_t r = 1; r < ranks.size(); ++r)
        ranks[r].count = static_cast<std::int64_t>(r + 1);
    // Ranks 1 to 4 are named, the other three counted.
    gpukit::test::expect_error<argument_error>(
        [&] { require_agreement("all_gather", ranks); },
        "rank 4: all_gather of 5 uint8; and 3 more ranks that differ from rank 0");
}

}  // namespace
