#include "gpukit/array/elementwise.hpp"

#include "kernel_cache.hpp"
#include "kernel_text.hpp"
#include "opencl_complex.hpp"

#include "gpukit/core/c_text.hpp"
#include "gpukit/core/error.hpp"
#include "gpukit/core/text.hpp"
#include "gpukit/array/cuda_backend.hpp"

#include <algorithm>
#include <functional>

namespace gpukit::array {

namespace detail {

void require_kernel_name(const std::string& name, const std::string& where) {
    if (std::string problem = kernel_name_problem(name, kernel_language::cuda); !problem.empty())
        throw logic_error(where + problem);
}

void require_name_prefix(const std::string& prefix, const std::string& where) {
    if (!is_c_identifier(prefix))  // then the problem kernel_name_problem names is that one
        throw logic_error(where + kernel_name_problem(prefix, kernel_language::cuda));
}

std::string element_type(dtype t, kernel_language language) {
    return std::string(language == kernel_language::cuda ? c_type(t) : opencl_element_type(t));
}

std::string c_cast(dtype t, const std::string& value, kernel_language language) {
    std::string text = "((";
    text += t == dtype::bool_ ? "bool" : element_type(t, language);
    text += ")(" + value + "))";
    return text;
}

}  // namespace detail

namespace {

using detail::element_type;
bool is_read(const param& p) { return p.kind == param_kind::input || p.kind == param_kind::inout; }
bool is_written(const param& p) { return p.kind == param_kind::output || p.kind == param_kind::inout; }

std::string pointer_name(const param& p) { return "gk_p_" + p.name; }

// Elements per thread in the vectorized variant: one 16-byte word of the narrowest array.
int vector_width(const elementwise_spec& spec) {
    std::size_t narrowest = 16;
    for (const param& p : spec.params())
        if (is_array(p))
            narrowest = std::min(narrowest, size_of(p.type));
    return static_cast<int>(16 / narrowest);
}

std::string kernel_name(const elementwise_spec& spec, elementwise_variant v) {
    switch (v) {
    case elementwise_variant::vectorized:
        return spec.name() + "_vec";
    case elementwise_variant::contiguous:
        return spec.name() + "_contig";
    case elementwise_variant::strided:
        return spec.name() + "_strided";
    case elementwise_variant::rows:
        return spec.name() + "_rows";
    }
    return spec.name();
}

bool has_strides(elementwise_variant v) { return v == elementwise_variant::strided || v == elementwise_variant::rows; }

// CUDA C: an array is one pointer. OpenCL C: a buffer and the byte offset of the element
// [0, ..., 0] in it (backend.hpp). Strided variants add each array's byte strides and the
// shape, by value (gk_dims<ndim> in CUDA C, the struct gk_dims in OpenCL C).
void write_parameters(text_builder& out, const elementwise_spec& spec, elementwise_variant v, int ndim,
                      kernel_language language) {
    const bool cuda = language == kernel_language::cuda;
    const std::string dims = cuda ? "gk_dims<" + std::to_string(ndim) + ">" : "gk_dims";
    for (const param& p : spec.params()) {
        const std::string type = element_type(p.type, language);
        if (!is_array(p))
            out << type << " " << p.name << ", ";
        else {
            out << (cuda ? "" : "__global ") << (p.kind == param_kind::input ? "const " : "") << type << "* "
                << pointer_name(p) << ", ";
            if (!cuda)
                out << "long gk_f_" << p.name << ", ";
            if (has_strides(v))
                out << dims << " gk_s_" << p.name << ", ";
        }
    }
    if (has_strides(v))
        out << dims << " gk_shape, ";
    out << (cuda ? "long long n" : "long n");
}

// The operation with every array name bound to the element at `where(param)`.
void write_body(text_builder& out, const elementwise_spec& spec,
                const std::function<std::string(const param&)>& where) {
    for (const param& p : spec.params())
        if (is_array(p))
            out << "        gk_ref<" << c_type(p.type) << "> " << p.name << "{(" << c_type(p.type) << "*)(" << where(p)
                << ")};\n";
    out << "        {\n" << spec.operation() << "\n        ;}\n";
}

// gk_o_<name>: each array's byte offset of the element at flat C-order index `index` over
// axes 0..last_axis (coordinates by division; axis 0 needs none, the index being in range).
void write_offsets(text_builder& out, const elementwise_spec& spec, const std::string& index, int last_axis,
                   const char* long_type = "long long") {
    for (const param& p : spec.params())
        if (is_array(p))
            out << "        " << long_type << " gk_o_" << p.name << " = 0;\n";
    out << "        " << long_type << " gk_rest = " << index << ";\n"
        << "        for (int gk_d = " << last_axis << "; gk_d >= 0; --gk_d) {\n"
        << "            const " << long_type
        << " gk_c = gk_d == 0 ? gk_rest : gk_rest % gk_shape.e[gk_d];\n"
           "            if (gk_d > 0) gk_rest /= gk_shape.e[gk_d];\n";
    for (const param& p : spec.params())
        if (is_array(p))
            out << "            gk_o_" << p.name << " += gk_c * gk_s_" << p.name << ".e[gk_d];\n";
    out << "        }\n";
}

}  // namespace

elementwise_spec::elementwise_spec(std::string name, std::vector<param> params, std::string operation,
                                   std::string preamble)
    : name_(std::move(name)), params_(std::move(params)), operation_(std::move(operation)),
      preamble_(std::move(preamble)), key_(detail::new_kernel_key()) {
    detail::require_name_prefix(name_, "elementwise kernel name ");
    if (std::none_of(params_.begin(), params_.end(), is_array))
        throw logic_error("elementwise kernel " + name_ + ": needs at least one array parameter");
    for (const param& p : params_) {
        detail::require_kernel_name(p.name, "elementwise kernel " + name_ + ": parameter name ");
        if (p.name == "i" || p.name == "n")
            throw logic_error("elementwise kernel " + name_ + ": parameter name '" + p.name +
                              "' is one of the reserved names i and n");
    }
}

namespace {

// OpenCL C: the contiguous and strided variants (the others are CUDA's: choose_variant picks
// these two for OpenCL). Each array name is a pointer such that `name[i]` is the element:
// the start of the array's memory for contiguous arrays; for strided ones, the element's
// address less i elements, since OpenCL C has no reference type to bind the name to.
std::string opencl_source(const elementwise_spec& spec, elementwise_variant variant, int ndim) {
    if (variant != elementwise_variant::contiguous && variant != elementwise_variant::strided)
        throw logic_error("elementwise kernel " + spec.name() +
                          ": OpenCL has the contiguous and strided variants only");
    text_builder out;
    const bool any_double = std::any_of(spec.params().begin(), spec.params().end(), [](const param& p) {
        return p.type == dtype::float64 || p.type == dtype::complex128;
    });
    if (any_double)
        out << "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n";
    // As PyOpenCL's kernels of complex arguments: cfloat_t and cdouble_t with their functions.
    if (std::any_of(spec.params().begin(), spec.params().end(),
                    [](const param& p) { return kind(p.type) == dtype_kind::complex; }))
        out << detail::opencl_complex_library();
    out << spec.preamble() << "\n";
    if (variant == elementwise_variant::strided)
        out << "typedef struct { long e[" << ndim << "]; } gk_dims;\n";
    out << "__kernel void " << kernel_name(spec, variant) << "(";
    write_parameters(out, spec, variant, ndim, kernel_language::opencl);
    out << ") {\n"
           "    for (long i = get_global_id(0); i < n; i += get_global_size(0)) {\n";
    if (variant == elementwise_variant::strided)
        write_offsets(out, spec, "i", ndim - 1, "long");
    for (const param& p : spec.params()) {
        if (!is_array(p))
            continue;
        const std::string space = p.kind == param_kind::input ? "__global const " : "__global ";
        const std::string type = element_type(p.type, kernel_language::opencl);
        out << "        " << space << type << "* " << p.name << " = (" << space << type << "*)((" << space << "char*)"
            << pointer_name(p) << " + gk_f_" << p.name;
        if (variant == elementwise_variant::strided)
            out << " + gk_o_" << p.name << ") - i;\n";
        else
            out << ");\n";
    }
    out << "        {\n" << spec.operation() << "\n        ;}\n    }\n}\n";
    return out.str();
}

}  // namespace

std::string elementwise_source(const elementwise_spec& spec, elementwise_variant variant, int ndim,
                               kernel_language language) {
    if (has_strides(variant) && ndim < 1)
        throw logic_error("elementwise kernel " + spec.name() + ": the strided variants need ndim >= 1");
    if (language == kernel_language::opencl)
        return opencl_source(spec, variant, ndim);
    text_builder out;
    out << detail::common_source << spec.preamble() << "\n";
    out << "extern \"C\" __global__ void __launch_bounds__(" << detail::block_size << ") " << kernel_name(spec, variant)
        << "(";
    write_parameters(out, spec, variant, ndim, kernel_language::cuda);
    out << ") {\n"
           "    const long long gk_thread = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
           "    const long long gk_threads = (long long)gridDim.x * blockDim.x;\n";
    const auto at_index = [](const param& p) { return pointer_name(p) + " + i"; };
    switch (variant) {
    case elementwise_variant::vectorized: {
        const int v = vector_width(spec);
        out << "    constexpr int V = " << v << ";\n"
            << "    const long long gk_whole = n - n % V;\n"
            << "    for (long long gk_base = gk_thread * V; gk_base < gk_whole; gk_base += gk_threads * V) {\n";
        for (const param& p : spec.params()) {
            if (!is_array(p))
                continue;
            out << "        alignas(16) " << c_type(p.type) << " gk_b_" << p.name << "[V];\n";
            if (is_read(p))
                out << "        gk_load(gk_b_" << p.name << ", " << pointer_name(p) << " + gk_base);\n";
        }
        out << "#pragma unroll\n        for (int gk_k = 0; gk_k < V; ++gk_k) {\n"
               "        const long long i = gk_base + gk_k;\n";
        write_body(out, spec, [](const param& p) { return "&gk_b_" + p.name + "[gk_k]"; });
        out << "        }\n";
        for (const param& p : spec.params())
            if (is_written(p))
                out << "        gk_store(" << pointer_name(p) << " + gk_base, gk_b_" << p.name << ");\n";
        out << "    }\n"
               "    for (long long i = gk_whole + gk_thread; i < n; i += gk_threads) {\n";
        write_body(out, spec, at_index);
        out << "    }\n";
        break;
    }
    case elementwise_variant::contiguous:
        out << "    for (long long i = gk_thread; i < n; i += gk_threads) {\n";
        write_body(out, spec, at_index);
        out << "    }\n";
        break;
    case elementwise_variant::strided:
        out << "    for (long long i = gk_thread; i < n; i += gk_threads) {\n";
        write_offsets(out, spec, "i", ndim - 1);
        write_body(out, spec, [](const param& p) {
            text_builder address;
            address << (p.kind == param_kind::input ? "(const char*)" : "(char*)") << pointer_name(p) << " + gk_o_"
                    << p.name;
            return address.str();
        });
        out << "    }\n";
        break;
    case elementwise_variant::rows: {
        // Row r is element r of the array of all axes but the last (C order); its offset in
        // each operand is worked out once per row, then the last axis is a multiply away.
        out << "    const long long gk_last = gk_shape.e[" << ndim - 1
            << "];\n"
               "    const long long gk_rows = n / gk_last;\n"
               "    for (long long gk_row = blockIdx.y; gk_row < gk_rows; gk_row += gridDim.y) {\n";
        write_offsets(out, spec, "gk_row", ndim - 2);
        out << "        for (long long gk_col = (long long)blockIdx.x * blockDim.x + threadIdx.x; gk_col < gk_last;\n"
               "             gk_col += (long long)gridDim.x * blockDim.x) {\n"
               "            const long long i = gk_row * gk_last + gk_col;\n";
        write_body(out, spec, [ndim](const param& p) {
            text_builder address;
            address << (p.kind == param_kind::input ? "(const char*)" : "(char*)") << pointer_name(p) << " + gk_o_"
                    << p.name << " + gk_col * gk_s_" << p.name << ".e[" << ndim - 1 << "]";
            return address.str();
        });
        out << "        }\n    }\n";
        break;
    }
    }
    out << "}\n";
    return out.str();
}

namespace {

const ndarray* first_array(std::span<const elementwise_arg> args) {
    for (const auto& a : args)
        if (const auto* array = std::get_if<ndarray>(&a))
            return array;
    return nullptr;
}

}  // namespace

elementwise_variant choose_variant(std::span<const elementwise_arg> args, kernel_language language) {
    bool all_c = true, all_f = true, aligned = language == kernel_language::cuda;
    for (const auto& a : args) {
        const auto* array = std::get_if<ndarray>(&a);
        if (!array)
            continue;
        all_c = all_c && array->layout().is_c_contiguous();
        all_f = all_f && array->layout().is_f_contiguous();
        aligned = aligned && array->data() % 16 == 0;
    }
    if (!all_c && !all_f && language == kernel_language::opencl)
        return elementwise_variant::strided;
    if (!all_c && !all_f) {
        const ndarray* first = first_array(args);
        const bool long_rows = first && first->ndim() > 0 && first->shape().back() >= rows_min_extent;
        return long_rows ? elementwise_variant::rows : elementwise_variant::strided;
    }
    return aligned ? elementwise_variant::vectorized : elementwise_variant::contiguous;
}

void run(const elementwise_spec& spec, std::span<const elementwise_arg> args, backend& b) {
    if (args.size() != spec.params().size())
        throw logic_error("elementwise kernel " + spec.name() + ": expected " + std::to_string(spec.params().size()) +
                          " arguments, got " + std::to_string(args.size()));
    const ndarray* first = first_array(args);
    if (!first)
        throw logic_error("elementwise kernel " + spec.name() + ": no array argument");
    const std::vector<std::int64_t>& shape = first->shape();
    for (std::size_t k = 0; k < args.size(); ++k) {
        const param& p = spec.params()[k];
        const auto* array = std::get_if<ndarray>(&args[k]);
        // The message is made only when an argument is wrong: this loop runs on every launch.
        const auto where = [&] { return "elementwise kernel " + spec.name() + ", argument " + p.name + ": "; };
        if (is_array(p) != (array != nullptr))
            throw logic_error(where() +
                              (is_array(p) ? "expected an array, got a scalar" : "expected a scalar, got an array"));
        if (array && array->buffer()->space != b.space())
            throw logic_error(where() + "the array's memory is not " + b.name() +
                              " memory; a backend runs kernels on its own memory only");
        if (array && array->type() != p.type)
            throw logic_error(where() + "expected dtype " + std::string(name(p.type)) + ", got " +
                              std::string(name(array->type())));
        if (array && array->shape() != shape)
            throw logic_error(where() + "shape " + array->layout().describe() + " differs from the first array's " +
                              first->layout().describe());
        if (!array && std::get<scalar_value>(args[k]).size != size_of(p.type))
            throw logic_error(where() + "scalar of " + std::to_string(std::get<scalar_value>(args[k]).size) +
                              " bytes for a " + std::string(name(p.type)));
    }
    if (b.language() != kernel_language::cuda)  // CUDA kernels take every dtype
        for (const param& p : spec.params())
            if (std::string problem = b.type_problem(p.type); !problem.empty())
                throw logic_error("elementwise kernel " + spec.name() + ", parameter " + p.name + ": " + problem);
    const long long n = first->size();
    if (n == 0)
        return;

    const elementwise_variant variant = choose_variant(args, b.language());
    const int ndim = std::max(1, first->ndim());
    if (ndim > 64)
        throw logic_error("elementwise kernel " + spec.name() + ": arrays of " + std::to_string(ndim) +
                          " axes; at most 64 are supported, as in numpy");
    // The variant's key: the strided variant is compiled per number of axes. A backend
    // caches its own kernels, so the key need not name the language.
    const std::uint64_t key = spec.key() + static_cast<std::uint64_t>(variant) * 128 + static_cast<std::uint64_t>(ndim);
    const loaded_kernel k = b.kernel(key, kernel_name(spec, variant),
                                     [&] { return elementwise_source(spec, variant, ndim, b.language()); });

    // Argument storage, kept in place while launch() reads it: the strides and the shape
    // padded to ndim (a 0-d array is one element of one axis).
    std::vector<std::vector<std::int64_t>> dims;
    dims.reserve(args.size() + 1);
    std::vector<kernel_argument> arguments;
    arguments.reserve(args.size() * 2 + 2);
    const auto padded = [&](const std::vector<std::int64_t>& v) {
        dims.push_back(v.empty() ? std::vector<std::int64_t>{1} : v);
        return kernel_argument::bytes(dims.back().data(), dims.back().size() * sizeof(std::int64_t));
    };
    for (const auto& a : args) {
        if (const auto* array = std::get_if<ndarray>(&a)) {
            arguments.push_back(kernel_argument::memory(*array->buffer(), array->layout().offset()));
            if (has_strides(variant))
                arguments.push_back(padded(array->layout().strides()));
        } else {
            const auto& scalar = std::get<scalar_value>(a);
            arguments.push_back(kernel_argument::bytes(scalar.bytes.data(), scalar.size));
        }
    }
    if (has_strides(variant))
        arguments.push_back(padded(shape));
    const long long count = n;
    arguments.push_back(kernel_argument::bytes(&count, sizeof count));

    // A grid that covers the work, at most looping_grid_limit (the kernels loop over the rest);
    // the rows variant (CUDA) spreads its rows over a second axis of blocks.
    const unsigned group = std::min(b.preferred_group_size(), k.max_group);
    const long long grid_limit = looping_grid_limit(k);
    const auto groups_for = [&](long long items, long long per_item) {
        const long long per_group = static_cast<long long>(group) * per_item;
        return static_cast<unsigned>(std::clamp<long long>((items + per_group - 1) / per_group, 1, grid_limit));
    };
    launch_shape grid{groups_for(n, variant == elementwise_variant::vectorized ? vector_width(spec) : 1), 1, group};
    if (variant == elementwise_variant::rows) {
        // Along x, enough blocks for the last axis at 4 elements per thread (so a row offset
        // serves several elements); along y, the rest of a device-filling grid, over rows.
        const long long last = shape.back(), rows = n / last;
        grid.groups_x = groups_for(last, 4);
        grid.groups_y = static_cast<unsigned>(
            std::clamp<long long>(k.full_grid / grid.groups_x, 1, std::min<long long>(rows, 65535)));
    }
    b.launch(k, grid, arguments);
}

void run(const elementwise_spec& spec, std::span<const elementwise_arg> args, cuda::stream_view s) {
    cuda_backend b(s);
    run(spec, args, b);
}

}  // namespace gpukit::array
