// The argument checks of texture.hpp: pure functions of the arguments and the device's
// alignment rules, so they run (and are tested) without a GPU.
#include "gpukit/core/checked.hpp"
#include "gpukit/core/error.hpp"
#include "gpukit/cuda/texture.hpp"

#include <string>

namespace gpukit::cuda {
namespace {

std::string str(std::size_t n) { return std::to_string(n); }

bool is_float_format(CUarray_format format) { return format == CU_AD_FORMAT_FLOAT || format == CU_AD_FORMAT_HALF; }

void check_address(const char* what, const device_pointer& memory, std::size_t texture_alignment) {
    if (memory.address == 0)
        throw logic_error(std::string(what) + ": the device address is null (0); pass allocated device memory");
    if (texture_alignment != 0 && memory.address % texture_alignment != 0)
        throw logic_error(std::string(what) + ": the device address " + str(memory.address) +
                          " is not a multiple of the device's texture alignment (" + str(texture_alignment) +
                          " bytes); allocations start aligned, so bind the start of an allocation or an offset "
                          "that is a multiple of it");
}

}  // namespace

void check_texture_format(const char* what, CUarray_format format, unsigned int num_channels) {
    if (num_channels != 1 && num_channels != 2 && num_channels != 4)
        throw logic_error(std::string(what) + ": num_channels is " + std::to_string(num_channels) +
                          "; it must be 1, 2 or 4");
    array_format_bytes(format);  // throws for formats gpukit cannot size
}

void check_texture_desc(const char* what, const texture_desc& desc, CUarray_format format) {
    // The driver only filters values it returns as floats: an integer format read as
    // integers has nothing to interpolate between.
    if (desc.filter_mode == CU_TR_FILTER_MODE_LINEAR && (desc.flags & CU_TRSF_READ_AS_INTEGER) &&
        !is_float_format(format))
        throw logic_error(std::string(what) +
                          ": linear filtering needs values read as floats; drop "
                          "TRSF_READ_AS_INTEGER or use filter_mode.POINT");
    const bool normalized = desc.flags & CU_TRSF_NORMALIZED_COORDINATES;
    for (int dim = 0; dim < 3; ++dim) {
        const CUaddress_mode mode = desc.address_mode[dim];
        if ((mode == CU_TR_ADDRESS_MODE_WRAP || mode == CU_TR_ADDRESS_MODE_MIRROR) && !normalized)
            throw logic_error(std::string(what) + ": address mode WRAP or MIRROR (dimension " + std::to_string(dim) +
                              ") needs TRSF_NORMALIZED_COORDINATES");
    }
}

void check_linear_texture(const device_pointer& memory, CUarray_format format, unsigned int num_channels,
                          std::size_t size_bytes, std::size_t texture_alignment) {
    const char* what = "TextureObject.from_linear()";
    check_texture_format(what, format, num_channels);
    const std::size_t element = array_format_bytes(format) * num_channels;
    if (size_bytes == 0 || size_bytes % element != 0)
        throw logic_error(std::string(what) + ": size_bytes is " + str(size_bytes) +
                          "; it must be a positive multiple of the " + str(element) + "-byte element");
    if (memory.capacity && size_bytes > *memory.capacity)
        throw logic_error(std::string(what) + ": size_bytes " + str(size_bytes) + " exceeds the " +
                          str(*memory.capacity) + " bytes of the device memory");
    check_address(what, memory, texture_alignment);
}

void check_pitch2d_texture(const device_pointer& memory, CUarray_format format, unsigned int num_channels,
                           std::size_t width, std::size_t height, std::size_t pitch, std::size_t texture_alignment,
                           std::size_t pitch_alignment) {
    const char* what = "TextureObject.from_pitch2d()";
    check_texture_format(what, format, num_channels);
    if (width == 0 || height == 0)
        throw logic_error(std::string(what) + ": width and height must be at least 1, got " + str(width) + " x " +
                          str(height));
    const auto row = checked_mul(width, array_format_bytes(format) * num_channels);
    if (!row)
        throw logic_error(std::string(what) + ": a row of " + str(width) + " elements is beyond 64 bits");
    const std::size_t row_bytes = *row;
    if (pitch < row_bytes)
        throw logic_error(std::string(what) + ": pitch " + str(pitch) + " is shorter than a row of " + str(width) +
                          " elements (" + str(row_bytes) + " bytes)");
    if (pitch_alignment != 0 && pitch % pitch_alignment != 0)
        throw logic_error(std::string(what) + ": pitch " + str(pitch) +
                          " is not a multiple of the device's texture pitch alignment (" + str(pitch_alignment) +
                          " bytes); allocate with mem_alloc_pitch, or round the pitch up");
    const std::optional<std::size_t> needed = checked_mul_add(pitch, height - 1, row_bytes);
    if (!needed)
        throw logic_error(std::string(what) + ": " + str(height) + " rows of pitch " + str(pitch) +
                          " are beyond 64 bits");
    if (memory.capacity && *needed > *memory.capacity)
        throw logic_error(std::string(what) + ": " + str(height) + " rows of pitch " + str(pitch) + " need " +
                          str(*needed) + " bytes; the device memory has " + str(*memory.capacity));
    check_address(what, memory, texture_alignment);
}

}  // namespace gpukit::cuda
