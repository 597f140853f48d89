// Grouped NCCL calls: ncclGroupStart ... ncclGroupEnd as a scope, with NCCL's semantics.
#pragma once

#include <exception>

namespace gpukit::nccl {

// A group of NCCL calls (ncclGroupStart ... ncclGroupEnd) for the scope of the object. Every
// call made in it on this thread waits for the end of the outermost group: collectives and
// send/recv are launched together there, communicators made in it (communicator::create(),
// init_all(), split()) are made there, and until then such a communicator is pending
// (communicator::is_pending()) and can be used for nothing but its rank and size where they
// are known. Groups nest; only the outermost end launches. Use a group on one thread: NCCL's
// group state, and gpukit's record of it, are per thread. Only gpukit's calls are grouped:
// NCCL calls made in the scope by other code go to NCCL at once.
//
// gpukit checks each call as it is made and records it; the outermost end issues them all,
// in order, between one ncclGroupStart and ncclGroupEnd, so NCCL sees one group (running
// them together, deadlock-free, is NCCL's part). Nothing is queued on any stream before:
// buffers and streams must live until the group ends. destroy() and abort() of a
// communicator, and its destructor, take effect after the outermost end (the group's calls
// may use it), whether the group issued its calls or not.
//
// A group whose call was refused fails as a whole: when gpukit's checks refused a call made
// in it (a wrong size, a pending communicator...), end() issues none of the group's calls,
// so nothing is launched and no communicator made, and throws nccl_error (routine
// "ncclGroupEnd") saying which call was refused; the communicators the group was making are
// failed (is_destroyed()). NCCL checks the calls as they are issued: when it refuses one,
// the calls after it are not issued and NCCL fails the group (it launches none of the
// group's calls on communicators of several ranks; on a communicator of one rank it runs a
// collective as a copy at once, so those issued before the refused one have run); end()
// throws that call's nccl_error, and the communicators the group was making are aborted.
//
// end() leaves the calling thread's current context as it found it (NCCL switches devices
// with the CUDA runtime while it launches a group, and would leave a primary context
// current).
class group {
public:
    // Opens a group on this thread, nested in any group already open there. Calls nothing in
    // NCCL: the outermost group issues everything when it ends.
    group();
    group(const group&) = delete;
    group& operator=(const group&) = delete;
    // A group still open is cancelled when the scope is left by an exception (whose error
    // matters more), and ended otherwise; a failure is reported through the cleanup-warning
    // hook.
    ~group();
    // Ends the group; the outermost one issues the recorded calls (ncclGroupStart, the calls,
    // ncclGroupEnd), launching them and making the pending communicators. Throws nccl_error
    // when they fail or a call in the group was refused; logic_error when the group has
    // ended already.
    void end();
    // Ends the group issuing none of the outermost group's calls: nothing is launched and the
    // communicators it was making are never made; a nested group makes the enclosing one
    // fail at its end. Never throws: failures go to the cleanup-warning hook. Does nothing
    // once the group has ended.
    void cancel() noexcept;

private:
    // Leaves the group: issues (or, `cancelled`, discards) the outermost group's calls.
    void finish(bool cancelled);
    // finish() for the destructor and cancel(): failures go to the cleanup-warning hook.
    void finish_quietly(bool cancelled) noexcept;

    bool open_ = true;
    int exceptions_at_start_ = std::uncaught_exceptions();
};

}  // namespace gpukit::nccl
