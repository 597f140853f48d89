// nvcc's command-line options, as PyCUDA programs pass them, translated for NVRTC.
//
// Each option is parsed as nvcc parses it (-x v, -x=v, the short forms -O3, -lm, -Idir,
// comma-separated lists for list options) and then, for NVRTC:
//   - passed with NVRTC's spelling when NVRTC has it (-G, -lineinfo, -Xptxas=-v, -DX, ...);
//   - translated when NVRTC has another option with the same effect (-res-usage becomes
//     -Xptxas=-v, --expt-relaxed-constexpr becomes -default-device);
//   - taken by gpukit (-arch/-code/-gencode pick the target, --keep means keep=True,
//     -Werror=all-warnings fails the compilation when NVRTC warns);
//   - dropped with the reason when it has no meaning without host code, a link step or
//     nvcc's driver (-O3, -g, -m64, -Xcompiler, -ccbin, -lcudadevrt, --cubin, ...).
// Every option NVRTC does not get as written comes with a note saying what happened and why.
// Options the table does not know are passed as given; NVRTC rejects those it does not know
// either (then gpukit names them, and the automatic compiler choice tries nvcc).
// For nvcc the options pass as given, less those gpukit sets itself (target, output, keep).
// docs/kernels.md has the full table.
#pragma once

#include <string>
#include <vector>

namespace gpukit::rtc {

// What happened to one option that a compiler does not get as written, and why.
struct option_note {
    std::string option;  // as the caller wrote it, with its value ("-Xcompiler -Wall")
    std::string note;    // "dropped: ..." / "translated to -Xptxas=-v: ..." / "taken by gpukit: ..."
};

// nvcc's options sorted out by translate_nvcc_options(): what NVRTC gets, what nvcc gets,
// what gpukit takes itself, and a note for each option not passed as written.
struct translated_options {
    std::vector<std::string> nvrtc;         // NVRTC's options, one token each
    std::vector<std::string> nvcc;          // nvcc's: as given, less the options gpukit sets itself
    std::vector<option_note> nvrtc_notes;   // each option NVRTC does not get as written, and why
    std::vector<option_note> nvcc_notes;    // each option nvcc does not get as written, and why
    std::string arch;                       // -arch's architecture ("sm_80"); empty when none
    std::string code;                       // the target -code or -gencode names (the first sm_XY of the list,
                                            // else the first one); empty when none
    bool keep = false;                      // --keep / --save-temps
    std::string keep_dir;                   // --keep-dir
    bool warnings_are_errors = false;       // -Werror=all-warnings
    std::vector<std::string> include_dirs;  // -I / -isystem directories, in order
};

// The one target the options name: code, else arch (nvcc compiles -arch's virtual architecture
// into -code's real ones); empty when they name none.
inline const std::string& target_of(const translated_options& t) { return t.code.empty() ? t.arch : t.code; }

// Throws logic_error for an option missing its value, -m32, a target gpukit cannot build one
// image for (-arch=all, several different -gencode targets) and --options-file.
translated_options translate_nvcc_options(const std::vector<std::string>& options);

}  // namespace gpukit::rtc
