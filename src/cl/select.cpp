#include "gpukit/cl/select.hpp"

#include <CL/cl.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>

namespace gpukit::cl {
namespace {

constexpr const char* routine = "select_devices";

[[noreturn]] void malformed(std::string_view spec, const std::string& why) {
    throw logic_error("malformed device selection '" + std::string(spec) + "': " + why +
                          "; expected entries like '0:0,1;intel=i5,i7' (platform index or name, then ':' or '=' "
                          "and device indices or names, entries separated by ';')",
                      CL_INVALID_VALUE, routine);
}

std::string_view trim(std::string_view text) {
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())))
        text.remove_prefix(1);
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
        text.remove_suffix(1);
    return text;
}

std::vector<std::string_view> split(std::string_view text, char separator) {
    std::vector<std::string_view> parts;
    size_t start = 0;
    while (true) {
        const size_t end = text.find(separator, start);
        parts.push_back(text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
        if (end == std::string_view::npos)
            return parts;
        start = end + 1;
    }
}

bool is_index(const std::string& token) {
    return !token.empty() && std::all_of(token.begin(), token.end(), [](unsigned char c) { return std::isdigit(c); });
}

std::string lower(std::string text) {
    for (char& c : text)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return text;
}

// The item `token` names: the one at its index, else the first whose name or vendor contains
// it, case-insensitively (PyOpenCL's rule: "pocl" finds PoCL by its vendor, "The pocl project").
template <class T>
T match(const std::string& token, std::span<const T> items, const char* kind) {
    std::string names;
    for (const T& item : items)
        names += (names.empty() ? "'" : ", '") + item.name() + "' (" + item.vendor() + ")";
    if (is_index(token)) {
        const size_t index = token.size() > 9 ? items.size() : std::stoul(token);
        if (index >= items.size())
            throw logic_error(std::string(kind) + " index " + token + " is out of range; there are " +
                                  std::to_string(items.size()) + " (" + names + ")",
                              CL_INVALID_VALUE, routine);
        return items[index];
    }
    for (const T& item : items)
        if (lower(item.name() + " " + item.vendor()).find(lower(token)) != std::string::npos)
            return item;
    throw logic_error("no " + std::string(kind) + " name or vendor contains '" + token + "'; the " + kind + "s are " +
                          (names.empty() ? std::string("none") : names),
                      CL_DEVICE_NOT_FOUND, routine);
}

void add_unique(std::vector<device>& chosen, const device& d) {
    if (std::find(chosen.begin(), chosen.end(), d) == chosen.end())
        chosen.push_back(d);
}

}  // namespace

std::vector<device_spec> parse_device_spec(std::string_view spec) {
    std::vector<device_spec> entries;
    if (trim(spec).empty())
        return entries;
    for (std::string_view entry : split(spec, ';')) {
        entry = trim(entry);
        if (entry.empty())
            malformed(spec, "an entry between ';' is empty");
        const size_t separator = entry.find_first_of(":=");
        device_spec parsed;
        parsed.platform = std::string(trim(entry.substr(0, separator)));
        if (parsed.platform.empty())
            malformed(spec, "entry '" + std::string(entry) + "' names no platform before ':' or '='");
        if (separator != std::string_view::npos) {
            const std::string_view devices = entry.substr(separator + 1);
            if (devices.find_first_of(":=") != std::string_view::npos)
                malformed(spec, "entry '" + std::string(entry) + "' has more than one ':' or '='");
            for (std::string_view device_token : split(devices, ',')) {
                device_token = trim(device_token);
                if (device_token.empty())
                    malformed(spec, "entry '" + std::string(entry) + "' has an empty device in its list");
                parsed.devices.emplace_back(device_token);
            }
        }
        entries.push_back(std::move(parsed));
    }
    return entries;
}

std::vector<device> select_devices(std::span<const device_spec> specs, std::span<const platform> platforms) {
    std::vector<device> chosen;
    if (specs.empty()) {
        for (const platform& p : platforms)
            for (const device& d : p.devices())
                add_unique(chosen, d);
        return chosen;
    }
    for (const device_spec& spec : specs) {
        const platform p = match(spec.platform, platforms, "platform");
        const std::vector<device> devices = p.devices();
        if (spec.devices.empty())
            for (const device& d : devices)
                add_unique(chosen, d);
        for (const std::string& token : spec.devices)
            add_unique(chosen, match(token, std::span<const device>(devices), "device"));
    }
    return chosen;
}

std::vector<device> select_devices(std::string_view spec) {
    const std::vector<device_spec> specs = parse_device_spec(spec);
    const std::vector<platform> platforms = platform::all();
    return select_devices(specs, platforms);
}

context create_some_context() {
    std::vector<device> chosen;
    std::string source = "no GPUKIT_CL_CTX or GPUKIT_CL_TEST set, so any device";
    bool from_environment = false;
    for (const char* variable : {"GPUKIT_CL_CTX", "GPUKIT_CL_TEST"}) {
        const char* value = std::getenv(variable);
        if (!value || trim(value).empty())
            continue;
        source = std::string(variable) + "='" + value + "'";
        from_environment = true;
        try {
            chosen = select_devices(value);
        } catch (const logic_error& e) {
            throw logic_error(std::string(variable) + ": " + e.what(), e.code(), e.routine());
        }
        break;
    }
    if (!from_environment)
        chosen = select_devices("");
    if (chosen.empty())
        throw runtime_error("create_some_context: no OpenCL device found (" + source +
                                "); install an OpenCL implementation such as PoCL",
                            CL_DEVICE_NOT_FOUND, "create_some_context");
    return context::create(std::span<const device>(chosen.data(), 1));
}

}  // namespace gpukit::cl
