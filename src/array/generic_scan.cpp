// Generic scans (generic_scan.hpp): three kernels generated from one description, in OpenCL C
// or CUDA C. The language's words differ only in a few macros (GK_KERNEL, GK_LOCAL, ...) and in
// how an array parameter arrives (OpenCL: a buffer and a byte offset; CUDA: a pointer).
//
// A pair (flag, value) is a scanned range: flag says that a segment starts inside it. Two
// neighbouring ranges combine as (fa | fb, scan_expr(a, b, across_seg_boundary = fb)), which
// is associative when scan_expr is, so each stage may group the elements as it likes:
//  1. intervals: group g scans its interval in passes of generic_scan_group * K elements;
//     each work item folds K consecutive elements, the group scans the work items' pairs in
//     local memory (Hillis and Steele), and each item writes its elements' interval-local
//     inclusive results to the scratch `partial` (with, when segmented, a byte per element:
//     bit 0 = a segment starts here, bit 1 = one started in the interval at or before here),
//     and the interval's pair to `totals`.
//  2. totals: one group scans the intervals' pairs (up to 8 consecutive ones per work item)
//     into `carry` (carry[g]: everything before interval g; carry[G]: everything).
//  3. final: item = carry[g] combined with partial[i], unless a segment started in the
//     interval at or before i; then output_statement.
#include "gpukit/array/generic_scan.hpp"

#include "kernel_cache.hpp"
#include "kernel_text.hpp"
#include "opencl_complex.hpp"
#include "portable_kernel.hpp"

#include "gpukit/core/c_text.hpp"
#include "gpukit/core/error.hpp"
#include "gpukit/core/text.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <initializer_list>
#include <utility>

namespace gpukit::array {

namespace {

using detail::bind_memory;
using detail::declare_memory;

using detail::element_type;

// The caller's parameters, then `N`.
void write_user_parameters(text_builder& out, const generic_scan_spec& spec, kernel_language language) {
    for (const param& p : spec.params()) {
        if (is_array(p))
            declare_memory(out, element_type(p.type, language), p.name, language);
        else
            out << element_type(p.type, language) << " " << p.name << ", ";
    }
    out << "long N, ";
}

void bind_user_arrays(text_builder& out, const generic_scan_spec& spec, kernel_language language) {
    for (const param& p : spec.params())
        if (is_array(p))
            bind_memory(out, element_type(p.type, language), p.name, language);
}

// The group's pairs (gk_f, gk_acc), one per work item, scanned inclusively in place: each
// item ends with the pair of everything up to and including itself.
const char* const group_scan =
    "        gk_lv[gk_l] = gk_acc; gk_lf[gk_l] = gk_f;\n"
    "        GK_BARRIER();\n"
    "        for (int gk_d = 1; gk_d < GK_W; gk_d <<= 1) {\n"
    "            const int gk_has = gk_l >= gk_d;\n"
    "            gk_scan_t gk_pv = gk_acc; uchar gk_pf = 0;\n"
    "            if (gk_has) { gk_pv = gk_lv[gk_l - gk_d]; gk_pf = gk_lf[gk_l - gk_d]; }\n"
    "            GK_BARRIER();\n"
    "            if (gk_has) {\n"
    "                gk_acc = GK_SCAN(gk_pv, gk_acc, gk_f); gk_f = (uchar)(gk_f | gk_pf);\n"
    "                gk_lv[gk_l] = gk_acc; gk_lf[gk_l] = gk_f;\n"
    "            }\n"
    "            GK_BARRIER();\n"
    "        }\n";

// A kernel's head: its name (name_prefix + suffix), the caller's parameters, N, `scalars`,
// the scratch arrays (element type, name), then the body's opening with the arrays bound to
// their names (and, for the kernels that scan a group, the group's local arrays).
void write_kernel_head(text_builder& out, const generic_scan_spec& spec, kernel_language language, const char* suffix,
                       const char* scalars, std::initializer_list<std::pair<const char*, const char*>> scratch,
                       bool scans_a_group) {
    out << "GK_KERNEL void " << spec.name_prefix() << suffix << "(";
    write_user_parameters(out, spec, language);
    out << scalars;
    for (const auto& [type, name] : scratch)
        declare_memory(out, type, name, language);
    out << "int gk_unused) {\n";
    if (scans_a_group)
        out << "    GK_LOCAL gk_scan_t gk_lv[GK_W];\n"
               "    GK_LOCAL uchar gk_lf[GK_W];\n";
    bind_user_arrays(out, spec, language);
    for (const auto& [type, name] : scratch)
        bind_memory(out, type, name, language);
}

void write_intervals_kernel(text_builder& out, const generic_scan_spec& spec, kernel_language language) {
    write_kernel_head(out, spec, language, "_intervals", "long gk_interval, ",
                      {{"gk_scan_t", "gk_partial"},
                       {"uchar", "gk_flags"},
                       {"gk_scan_t", "gk_totals"},
                       {"uchar", "gk_total_flags"}},
                      true);
    out << "    const int gk_l = GK_LID;\n"
           "    const long gk_begin = GK_GROUP * gk_interval;\n"
           "    const long gk_end = gk_begin + gk_interval < N ? gk_begin + gk_interval : N;\n"
           "    gk_scan_t gk_run = GK_NEUTRAL; uchar gk_run_f = 0;\n"
           "    for (long gk_base = gk_begin; gk_base < gk_end; gk_base += GK_W * GK_K) {\n"
           "        gk_scan_t gk_in[GK_K]; uchar gk_s[GK_K];\n"
           "        gk_scan_t gk_acc = GK_NEUTRAL; uchar gk_f = 0;\n"
           "        for (int gk_k = 0; gk_k < GK_K; ++gk_k) {\n"
           "            const long i = gk_base + (long)gk_l * GK_K + gk_k;\n"
           "            gk_s[gk_k] = 0;\n"
           "            if (i < gk_end) {\n";
    for (const scan_fetch& f : spec.fetches()) {
        const auto p =
            std::find_if(spec.params().begin(), spec.params().end(), [&](const param& q) { return q.name == f.array; });
        out << "                " << element_type(p->type, language) << " " << f.name << ";\n";
        if (f.offset == 0)
            out << "                " << f.name << " = " << f.array << "[i];\n";
        else
            out << "                if (i + (" << f.offset << ") >= 0) " << f.name << " = " << f.array << "[i + ("
                << f.offset << ")];\n";
    }
    out << "                const gk_scan_t a = (" << spec.input_expr() << ");\n"
        << "                gk_in[gk_k] = a;\n";
    if (spec.segmented())
        out << "                gk_s[gk_k] = (" << spec.is_segment_start_expr() << ") ? 1 : 0;\n";
    out << "                gk_acc = GK_SCAN(gk_acc, a, gk_s[gk_k]); gk_f = (uchar)(gk_f | gk_s[gk_k]);\n"
           "            }\n"
           "        }\n"
        << group_scan
        << "        gk_scan_t gk_item = gk_run; uchar gk_item_f = gk_run_f;\n"
           "        if (gk_l > 0) {\n"
           "            gk_item = GK_SCAN(gk_run, gk_lv[gk_l - 1], gk_lf[gk_l - 1]);\n"
           "            gk_item_f = (uchar)(gk_run_f | gk_lf[gk_l - 1]);\n"
           "        }\n"
           "        for (int gk_k = 0; gk_k < GK_K; ++gk_k) {\n"
           "            const long i = gk_base + (long)gk_l * GK_K + gk_k;\n"
           "            if (i < gk_end) {\n"
           "                gk_item = GK_SCAN(gk_item, gk_in[gk_k], gk_s[gk_k]);\n"
           "                gk_item_f = (uchar)(gk_item_f | gk_s[gk_k]);\n"
           "                gk_partial[i] = gk_item;\n";
    if (spec.segmented())
        out << "                gk_flags[i] = (uchar)(gk_s[gk_k] | (gk_item_f ? 2 : 0));\n";
    out << "            }\n"
           "        }\n"
           "        gk_run = GK_SCAN(gk_run, gk_lv[GK_W - 1], gk_lf[GK_W - 1]);\n"
           "        gk_run_f = (uchar)(gk_run_f | gk_lf[GK_W - 1]);\n"
           "        GK_BARRIER();\n"
           "    }\n"
           "    if (gk_l == 0) { gk_totals[GK_GROUP] = gk_run; gk_total_flags[GK_GROUP] = gk_run_f; }\n"
           "}\n";
}

void write_totals_kernel(text_builder& out, const generic_scan_spec& spec, kernel_language language) {
    write_kernel_head(out, spec, language, "_totals", "long gk_groups, ",
                      {{"gk_scan_t", "gk_totals"}, {"uchar", "gk_total_flags"}, {"gk_scan_t", "gk_carry"}}, true);
    // Each work item folds a run of consecutive totals, the group scans the runs, and each
    // work item writes its run's carries.
    out << "    const int gk_l = GK_LID;\n"
           "    const long gk_per = (gk_groups + GK_W - 1) / GK_W;\n"
           "    const long gk_lo = gk_l * gk_per;\n"
           "    const long gk_hi = gk_lo + gk_per < gk_groups ? gk_lo + gk_per : gk_groups;\n"
           "    {\n"
           "        gk_scan_t gk_acc = GK_NEUTRAL; uchar gk_f = 0;\n"
           "        for (long gk_g = gk_lo; gk_g < gk_hi; ++gk_g) {\n"
           "            gk_acc = GK_SCAN(gk_acc, gk_totals[gk_g], gk_total_flags[gk_g]);\n"
           "            gk_f = (uchar)(gk_f | gk_total_flags[gk_g]);\n"
           "        }\n"
        << group_scan
        << "        gk_scan_t gk_run = GK_NEUTRAL;\n"
           "        if (gk_l > 0) gk_run = gk_lv[gk_l - 1];\n"
           "        for (long gk_g = gk_lo; gk_g < gk_hi; ++gk_g) {\n"
           "            gk_run = GK_SCAN(gk_run, gk_totals[gk_g], gk_total_flags[gk_g]);\n"
           "            gk_carry[gk_g + 1] = gk_run;\n"
           "        }\n"
           "        if (gk_l == 0) gk_carry[0] = GK_NEUTRAL;\n"
           "    }\n"
           "}\n";
}

bool mentions(const std::string& text, const char* word) {
    for (std::size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) {
        const std::size_t end = at + std::strlen(word);
        const auto part_of_name = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
        if ((at == 0 || !part_of_name(text[at - 1])) && (end == text.size() || !part_of_name(text[end])))
            return true;
    }
    return false;
}

void write_final_kernel(text_builder& out, const generic_scan_spec& spec, kernel_language language) {
    write_kernel_head(out, spec, language, "_final", "long gk_interval, long gk_groups, ",
                      {{"gk_scan_t", "gk_partial"}, {"uchar", "gk_flags"}, {"gk_scan_t", "gk_carry"}}, false);
    out << "    const long gk_begin = GK_GROUP * gk_interval;\n"
           "    const long gk_end = gk_begin + gk_interval < N ? gk_begin + gk_interval : N;\n"
           "    const gk_scan_t gk_carried = gk_carry[GK_GROUP];\n";
    if (mentions(spec.output_statement(), "last_item"))
        out << "    const gk_scan_t last_item = gk_carry[gk_groups];\n";
    out << "    for (long i = gk_begin + GK_LID; i < gk_end; i += GK_W) {\n"
        << "        const uchar gk_fl = GK_FLAG(i);\n"
        << "        const gk_scan_t item = (gk_fl & 2) ? gk_partial[i] : GK_SCAN(gk_carried, gk_partial[i], 0);\n";
    if (mentions(spec.output_statement(), "prev_item"))
        out << "        gk_scan_t prev_item = gk_carried;\n"
               "        if (gk_fl & 1) prev_item = GK_NEUTRAL;\n"
               "        else if (i > gk_begin)\n"
               "            prev_item = (GK_FLAG(i - 1) & 2) ? gk_partial[i - 1] : GK_SCAN(gk_carried, gk_partial[i - "
               "1], 0);\n";
    out << "        {\n"
        << spec.output_statement() << "\n        ;}\n"
        << "    }\n"
           "}\n";
}

// Enough intervals to fill a GPU with groups (the totals kernel folds up to 8 per work item).
constexpr std::int64_t max_intervals = 8 * generic_scan_group;

}  // namespace

generic_scan_spec::generic_scan_spec(std::string name_prefix, std::string scan_type, std::size_t scan_size,
                                     std::vector<param> params, std::string input_expr, std::string scan_expr,
                                     std::string neutral, std::string output_statement,
                                     std::string is_segment_start_expr, std::vector<scan_fetch> fetches,
                                     std::string preamble)
    : name_prefix_(std::move(name_prefix)), scan_type_(std::move(scan_type)), scan_size_(scan_size),
      params_(std::move(params)), input_expr_(std::move(input_expr)), scan_expr_(std::move(scan_expr)),
      neutral_(std::move(neutral)), output_statement_(std::move(output_statement)),
      is_segment_start_expr_(std::move(is_segment_start_expr)), fetches_(std::move(fetches)),
      preamble_(std::move(preamble)), key_(detail::new_kernel_key()) {
    const std::string where = "generic scan " + name_prefix_ + ": ";
    detail::require_name_prefix(name_prefix_, "generic scan name prefix ");
    const auto blank = [](const std::string& text) { return split_words(text).empty(); };
    if (scan_size_ == 0 || blank(scan_type_))
        throw logic_error(where + "the scan type needs a C name and a size above 0");
    for (const auto& [text, what] :
         {std::pair{&input_expr_, "input_expr"}, std::pair{&scan_expr_, "scan_expr"}, std::pair{&neutral_, "neutral"},
          std::pair{&output_statement_, "output_statement"}})
        if (blank(*text))
            throw logic_error(where + what + " is empty");
    if (std::none_of(params_.begin(), params_.end(), is_array))
        throw logic_error(where + "needs at least one array parameter");
    for (const param& p : params_) {
        detail::require_kernel_name(p.name, where + "parameter name ");
        if (p.name == "i" || p.name == "N")
            throw logic_error(where + "parameter name '" + p.name + "' is one of the reserved names i and N");
    }
    for (const scan_fetch& f : fetches_) {
        detail::require_kernel_name(f.name, where + "fetch name ");
        const auto p = std::find_if(params_.begin(), params_.end(), [&](const param& q) { return q.name == f.array; });
        if (p == params_.end() || !is_array(*p))
            throw logic_error(where + "the fetch " + f.name + " reads '" + f.array + "', which is no array parameter");
        if (f.offset != 0 && f.offset != -1)
            throw logic_error(where + "the fetch " + f.name + " has the offset " + std::to_string(f.offset) +
                              "; fetch offsets are 0 or -1");
    }
}

int generic_scan_spec::items_per_thread() const noexcept {
    return static_cast<int>(std::clamp<std::size_t>(64 / scan_size_, 1, 8));
}

std::string generic_scan_source(const generic_scan_spec& spec, kernel_language language) {
    text_builder out;
    const bool cuda = language == kernel_language::cuda;
    const auto uses = [&](dtype t) {
        return std::any_of(spec.params().begin(), spec.params().end(), [&](const param& p) { return p.type == t; });
    };
    if (cuda) {
        out << detail::common_source;
    } else {
        if (uses(dtype::float64) || uses(dtype::complex128) || mentions(spec.scan_type(), "double") ||
            mentions(spec.preamble(), "double"))
            out << "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n";
        if (uses(dtype::complex64) || uses(dtype::complex128))
            out << detail::opencl_complex_library();
    }
    out << detail::language_words(language) << "#define GK_W " << generic_scan_group << "\n"
        << "#define GK_K " << spec.items_per_thread() << "\n"
        << spec.preamble() << "\n"
        << "typedef " << spec.scan_type()
        << " gk_scan_t;\n"
        // Macros, not functions: the expressions may use the kernels' scalar parameters.
        << "#define GK_SCAN(a, b, across_seg_boundary) (" << spec.scan_expr() << ")\n"
        << "#define GK_NEUTRAL (" << spec.neutral()
        << ")\n"
        // A segment flag byte of the final kernel (always 0 when unsegmented).
        << (spec.segmented() ? "#define GK_FLAG(j) gk_flags[j]\n" : "#define GK_FLAG(j) ((uchar)0)\n");
    write_intervals_kernel(out, spec, language);
    write_totals_kernel(out, spec, language);
    write_final_kernel(out, spec, language);
    return out.str();
}

void run(const generic_scan_spec& spec, std::span<const elementwise_arg> args, std::int64_t n, backend& b) {
    const std::string where = "generic scan " + spec.name_prefix() + ": ";
    const std::vector<param>& params = spec.params();
    if (args.size() != params.size())
        throw logic_error(where + "takes " + std::to_string(params.size()) + " arguments, got " +
                          std::to_string(args.size()));
    if (n < 0)
        throw logic_error(where + "the element count is negative (" + std::to_string(n) + ")");
    std::vector<kernel_argument> user;
    for (std::size_t k = 0; k < params.size(); ++k) {
        const param& p = params[k];
        if (std::string problem = b.type_problem(p.type); !problem.empty())
            throw logic_error(where + "parameter " + p.name + ": " + problem);
        if (is_array(p)) {
            const ndarray* a = std::get_if<ndarray>(&args[k]);
            if (!a)
                throw logic_error(where + "parameter " + p.name + " is an array, got a scalar");
            if (a->type() != p.type)
                throw logic_error(where + "parameter " + p.name + " is " + std::string(name(p.type)) +
                                  ", the array holds " + std::string(name(a->type())));
            if (!a->layout().is_contiguous())
                throw logic_error(where + "parameter " + p.name + ": the array is not contiguous");
            if (a->buffer()->space != b.space())
                throw logic_error(where + "parameter " + p.name + ": the array is not memory of " + b.name());
            user.push_back(kernel_argument::memory(*a->buffer(), a->layout().offset()));
        } else {
            const scalar_value* s = std::get_if<scalar_value>(&args[k]);
            if (!s)
                throw logic_error(where + "parameter " + p.name + " is a scalar, got an array");
            if (s->size != size_of(p.type))
                throw logic_error(where + "the value of " + p.name + " has " + std::to_string(s->size) +
                                  " bytes, its type " + std::to_string(size_of(p.type)));
            user.push_back(kernel_argument::bytes(s->bytes.data(), s->size));
        }
    }
    if (n == 0)
        return;

    const auto source = [&] { return generic_scan_source(spec, b.language()); };
    const loaded_kernel intervals = b.kernel(spec.key(), spec.name_prefix() + "_intervals", source);
    const loaded_kernel totals = b.kernel(spec.key(), spec.name_prefix() + "_totals", source);
    const loaded_kernel final_pass = b.kernel(spec.key(), spec.name_prefix() + "_final", source);
    for (const loaded_kernel* k : {&intervals, &totals, &final_pass})
        if (k->max_group < generic_scan_group)
            throw logic_error(where + "the device runs at most " + std::to_string(k->max_group) +
                              " work items per group of these kernels; they need " +
                              std::to_string(generic_scan_group));

    // Intervals of whole passes, at most max_intervals of them.
    const std::int64_t pass = std::int64_t{generic_scan_group} * spec.items_per_thread();
    const std::int64_t passes = (n + pass - 1) / pass;
    const std::int64_t interval = (passes + max_intervals - 1) / max_intervals * pass;
    const std::int64_t groups = (n + interval - 1) / interval;

    // One scratch buffer: partial (n values), totals and carry (groups and groups + 1 values),
    // then the flag bytes (n per element when segmented, groups per interval); every part
    // starts at a multiple of 16 bytes.
    const auto rounded = [](std::size_t bytes) { return (bytes + 15) / 16 * 16; };
    const std::size_t s = spec.scan_size();
    const std::size_t partial_at = 0;
    const std::size_t totals_at = partial_at + rounded(static_cast<std::size_t>(n) * s);
    const std::size_t carry_at = totals_at + rounded(static_cast<std::size_t>(groups) * s);
    const std::size_t flags_at = carry_at + rounded(static_cast<std::size_t>(groups + 1) * s);
    const std::size_t total_flags_at = flags_at + rounded(spec.segmented() ? static_cast<std::size_t>(n) : 1);
    const std::shared_ptr<const device_buffer> scratch = b.allocate(total_flags_at + static_cast<std::size_t>(groups));
    const auto scratch_at = [&](std::size_t offset) {
        return kernel_argument::memory(*scratch, static_cast<std::int64_t>(offset));
    };

    const int unused = 0;
    const auto with_user = [&](std::initializer_list<kernel_argument> rest) {
        std::vector<kernel_argument> all = user;
        all.push_back(kernel_argument::bytes(&n, sizeof n));
        all.insert(all.end(), rest);
        all.push_back(kernel_argument::bytes(&unused, sizeof unused));
        return all;
    };
    const unsigned g = static_cast<unsigned>(groups);
    b.launch(intervals, {g, 1, generic_scan_group},
             with_user({kernel_argument::bytes(&interval, sizeof interval), scratch_at(partial_at),
                        scratch_at(flags_at), scratch_at(totals_at), scratch_at(total_flags_at)}));
    b.launch(totals, {1, 1, generic_scan_group},
             with_user({kernel_argument::bytes(&groups, sizeof groups), scratch_at(totals_at),
                        scratch_at(total_flags_at), scratch_at(carry_at)}));
    b.launch(final_pass, {g, 1, generic_scan_group},
             with_user({kernel_argument::bytes(&interval, sizeof interval),
                        kernel_argument::bytes(&groups, sizeof groups), scratch_at(partial_at), scratch_at(flags_at),
                        scratch_at(carry_at)}));
}

}  // namespace gpukit::array
