// The two-call pattern of clGet*Info (ask the size, then the value), shared by the entities.
#pragma once

#include "gpukit/cl/error.hpp"

#include <CL/cl.h>

#include <cstddef>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

namespace gpukit::cl::detail {

// `query(size, value, size_ret)` calls one clGet*Info for a fixed object and parameter.
template <class Query>
std::vector<std::byte> info_bytes(Query query, const char* routine) {
    size_t size = 0;
    if (const cl_int status = query(0, nullptr, &size); status != CL_SUCCESS)
        throw_cl_error(status, routine, "asking for the size of an info value");
    std::vector<std::byte> bytes(size);
    if (size == 0)
        return bytes;
    if (const cl_int status = query(size, bytes.data(), nullptr); status != CL_SUCCESS)
        throw_cl_error(status, routine, "reading an info value");
    return bytes;
}

template <class Query>
std::string info_string(Query query, const char* routine) {
    const std::vector<std::byte> bytes = info_bytes(query, routine);
    std::string text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    // OpenCL strings come with their terminating NUL.
    while (!text.empty() && text.back() == '\0')
        text.pop_back();
    return text;
}

template <class T, class Query>
T info_value(Query query, const char* routine) {
    static_assert(std::is_trivially_copyable_v<T>);
    const std::vector<std::byte> bytes = info_bytes(query, routine);
    if (bytes.size() != sizeof(T))
        throw logic_error(std::string(routine) + ": the info value has " + std::to_string(bytes.size()) +
                              " bytes but the requested type has " + std::to_string(sizeof(T)),
                          CL_INVALID_VALUE, routine);
    T value;
    std::memcpy(&value, bytes.data(), sizeof(T));
    return value;
}

// An info value that is an array of T (the devices of a context or program).
template <class T, class Query>
std::vector<T> info_array(Query query, const char* routine) {
    static_assert(std::is_trivially_copyable_v<T>);
    const std::vector<std::byte> bytes = info_bytes(query, routine);
    std::vector<T> values(bytes.size() / sizeof(T));
    if (!values.empty())
        std::memcpy(values.data(), bytes.data(), values.size() * sizeof(T));
    return values;
}

}  // namespace gpukit::cl::detail
