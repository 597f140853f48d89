#include "gpukit/core/error.hpp"

#include <atomic>
#include <cstdio>

namespace gpukit {
namespace {

void print_to_stderr(const std::string& message) { std::fprintf(stderr, "gpukit warning: %s\n", message.c_str()); }

std::atomic<cleanup_warning_hook> current_hook{&print_to_stderr};

}  // namespace

void set_cleanup_warning_hook(cleanup_warning_hook hook) noexcept {
    current_hook.store(hook ? hook : &print_to_stderr);
}

void cleanup_warning(const std::string& message) noexcept {
    try {
        current_hook.load()(message);
    } catch (...) {
        // A warning must never turn into a crash.
    }
}

}  // namespace gpukit
