#include "gpukit/cuda/default_device.hpp"
#include "gpukit/core/text.hpp"

#include "gpukit/core/error.hpp"

#include <charconv>
#include <cstdlib>

namespace gpukit::cuda {
namespace {

std::string trimmed(const std::string& text) {
    const auto first = text.find_first_not_of(" \t\r\n");
    if (first == std::string::npos)
        return {};
    const auto last = text.find_last_not_of(" \t\r\n");
    return text.substr(first, last - first + 1);
}

device_choice parse_choice(const std::string& raw, std::string source) {
    const std::string text = trimmed(raw);
    int number = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), number);
    if (text.empty() || ec != std::errc{} || end != text.data() + text.size())
        throw logic_error(source + " holds '" + raw + "', which is not an integer device number; expected e.g. 0");
    return {number, std::move(source)};
}

device checked_device(const device_choice& choice) {
    try {
        return device::get(choice.number);
    } catch (const logic_error& e) {
        throw logic_error(choice.source + " asks for " + e.what());
    }
}

}  // namespace

std::optional<device_choice> configured_device() {
    if (const char* env = std::getenv("CUDA_DEVICE"))
        return parse_choice(env, "CUDA_DEVICE");
    if (const char* home = std::getenv("HOME")) {
        for (const char* name : {"/.cuda-device", "/.cuda_device"}) {
            const std::string path = std::string(home) + name;
            if (const std::optional<std::string> content = read_file(path))
                return parse_choice(*content, path);
        }
    }
    return std::nullopt;
}

device default_device(int fallback) {
    if (auto choice = configured_device())
        return checked_device(*choice);
    return device::get(fallback);
}

context make_default_context(const std::function<context(const device&)>& maker) {
    auto make = [&](const device& dev) { return maker ? maker(dev) : dev.make_context(); };
    if (auto choice = configured_device())
        return make(checked_device(*choice));

    const int n = device::count();
    if (n == 0)
        throw runtime_error("make_default_context(): there is no CUDA device on this machine");
    std::string failures;
    for (int i = 0; i < n; ++i) {
        try {
            return make(device::get(i));
        } catch (const cuda_error& e) {
            failures += "\n  device " + std::to_string(i) + ": " + e.what();
        }
    }
    throw runtime_error("make_default_context(): no CUDA device could give a context:" + failures);
}

}  // namespace gpukit::cuda
