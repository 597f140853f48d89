// Shared by the tests that compile with NVRTC: skip (with the reason) where it is missing.
#pragma once

#include "gpukit/rtc/api.hpp"

#include <gtest/gtest.h>

#define GPUKIT_REQUIRE_NVRTC()                                           \
    do {                                                                 \
        if (!::gpukit::rtc::nvrtc_available())                           \
            GTEST_SKIP() << "NVRTC (libnvrtc.so) is not installed";      \
    } while (false)
