// A reduction spec's kernels in OpenCL C (reduction_launch.hpp): the same two stages as the
// CUDA C of reduction.cpp, with the group's values combined through local memory instead of
// warp shuffles.
#include "opencl_complex.hpp"
#include "reduction_launch.hpp"

#include "gpukit/core/error.hpp"
#include "gpukit/core/text.hpp"

#include <algorithm>
#include <string>

namespace gpukit::array::detail {

namespace {

using role = reduction_param_kind;

// The most work items a group has: the local memory of the group reduction holds this many
// accumulators, and its halving loop starts here.
constexpr unsigned max_group = 256;

// A dtype's OpenCL C name, or the caller's C type (a struct its preamble declares).
std::string opencl_name(const value_type& t) { return t.dtype ? std::string(opencl_element_type(*t.dtype)) : t.c_name; }

// Whether the accumulator, the output or a parameter is of a type `test` accepts.
template <class Test>
bool uses(const reduction_spec& spec, Test test) {
    const auto of = [&](const value_type& t) { return t.dtype && test(*t.dtype); };
    return of(spec.accumulator()) || of(spec.output()) ||
           std::any_of(spec.params().begin(), spec.params().end(),
                       [&](const reduction_param& p) { return of(p.type); });
}

// Arrays are a buffer and a byte offset (backend.hpp); scalars come by value.
void write_parameters(text_builder& s, const reduction_spec& spec) {
    for (const reduction_param& p : spec.params()) {
        const std::string type = opencl_name(p.type);
        if (p.kind == role::scalar)
            s << type << " " << p.name << ", ";
        else
            s << "__global const " << type << "* gk_p_" << p.name << ", long gk_f_" << p.name << ", ";
    }
}

// The address of byte offset `offset` of array parameter p, as a pointer to its elements.
std::string at_offset(const reduction_param& p, const std::string& offset) {
    const std::string type = opencl_name(p.type);
    return "(__global const " + type + "*)((__global const char*)gk_p_" + p.name + " + " + offset + ")";
}

// The pointer arrays, bound to their names once (the map indexes them freely).
void write_pointer_arrays(text_builder& s, const reduction_spec& spec) {
    for (const reduction_param& p : spec.params())
        if (p.kind == role::pointer)
            s << "    __global const " << opencl_name(p.type) << "* " << p.name << " = "
              << at_offset(p, "gk_f_" + p.name) << ";\n";
}

// The group's values combined into gk_shared[0] (every item takes part; the group may be
// smaller than max_group, and of any size).
void write_group_reduction(text_builder& s) {
    s << "    const uint gk_lid = get_local_id(0), gk_lsize = get_local_size(0);\n"
         "    gk_shared[gk_lid] = gk_value;\n"
         "    barrier(CLK_LOCAL_MEM_FENCE);\n"
         "    for (uint gk_s = "
      << max_group / 2
      << "; gk_s > 0; gk_s >>= 1) {\n"
         "        if (gk_lid < gk_s && gk_lid + gk_s < gk_lsize) {\n"
         "            const gk_acc gk_x = gk_shared[gk_lid], gk_y = gk_shared[gk_lid + gk_s];\n"
         "            gk_shared[gk_lid] = gk_reduce(gk_x, gk_y);\n"
         "        }\n"
         "        barrier(CLK_LOCAL_MEM_FENCE);\n"
         "    }\n";
}

const char* const write_output =
    "        *(__global gk_out_t*)((__global char*)gk_out_p + gk_out_f) = gk_to_out(gk_shared[0]);\n";

// The macro converting the final accumulator to the output: C's cast between real types,
// opencl_convert's helpers where a complex type takes part (OpenCL C casts to no union), none
// where both are one type (a struct of the caller's).
std::string output_conversion(const reduction_spec& spec) {
    const value_type& acc = spec.accumulator();
    const value_type& out = spec.output();
    if (acc.dtype && out.dtype)
        return "#define gk_to_out(v) (" + detail::opencl_convert(*out.dtype, *acc.dtype, "v") + ")\n";
    if (opencl_name(acc) == opencl_name(out))
        return "#define gk_to_out(v) (v)\n";
    return "#define gk_to_out(v) ((gk_out_t)(v))\n";
}

}  // namespace

std::string opencl_reduction_source(const reduction_spec& spec, reduction_variant variant, int ndim) {
    if (variant == reduction_variant::vectorized)
        throw logic_error("reduction " + spec.name() + ": OpenCL has the contiguous and strided variants only");
    const bool strided = variant == reduction_variant::strided;
    const int elements = static_cast<int>(spec.element_arrays());
    text_builder s;
    if (uses(spec, [](dtype t) { return t == dtype::float64 || t == dtype::complex128; }))
        s << "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n";
    // As PyOpenCL's kernels of complex types: cfloat_t and cdouble_t with their functions.
    if (uses(spec, [](dtype t) { return kind(t) == dtype_kind::complex; }))
        s << detail::opencl_complex_library();
    s << spec.preamble() << "\n"
      << "typedef " << opencl_name(spec.accumulator()) << " gk_acc;\n"
      << "typedef gk_acc out_type;\n"
      << "typedef " << opencl_name(spec.output())
      << " gk_out_t;\n"
      // Macros, not functions: the expressions may use the kernels' scalar parameters.
      << "#define gk_reduce(a, b) (" << spec.reduce() << ")\n"
      << "#define gk_neutral() (" << spec.neutral() << ")\n"
      << output_conversion(spec);
    if (strided)
        s << "typedef struct { long e[" << ndim << "]; } gk_shape_t;\n"
          << "typedef struct { long e[" << ndim * std::max(1, elements) << "]; } gk_strides_t;\n";

    // Stage 1: each group's share to one partial result (or, alone, to the output).
    s << "__kernel void " << spec.stage1_name() << "(";
    write_parameters(s, spec);
    if (strided)
        s << "gk_shape_t gk_shape, gk_strides_t gk_strides, ";
    s << "__global gk_acc* gk_partial_p, long gk_partial_f, __global gk_out_t* gk_out_p, long gk_out_f, "
         "long gk_start, long gk_step, long gk_count) {\n"
      << "    __local gk_acc gk_shared[" << max_group << "];\n";
    if (std::none_of(spec.params().begin(), spec.params().end(),
                     [](const reduction_param& p) { return p.name == "n"; }))
        s << "    const long n = gk_count;\n";
    write_pointer_arrays(s, spec);
    // On a GPU the work items stride through the indices together (neighbours read neighbours);
    // on a CPU (GK_CPU, opencl_backend.hpp) each work item takes one run of consecutive indices,
    // since it runs its whole loop alone: striding, each read would be on another cache line.
    s << "    gk_acc gk_value = gk_neutral();\n"
         "#ifdef GK_CPU\n"
         "    const long gk_per = (gk_count + get_global_size(0) - 1) / get_global_size(0);\n"
         "    const long gk_first = get_global_id(0) * gk_per;\n"
         "    const long gk_end = gk_first + gk_per < gk_count ? gk_first + gk_per : gk_count;\n"
         "    const long gk_next = 1;\n"
         "#else\n"
         "    const long gk_first = get_global_id(0), gk_end = gk_count, gk_next = get_global_size(0);\n"
         "#endif\n"
         "    long i = gk_start + gk_first * gk_step;\n"
         "    for (long gk_k = gk_first; gk_k < gk_end; gk_k += gk_next, i += gk_next * gk_step) {\n";
    if (strided) {
        // Each element array's byte offset of C-order index i over the shape.
        for (int m = 0; m < elements; ++m)
            s << "        long gk_o" << m << " = 0;\n";
        s << "        long gk_rest = i;\n"
             "        for (int gk_d = "
          << ndim - 1
          << "; gk_d >= 0; --gk_d) {\n"
             "            const long gk_c = gk_d == 0 ? gk_rest : gk_rest % gk_shape.e[gk_d];\n"
             "            if (gk_d > 0) gk_rest /= gk_shape.e[gk_d];\n";
        for (int m = 0; m < elements; ++m)
            s << "            gk_o" << m << " += gk_c * gk_strides.e[" << m * ndim << " + gk_d];\n";
        s << "        }\n";
    }
    // Each element array bound to its name so that name[i] is its element i: the array's
    // start (contiguous), or the element's address less i elements (strided).
    int m = 0;
    for (const reduction_param& p : spec.params()) {
        if (p.kind != role::element)
            continue;
        const std::string offset = "gk_f_" + p.name + (strided ? " + gk_o" + std::to_string(m) : "");
        s << "        __global const " << opencl_name(p.type) << "* " << p.name << " = " << at_offset(p, offset)
          << (strided ? " - i" : "") << ";\n";
        ++m;
    }
    s << "        const gk_acc gk_mapped = (" << spec.map() << ");\n"
      << "        gk_value = gk_reduce(gk_value, gk_mapped);\n"
         "    }\n";
    write_group_reduction(s);
    s << "    if (gk_lid == 0) {\n"
         "        if (get_num_groups(0) == 1)\n"
      << write_output
      << "        else\n"
         "            ((__global gk_acc*)((__global char*)gk_partial_p + gk_partial_f))[get_group_id(0)] = "
         "gk_shared[0];\n"
         "    }\n"
         "}\n";

    // Stage 2: the partial results to the output, in one group.
    s << "__kernel void " << spec.stage2_name() << "(";
    write_parameters(s, spec);
    s << "__global const gk_acc* gk_partial_p, long gk_partial_f, __global gk_out_t* gk_out_p, long gk_out_f, "
         "int gk_count) {\n"
      << "    __local gk_acc gk_shared[" << max_group << "];\n";
    write_pointer_arrays(s, spec);
    s << "    __global const gk_acc* gk_partial = (__global const gk_acc*)((__global const char*)gk_partial_p + "
         "gk_partial_f);\n"
         "    gk_acc gk_value = gk_neutral();\n"
         "    for (int gk_j = get_local_id(0); gk_j < gk_count; gk_j += get_local_size(0)) {\n"
         "        const gk_acc gk_y = gk_partial[gk_j];\n"
         "        gk_value = gk_reduce(gk_value, gk_y);\n"
         "    }\n";
    write_group_reduction(s);
    s << "    if (gk_lid == 0)\n" << write_output << "}\n";
    return s.str();
}

}  // namespace gpukit::array::detail
