// Everything gpukit offers in C++.
#pragma once

#include "gpukit/core/bitlog.hpp"
#include "gpukit/core/error.hpp"
#include "gpukit/cuda/api.hpp"
#include "gpukit/cuda/constants.hpp"
#include "gpukit/cuda/context.hpp"
#include "gpukit/cuda/default_device.hpp"
#include "gpukit/cuda/device.hpp"
#include "gpukit/cuda/event.hpp"
#include "gpukit/cuda/occupancy.hpp"
#include "gpukit/cuda/stream.hpp"
#include "gpukit/memory/null_allocator.hpp"
#include "gpukit/memory/pool.hpp"
#include "gpukit/version.hpp"
