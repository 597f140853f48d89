// The OpenCL backend, for real on whatever platform is installed (PoCL in CI). Tests that
// need a device skip with the reason when there is none; parsing and errors run anywhere.
#include "gpukit/cl/api.hpp"
#include "gpukit/cl/buffer.hpp"
#include "gpukit/cl/detail/parameter_types.hpp"
#include "gpukit/cl/kernel.hpp"
#include "gpukit/cl/platform.hpp"
#include "gpukit/cl/program.hpp"
#include "gpukit/cl/select.hpp"

#include "cl_test_device.hpp"
#include "expect_error.hpp"
#include "random_data.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace gpukit;
using gpukit::testing::random_bytes;
using gpukit::testing::random_floats;
using gpukit::testing::why_no_opencl;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// Each test gets a context and a profiling queue on the first device.
class ClDevice : public gpukit::testing::cl_queue_test {
protected:
    ClDevice() : cl_queue_test(true) {}

    cl::program build(const std::string& source, const std::string& options = {}) {
        cl::program prog = cl::program::create_with_source(*ctx, source);
        prog.build(options);
        return prog;
    }
};

TEST(ClErrors, NamesAndMessages) {
    EXPECT_EQ(cl::error_name(CL_SUCCESS), "CL_SUCCESS");
    EXPECT_EQ(cl::error_name(CL_INVALID_KERNEL_ARGS), "CL_INVALID_KERNEL_ARGS");
    EXPECT_EQ(cl::error_name(CL_MAX_SIZE_RESTRICTION_EXCEEDED), "CL_MAX_SIZE_RESTRICTION_EXCEEDED");
    EXPECT_EQ(cl::error_name(-12345), "unknown OpenCL error");
    try {
        cl::throw_cl_error(CL_INVALID_VALUE, "clFoo", "what went wrong");
        FAIL() << "throw_cl_error returned";
    } catch (const cl::logic_error& e) {
        EXPECT_STREQ(e.what(), "clFoo failed: CL_INVALID_VALUE (-30): what went wrong");
        EXPECT_EQ(e.code(), CL_INVALID_VALUE);
        EXPECT_EQ(e.routine(), "clFoo");
    }
}

TEST(ClErrors, CodesMapToClasses) {
    EXPECT_THROW(cl::throw_cl_error(CL_MEM_OBJECT_ALLOCATION_FAILURE, "x"), cl::memory_error);
    EXPECT_THROW(cl::throw_cl_error(CL_OUT_OF_RESOURCES, "x"), cl::memory_error);
    EXPECT_THROW(cl::throw_cl_error(CL_OUT_OF_HOST_MEMORY, "x"), cl::memory_error);
    EXPECT_THROW(cl::throw_cl_error(CL_INVALID_ARG_SIZE, "x"), cl::logic_error);
    EXPECT_THROW(cl::throw_cl_error(CL_MEM_COPY_OVERLAP, "x"), cl::logic_error);
    EXPECT_THROW(cl::throw_cl_error(CL_DEVICE_NOT_FOUND, "x"), cl::runtime_error);
    EXPECT_THROW(cl::throw_cl_error(CL_BUILD_PROGRAM_FAILURE, "x"), cl::runtime_error);
    EXPECT_THROW(cl::throw_cl_error(CL_INVALID_VALUE, "x"), gpukit::cl_error);
}

TEST(ClNoLibrary, CallsSayWhichLibraryIsMissing) {
    if (cl::available())
        GTEST_SKIP() << "libOpenCL.so.1 is installed here";
    try {
        cl::platform::all();
        FAIL() << "platform::all() worked without libOpenCL.so.1";
    } catch (const cl::runtime_error& e) {
        EXPECT_TRUE(contains(e.what(), "libOpenCL.so.1")) << e.what();
    }
}

TEST(ClVersions, ParsesTheSpecificationsForm) {
    EXPECT_EQ(cl::parse_opencl_version("OpenCL 3.0 PoCL HSTR: pthread", "x"), std::make_pair(3, 0));
    EXPECT_EQ(cl::parse_opencl_version("OpenCL 1.2", "x"), std::make_pair(1, 2));
    EXPECT_EQ(cl::parse_opencl_version("OpenCL 2.10 CUDA", "x"), std::make_pair(2, 10));
    for (const char* bad :
         {"", "OpenCL", "OpenCL 3", "OpenCL 3.", "OpenCL .1", "OpenCL 3.0x", "opencl 3.0", "OpenCL 12345.0"})
        EXPECT_THROW(cl::parse_opencl_version(bad, "device d"), cl::runtime_error) << bad;
    try {
        cl::parse_opencl_version("CUDA 12", "device d");
    } catch (const cl::runtime_error& e) {
        EXPECT_TRUE(contains(e.what(), "the OpenCL version of device d is 'CUDA 12'")) << e.what();
    }
}

TEST(ClSelection, ParsesValidSpecs) {
    const auto entries = cl::parse_device_spec("0:0,1;intel=i5,i7; pocl ");
    ASSERT_EQ(entries.size(), 3u);
    EXPECT_EQ(entries[0].platform, "0");
    EXPECT_EQ(entries[0].devices, (std::vector<std::string>{"0", "1"}));
    EXPECT_EQ(entries[1].platform, "intel");
    EXPECT_EQ(entries[1].devices, (std::vector<std::string>{"i5", "i7"}));
    EXPECT_EQ(entries[2].platform, "pocl");
    EXPECT_TRUE(entries[2].devices.empty());
    EXPECT_TRUE(cl::parse_device_spec("").empty());
    EXPECT_TRUE(cl::parse_device_spec("  ").empty());
}

TEST(ClSelection, RejectsMalformedSpecs) {
    for (const char* spec : {":0", "0:", "0=", "0:1:2", "0:1=2", "0:,1", "0:1,", "0;;1", ";", "0; ;1"}) {
        try {
            cl::parse_device_spec(spec);
            ADD_FAILURE() << "accepted '" << spec << "'";
        } catch (const cl::logic_error& e) {
            EXPECT_TRUE(contains(e.what(), "malformed device selection")) << e.what();
            EXPECT_TRUE(contains(e.what(), "expected entries like")) << e.what();
        }
    }
}

TEST_F(ClDevice, PlatformsAndDevicesDescribeThemselves) {
    const auto platforms = cl::platform::all();
    ASSERT_FALSE(platforms.empty());
    for (const cl::platform& p : platforms) {
        EXPECT_FALSE(p.name().empty());
        EXPECT_FALSE(p.vendor().empty());
        EXPECT_TRUE(p.version().starts_with("OpenCL ")) << p.version();
        EXPECT_TRUE(p.profile() == "FULL_PROFILE" || p.profile() == "EMBEDDED_PROFILE") << p.profile();
        p.extensions();
    }
    const cl::device dev = ctx->devices().front();
    EXPECT_FALSE(dev.name().empty());
    EXPECT_NE(dev.type(), 0u);
    EXPECT_FALSE(dev.vendor().empty());
    EXPECT_TRUE(dev.version().starts_with("OpenCL ")) << dev.version();
    EXPECT_FALSE(dev.driver_version().empty());
    EXPECT_GT(dev.max_compute_units(), 0u);
    EXPECT_GT(dev.global_mem_size(), 0u);
    EXPECT_GT(dev.local_mem_size(), 0u);
    EXPECT_GT(dev.max_work_group_size(), 0u);
    EXPECT_GT(dev.max_mem_alloc_size(), 0u);
    dev.svm_capabilities();
    dev.extensions();
    // The test device's platform is one of those listed (not necessarily the first).
    EXPECT_NE(std::find(platforms.begin(), platforms.end(), dev.get_platform()), platforms.end());
    EXPECT_EQ(dev.info<cl_uint>(CL_DEVICE_MAX_COMPUTE_UNITS), dev.max_compute_units());
    EXPECT_EQ(dev.image_support(), dev.info<cl_bool>(CL_DEVICE_IMAGE_SUPPORT) == CL_TRUE);
    EXPECT_THROW(dev.info<cl_uchar>(CL_DEVICE_MAX_COMPUTE_UNITS), cl::logic_error);
}

TEST_F(ClDevice, VersionsAndVendorAreTheDevicesAnswers) {
    const cl::device d = ctx->devices().at(0);
    EXPECT_EQ(d.opencl_version(), cl::parse_opencl_version(d.version(), "d"));
    EXPECT_GE(d.get_platform().opencl_version(), std::make_pair(1, 2));
    EXPECT_EQ(d.vendor_id(), d.info<cl_uint>(CL_DEVICE_VENDOR_ID));
}

TEST_F(ClDevice, BarriersMarkersAndWaitingForEvents) {
    const auto data = random_bytes(4096, 3);
    auto b = cl::buffer::create(*ctx, CL_MEM_READ_WRITE, data.size());
    cl::event written = cl::enqueue_write(*q, b, 0, data.data(), data.size(), false);
    const cl_event after_write[] = {written.handle()};
    cl::event barrier = cl::enqueue_barrier(*q, after_write);
    std::vector<unsigned char> back(data.size());
    const cl_event after_barrier[] = {barrier.handle()};
    cl::event read = cl::enqueue_read(*q, b, 0, back.data(), back.size(), false, after_barrier);
    const cl::event* all[] = {&written, &barrier, &read};
    cl::wait_for_events(all);
    EXPECT_EQ(back, data);
    EXPECT_THROW(cl::wait_for_events({}), cl::logic_error);
}

TEST_F(ClDevice, AnOutOfOrderQueueRunsInOrderAndSaysItWasAsked) {
    constexpr cl_command_queue_properties out_of_order = CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE;
    EXPECT_THROW(cl::queue::create_with(*ctx, *dev, 1u << 10), cl::logic_error);
    if (!(dev->info<cl_command_queue_properties>(CL_DEVICE_QUEUE_PROPERTIES) & out_of_order)) {
        EXPECT_THROW(cl::queue::create_with(*ctx, *dev, out_of_order), cl::logic_error);
        return;
    }
    const cl::queue ooo = cl::queue::create_with(*ctx, *dev, out_of_order);
    EXPECT_EQ(ooo.properties(), out_of_order);
    EXPECT_FALSE(ooo.profiling());
    cl_command_queue_properties reported = 0;
    const std::vector<std::byte> bytes = ooo.info_bytes(CL_QUEUE_PROPERTIES);
    ASSERT_EQ(bytes.size(), sizeof reported);
    std::memcpy(&reported, bytes.data(), sizeof reported);
    EXPECT_EQ(reported, out_of_order);
    // Two writes of one range without events between them: the second one's bytes stay.
    const auto first = random_bytes(1 << 20, 4), second = random_bytes(1 << 20, 5);
    auto b = cl::buffer::create(*ctx, CL_MEM_READ_WRITE, first.size());
    cl::enqueue_write(ooo, b, 0, first.data(), first.size(), false);
    cl::enqueue_write(ooo, b, 0, second.data(), second.size(), false);
    std::vector<unsigned char> back(second.size());
    cl::enqueue_read(ooo, b, 0, back.data(), back.size(), true);
    EXPECT_EQ(back, second);
}

// The raw info answers of each object are OpenCL's: each names the objects it belongs to.
TEST_F(ClDevice, InfoBytesOfEachObjectAreOpenCLsAnswers) {
    auto handle_in = [](const std::vector<std::byte>& bytes, auto handle) {
        decltype(handle) value{};
        EXPECT_EQ(bytes.size(), sizeof value);
        std::memcpy(&value, bytes.data(), sizeof value);
        return value == handle;
    };
    const cl::device d = ctx->devices().at(0);
    const std::vector<std::byte> name = d.get_platform().info_bytes(CL_PLATFORM_NAME);
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(name.data())), d.get_platform().name());
    EXPECT_TRUE(handle_in(ctx->info_bytes(CL_CONTEXT_DEVICES), d.handle()));
    EXPECT_TRUE(handle_in(q->info_bytes(CL_QUEUE_CONTEXT), ctx->handle()));
    cl::event marker = cl::enqueue_marker(*q);
    marker.wait();
    EXPECT_TRUE(handle_in(marker.info_bytes(CL_EVENT_COMMAND_QUEUE), q->handle()));
    const std::vector<std::byte> end = marker.profiling_info_bytes(CL_PROFILING_COMMAND_END);
    EXPECT_EQ(end.size(), sizeof(cl_ulong));
    cl::program prog = cl::program::create_with_source(*ctx, "__kernel void k(__global int* x) { x[0] = 1; }");
    prog.build();
    const std::vector<std::byte> status = prog.build_info_bytes(d, CL_PROGRAM_BUILD_STATUS);
    cl_build_status built = CL_BUILD_NONE;
    ASSERT_EQ(status.size(), sizeof built);
    std::memcpy(&built, status.data(), sizeof built);
    EXPECT_EQ(built, CL_BUILD_SUCCESS);
    EXPECT_THROW(ctx->info_bytes(0xFFFF), cl::logic_error);
}

TEST_F(ClDevice, UserEventsGateCommandsAndCallbacksReportTheStatus) {
    const auto data = random_bytes(1024, 9);
    auto b = cl::buffer::create(*ctx, CL_MEM_READ_WRITE, data.size());
    std::atomic<int> reported{-100};
    {
        cl::user_event gate = cl::user_event::create(*ctx);
        EXPECT_EQ(gate.status(), CL_SUBMITTED);
        const cl_event after_gate[] = {gate.handle()};
        cl::event written = cl::enqueue_write(*q, b, 0, data.data(), data.size(), false, after_gate);
        written.set_callback(CL_COMPLETE, [&](cl_int status) { reported = status; });
        EXPECT_NE(written.status(), CL_COMPLETE);
        gate.set_status(CL_COMPLETE);
        written.wait();
        EXPECT_THROW(gate.set_status(CL_COMPLETE), cl::logic_error);
        EXPECT_THROW(written.set_callback(7, [](cl_int) {}), cl::logic_error);
    }
    for (int k = 0; k < 1000 && cl::pending_completion_reports() != 0; ++k)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    EXPECT_EQ(reported.load(), CL_COMPLETE);
    // A gate dropped without a status fails what waits for it instead of holding it forever.
    std::vector<unsigned char> back(data.size());
    cl::event read = [&] {
        cl::user_event gate = cl::user_event::create(*ctx);
        const cl_event after_gate[] = {gate.handle()};
        return cl::enqueue_read(*q, b, 0, back.data(), back.size(), false, after_gate);
    }();
    EXPECT_THROW(read.wait(), cl_error);
    EXPECT_LT(read.status(), 0);
}

TEST_F(ClDevice, SubBuffersAreRegionsOfTheirParent) {
    const cl::device d = ctx->devices().at(0);
    const size_t align = d.info<cl_uint>(CL_DEVICE_MEM_BASE_ADDR_ALIGN) / 8;
    const auto data = random_bytes(8 * align, 5);
    std::optional<cl::buffer> sub;
    {
        auto parent = cl::buffer::create(*ctx, CL_MEM_READ_WRITE, data.size());
        cl::enqueue_write(*q, parent, 0, data.data(), data.size(), true);
        sub = parent.sub_region(2 * align, 3 * align);
    }  // the sub-buffer keeps its parent's memory
    EXPECT_EQ(sub->size(), 3 * align);
    EXPECT_EQ(sub->flags() & CL_MEM_READ_WRITE, static_cast<cl_mem_flags>(CL_MEM_READ_WRITE));
    std::vector<unsigned char> back(3 * align);
    cl::enqueue_read(*q, *sub, 0, back.data(), back.size(), true);
    EXPECT_TRUE(std::equal(back.begin(), back.end(), data.begin() + static_cast<std::ptrdiff_t>(2 * align)));
    EXPECT_THROW(sub->sub_region(align, 3 * align), cl::logic_error);  // past its end
    EXPECT_THROW(sub->sub_region(0, 0), cl::logic_error);              // empty
    EXPECT_THROW(sub->sub_region(0, align, CL_MEM_USE_HOST_PTR), cl::logic_error);
    d.get_platform().unload_compiler();  // and building still works after
    cl::program prog = cl::program::create_with_source(*ctx, "__kernel void k(__global int* x) { x[0] = 1; }");
    EXPECT_NO_THROW(prog.build());
}

TEST_F(ClDevice, FillsWriteThePatternOverTheRange) {
    auto b = cl::buffer::create(*ctx, CL_MEM_READ_WRITE, 64);
    const std::byte zero[] = {std::byte{0}};
    cl::enqueue_fill(*q, b, zero, 0, 64);
    const std::byte pattern[] = {std::byte{1}, std::byte{2}, std::byte{3}, std::byte{4}};
    cl::enqueue_fill(*q, b, pattern, 8, 16);
    std::vector<unsigned char> back(64);
    cl::enqueue_read(*q, b, 0, back.data(), back.size(), true);
    for (size_t i = 0; i < back.size(); ++i)
        EXPECT_EQ(back[i], i >= 8 && i < 24 ? (i - 8) % 4 + 1 : 0) << i;
    const std::byte three[] = {std::byte{1}, std::byte{2}, std::byte{3}};
    EXPECT_THROW(cl::enqueue_fill(*q, b, three, 0, 12), cl::logic_error);
    EXPECT_THROW(cl::enqueue_fill(*q, b, pattern, 2, 8), cl::logic_error);
    EXPECT_THROW(cl::enqueue_fill(*q, b, pattern, 0, 128), cl::logic_error);
}

TEST_F(ClDevice, MappedBytesReadAndWriteTheBuffer) {
    const std::vector<std::uint8_t> data = random_bytes(1000, 7);
    auto b = cl::buffer::create(*ctx, CL_MEM_READ_WRITE, data.size());
    cl::enqueue_write(*q, b, 0, data.data(), data.size(), true);
    {
        // An odd offset and size: a read map sees exactly those bytes.
        auto [region, mapped] = cl::mapped_region::map(*q, b, CL_MAP_READ, 13, 501, false);
        mapped.wait();
        ASSERT_TRUE(region.is_mapped());
        EXPECT_EQ(region.size(), 501u);
        EXPECT_EQ(std::memcmp(region.data(), data.data() + 13, 501), 0);
        region.unmap().wait();
        EXPECT_FALSE(region.is_mapped());
        EXPECT_THROW(region.unmap(), cl::logic_error);  // twice
    }
    {
        // Written through a map, unmapped by the destructor: the buffer holds the bytes.
        auto [region, mapped] = cl::mapped_region::map(*q, b, CL_MAP_WRITE_INVALIDATE_REGION, 100, 4, true);
        std::memcpy(region.data(), "\x01\x02\x03\x04", 4);
    }
    std::vector<std::uint8_t> back(data.size());
    cl::enqueue_read(*q, b, 0, back.data(), back.size(), true);
    std::vector<std::uint8_t> expected = data;
    for (int i = 0; i < 4; ++i)
        expected[100 + i] = static_cast<std::uint8_t>(i + 1);
    EXPECT_EQ(back, expected);
    EXPECT_THROW(cl::mapped_region::map(*q, b, CL_MAP_READ, 990, 11, true), cl::logic_error);  // past the end
    EXPECT_THROW(cl::mapped_region::map(*q, b, CL_MAP_READ, 0, 0, true), cl::logic_error);     // empty
    EXPECT_THROW(cl::mapped_region::map(*q, b, CL_MAP_READ | CL_MAP_WRITE_INVALIDATE_REGION, 0, 4, true),
                 cl::logic_error);
    EXPECT_THROW(cl::mapped_region::map(*q, b, 0, 0, 4, true), cl::logic_error);
}

TEST(ClImageFormats, PixelSizesAreOpenCLs) {
    EXPECT_EQ(cl::pixel_size({CL_RGBA, CL_FLOAT}), 16u);
    EXPECT_EQ(cl::pixel_size({CL_R, CL_UNSIGNED_INT8}), 1u);
    EXPECT_EQ(cl::pixel_size({CL_RG, CL_HALF_FLOAT}), 4u);
    EXPECT_EQ(cl::pixel_size({CL_RGB, CL_UNORM_SHORT_565}), 2u);
    EXPECT_EQ(cl::pixel_size({CL_RGBx, CL_UNORM_INT8}), 4u);  // the padding channel is stored
    EXPECT_THROW(cl::pixel_size({CL_RGBA, 0x1234}), cl::logic_error);
    EXPECT_THROW(cl::channel_count(0x1234), cl::logic_error);
}

TEST_F(ClDevice, ImageBoxesRoundTripAndKernelsSampleThem) {
    if (!ctx->devices().front().image_support())
        GTEST_SKIP() << "the device has no image support";
    const cl_image_format r_float{CL_R, CL_FLOAT};
    const auto formats = cl::supported_image_formats(*ctx, CL_MEM_READ_WRITE, CL_MEM_OBJECT_IMAGE2D);
    ASSERT_TRUE(std::any_of(formats.begin(), formats.end(), [](const cl_image_format& f) {
        return f.image_channel_order == CL_R && f.image_channel_data_type == CL_FLOAT;
    }));
    const std::vector<float> pixels = random_floats(19 * 7, 3);
    auto img = cl::image::create(*ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, r_float,
                                 {.type = CL_MEM_OBJECT_IMAGE2D, .width = 19, .height = 7},
                                 const_cast<float*>(pixels.data()), pixels.size() * sizeof(float));
    EXPECT_EQ(img.extent(), (cl::image_point{19, 7, 1}));
    // A 5 x 3 box at (x=2, y=4) into rows 8 floats apart.
    std::vector<float> box(3 * 8, -1.0f);
    cl::enqueue_read_image(*q, img, {2, 4, 0}, {5, 3, 1},
                           {.data = box.data(), .bytes = box.size() * sizeof(float), .row_pitch = 8 * sizeof(float)},
                           true);
    for (size_t y = 0; y < 3; ++y)
        for (size_t x = 0; x < 8; ++x)
            EXPECT_EQ(box[y * 8 + x], x < 5 ? pixels[(y + 4) * 19 + x + 2] : -1.0f) << x << ", " << y;
    std::vector<float> tiny(4);
    EXPECT_THROW(cl::enqueue_read_image(*q, img, {0, 0, 0}, {5, 3, 1}, {.data = tiny.data(), .bytes = 16}, true),
                 cl::logic_error);  // the host memory is too small
    EXPECT_THROW(cl::enqueue_read_image(*q, img, {15, 0, 0}, {5, 1, 1}, {.data = box.data(), .bytes = 96}, true),
                 cl::logic_error);  // past the image's edge

    cl::program prog = build(R"(
        __kernel void sample(__global float *out, __read_only image2d_t img, sampler_t s) {
            int x = get_global_id(0), y = get_global_id(1);
            out[y * get_global_size(0) + x] = read_imagef(img, s, (int2)(x, y)).x;
        })");
    cl::kernel k = cl::kernel::create(prog, "sample");
    EXPECT_EQ(k.parameters()[1].kind, cl::parameter_kind::image);
    EXPECT_EQ(k.parameters()[2].kind, cl::parameter_kind::sampler);
    auto out = cl::buffer::create(*ctx, CL_MEM_READ_WRITE, pixels.size() * sizeof(float));
    const cl::sampler s = cl::sampler::create(*ctx, false, CL_ADDRESS_CLAMP_TO_EDGE, CL_FILTER_NEAREST);
    EXPECT_THROW(k.set_arg(1, out), cl::logic_error);  // a buffer for the image
    k.set_arg(0, out);
    k.set_arg(1, img);
    k.set_arg(2, s);
    cl::enqueue_nd_range(*q, k, std::vector<size_t>{19, 7}, {}).wait();
    std::vector<float> back(pixels.size());
    cl::enqueue_read(*q, out, 0, back.data(), back.size() * sizeof(float), true);
    EXPECT_EQ(back, pixels);
}

TEST_F(ClDevice, SelectsDevicesByIndexAndName) {
    const auto platforms = cl::platform::all();
    const auto first = cl::select_devices("0:0");
    ASSERT_EQ(first.size(), 1u);
    EXPECT_EQ(first.front(), platforms.front().devices().front());
    EXPECT_EQ(cl::select_devices("0").size(), platforms.front().devices().size());
    // A name substring matches case-insensitively; repeats are dropped.
    std::string name = platforms.front().name();
    for (char& c : name)
        c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    const auto by_name = cl::select_devices(name.substr(0, 4) + "=0;0:0");
    EXPECT_EQ(by_name.size(), 1u);
    // The vendor matches too, as in PyOpenCL ("pocl" is PoCL's vendor, "The pocl project"), and
    // so does a device's vendor.
    const std::string vendor = platforms.front().vendor();
    EXPECT_EQ(cl::select_devices(vendor).size(), platforms.front().devices().size());
    const cl::device dev = platforms.front().devices().front();
    EXPECT_EQ(cl::select_devices("0:" + dev.vendor()).front(), platforms.front().devices().front());
    EXPECT_EQ(cl::select_devices("").size(), cl::select_devices(std::string_view{}).size());

    try {
        cl::select_devices("99");
        FAIL() << "platform 99 was accepted";
    } catch (const cl::logic_error& e) {
        EXPECT_TRUE(contains(e.what(), "platform index 99 is out of range")) << e.what();
    }
    try {
        cl::select_devices("0:no-such-device-name");
        FAIL() << "an unknown device name was accepted";
    } catch (const cl::logic_error& e) {
        EXPECT_TRUE(contains(e.what(), "no device name or vendor contains 'no-such-device-name'")) << e.what();
    }
}

TEST_F(ClDevice, CreateSomeContextFollowsTheEnvironment) {
    ::setenv("GPUKIT_CL_TEST", "0:0", 1);
    EXPECT_EQ(cl::create_some_context().devices().size(), 1u);
    ::setenv("GPUKIT_CL_TEST", "0:0:0", 1);
    try {
        cl::create_some_context();
        ADD_FAILURE() << "a malformed GPUKIT_CL_TEST was accepted";
    } catch (const cl::logic_error& e) {
        EXPECT_TRUE(contains(e.what(), "GPUKIT_CL_TEST")) << e.what();
    }
    ::unsetenv("GPUKIT_CL_TEST");
    EXPECT_EQ(cl::create_some_context().devices().front(), cl::select_devices("").front());
}

TEST_F(ClDevice, KernelComputesOnRandomData) {
    cl::program prog = build(R"(
        __kernel void axpy(float a, __global const float *x, __global float *y, int n) {
            int i = get_global_id(0);
            if (i < n) y[i] = a * x[i] + y[i];
        })");
    EXPECT_EQ(prog.kernel_names(), std::vector<std::string>{"axpy"});
    const int n = 1000;
    const auto x = random_floats(n, 1), y = random_floats(n, 2);
    const float a = 2.5f;
    auto xb = cl::buffer::create(*ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * sizeof(float),
                                 const_cast<float*>(x.data()));
    auto yb = cl::buffer::create(*ctx, CL_MEM_READ_WRITE, n * sizeof(float));
    cl::enqueue_write(*q, yb, 0, y.data(), n * sizeof(float), true);

    cl::kernel k = cl::kernel::create(prog, "axpy");
    EXPECT_EQ(k.num_args(), 4u);
    k.set_arg_value(0, a);
    k.set_arg(1, xb);
    k.set_arg(2, yb);
    k.set_arg_value(3, n);
    const size_t global[] = {1024}, local[] = {16};
    cl::event done = cl::enqueue_nd_range(*q, k, global, local);
    done.wait();
    EXPECT_EQ(done.status(), CL_COMPLETE);
    const cl::profile_times times = done.profile();
    EXPECT_LE(times.start, times.end);

    std::vector<float> result(n);
    cl::enqueue_read(*q, yb, 0, result.data(), n * sizeof(float), true);
    // The device may fuse the multiply-add, so compare to within float rounding of the terms.
    for (int i = 0; i < n; ++i)
        ASSERT_NEAR(result[i], a * x[i] + y[i], 1e-5f * (std::abs(a * x[i]) + std::abs(y[i]))) << "at " << i;
}

TEST_F(ClDevice, KernelInfoIsOpenCLsAnswer) {
    cl::program prog = build("__kernel __attribute__((reqd_work_group_size(2, 1, 1))) void pair(__global int *x) {}");
    const cl::kernel k = cl::kernel::create(prog, "pair");
    EXPECT_EQ(k.context_handle(), ctx->handle());
    const std::vector<std::byte> name = k.info_bytes(CL_KERNEL_FUNCTION_NAME);
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(name.data())), "pair");
    const std::vector<std::byte> attributes = k.info_bytes(CL_KERNEL_ATTRIBUTES);
    ASSERT_FALSE(attributes.empty());                                 // a string, with its NUL
    if (dev->get_platform().name() == "Portable Computing Language")  // an answer known here
        EXPECT_TRUE(contains(reinterpret_cast<const char*>(attributes.data()), "reqd_work_group_size"));
    const std::vector<std::byte> program_bytes = k.info_bytes(CL_KERNEL_PROGRAM);
    ASSERT_EQ(program_bytes.size(), sizeof(cl_program));
    cl_program reported = nullptr;
    std::memcpy(&reported, program_bytes.data(), sizeof reported);
    EXPECT_EQ(reported, prog.handle());
    EXPECT_THROW(k.info_bytes(0x1000), cl::logic_error);  // not a kernel_info parameter: CL_INVALID_VALUE
}

TEST_F(ClDevice, LocalMemoryArgument) {
    cl::program prog = build(R"(
        __kernel void group_sum(__global const float *x, __global float *sums, __local float *scratch) {
            int l = get_local_id(0);
            scratch[l] = x[get_global_id(0)];
            barrier(CLK_LOCAL_MEM_FENCE);
            if (l == 0) {
                float s = 0;
                for (int i = 0; i < get_local_size(0); ++i) s += scratch[i];
                sums[get_group_id(0)] = s;
            }
        })");
    const size_t groups = 6, group_size = 8;
    const auto x = random_floats(groups * group_size, 3);
    auto xb = cl::buffer::create(*ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, x.size() * sizeof(float),
                                 const_cast<float*>(x.data()));
    auto sums = cl::buffer::create(*ctx, CL_MEM_WRITE_ONLY, groups * sizeof(float));
    cl::kernel k = cl::kernel::create(prog, "group_sum");
    k.set_arg(0, xb);
    k.set_arg(1, sums);
    k.set_arg(2, cl::local_memory{group_size * sizeof(float)});
    const size_t global[] = {groups * group_size}, local[] = {group_size};
    cl::enqueue_nd_range(*q, k, global, local);
    std::vector<float> result(groups);
    cl::enqueue_read(*q, sums, 0, result.data(), groups * sizeof(float), true);
    for (size_t g = 0; g < groups; ++g) {
        float expected = 0;
        for (size_t i = 0; i < group_size; ++i)
            expected += x[g * group_size + i];
        EXPECT_NEAR(result[g], expected, 1e-3f);
    }
}

TEST_F(ClDevice, BufferCopiesRoundTripAtOddSizes) {
    for (size_t size : {1u, 3u, 7u, 1001u, 65537u}) {
        const auto data = random_bytes(size, static_cast<unsigned>(size));
        auto first = cl::buffer::create(*ctx, CL_MEM_READ_WRITE, size + 5);
        auto second = cl::buffer::create(*ctx, CL_MEM_READ_WRITE, size + 3);
        EXPECT_EQ(first.size(), size + 5);
        cl::event written = cl::enqueue_write(*q, first, 5, data.data(), size, false);
        const cl_event after_write[] = {written.handle()};
        cl::enqueue_copy(*q, first, second, 5, 3, size, after_write);
        std::vector<unsigned char> back(size);
        cl::event read = cl::enqueue_read(*q, second, 3, back.data(), size, false);
        read.wait();
        EXPECT_EQ(back, data) << "size " << size;
    }
}

TEST_F(ClDevice, CopiesOutsideTheBufferAreRejected) {
    auto b = cl::buffer::create(*ctx, CL_MEM_READ_WRITE, 16);
    std::vector<unsigned char> host(32);
    try {
        cl::enqueue_read(*q, b, 8, host.data(), 9, true);
        FAIL() << "a read past the end was accepted";
    } catch (const cl::logic_error& e) {
        EXPECT_TRUE(contains(e.what(), "outside the source buffer of 16 bytes")) << e.what();
    }
    EXPECT_THROW(cl::enqueue_write(*q, b, 0, host.data(), 17, true), cl::logic_error);
    EXPECT_THROW(cl::enqueue_write(*q, b, 0, host.data(), 0, true), cl::logic_error);
    EXPECT_THROW(cl::enqueue_copy(*q, b, b, 0, 8, 16, {}), cl::logic_error);
}

// A 3-d box of a 5x6x7 host block moves to a buffer of another shape, to a third buffer and
// back, each step compared with the same box cut out on the host.
TEST_F(ClDevice, RectangularCopiesMoveTheBox) {
    const auto data = random_bytes(5 * 6 * 7, 42);  // slices x rows x bytes
    auto at = [](size_t slice, size_t row, size_t byte, size_t rows, size_t bytes) {
        return (slice * rows + row) * bytes + byte;
    };
    const cl::rect_region region{4, 3, 2};
    auto first = cl::buffer::create(*ctx, CL_MEM_READ_WRITE, 3 * 5 * 9);
    cl::enqueue_write_rect(*q, first, {.origin = {2, 1, 1}, .row_pitch = 9, .slice_pitch = 45}, data.data(),
                           data.size(), {.origin = {3, 2, 2}, .row_pitch = 7, .slice_pitch = 42}, region, true);
    auto second = cl::buffer::create(*ctx, CL_MEM_READ_WRITE, 4 * 3 * 2);
    cl::enqueue_copy_rect(*q, first, {.origin = {2, 1, 1}, .row_pitch = 9, .slice_pitch = 45}, second, {}, region);
    std::vector<unsigned char> tight(4 * 3 * 2);
    cl::enqueue_read_rect(*q, second, {}, tight.data(), tight.size(), {}, region, true);
    for (size_t s = 0; s < 2; ++s)
        for (size_t r = 0; r < 3; ++r)
            for (size_t b = 0; b < 4; ++b)
                ASSERT_EQ(tight[at(s, r, b, 3, 4)], data[at(s + 2, r + 2, b + 3, 6, 7)]) << s << " " << r << " " << b;
    // A side beyond its memory, and pitches OpenCL refuses, are errors before anything runs.
    std::vector<unsigned char> small(10);
    try {
        cl::enqueue_read_rect(*q, second, {}, small.data(), small.size(), {}, region, true);
        FAIL() << "a host block too small was accepted";
    } catch (const cl::logic_error& e) {
        EXPECT_TRUE(contains(e.what(), "host side of the copy reaches byte 24, beyond its 10 bytes")) << e.what();
    }
    cl::rect_side narrow{.row_pitch = 3};
    EXPECT_THROW(cl::rect_extent(narrow, region, "test", "host"), cl::logic_error);
    cl::rect_side tight_side{};
    EXPECT_EQ(cl::rect_extent(tight_side, region, "test", "host"), 24u);
    EXPECT_EQ(tight_side.row_pitch, 4u);
    EXPECT_EQ(tight_side.slice_pitch, 12u);
    EXPECT_THROW(cl::enqueue_copy_rect(*q, second, {.origin = {1, 0, 0}}, first, {}, region), cl::logic_error);
}

TEST_F(ClDevice, InvalidMemFlagsAreRejected) {
    int host = 0;
    const std::pair<cl_mem_flags, void*> bad[] = {
        {CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY, nullptr},
        {CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS, nullptr},
        {CL_MEM_COPY_HOST_PTR, nullptr},
        {CL_MEM_READ_WRITE, &host},
        {CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR, &host},
        {cl_mem_flags{1} << 40, nullptr},
    };
    for (const auto& [flags, ptr] : bad) {
        try {
            cl::buffer::create(*ctx, flags, sizeof host, ptr);
            ADD_FAILURE() << "flags " << flags << " were accepted";
        } catch (const cl::logic_error& e) {
            EXPECT_TRUE(contains(e.what(), "invalid mem_flags")) << e.what();
        }
    }
    EXPECT_THROW(cl::buffer::create(*ctx, CL_MEM_READ_WRITE, 0), cl::logic_error);
}

// OpenCL ignores a device listed twice, and PyOpenCL's Context lists it once: so does ours.
TEST_F(ClDevice, ADeviceListedTwiceIsOneDeviceOfTheContext) {
    const cl::device twice[] = {*dev, *dev};
    const cl::context c = cl::context::create(twice);
    ASSERT_EQ(c.devices().size(), 1u);
    EXPECT_EQ(c.devices().front(), *dev);
    EXPECT_EQ(cl::context::wrap(c.handle()).devices(), c.devices());  // what OpenCL reports
}

// Program source, build options and kernel names are C strings where they reach OpenCL: a
// NUL would cut them short (PoCL compiled "-DX=1\0junk" as -DX=1 and dropped every kernel
// after a NUL in the source), so each is refused, naming it.
TEST_F(ClDevice, TextHoldingANulIsRefused) {
    using namespace std::string_literals;
    const std::string source = "__kernel void k(__global int *o) { o[0] = X; }";
    using test::expect_error;
    expect_error<std::invalid_argument>(
        [&] { cl::program::create_with_source(*ctx, source + "\0 __kernel void j() {}"s); }, "the source");
    cl::program prog = cl::program::create_with_source(*ctx, source);
    expect_error<std::invalid_argument>([&] { prog.build("-DX=1\0junk"s); }, "build options '-DX=1\\0junk'");
    EXPECT_FALSE(prog.built());
    prog.build("-DX=1");
    expect_error<std::invalid_argument>([&] { cl::kernel::create(prog, "k\0junk"s); }, "kernel name 'k\\0junk'");
    EXPECT_EQ(cl::kernel::create(prog, "k").name(), "k");
}

TEST_F(ClDevice, BuildFailureCarriesTheLog) {
    cl::program prog = cl::program::create_with_source(*ctx,
                                                       "__kernel void broken(__global float *a) { "
                                                       "a[0] = undeclared_thing_42; }");
    try {
        prog.build("-DSOMETHING=1");
        FAIL() << "broken source built";
    } catch (const cl::build_error& e) {
        EXPECT_EQ(e.code(), CL_BUILD_PROGRAM_FAILURE);
        EXPECT_TRUE(contains(e.log(), "undeclared_thing_42")) << e.log();
        EXPECT_TRUE(contains(e.what(), "undeclared_thing_42")) << e.what();
        EXPECT_TRUE(contains(e.what(), "-DSOMETHING=1")) << e.what();
    }
    EXPECT_FALSE(prog.built());
    EXPECT_THROW(prog.kernel_names(), cl::logic_error);
    EXPECT_THROW(cl::kernel::create(prog, "broken"), cl::logic_error);
}

TEST_F(ClDevice, KernelArgumentMistakesAreClear) {
    cl::program prog = build("__kernel void scale(__global float *a, float f) { a[get_global_id(0)] *= f; }");
    EXPECT_THROW(cl::kernel::create(prog, "no_such_kernel"), cl::logic_error);
    cl::kernel k = cl::kernel::create(prog, "scale");
    try {
        k.set_arg_value(2, 1.0f);
        FAIL() << "argument index 2 was accepted";
    } catch (const cl::logic_error& e) {
        EXPECT_TRUE(contains(e.what(), "kernel 'scale' takes 2 argument(s); index 2 is out of range")) << e.what();
    }
    try {
        k.set_arg_value(1, 1.0);  // a double for a float parameter
        FAIL() << "an 8-byte value for a float was accepted";
    } catch (const cl::logic_error& e) {
        EXPECT_EQ(e.code(), CL_INVALID_ARG_SIZE) << e.what();
        EXPECT_TRUE(
            contains(e.what(), "argument 1 ('f', float) of kernel 'scale' given a by-value argument of 8 bytes"))
            << e.what();
    }
    auto b = cl::buffer::create(*ctx, CL_MEM_READ_WRITE, 64);
    // Arguments of the right size but the wrong kind: before the checks, PoCL read them as the
    // parameter's type (or dereferenced them as a buffer).
    try {
        k.set_arg_value(1, 3);  // an int for a float parameter
        FAIL() << "an int for a float was accepted";
    } catch (const cl::logic_error& e) {
        EXPECT_TRUE(contains(e.what(),
                             "argument 1 ('f', float) of kernel 'scale' takes a floating-point number, got "
                             "an integer of 4 bytes"))
            << e.what();
    }
    try {
        k.set_arg(1, b);
        FAIL() << "a buffer for a float was accepted";
    } catch (const cl::logic_error& e) {
        EXPECT_TRUE(contains(e.what(), "argument 1 ('f', float) of kernel 'scale' is passed by value")) << e.what();
    }
    EXPECT_THROW(k.set_arg(0, cl::local_memory{8}), cl::logic_error);
    EXPECT_THROW(k.set_arg_value(0, std::int64_t{12345}), cl::logic_error);
    k.set_arg(0, b);
    const size_t global[] = {16};
    try {
        cl::enqueue_nd_range(*q, k, global);
        FAIL() << "a kernel with an unset argument ran";
    } catch (const cl::logic_error& e) {
        EXPECT_TRUE(contains(e.what(), "argument 1 ('f', float) of kernel 'scale' was never set (the kernel takes 2)"))
            << e.what();
    }
    k.set_arg_value(1, 3.0f);
    const size_t too_many[] = {1, 1, 1, 1}, bad_local[] = {5};
    EXPECT_THROW(cl::enqueue_nd_range(*q, k, too_many), cl::logic_error);
    EXPECT_THROW(cl::enqueue_nd_range(*q, k, global, bad_local), cl::logic_error);
    cl::enqueue_nd_range(*q, k, global).wait();
}

TEST(ClParameterTypes, ScalarsAndVectorsHaveOpenCLCsSizes) {
    using cl::detail::builtin_type;
    using cl::detail::type_class;
    const struct {
        const char* name;
        size_t size;
        type_class kind;
    } expected[] = {{"char", 1, type_class::integer},    {"unsigned short", 2, type_class::integer},
                    {"uint", 4, type_class::integer},    {"ulong", 8, type_class::integer},
                    {"half", 2, type_class::floating},   {"double", 8, type_class::floating},
                    {"float2", 8, type_class::vector},   {"float3", 16, type_class::vector},
                    {"uchar16", 16, type_class::vector}, {"double3", 32, type_class::vector},
                    {"short8", 16, type_class::vector}};
    for (const auto& e : expected) {
        const auto type = builtin_type(e.name);
        ASSERT_TRUE(type) << e.name;
        EXPECT_EQ(type->size, e.size) << e.name;
        EXPECT_EQ(type->kind, e.kind) << e.name;
    }
    for (const char* other : {"S", "struct T", "float5", "float32", "3", "size_t", "bool", "real", "int*", ""})
        EXPECT_FALSE(builtin_type(other)) << other;
}

TEST_F(ClDevice, ByValueArgumentsHaveTheSizeOfTheirType) {
    // PoCL checks no struct's size: a short value was read past its end.
    cl::program prog = build(
        "typedef struct { int a; int b; } S;\n"
        "struct T { char c; double d; };\n"
        "typedef struct { int v[N]; } sized;\n"
        "__kernel void k(__global int *o, S s, struct T t, sized n, float3 v) {\n"
        "    o[0] = s.a; o[1] = s.b; o[2] = (int)t.d; o[3] = n.v[N - 1]; o[4] = (int)v.z;\n"
        "}",
        "-DN=5");
    cl::kernel k = cl::kernel::create(prog, "k");
    auto refused = [&](cl_uint index, size_t size, const std::string& message) {
        const std::vector<std::byte> value(size);
        try {
            k.set_arg_bytes(index, value.data(), value.size());
            ADD_FAILURE() << size << " bytes for argument " << index << " were accepted";
        } catch (const cl::logic_error& e) {
            EXPECT_EQ(e.code(), CL_INVALID_ARG_SIZE) << e.what();
            EXPECT_TRUE(contains(e.what(), message)) << e.what();
        }
    };
    refused(1, 3, "argument 1 ('s', S) of kernel 'k' given a by-value argument of 3 bytes, but its type S has 8 bytes");
    refused(1, 9, "given a by-value argument of 9 bytes, but its type S has 8 bytes");
    refused(2, 9,
            "argument 2 ('t', struct T) of kernel 'k' given a by-value argument of 9 bytes, but its type struct T has "
            "16 bytes");
    refused(3, 16, "but its type sized has 20 bytes");  // sized by the build's -DN=5
    refused(4, 12, "but its type float3 has 16 bytes (a 3-component vector is laid out as a 4-component one)");
    try {
        k.set_arg_value(1, std::int64_t{5});  // the size of S, but a number
        ADD_FAILURE() << "an int64 for a struct was accepted";
    } catch (const cl::logic_error& e) {
        EXPECT_TRUE(contains(e.what(), "takes a struct or union")) << e.what();
    }
    struct {
        std::int32_t a, b;
    } s{7, -9};
    struct {
        std::int8_t c;
        double d;
    } t{1, 42.0};
    const std::int32_t n[5] = {0, 0, 0, 0, 11};
    const float v[4] = {0, 0, 13, 0};
    auto out = cl::buffer::create(*ctx, CL_MEM_READ_WRITE, 5 * sizeof(std::int32_t));
    k.set_arg(0, out);
    k.set_arg_value(1, s);
    k.set_arg_value(2, t);
    k.set_arg_bytes(3, n, sizeof n);
    k.set_arg_bytes(4, v, sizeof v);
    const size_t one[] = {1};
    cl::enqueue_nd_range(*q, k, one).wait();
    std::int32_t result[5] = {};
    cl::enqueue_read(*q, out, 0, result, sizeof result, true);
    EXPECT_EQ(std::vector<std::int32_t>(result, result + 5), (std::vector<std::int32_t>{7, -9, 42, 11, 13}));
}

TEST_F(ClDevice, ProfilingNeedsAProfilingQueue) {
    cl::queue plain = cl::queue::create(*ctx, ctx->devices().front(), false);
    auto b = cl::buffer::create(*ctx, CL_MEM_READ_WRITE, 4);
    const int value = 7;
    cl::event e = cl::enqueue_write(plain, b, 0, &value, sizeof value, true);
    EXPECT_THROW(e.profile(), cl::logic_error);
    plain.flush();
    plain.finish();
}

TEST_F(ClDevice, FaultInjectionGivesTheMemoryError) {
    using create_buffer_fn = decltype(&::clCreateBuffer);
    cl::api_override<create_buffer_fn> failing(
        cl::mutable_api().clCreateBuffer, +[](cl_context, cl_mem_flags, size_t, void*, cl_int* status) -> cl_mem {
            *status = CL_MEM_OBJECT_ALLOCATION_FAILURE;
            return nullptr;
        });
    try {
        cl::buffer::create(*ctx, CL_MEM_READ_WRITE, 1 << 20);
        FAIL() << "the injected failure was ignored";
    } catch (const cl::memory_error& e) {
        EXPECT_EQ(e.code(), CL_MEM_OBJECT_ALLOCATION_FAILURE);
        EXPECT_TRUE(contains(e.what(), "clCreateBuffer failed: CL_MEM_OBJECT_ALLOCATION_FAILURE (-4)")) << e.what();
    }
}

TEST_F(ClDevice, ReleaseFailuresBecomeCleanupWarnings) {
    static std::string warning;
    set_cleanup_warning_hook([](const std::string& message) { warning = message; });
    cl_mem handle = nullptr;
    {
        using release_fn = decltype(&::clReleaseMemObject);
        // Declared first so it is restored only after the buffer's destructor has run.
        cl::api_override<release_fn> failing(
            cl::mutable_api().clReleaseMemObject, +[](cl_mem) -> cl_int { return CL_INVALID_MEM_OBJECT; });
        auto b = cl::buffer::create(*ctx, CL_MEM_READ_WRITE, 8);
        handle = b.handle();
    }
    set_cleanup_warning_hook(nullptr);
    EXPECT_EQ(warning, "clReleaseMemObject failed: CL_INVALID_MEM_OBJECT");
    EXPECT_EQ(cl::api().clReleaseMemObject(handle), CL_SUCCESS);  // the release the injected failure skipped
}

}  // namespace
