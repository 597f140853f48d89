#include "gpukit/cuda/api.hpp"
#include "gpukit/cuda/constants.hpp"

#include <cuda.h>
#include <gtest/gtest.h>

#include <set>
#include <string>

namespace {

using gpukit::cuda::find_constant;

TEST(Constants, ValuesComeFromTheHeader) {
    EXPECT_EQ(find_constant("device_attribute", "CLOCK_RATE"), CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
    EXPECT_EQ(find_constant("ctx_flags", "SCHED_BLOCKING_SYNC"), CU_CTX_SCHED_BLOCKING_SYNC);
    EXPECT_EQ(find_constant("event_flags", "INTERPROCESS"), CU_EVENT_INTERPROCESS);
    EXPECT_EQ(find_constant("host_alloc_flags", "WRITECOMBINED"), CU_MEMHOSTALLOC_WRITECOMBINED);
    EXPECT_EQ(find_constant("array3d_flags", "SURFACE_LDST"), CUDA_ARRAY3D_SURFACE_LDST);
    EXPECT_EQ(find_constant("jit_target", "COMPUTE_90"), CU_TARGET_COMPUTE_90);
    EXPECT_FALSE(find_constant("device_attribute", "NO_SUCH_ATTRIBUTE"));
    EXPECT_FALSE(find_constant("no_such_group", "CLOCK_RATE"));
}

TEST(Constants, EverySeedClassIsThere) {
    std::set<std::string> groups;
    std::size_t device_attributes = 0;
    for (const auto& c : gpukit::cuda::all_constants()) {
        groups.insert(c.group);
        device_attributes += std::string(c.group) == "device_attribute";
    }
    for (const char* group : {"ctx_flags",
                              "event_flags",
                              "device_attribute",
                              "pointer_attribute",
                              "function_attribute",
                              "func_cache",
                              "shared_config",
                              "array_format",
                              "array3d_flags",
                              "address_mode",
                              "filter_mode",
                              "compute_mode",
                              "jit_option",
                              "jit_target",
                              "jit_input_type",
                              "limit",
                              "host_alloc_flags",
                              "mem_attach_flags",
                              "mem_host_register_flags",
                              "ipc_mem_flags"})
        EXPECT_TRUE(groups.count(group)) << group;
    EXPECT_GT(device_attributes, 120u);  // CUDA 13 defines well over a hundred
}

}  // namespace
