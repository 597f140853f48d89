// Texture and surface objects as kernel arguments: the kernel's parameter is the 64-bit
// cudaTextureObject_t / cudaSurfaceObject_t handle.
#pragma once

#include "common/bindings.hpp"

#include <cstdint>
#include <optional>

namespace gpukit::python {

// The handle of a TextureObject or SurfaceObject; nullopt for any other object.
std::optional<std::uint64_t> texture_handle_arg(nb::handle obj);

}  // namespace gpukit::python
