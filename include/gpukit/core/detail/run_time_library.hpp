// The one loader of every library gpukit opens at run time (ARCHITECTURE.md rule 1): the CUDA
// driver, OpenCL, NVRTC, nvJitLink, NCCL and cuRAND. Each is loaded once per process, on
// first use, and never unloaded; its function table is reached through run_time_library<L>,
// and an entry the installed library lacks is refused by required_entry. How a library is
// found and opened is dynamic_library.hpp's part.
#pragma once

#include "gpukit/core/error.hpp"
#include "gpukit/core/fork.hpp"

#include <atomic>
#include <string>

namespace gpukit::detail {

// What loading a library's function table gave: the table, the file it came from, and why
// the library cannot be used (empty when it can).
template <class Table>
struct loaded_library {
    Table table{};
    std::string path;
    std::string load_failure;
};

// Where leaked_instance<Loaded, Load> puts its `Loaded` once made; null before.
template <class Loaded, Loaded (*Load)()>
std::atomic<Loaded*>& published_instance() noexcept {
    static std::atomic<Loaded*> published{nullptr};
    return published;
}

// The process's one `Loaded`, made by `Load` on first use and never destroyed: the library
// stays loaded, so destructors that run at exit still find their release calls. Made inside
// a fork_hold: a child forked while another thread was making it would wait for ever on the
// static.
template <class Loaded, Loaded (*Load)()>
Loaded& leaked_instance() {
    if (Loaded* made = published_instance<Loaded, Load>().load(std::memory_order_acquire))
        return *made;
    const fork_hold hold;
    static Loaded* const loaded = [] {
        Loaded* made = new Loaded(Load());
        published_instance<Loaded, Load>().store(made, std::memory_order_release);
        return made;
    }();
    return *loaded;
}

// Whether `Load` gave a usable library (loading it on first use); never throws.
template <class Loaded, Loaded (*Load)()>
bool loads_without_failure() noexcept {
    try {
        return leaked_instance<Loaded, Load>().load_failure.empty();
    } catch (...) {
        return false;
    }
}

// The table of a loaded library; runtime_error (routine "dlopen") saying why when it could
// not be loaded.
template <class Table>
Table& table_of(loaded_library<Table>& loaded) {
    if (!loaded.load_failure.empty())
        throw runtime_error(loaded.load_failure, 0, "dlopen");
    return loaded.table;
}

// One library loaded at run time. `Library` says which and how:
//
//     struct nvjitlink_library {
//         using loaded_type = loaded_library<nvjitlink_api>;  // or a type derived from it
//         static loaded_type load();                           // opens it, fills the table
//     };
//
// and, where a loaded table may still be refused, a `static void check_usable(loaded_type&)`
// that throws then (the CUDA driver, OpenCL and NCCL in a forked child, or CUDA after cuInit
// failed). Libraries a forked child may use again are called through held_call().
template <class Library>
class run_time_library {
public:
    using loaded_type = typename Library::loaded_type;
    using table_type = decltype(loaded_type::table);

    // The load, made on first use; why it failed, if it did, is in its load_failure.
    static loaded_type& instance() { return leaked_instance<loaded_type, Library::load>(); }
    // The load if it has been made, else null: never loads (for questions that must not
    // cost a load).
    static const loaded_type* if_loaded() noexcept { return published_instance<loaded_type, Library::load>().load(); }
    // The load; runtime_error (routine "dlopen") saying why when the library could not be loaded.
    static loaded_type& loaded() {
        loaded_type& made = instance();
        table_of(made);
        return made;
    }
    // The live table, whose entries tests may replace (api_override); throws as loaded()
    // does, or as check_usable does.
    static table_type& mutable_api() {
        loaded_type& made = loaded();
        if constexpr (requires { Library::check_usable(made); })
            Library::check_usable(made);
        return made.table;
    }
    static const table_type& api() { return mutable_api(); }
    // True when the library loads (loading it on first use); never throws.
    static bool available() noexcept { return loads_without_failure<loaded_type, Library::load>(); }
};

// Calls the entry `entry` of the table `table()` gives with `args`, fork() held off meanwhile
// (fork_hold): how every call into a library that takes locks of its own, and that a forked
// child may use again, is made (NVRTC, nvJitLink, cuRAND). `table()` runs inside the hold too,
// as it may load the library.
template <class Table, class Fn, class... Args>
auto held_call(const Table& (*table)(), Fn* Table::*entry, Args... args) {
    const fork_hold hold;
    return (table().*entry)(args...);
}

// `entry`, the table's slot for `routine`; `missing(routine)` throws the library's error when
// it is null (the installed library is older than the headers gpukit was built with).
template <class Fn>
Fn* required_entry(Fn* entry, const char* routine, void (*missing)(const char*)) {
    if (!entry)
        missing(routine);
    return entry;
}

}  // namespace gpukit::detail
