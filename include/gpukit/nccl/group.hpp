// Grouped NCCL calls: ncclGroupStart ... ncclGroupEnd as a scope, with NCCL's semantics.
#pragma once

#include <exception>

namespace gpukit::nccl {

// A group of NCCL calls (ncclGroupStart ... ncclGroupEnd) for the scope of the object. NCCL
// defers every call made in it to the end of the outermost group: collectives and
// send/recv are launched together there, and communicators made in it (communicator::
// create(), init_all(), split()) are made there; until then such a communicator is pending
// (communicator::is_pending()) and can be used for nothing but its rank and size where they
// are known. Groups nest; only the outermost end launches. Use a group on one thread: NCCL's
// group state, and gpukit's record of it, are per thread.
//
// As in NCCL, a group whose calls were refused fails as a whole: when gpukit's own checks
// refused a call made in the group (a wrong size, a pending communicator...) or NCCL did,
// end() launches none of the group's calls and throws nccl_error saying which call was
// refused; the communicators the group was making are aborted (is_destroyed()).
//
// end() leaves the calling thread's current context as it found it (NCCL switches devices
// with the CUDA runtime while it launches a group, and would leave a primary context
// current).
class group {
public:
    group();
    group(const group&) = delete;
    group& operator=(const group&) = delete;
    // A group still open is cancelled when the scope is left by an exception (whose error
    // matters more), and ended otherwise; a failure is reported through the cleanup-warning
    // hook.
    ~group();
    // ncclGroupEnd: launches the grouped calls (the outermost group) and makes the pending
    // communicators; throws nccl_error when they fail or a call in the group was refused.
    // logic_error when the group has ended already.
    void end();
    // Ends the group without launching any of the outermost group's calls (NCCL discards
    // them), aborting the communicators it was making; a nested group makes the enclosing
    // one fail at its end. Never throws: failures go to the cleanup-warning hook. Does
    // nothing once the group has ended.
    void cancel() noexcept;

private:
    // Leaves the group: launches (or, `cancelled`, discards) the outermost group's calls.
    void finish(bool cancelled);
    // finish() for the destructor and cancel(): failures go to the cleanup-warning hook.
    void finish_quietly(bool cancelled) noexcept;

    bool open_ = true;
    int exceptions_at_start_ = std::uncaught_exceptions();
};

}  // namespace gpukit::nccl
