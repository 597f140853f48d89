// Grouped NCCL calls: ncclGroupStart ... ncclGroupEnd as a scope.
#pragma once

namespace gpukit::nccl {

// A group of NCCL calls (ncclGroupStart ... ncclGroupEnd) for the scope of the object: the
// calls made in it are launched together at end(), which is where NCCL reports their
// errors. Groups nest. Use it on one thread: NCCL's group state is per thread. end() leaves
// the calling thread's current context as it found it (NCCL switches devices with the CUDA
// runtime while it launches a group, and would leave a primary context current).
class group {
public:
    group();
    group(const group&) = delete;
    group& operator=(const group&) = delete;
    // Ends the group if end() was not called, reporting a failure through the
    // cleanup-warning hook (the scope is left by an exception, whose error matters more).
    ~group();
    // ncclGroupEnd: launches the grouped calls; throws nccl_error when they fail.
    // logic_error when the group has ended already.
    void end();

private:
    bool open_ = true;
};

}  // namespace gpukit::nccl
