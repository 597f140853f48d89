// fork(): what a child made by fork() may still use of what its parent loaded.
//
// The CUDA driver, OpenCL implementations and NCCL keep threads and driver connections that a
// child made by fork() does not get (PoCL's child hangs in its first command; CUDA refuses
// or misbehaves; NCCL's calls wait on peers and their locks). Each of those run-time loaded
// tables notes fork_generation() when it sets its library up (CUDA: loading runs cuInit;
// OpenCL: the first call; NCCL: loading it); when the value differs at a later call, the
// process is a forked child of that one, and the table refuses (refuse_in_forked_child)
// instead of calling the library. Processes started by exec (multiprocessing's "spawn") load
// the library afresh and are unaffected.
//
// NVRTC, nvJitLink and cuRAND's host library work in a child, provided no thread of the
// parent was inside one of their calls at the fork: NVRTC's child hung on a mutex that
// another thread of the parent held in nvrtcCompileProgram. Their calls are fork_hold scopes
// (run_time_library.hpp's held_call), so fork() waits for the calls in flight, and a compile
// in the child works. So is the loading of every run-time library: a child would wait for ever
// on a load (a function-local static) that another thread had in progress at the fork.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace gpukit {

// How many fork()s lie between this process and the one that first called this function
// (0 there): the child of a fork() counts one more than its parent. Cheap enough for every
// driver call.
std::uint64_t fork_generation() noexcept;

// Why `library` ("CUDA", "OpenCL") cannot be used here, and what to do instead.
std::string forked_child_message(std::string_view library);

// Throws `Error` (the library's runtime_error) with forked_child_message(library), code 0 and
// routine "fork", when this process is a fork() child of the one whose fork_generation() was
// `generation`.
template <class Error>
void refuse_in_forked_child(std::uint64_t generation, std::string_view library) {
    if (generation != fork_generation())
        throw Error(forked_child_message(library), 0, "fork");
}

// A scope that fork() must not split. fork() (through pthread_atfork) waits until no thread
// is inside one, and no thread enters one until fork() has returned, so that a child never
// inherits a lock some thread held inside one. Holds nest on a thread at no cost; a thread
// that forks while inside one does not wait for itself. Inside one, never wait for anything
// a thread calling fork() may hold (Python's GIL, which os.fork() holds): that thread waits
// for this one. Calls that may block for long (a collective waiting on its peers) are no
// fork_hold scopes: their library refuses in a forked child instead.
class fork_hold {
public:
    // Enters the scope: waits while a fork() is in progress (only the outermost hold of a
    // thread does).
    fork_hold() noexcept;
    // Leaves the scope; when it was the thread's outermost hold, fork() may proceed again.
    ~fork_hold();
    fork_hold(const fork_hold&) = delete;
    fork_hold& operator=(const fork_hold&) = delete;
};

}  // namespace gpukit
