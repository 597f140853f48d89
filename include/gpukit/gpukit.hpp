// Everything gpukit offers in C++.
#pragma once

#include "gpukit/core/error.hpp"
#include "gpukit/cuda/api.hpp"
#include "gpukit/cuda/constants.hpp"
#include "gpukit/cuda/context.hpp"
#include "gpukit/cuda/copy.hpp"
#include "gpukit/cuda/default_device.hpp"
#include "gpukit/cuda/device.hpp"
#include "gpukit/cuda/event.hpp"
#include "gpukit/cuda/host_memory.hpp"
#include "gpukit/cuda/ipc_memory.hpp"
#include "gpukit/cuda/managed_memory.hpp"
#include "gpukit/cuda/memory.hpp"
#include "gpukit/cuda/stream.hpp"
#include "gpukit/version.hpp"
