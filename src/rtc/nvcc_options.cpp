#include "gpukit/rtc/nvcc_options.hpp"

#include "gpukit/core/error.hpp"
#include "gpukit/core/text.hpp"
#include "gpukit/rtc/program.hpp"

#include <algorithm>
#include <span>
#include <string_view>

namespace gpukit::rtc {
namespace {

enum class takes {
    nothing,
    value,  // "-x v" or "-x=v"
    list,   // a value holding a comma-separated list, each item handled alone (as nvcc does)
};

enum class action {
    pass,            // NVRTC gets `nvrtc_name` with the value ("=v", or joined when `joined_for_nvrtc`)
    include_dir,     // pass, and remember the directory
    translate,       // NVRTC gets `nvrtc_name` instead, for the reason given
    drop,            // NVRTC does not get it, for the reason given
    optimize,        // -O<level>: dropped (host code), the level checked
    machine,         // -m64: dropped; -m32: an error
    output,          // nvcc's output kind: gpukit chooses it (both compilers)
    keep,            // keep=True (both compilers)
    keep_dir,        // where to keep (both compilers)
    target_arch,     // -arch
    target_code,     // -code: the first real architecture of its list
    target_gencode,  // -gencode arch=..,code=..
    werror,          // -Werror=<kind>
    xcudafe,         // -Xcudafe <front-end option>
    options_file,    // --options-file: an error
};

// Whether a value may follow a short name directly (-O3, -lm, -Idir), and then what it must
// look like, so that -minimal is not -m "inimal".
enum class joined { no, any, digits };

struct rule {
    std::initializer_list<std::string_view> names;
    takes value;
    joined value_joined;
    action what;
    std::string_view nvrtc_name = {};
    std::string_view reason = {};
    bool joined_for_nvrtc = false;  // NVRTC takes the value joined (-DX) rather than after '='
};

constexpr std::string_view host_code = "an option for host code, and NVRTC compiles device code only";
constexpr std::string_view link_step =
    "an option of the link step; a module is loaded from one image and not linked (DynamicModule links "
    "device libraries with add_stdlib(), and DynamicSourceModule links cudadevrt itself)";
constexpr std::string_view nvcc_driver = "controls nvcc's driver, which NVRTC does not run";
constexpr std::string_view chosen_output =
    "gpukit chooses what to produce (a cubin, or PTX for compute_XY; compile()'s target argument)";
constexpr std::string_view lto = "link-time optimisation needs an LTO link step; gpukit loads modules from cubins";
constexpr std::string_view warning_control = "an nvcc warning control NVRTC has no equivalent of";
constexpr std::string_view compression = "compresses fatbins; NVRTC produces a cubin or PTX";

// Every nvcc option gpukit knows, by the names `nvcc --help` lists (CUDA 13) plus -Xcudafe.
// Options that NVRTC takes unchanged but spells alike (-w, -restrict, -ewp, ...) need no rule.
const rule rules[] = {
    // Device code generation: NVRTC has the same option.
    {{"-G", "--device-debug"}, takes::nothing, joined::no, action::pass, "-G"},
    {{"-lineinfo", "--generate-line-info"}, takes::nothing, joined::no, action::pass, "-lineinfo"},
    {{"-use_fast_math", "--use_fast_math"}, takes::nothing, joined::no, action::pass, "-use_fast_math"},
    {{"-D", "--define-macro"}, takes::list, joined::any, action::pass, "-D", {}, true},
    {{"-U", "--undefine-macro"}, takes::list, joined::any, action::pass, "-U", {}, true},
    {{"-I", "--include-path"}, takes::list, joined::any, action::include_dir, "-I", {}, true},
    {{"-isystem", "--system-include"},
     takes::list,
     joined::no,
     action::include_dir,
     "-I",
     "NVRTC has no system include directories; searched like -I",
     true},
    {{"-include", "--pre-include"}, takes::list, joined::no, action::pass, "--pre-include"},
    {{"-std", "--std"}, takes::value, joined::no, action::pass, "-std"},
    {{"-rdc", "--relocatable-device-code"}, takes::value, joined::no, action::pass, "-rdc"},
    {{"-dc", "--device-c"}, takes::nothing, joined::no, action::pass, "-dc"},
    {{"-dw", "--device-w"}, takes::nothing, joined::no, action::pass, "-dw"},
    {{"-maxrregcount", "--maxrregcount"}, takes::value, joined::no, action::pass, "-maxrregcount"},
    {{"-ftz", "--ftz"}, takes::value, joined::no, action::pass, "-ftz"},
    {{"-prec-div", "--prec-div"}, takes::value, joined::no, action::pass, "-prec-div"},
    {{"-prec-sqrt", "--prec-sqrt"}, takes::value, joined::no, action::pass, "-prec-sqrt"},
    {{"-fmad", "--fmad"}, takes::value, joined::no, action::pass, "-fmad"},
    {{"-Xptxas", "--ptxas-options"}, takes::list, joined::no, action::pass, "-Xptxas"},
    {{"-dopt", "--dopt"}, takes::value, joined::no, action::pass, "-dopt"},
    {{"-Ofc", "--Ofast-compile"}, takes::value, joined::no, action::pass, "-Ofc"},
    {{"-opt-info", "--optimization-info"}, takes::list, joined::no, action::pass, "--optimization-info"},
    {{"-split-compile", "--split-compile"}, takes::value, joined::no, action::pass, "-split-compile"},
    {{"-diag-error", "--diag-error"}, takes::value, joined::no, action::pass, "-diag-error"},
    {{"-diag-suppress", "--diag-suppress"}, takes::value, joined::no, action::pass, "-diag-suppress"},
    {{"-diag-warn", "--diag-warn"}, takes::value, joined::no, action::pass, "-diag-warn"},
    {{"-time", "--time"}, takes::value, joined::no, action::pass, "-time"},
    {{"--fdevice-time-trace"}, takes::value, joined::no, action::pass, "--fdevice-time-trace"},
    {{"-device-stack-protector", "--device-stack-protector"},
     takes::value,
     joined::no,
     action::pass,
     "--device-stack-protector"},
    {{"-jtd", "--jump-table-density"}, takes::value, joined::no, action::pass, "--jump-table-density"},
    {{"-brief-diag", "--brief-diagnostics"}, takes::value, joined::no, action::pass, "--brief-diagnostics"},
    {{"-frandom-seed", "--frandom-seed"}, takes::value, joined::no, action::pass, "--frandom-seed"},

    // NVRTC has another option with the same effect.
    {{"-res-usage", "--resource-usage"},
     takes::nothing,
     joined::no,
     action::translate,
     "-Xptxas=-v",
     "ptxas reports each kernel's registers and memory in the compiler log"},
    {{"-expt-relaxed-constexpr", "--expt-relaxed-constexpr"},
     takes::nothing,
     joined::no,
     action::translate,
     "-default-device",
     "NVRTC compiles no host code, so unannotated functions (constexpr ones included) become __device__ "
     "functions that device code may call"},
    {{"-save-temps", "--save-temps"}, takes::nothing, joined::no, action::keep},

    // Host code, nvcc's driver, linking: no meaning when NVRTC compiles device code alone.
    {{"-O", "--optimize"}, takes::value, joined::digits, action::optimize},
    {{"-g", "--debug"},
     takes::nothing,
     joined::no,
     action::drop,
     {},
     "asks for host debug information, and NVRTC compiles no host code (-G asks for device debug information)"},
    {{"-pg", "--profile"}, takes::nothing, joined::no, action::drop, {}, host_code},
    {{"-m", "--machine"}, takes::value, joined::digits, action::machine},
    {{"--m64"}, takes::nothing, joined::no, action::machine},
    {{"-Xcompiler", "--compiler-options"}, takes::value, joined::no, action::drop, {}, host_code},
    {{"-ccbin", "--compiler-bindir"}, takes::value, joined::no, action::drop, {}, host_code},
    {{"-allow-unsupported-compiler", "--allow-unsupported-compiler"},
     takes::nothing,
     joined::no,
     action::drop,
     {},
     host_code},
    {{"-use-local-env", "--use-local-env"}, takes::nothing, joined::no, action::drop, {}, host_code},
    {{"-force-cl-env-setup", "--force-cl-env-setup"}, takes::nothing, joined::no, action::drop, {}, host_code},
    {{"-noeh", "--no-exceptions"}, takes::nothing, joined::no, action::drop, {}, host_code},
    {{"-x", "--x"}, takes::value, joined::no, action::drop, {}, "NVRTC compiles CUDA C++ only"},
    {{"-default-stream", "--default-stream"}, takes::value, joined::no, action::drop, {}, host_code},
    {{"-forward-unknown-to-host-compiler", "--forward-unknown-to-host-compiler"},
     takes::nothing,
     joined::no,
     action::drop,
     {},
     host_code},
    {{"-forward-unknown-opts", "--forward-unknown-opts"}, takes::nothing, joined::no, action::drop, {}, host_code},
    {{"-l", "--library"}, takes::list, joined::any, action::drop, {}, link_step},
    {{"-L", "--library-path"}, takes::list, joined::any, action::drop, {}, link_step},
    {{"-Xlinker", "--linker-options"}, takes::value, joined::no, action::drop, {}, link_step},
    {{"-Xnvlink", "--nvlink-options"}, takes::value, joined::no, action::drop, {}, link_step},
    {{"-Xarchive", "--archive-options"}, takes::value, joined::no, action::drop, {}, link_step},
    {{"-cudart", "--cudart"}, takes::value, joined::no, action::drop, {}, link_step},
    {{"-cudadevrt", "--cudadevrt"}, takes::value, joined::no, action::drop, {}, link_step},
    {{"-forward-unknown-to-host-linker", "--forward-unknown-to-host-linker"},
     takes::nothing,
     joined::no,
     action::drop,
     {},
     link_step},
    {{"-hls", "--host-linker-script"}, takes::value, joined::no, action::drop, {}, link_step},
    {{"-aug-hls", "--augment-host-linker-script"}, takes::nothing, joined::no, action::drop, {}, link_step},
    {{"-r", "--relocatable-link"}, takes::nothing, joined::no, action::drop, {}, link_step},
    {{"-nodlink", "--no-device-link"}, takes::nothing, joined::no, action::drop, {}, link_step},
    {{"-lto", "--lto", "-dlto", "--dlink-time-opt", "-gen-opt-lto", "--gen-opt-lto"},
     takes::nothing,
     joined::no,
     action::drop,
     {},
     lto},
    {{"-v", "--verbose"}, takes::nothing, joined::no, action::drop, {}, nvcc_driver},
    {{"-dryrun", "--dryrun"}, takes::nothing, joined::no, action::drop, {}, nvcc_driver},
    {{"-t", "--threads"}, takes::value, joined::digits, action::drop, {}, nvcc_driver},
    {{"-noprof", "--dont-use-profile"}, takes::nothing, joined::no, action::drop, {}, nvcc_driver},
    {{"-objtemp", "--objdir-as-tempdir"}, takes::nothing, joined::no, action::drop, {}, nvcc_driver},
    {{"-jobserver", "--jobserver"}, takes::nothing, joined::no, action::drop, {}, nvcc_driver},
    {{"-clean", "--clean-targets"}, takes::nothing, joined::no, action::drop, {}, nvcc_driver},
    {{"-src-in-ptx", "--source-in-ptx"},
     takes::nothing,
     joined::no,
     action::drop,
     {},
     "interleaves the source into the PTX listing (kept with keep=True) without changing the image, which "
     "NVRTC cannot do"},
    {{"-extended-lambda", "--extended-lambda", "-expt-extended-lambda", "--expt-extended-lambda"},
     takes::nothing,
     joined::no,
     action::drop,
     {},
     "allows __device__ lambdas written in host code; NVRTC compiles no host code, and lambdas written in "
     "device code need no option"},
    {{"-Wreorder", "--Wreorder"}, takes::nothing, joined::no, action::drop, {}, warning_control},
    {{"-Wdefault-stream-launch", "--Wdefault-stream-launch"},
     takes::nothing,
     joined::no,
     action::drop,
     {},
     warning_control},
    {{"-Wmissing-launch-bounds", "--Wmissing-launch-bounds"},
     takes::nothing,
     joined::no,
     action::drop,
     {},
     warning_control},
    {{"-Wext-lambda-captures-this", "--Wext-lambda-captures-this"},
     takes::nothing,
     joined::no,
     action::drop,
     {},
     warning_control},
    {{"-Wno-deprecated-declarations", "--Wno-deprecated-declarations"},
     takes::nothing,
     joined::no,
     action::drop,
     {},
     warning_control},
    {{"-Wno-deprecated-gpu-targets", "--Wno-deprecated-gpu-targets"},
     takes::nothing,
     joined::no,
     action::drop,
     {},
     "silences nvcc's own warning about old targets, which NVRTC does not give"},
    {{"-no-compress", "--no-compress"}, takes::nothing, joined::no, action::drop, {}, compression},
    {{"-compress-mode", "--compress-mode"}, takes::value, joined::no, action::drop, {}, compression},
    {{"-Werror", "--Werror"}, takes::list, joined::no, action::werror},
    {{"-Xcudafe", "--cudafe-options"}, takes::list, joined::no, action::xcudafe},

    // What to produce and where: gpukit decides, for both compilers.
    {{"-cubin",     "--cubin",
      "-ptx",       "--ptx",
      "-fatbin",    "--fatbin",
      "-cuda",      "--cuda",
      "-optix-ir",  "--optix-ir",
      "-ltoir",     "--ltoir",
      "-E",         "--preprocess",
      "-M",         "--generate-dependencies",
      "-MM",        "--generate-nonsystem-dependencies",
      "-MD",        "--generate-dependencies-with-compile",
      "-MMD",       "--generate-nonsystem-dependencies-with-compile",
      "-MP",        "--generate-dependency-targets",
      "-c",         "--compile",
      "-dlink",     "--device-link",
      "-link",      "--link",
      "-lib",       "--lib",
      "-run",       "--run",
      "-shared",    "--shared",
      "-reloc-ptx", "--relocatable-ptx"},
     takes::nothing,
     joined::no,
     action::output},
    {{"-o", "--output-file", "-odir", "--output-directory", "-MF", "--dependency-output", "-MT",
      "--dependency-target-name"},
     takes::value,
     joined::no,
     action::output},
    {{"-keep", "--keep"}, takes::nothing, joined::no, action::keep},
    {{"-keep-dir", "--keep-dir"}, takes::value, joined::no, action::keep_dir},
    {{"-arch", "--gpu-architecture"}, takes::value, joined::no, action::target_arch},
    {{"-code", "--gpu-code"}, takes::value, joined::no, action::target_code},
    {{"-gencode", "--generate-code"}, takes::value, joined::no, action::target_gencode},
    {{"-optf", "--options-file"}, takes::value, joined::no, action::options_file},
};

bool is_number(std::string_view text) {
    return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

struct match {
    const rule* found = nullptr;
    std::string value;
    int tokens = 1;  // how many of the caller's tokens the option used
};

// The rule for options[i]: an exact name first (so -lineinfo is not -l with "ineinfo"), then
// name=value, then a value joined to a short name (-O3, -lm).
match find_rule(std::span<const std::string> options, std::size_t i) {
    const std::string& o = options[i];
    for (const rule& r : rules)
        for (std::string_view name : r.names)
            if (o == name) {
                if (r.value == takes::nothing)
                    return {&r, {}, 1};
                if (i + 1 >= options.size())
                    throw logic_error("nvcc option " + o + " needs a value, and none follows it");
                return {&r, options[i + 1], 2};
            }
    for (const rule& r : rules)
        for (std::string_view name : r.names)
            if (r.value != takes::nothing && o.size() > name.size() + 1 && o.starts_with(name) && o[name.size()] == '=')
                return {&r, o.substr(name.size() + 1), 1};
    for (const rule& r : rules)
        for (std::string_view name : r.names)
            if (r.value_joined != joined::no && o.size() > name.size() && o.starts_with(name) &&
                (r.value_joined == joined::any || is_number(o.substr(name.size()))))
                return {&r, o.substr(name.size()), 1};
    return {};
}

void note_nvrtc(translated_options& out, const std::string& written, std::string note) {
    out.nvrtc_notes.push_back({written, std::move(note)});
}

void note_both(translated_options& out, const std::string& written, const std::string& note) {
    out.nvrtc_notes.push_back({written, note});
    out.nvcc_notes.push_back({written, note});
}

// Sets `slot` (the -arch or the -code target); a second, different one is an error (gpukit
// builds one image).
void set_target(translated_options& out, std::string& slot, const std::string& written, const std::string& arch,
                const std::string& note) {
    if (arch == "native") {
        note_both(out, written, "taken by gpukit: the current device's architecture is the default target");
        return;
    }
    if (arch.rfind("all", 0) == 0)
        throw logic_error("nvcc option " + written +
                          ": gpukit builds one image for one architecture; name it "
                          "(-arch=sm_XY or arch='sm_XY'), or leave it out for the current device's");
    is_virtual_arch(arch);  // throws logic_error for a malformed name
    if (!slot.empty() && slot != arch)
        throw logic_error("the options name two targets, " + slot + " and " + arch + " (" + written +
                          "); gpukit builds one image for one architecture");
    slot = arch;
    note_both(out, written, note);
}

// -code's list or -gencode's code=: the first real architecture (a cubin), else the first one.
std::string pick_code(const std::vector<std::string_view>& codes) {
    for (std::string_view code : codes)
        if (code.starts_with("sm_"))
            return std::string(code);
    return codes.empty() ? std::string() : std::string(codes.front());
}

// "arch=compute_80,code=sm_80" or "arch=compute_80,code=[sm_80,compute_80]" -> the target.
std::string gencode_target(const std::string& written, const std::string& spec) {
    const std::size_t arch_at = spec.find("arch=");
    const std::size_t code_at = spec.find("code=");
    if (code_at == std::string::npos) {
        if (arch_at == std::string::npos)
            throw logic_error("nvcc option " + written + ": expected arch=compute_XY,code=sm_XY");
        return std::string(split(spec.substr(arch_at + 5), ',').front());
    }
    std::string codes = spec.substr(code_at + 5);
    if (!codes.empty() && codes.front() == '[')
        codes = codes.substr(1, codes.find(']') == std::string::npos ? std::string::npos : codes.find(']') - 1);
    else
        codes = std::string(split(codes, ',').front());
    return pick_code(split(codes, ','));
}

// One -Xcudafe option: NVRTC has the diagnostic controls under its own names.
void apply_cudafe(translated_options& out, const std::string& written, const std::string& option) {
    const std::pair<std::string_view, std::string_view> names[] = {{"--diag_suppress", "-diag-suppress"},
                                                                   {"--diag_error", "-diag-error"},
                                                                   {"--diag_warning", "-diag-warn"},
                                                                   {"--diag_remark", "-diag-suppress"},
                                                                   {"--display_error_number",
                                                                    "--display-error-number"}};
    for (const auto& [front_end, nvrtc] : names) {
        if (option == front_end && front_end == "--display_error_number") {
            out.nvrtc.emplace_back(nvrtc);
            return;
        }
        if (option.size() > front_end.size() + 1 && option.starts_with(front_end) && option[front_end.size()] == '=') {
            std::string translated = std::string(nvrtc) + "=" + option.substr(front_end.size() + 1);
            out.nvrtc.push_back(translated);
            if (front_end == "--diag_remark")
                note_nvrtc(out, written, "translated to " + translated + ": NVRTC has no remarks; suppressed");
            return;
        }
    }
    note_nvrtc(out, written, "dropped: an option of nvcc's front end that NVRTC has no equivalent of");
}

void apply_werror(translated_options& out, const std::string& written, const std::string& kind) {
    if (kind == "all-warnings") {
        out.warnings_are_errors = true;
        note_nvrtc(out, written, "taken by gpukit: the compilation fails when NVRTC warns");
        return;
    }
    note_nvrtc(out, written,
               "dropped: NVRTC cannot make only '" + kind +
                   "' warnings errors; it reports them as warnings "
                   "(-Werror=all-warnings makes every warning an error)");
}

// One option (or one item of a list option); `written` is how the caller wrote it.
void apply(const rule& r, const std::string& written, const std::string& value, translated_options& out) {
    switch (r.what) {
    case action::pass:
    case action::include_dir:
        if (r.value == takes::nothing)
            out.nvrtc.emplace_back(r.nvrtc_name);
        else
            out.nvrtc.push_back(std::string(r.nvrtc_name) + (r.joined_for_nvrtc ? "" : "=") + value);
        if (r.what == action::include_dir)
            out.include_dirs.push_back(value);
        if (!r.reason.empty())
            note_nvrtc(out, written, std::string(r.reason));
        return;
    case action::translate:
        out.nvrtc.emplace_back(r.nvrtc_name);
        note_nvrtc(out, written, "translated to " + std::string(r.nvrtc_name) + ": " + std::string(r.reason));
        return;
    case action::drop:
        note_nvrtc(out, written, "dropped: " + std::string(r.reason));
        return;
    case action::optimize:
        note_nvrtc(out, written,
                   "dropped: sets the host code's optimisation level; NVRTC compiles no host code, and ptxas "
                   "optimises device code whatever it says (-Xptxas -O<n> sets that)");
        return;
    case action::machine:
        if (!value.empty() && value != "64")
            throw logic_error("nvcc option " + written + ": CUDA 12 and later compile 64-bit device code only");
        note_nvrtc(out, written, "dropped: NVRTC always compiles 64-bit device code");
        return;
    case action::output:
        note_both(out, written, "dropped: " + std::string(chosen_output));
        return;
    case action::keep:
        out.keep = true;
        note_both(out, written, "taken by gpukit: keep=True (the source, PTX, image and log are kept)");
        return;
    case action::keep_dir:
        out.keep_dir = value;
        note_both(out, written, "taken by gpukit: with keep=True the files are kept in " + value);
        return;
    case action::target_arch:
        set_target(out, out.arch, written, value,
                   "taken by gpukit: the target is " + value + " (unless -code or -gencode names another)");
        return;
    case action::target_code:
    case action::target_gencode: {
        const std::string code =
            r.what == action::target_code ? pick_code(split(value, ',')) : gencode_target(written, value);
        set_target(out, out.code, written, code, "taken by gpukit: the target is " + code);
        return;
    }
    case action::werror:
        apply_werror(out, written, value);
        return;
    case action::xcudafe:
        apply_cudafe(out, written, value);
        return;
    case action::options_file:
        throw logic_error("nvcc option " + written +
                          ": pass the options themselves; gpukit does not read "
                          "option files");
    }
}

}  // namespace

translated_options translate_nvcc_options(const std::vector<std::string>& options) {
    translated_options out;
    for (std::size_t i = 0; i < options.size();) {
        const match m = find_rule(options, i);
        if (!m.found) {
            // Unknown here: passed as given to both (NVRTC names it if it rejects it).
            out.nvrtc.push_back(options[i]);
            out.nvcc.push_back(options[i]);
            ++i;
            continue;
        }
        const std::string written = m.tokens == 2 ? options[i] + " " + m.value : options[i];
        const bool nvcc_gets_it = m.found->what != action::output && m.found->what != action::keep &&
                                  m.found->what != action::keep_dir && m.found->what != action::target_arch &&
                                  m.found->what != action::target_code && m.found->what != action::target_gencode;
        if (nvcc_gets_it)
            out.nvcc.insert(out.nvcc.end(), options.begin() + static_cast<std::ptrdiff_t>(i),
                            options.begin() + static_cast<std::ptrdiff_t>(i + m.tokens));
        if (m.found->value == takes::list) {
            for (std::string_view item : split(m.value, ','))
                if (!item.empty())
                    apply(*m.found, written, std::string(item), out);
        } else {
            apply(*m.found, written, m.value, out);
        }
        i += static_cast<std::size_t>(m.tokens);
    }
    return out;
}

}  // namespace gpukit::rtc
