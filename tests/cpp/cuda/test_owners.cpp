// Every CUDA owner's release paths on a real GPU: move-assignment over a live object releases
// the old handle, destruction while another context is current releases in the owner's
// context, and the explicit free is final. Run under compute-sanitizer (memcheck, leakcheck)
// these show that no path leaks or touches a released handle; test_context_bound.cpp checks
// the template itself without a device.
#include "gpu_test.hpp"

#include "gpukit/core/error.hpp"
#include "gpukit/cuda/api.hpp"
#include "gpukit/cuda/array.hpp"
#include "gpukit/cuda/event.hpp"
#include "gpukit/cuda/graph.hpp"
#include "gpukit/cuda/host_memory.hpp"
#include "gpukit/cuda/launch_staging.hpp"
#include "gpukit/cuda/managed_memory.hpp"
#include "gpukit/cuda/memory.hpp"
#include "gpukit/cuda/stream.hpp"
#include "gpukit/cuda/texture.hpp"

#include <cstddef>
#include <cstring>
#include <memory>
#include <vector>

namespace {

using namespace gpukit::cuda;
using Owners = gpukit::testing::gpu_test;

// True while the driver knows `address` as memory (device, managed or registered host).
bool driver_knows(CUdeviceptr address) {
    CUcontext owner = nullptr;
    return api().cuPointerGetAttribute(&owner, CU_POINTER_ATTRIBUTE_CONTEXT, address) == CUDA_SUCCESS;
}
bool driver_knows(const void* host) { return driver_knows(reinterpret_cast<CUdeviceptr>(host)); }

CUDA_ARRAY3D_DESCRIPTOR small_array(unsigned flags = 0) {
    CUDA_ARRAY3D_DESCRIPTOR d{};
    d.Width = 8;
    d.Height = 4;
    d.Format = CU_AD_FORMAT_FLOAT;
    d.NumChannels = 1;
    d.Flags = flags;
    return d;
}

// Runs `body` with a second context current, then restores the test's own.
template <class Body>
void with_other_context(Body body) {
    context other = device::get(0).make_context();  // now current
    body();
    other.detach();
}

// The release paths of an allocation owner: move-assignment over a live allocation frees the
// old one, destruction with another context current still frees, and free() is final (a
// second free does nothing, data() throws). `allocate(bytes)` makes an allocation, `address`
// gives what the driver knows it by; the three sizes are those of the allocations made.
template <class Allocate, class Address>
void expect_release_paths(Allocate allocate, Address address, std::size_t first, std::size_t second,
                          std::size_t destroyed) {
    using allocation = decltype(allocate(first));
    allocation a = allocate(first);
    allocation b = allocate(second);
    const auto old_address = address(a);
    a = std::move(b);
    EXPECT_FALSE(driver_knows(old_address));
    EXPECT_EQ(a.size(), second);
    EXPECT_TRUE(b.is_freed());
    auto c = std::make_unique<allocation>(allocate(destroyed));
    const auto c_address = address(*c);
    with_other_context([&] { c.reset(); });
    EXPECT_FALSE(driver_knows(c_address));
    a.free();
    a.free();
    EXPECT_THROW(a.data(), gpukit::logic_error);
}

TEST_F(Owners, DeviceMemoryMoveAssignReleasesTheOldAllocation) {
    device_allocation a = device_allocation::allocate(100);
    device_allocation b = device_allocation::allocate(200);
    const CUdeviceptr old_address = a.get(), kept = b.get();
    a = std::move(b);
    EXPECT_FALSE(driver_knows(old_address));
    EXPECT_EQ(a.get(), kept);
    EXPECT_EQ(a.size(), 200u);
    EXPECT_TRUE(b.is_freed());
    EXPECT_EQ(b.size(), 0u);
    auto c = std::make_unique<device_allocation>(device_allocation::allocate(64));
    const CUdeviceptr c_address = c->get();
    with_other_context([&] { c.reset(); });  // the destructor makes c's context current
    EXPECT_FALSE(driver_knows(c_address));
}

TEST_F(Owners, ManagedMemoryMoveAssignAndDestructor) {
    expect_release_paths([](std::size_t bytes) { return managed_allocation::allocate(bytes, CU_MEM_ATTACH_GLOBAL); },
                         [](const managed_allocation& m) { return m.device_pointer(); }, 64, 32, 16);
}

TEST_F(Owners, PagelockedMemoryMoveAssignAndDestructor) {
    expect_release_paths([](std::size_t bytes) { return pagelocked_host_allocation::allocate(bytes, 0); },
                         [](const pagelocked_host_allocation& p) { return p.data(); }, 100, 50, 10);
}

TEST_F(Owners, RegisteredMemoryMoveAssignAndDestructor) {
    const std::size_t page = host_page_size();
    aligned_host_allocation first = aligned_host_allocation::allocate(page, page);
    aligned_host_allocation second = aligned_host_allocation::allocate(page, page);
    registered_host_memory a = registered_host_memory::register_memory(first.data(), page, 0);
    registered_host_memory b = registered_host_memory::register_memory(second.data(), page, 0);
    a = std::move(b);
    EXPECT_FALSE(driver_knows(first.data()));
    EXPECT_TRUE(driver_knows(second.data()));
    EXPECT_FALSE(b.is_registered());
    with_other_context([&] { a = registered_host_memory::register_memory(first.data(), page, 0); });
    EXPECT_FALSE(driver_knows(second.data()));  // unregistered in its own context
    EXPECT_TRUE(driver_knows(first.data()));
}

TEST_F(Owners, AlignedHostMemoryMoves) {
    aligned_host_allocation a = aligned_host_allocation::allocate(10, 64);
    aligned_host_allocation b = aligned_host_allocation::allocate(20, 128);
    void* kept = b.data();
    a = std::move(b);  // frees a's memory (AddressSanitizer reports a leak otherwise)
    EXPECT_EQ(a.data(), kept);
    EXPECT_EQ(a.size(), 20u);
    EXPECT_TRUE(b.is_freed());
    EXPECT_EQ(b.size(), 0u);
    a.free();
    a.free();
    EXPECT_THROW(a.data(), gpukit::logic_error);
}

TEST_F(Owners, StreamsEventsAndGraphsMoveAssignAndDestructors) {
    stream s = stream::create();
    s = stream::create(CU_STREAM_NON_BLOCKING);  // destroys the first stream
    EXPECT_EQ(s.flags(), static_cast<unsigned>(CU_STREAM_NON_BLOCKING));
    event e = event::create();
    e = event::create(CU_EVENT_DISABLE_TIMING);
    EXPECT_EQ(e.flags(), static_cast<unsigned>(CU_EVENT_DISABLE_TIMING));
    graph g = graph::create();
    graph_exec exec = g.instantiate();
    g = graph::create();
    exec = g.instantiate();
    EXPECT_EQ(g.node_count(), 0u);
    auto other_stream = std::make_unique<stream>(stream::create());
    auto other_event = std::make_unique<event>(event::create());
    auto other_graph = std::make_unique<graph>(graph::create());
    with_other_context([&] {
        other_stream.reset();
        other_event.reset();
        other_graph.reset();
    });
    stream moved = std::move(s);
    EXPECT_EQ(s.handle(), nullptr);
    EXPECT_EQ(s.owner(), nullptr);
    EXPECT_EQ(moved.owner(), ctx->state());
}

TEST_F(Owners, AStreamWaitsForABorrowedEvent) {
    stream producer = stream::create(), consumer = stream::create();
    event done = event::create();
    done.record(producer);
    const event_view borrowed(done.handle());  // as from another library
    consumer.view().wait_for_event(borrowed);
    consumer.view().wait_for_event(done);  // an event converts to its view
    consumer.wait_for_event(done);
    consumer.synchronize();
    borrowed.synchronize();
    EXPECT_TRUE(borrowed.query());
    EXPECT_EQ(done.view().handle(), done.handle());
}

TEST_F(Owners, ArraysTexturesAndSurfacesMoveAssignAndDestructors) {
    array a = array::create(small_array());
    a = array::create(small_array());
    auto shared = std::make_shared<array>(std::move(a));
    EXPECT_THROW(a.handle(), gpukit::logic_error);
    texture_object t = texture_object::from_array(shared);
    t = texture_object::from_array(shared);
    EXPECT_EQ(t.owner(), ctx->state());
    auto writable = std::make_shared<array>(array::create(small_array(CUDA_ARRAY3D_SURFACE_LDST)));
    surface_object s(writable);
    s = surface_object(writable);
    std::weak_ptr<array> watch = writable;
    writable.reset();
    with_other_context([&] {
        auto fresh = std::make_shared<array>(array::create(small_array(CUDA_ARRAY3D_SURFACE_LDST)));
        s = surface_object(fresh);
    });
    EXPECT_TRUE(watch.expired());  // the old surface went first, then its array
    auto other = std::make_unique<array>(array::create(small_array()));
    with_other_context([&] { other.reset(); });
    t.destroy();
    t.destroy();
    EXPECT_THROW(t.owner(), gpukit::logic_error);
}

TEST_F(Owners, StagingBuffersCopyBackAndFree) {
    std::vector<unsigned char> host(37, 5);
    stream s = stream::create();
    std::vector<staging_buffer> staged;
    staged.emplace_back(host.data(), host.size(), true, true, s.view());
    staged.emplace_back(host.data(), 0, true, true, s.view());  // empty: nothing allocated
    EXPECT_EQ(staged[1].device_pointer(), 0u);
    const CUdeviceptr device = staged[0].device_pointer();
    ASSERT_TRUE(driver_knows(device));
    GPUKIT_CU(cuMemsetD8Async, device, 9, host.size(), s.handle());
    for (staging_buffer& b : staged)
        b.finish();
    EXPECT_EQ(host, std::vector<unsigned char>(37, 9));
    with_other_context([&] { staged.clear(); });  // waits for s, frees in the owner's context
    EXPECT_FALSE(driver_knows(device));
}

}  // namespace
