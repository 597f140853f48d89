// Generic scans (PyOpenCL's GenericScanKernel): a prefix scan whose input, operator, segments
// and output are C text of the caller's, over kernel parameters of the caller's:
//
//     array::generic_scan_spec count_if("count_big", "int", 4,
//         {{"x", dtype::float32, param_kind::input}, {"out", dtype::int32, param_kind::output}},
//         /*input_expr=*/"x[i] > 0.5f ? 1 : 0", /*scan_expr=*/"a + b", /*neutral=*/"0",
//         /*output_statement=*/"out[i] = item;");
//     array::run(count_if, args, n, backend);   // out[i]: how many of x[0..i] exceed 0.5
//
// For each i in [0, N): `input_expr` gives element i (it may use i, N, the parameters, and
// the names of the fetches); the scan combines the elements in order by `scan_expr` of `a`
// (the earlier) and `b` (the later), which must be associative; `output_statement` runs once
// per i with `item` (the inclusive scan at i), `prev_item` (at i - 1; the neutral element at
// i = 0 and at a segment start) and `last_item` (at N - 1; unsegmented scans). With an
// `is_segment_start_expr` (of i and of `a`, element i), the scan is segmented:
// `across_seg_boundary` in scan_expr says that `b` holds a segment start, and scan_expr itself
// decides what that means ("across_seg_boundary ? b : a + b"), as in PyOpenCL.
//
// The kernel text is OpenCL C or CUDA C (the backend's language): user text is compiled as
// written. Array parameters are pointers to their memory (any index may be read or written);
// scalars come by value. Three kernels, as PyOpenCL's: each of up to 1024 groups scans an
// interval of the elements into a scratch array (and records where segments start), one group
// scans the intervals' totals, and every element's result is finished from its interval's
// carry and handed to output_statement. The output statement therefore sees every input
// read before it runs: it may write over the input.
#pragma once

#include "gpukit/array/backend.hpp"
#include "gpukit/array/elementwise.hpp"

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace gpukit::array {

// `type name = array[i + offset];` before input_expr (offset 0 or -1; with -1 the name is
// left unset at i = 0), as PyOpenCL's input_fetch_exprs.
struct scan_fetch {
    std::string name;   // the variable declared, of the array's element type
    std::string array;  // the array parameter it reads
    int offset = 0;     // 0: element i; -1: element i - 1
};

// A generic scan's description, checked once when made; its kernels are found by key().
class generic_scan_spec {
public:
    // name_prefix: a C identifier (kernels name_prefix + "_intervals", "_totals", "_final").
    // scan_type: the scanned values' C type ("int", "float2", a struct the preamble declares),
    // scan_size its size in bytes. params: the kernels' parameters (at least one array).
    // logic_error for bad names, an empty expression or neutral, a fetch of an array that is
    // not a parameter or with an offset other than 0 and -1, or a scan_size of 0.
    generic_scan_spec(std::string name_prefix, std::string scan_type, std::size_t scan_size, std::vector<param> params,
                      std::string input_expr, std::string scan_expr, std::string neutral, std::string output_statement,
                      std::string is_segment_start_expr = {}, std::vector<scan_fetch> fetches = {},
                      std::string preamble = {});

    // The kernels' names without their suffixes (_intervals, _totals, _final).
    const std::string& name_prefix() const noexcept { return name_prefix_; }
    // The scanned values' C type, as given.
    const std::string& scan_type() const noexcept { return scan_type_; }
    // The size of scan_type in bytes.
    std::size_t scan_size() const noexcept { return scan_size_; }
    // The kernels' parameters, in order: run() takes one argument per parameter.
    const std::vector<param>& params() const noexcept { return params_; }
    // The C expression of element i's value, the scan's input.
    const std::string& input_expr() const noexcept { return input_expr_; }
    // The C expression combining `a` (the earlier) and `b` (the later).
    const std::string& scan_expr() const noexcept { return scan_expr_; }
    // The C expression of the neutral element: scan_expr of it and any value gives that value.
    const std::string& neutral() const noexcept { return neutral_; }
    // The C statement run once per i with `item`, `prev_item` and `last_item`.
    const std::string& output_statement() const noexcept { return output_statement_; }
    // The C expression that is true where element i starts a segment; empty for an unsegmented
    // scan.
    const std::string& is_segment_start_expr() const noexcept { return is_segment_start_expr_; }
    // Whether the scan is segmented: it has an is_segment_start_expr.
    bool segmented() const noexcept { return !is_segment_start_expr_.empty(); }
    // The variables declared from array elements before input_expr, in order.
    const std::vector<scan_fetch>& fetches() const noexcept { return fetches_; }
    // The code placed before the kernels (types, helper functions); may be empty.
    const std::string& preamble() const noexcept { return preamble_; }
    // Elements each work item scans in turn, per pass over a group's interval.
    int items_per_thread() const noexcept;
    // Unique to this spec for the life of the process: its kernels are cached by it (see
    // kernel_cache.hpp).
    std::uint64_t key() const noexcept { return key_; }

private:
    std::string name_prefix_;
    std::string scan_type_;
    std::size_t scan_size_;
    std::vector<param> params_;
    std::string input_expr_;
    std::string scan_expr_;
    std::string neutral_;
    std::string output_statement_;
    std::string is_segment_start_expr_;
    std::vector<scan_fetch> fetches_;
    std::string preamble_;
    std::uint64_t key_;
};

// Work items per group of the scan kernels (their local arrays are this long).
inline constexpr unsigned generic_scan_group = 128;

// The three kernels' source in `language`.
std::string generic_scan_source(const generic_scan_spec& spec, kernel_language language);

// Queues the scan of i in [0, n) on `b`. args: one per parameter, arrays (contiguous, of the
// parameter's dtype, `b`'s memory: the kernel sees their first element at index 0) and
// scalars (scalar_value of the parameter's size). logic_error for a mismatch, a negative n,
// or a device whose kernels cannot have generic_scan_group work items. n = 0 runs nothing.
void run(const generic_scan_spec& spec, std::span<const elementwise_arg> args, std::int64_t n, backend& b);

}  // namespace gpukit::array
