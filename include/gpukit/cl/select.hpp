// Choosing OpenCL devices from a selection string, as tests and scripts do through the
// environment (GPUKIT_CL_TEST, GPUKIT_CL_CTX).
//
// Syntax: entries separated by ';'. An entry is a platform, optionally followed by ':' or '='
// and a comma-separated list of devices. A platform or device is a 0-based index or a
// case-insensitive substring of "<name> <vendor>", which picks the first that matches (as
// PyOpenCL's PYOPENCL_TEST does: "pocl" is PoCL by its vendor). An entry without a device
// list means all of the platform's devices. Example: "0:0,1;intel=i5,i7".
#pragma once

#include "gpukit/cl/context.hpp"
#include "gpukit/cl/device.hpp"
#include "gpukit/cl/platform.hpp"

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gpukit::cl {

// One entry of a selection string: a platform and the devices chosen on it.
struct device_spec {
    std::string platform;              // index or name substring
    std::vector<std::string> devices;  // indices or name substrings; empty means all
};

// Parses a selection string; throws cl::logic_error saying what is malformed. A blank
// string gives no entries.
std::vector<device_spec> parse_device_spec(std::string_view spec);

// The devices `specs` choose among `platforms`, in order and without repeats; throws
// cl::logic_error for an index out of range or a name that matches no name or vendor. No entries
// choose every device of every platform.
std::vector<device> select_devices(std::span<const device_spec> specs, std::span<const platform> platforms);

// select_devices(parse_device_spec(spec), platform::all()).
std::vector<device> select_devices(std::string_view spec);

// A context on one device: the first chosen by GPUKIT_CL_CTX if set, else by GPUKIT_CL_TEST
// if set, else the first device of the first platform that has one. Throws cl::runtime_error
// when there is no device.
context create_some_context();

}  // namespace gpukit::cl
