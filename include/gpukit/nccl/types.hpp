// NCCL's element types and reduction operators, with the names gpukit's users write.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace gpukit::nccl {

// ncclDataType_t, NCCL's values in order from 0: every element type NCCL reduces and moves.
// The fp8 types need NCCL 2.24 or newer and, for reductions, a Hopper GPU or newer; older
// ones refuse them.
enum class data_type : int {
    int8,
    uint8,
    int32,
    uint32,
    int64,
    uint64,
    float16,
    float32,
    float64,
    bfloat16,
    float8_e4m3,
    float8_e5m2
};

// ncclRedOp_t's built-in operators.
enum class reduce_op : int { sum = 0, prod = 1, max = 2, min = 3, avg = 4 };

// The calls a communicator makes (for checks and messages).
enum class collective { all_reduce, reduce, broadcast, all_gather, reduce_scatter, send, recv };

// "all_reduce", ...
const char* name(collective what) noexcept;

// Bytes per element.
std::size_t size_of(data_type type) noexcept;

// numpy's name of the type: "int8", ..., "float16", "bfloat16", "float8_e4m3fn",
// "float8_e5m2" (ml_dtypes' names for the last three).
std::string_view name(data_type type) noexcept;
// The operator's name: "sum", "prod", "max", "min" or "avg".
std::string_view name(reduce_op op) noexcept;

// The type called `n` (numpy's names above, also "float8_e4m3"); nullopt for others.
// NCCL's own spellings are not taken: its "float" is float32 where numpy's is float64.
std::optional<data_type> data_type_from_name(std::string_view n) noexcept;

// "sum", "prod", "max", "min" or "avg"; nullopt for others.
std::optional<reduce_op> reduce_op_from_name(std::string_view n) noexcept;

// Whether the loaded NCCL knows the type: the float8 types need 2.24 or newer (loads NCCL).
bool loaded_nccl_supports(data_type type);

// The names above, comma-separated, for error messages.
std::string_view data_type_names() noexcept;
// "sum, prod, max, min, avg", for error messages.
std::string_view reduce_op_names() noexcept;

}  // namespace gpukit::nccl
