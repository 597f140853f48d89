#include "gpukit/array/elementwise.hpp"

#include "kernel_cache.hpp"
#include "kernel_text.hpp"

#include "gpukit/core/c_text.hpp"
#include "gpukit/core/error.hpp"
#include "gpukit/core/text.hpp"
#include "gpukit/cuda/launch.hpp"

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

}  // namespace detail

namespace {

bool is_array(const param& p) { return p.kind != param_kind::scalar; }
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
    case elementwise_variant::vectorized: return spec.name() + "_vec";
    case elementwise_variant::contiguous: return spec.name() + "_contig";
    case elementwise_variant::strided: return spec.name() + "_strided";
    case elementwise_variant::rows: return spec.name() + "_rows";
    }
    return spec.name();
}

bool has_strides(elementwise_variant v) { return v == elementwise_variant::strided || v == elementwise_variant::rows; }

void write_parameters(text_builder& out, const elementwise_spec& spec, elementwise_variant v, int ndim) {
    for (const param& p : spec.params()) {
        const std::string type(c_type(p.type));
        if (!is_array(p))
            out << type << " " << p.name << ", ";
        else {
            out << (p.kind == param_kind::input ? "const " : "") << type << "* " << pointer_name(p) << ", ";
            if (has_strides(v))
                out << "gk_dims<" << ndim << "> gk_s_" << p.name << ", ";
        }
    }
    if (has_strides(v))
        out << "gk_dims<" << ndim << "> gk_shape, ";
    out << "long long n";
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
void write_offsets(text_builder& out, const elementwise_spec& spec, const std::string& index, int last_axis) {
    for (const param& p : spec.params())
        if (is_array(p))
            out << "        long long gk_o_" << p.name << " = 0;\n";
    out << "        long long gk_rest = " << index << ";\n"
        << "        for (int gk_d = " << last_axis << "; gk_d >= 0; --gk_d) {\n"
           "            const long long gk_c = gk_d == 0 ? gk_rest : gk_rest % gk_shape.e[gk_d];\n"
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

std::string elementwise_source(const elementwise_spec& spec, elementwise_variant variant, int ndim) {
    if (has_strides(variant) && ndim < 1)
        throw logic_error("elementwise kernel " + spec.name() + ": the strided variants need ndim >= 1");
    text_builder out;
    out << detail::common_source << spec.preamble() << "\n";
    out << "extern \"C\" __global__ void __launch_bounds__(" << detail::block_size << ") "
        << kernel_name(spec, variant) << "(";
    write_parameters(out, spec, variant, ndim);
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
        out << "    const long long gk_last = gk_shape.e[" << ndim - 1 << "];\n"
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

elementwise_variant choose_variant(std::span<const elementwise_arg> args) {
    bool all_c = true, all_f = true, aligned = true;
    for (const auto& a : args) {
        const auto* array = std::get_if<ndarray>(&a);
        if (!array)
            continue;
        all_c = all_c && array->layout().is_c_contiguous();
        all_f = all_f && array->layout().is_f_contiguous();
        aligned = aligned && array->data() % 16 == 0;
    }
    if (!all_c && !all_f) {
        const ndarray* first = first_array(args);
        const bool long_rows = first && first->ndim() > 0 && first->shape().back() >= rows_min_extent;
        return long_rows ? elementwise_variant::rows : elementwise_variant::strided;
    }
    return aligned ? elementwise_variant::vectorized : elementwise_variant::contiguous;
}

void run(const elementwise_spec& spec, std::span<const elementwise_arg> args, cuda::stream_view s) {
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
            throw logic_error(where() + (is_array(p) ? "expected an array, got a scalar" : "expected a scalar, got an array"));
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
    const long long n = first->size();
    if (n == 0)
        return;

    const elementwise_variant variant = choose_variant(args);
    const int ndim = std::max(1, first->ndim());
    if (ndim > 64)
        throw logic_error("elementwise kernel " + spec.name() + ": arrays of " + std::to_string(ndim) +
                          " axes; at most 64 are supported, as in numpy");
    // The variant's key: the strided variant is compiled per number of axes.
    const std::uint64_t key = spec.key() + static_cast<std::uint64_t>(variant) * 128 + static_cast<std::uint64_t>(ndim);
    const detail::cached_kernel k = detail::kernel(key, kernel_name(spec, variant),
                                                   [&] { return elementwise_source(spec, variant, ndim); });

    // Argument storage, kept in place while launch_packed reads it.
    std::vector<CUdeviceptr> pointers;
    std::vector<std::vector<std::int64_t>> dims;
    pointers.reserve(args.size());
    dims.reserve(args.size() + 1);
    std::vector<void*> values;
    std::vector<std::size_t> sizes;
    const auto padded = [&](const std::vector<std::int64_t>& v) {
        dims.push_back(v.empty() ? std::vector<std::int64_t>{1} : v);
        return &dims.back();
    };
    for (const auto& a : args) {
        if (const auto* array = std::get_if<ndarray>(&a)) {
            pointers.push_back(array->data());
            values.push_back(&pointers.back());
            sizes.push_back(sizeof(CUdeviceptr));
            if (has_strides(variant)) {
                const auto* strides = padded(array->layout().strides());
                values.push_back(const_cast<std::int64_t*>(strides->data()));
                sizes.push_back(strides->size() * sizeof(std::int64_t));
            }
        } else {
            const auto& scalar = std::get<scalar_value>(a);
            values.push_back(const_cast<std::byte*>(scalar.bytes.data()));
            sizes.push_back(scalar.size);
        }
    }
    if (has_strides(variant)) {
        const auto* extents = padded(shape);
        values.push_back(const_cast<std::int64_t*>(extents->data()));
        sizes.push_back(extents->size() * sizeof(std::int64_t));
    }
    long long count = n;
    values.push_back(&count);
    sizes.push_back(sizeof(count));

    const long long per_thread = variant == elementwise_variant::vectorized ? vector_width(spec) : 1;
    cuda::dim3 grid{detail::grid_for(k, n, per_thread)};
    if (variant == elementwise_variant::rows) {
        // Along x, enough blocks for the last axis at 4 elements per thread (so a row offset
        // serves several elements); along y, the rest of a device-filling grid, over rows.
        const long long last = shape.back(), rows = n / last;
        grid.x = detail::grid_for(k, last, 4);
        grid.y = static_cast<unsigned>(std::clamp<long long>(k.full_grid / grid.x, 1, std::min<long long>(rows, 65535)));
    }
    const auto config = cuda::launch_config().grid(grid).block({detail::block_size}).stream(s);
    cuda::launch_packed(k.function, config, values.data(), sizes.data(), values.size());
}

}  // namespace gpukit::array
