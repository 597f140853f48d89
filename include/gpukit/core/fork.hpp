// Telling a fork() child apart from the process that loaded a driver library.
//
// The CUDA driver and OpenCL implementations keep threads and driver connections that a
// child made by fork() does not get (PoCL's child hangs in its first command; CUDA refuses
// or misbehaves). Each run-time loaded driver table notes fork_generation() when it sets
// its library up (CUDA: loading runs cuInit; OpenCL: the first call); when the value
// differs at a later call, the process is a forked child of that one, and the table
// refuses with forked_child_message() instead of calling the library. Processes started by
// exec (multiprocessing's "spawn") load the library afresh and are unaffected.
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

}  // namespace gpukit
