#include "gpukit/nccl/types.hpp"

#include "gpukit/nccl/api.hpp"

#include <array>

namespace gpukit::nccl {
namespace {

struct type_entry {
    data_type type;
    std::string_view name;
    std::size_t size;
};

// In ncclDataType_t order, so a type's entry is at its value.
constexpr std::array<type_entry, 12> types = {{
    {data_type::int8, "int8", 1},
    {data_type::uint8, "uint8", 1},
    {data_type::int32, "int32", 4},
    {data_type::uint32, "uint32", 4},
    {data_type::int64, "int64", 8},
    {data_type::uint64, "uint64", 8},
    {data_type::float16, "float16", 2},
    {data_type::float32, "float32", 4},
    {data_type::float64, "float64", 8},
    {data_type::bfloat16, "bfloat16", 2},
    {data_type::float8_e4m3, "float8_e4m3fn", 1},
    {data_type::float8_e5m2, "float8_e5m2", 1},
}};

constexpr std::array<std::string_view, 5> op_names = {"sum", "prod", "max", "min", "avg"};

}  // namespace

std::size_t size_of(data_type type) noexcept { return types[static_cast<int>(type)].size; }

std::string_view name(data_type type) noexcept { return types[static_cast<int>(type)].name; }

std::string_view name(reduce_op op) noexcept { return op_names[static_cast<int>(op)]; }

const char* name(collective what) noexcept {
    switch (what) {
    case collective::all_reduce:
        return "all_reduce";
    case collective::reduce:
        return "reduce";
    case collective::broadcast:
        return "broadcast";
    case collective::all_gather:
        return "all_gather";
    case collective::reduce_scatter:
        return "reduce_scatter";
    case collective::send:
        return "send";
    case collective::recv:
        return "recv";
    }
    return "collective";
}

std::optional<data_type> data_type_from_name(std::string_view n) noexcept {
    for (const auto& entry : types)
        if (entry.name == n)
            return entry.type;
    if (n == "float8_e4m3")  // the OCP name; ml_dtypes adds "fn" (finite, NaN only)
        return data_type::float8_e4m3;
    return std::nullopt;
}

std::optional<reduce_op> reduce_op_from_name(std::string_view n) noexcept {
    for (std::size_t k = 0; k < op_names.size(); ++k)
        if (op_names[k] == n)
            return static_cast<reduce_op>(k);
    return std::nullopt;
}

std::string_view data_type_names() noexcept {
    return "int8, uint8, int32, uint32, int64, uint64, float16, float32, float64, bfloat16, float8_e4m3fn, "
           "float8_e5m2";
}

std::string_view reduce_op_names() noexcept { return "sum, prod, max, min, avg"; }

bool loaded_nccl_supports(data_type type) {
    const bool float8 = type == data_type::float8_e4m3 || type == data_type::float8_e5m2;
    return !float8 || version() >= 22400;
}

}  // namespace gpukit::nccl
