// Replaces one entry of a run-time loaded function table (the CUDA driver's, OpenCL's) for
// the lifetime of the object: the seam for fault injection in tests.
#pragma once

namespace gpukit {

// Puts a replacement function pointer into one table entry and puts the original back when
// it goes out of scope. `Fn` is the entry's function pointer type. Not copyable; overrides of
// the same entry must end in the reverse order they began.
template <class Fn>
class api_override {
public:
    // Saves `slot` (an entry of the table mutable_api() returns) and stores `replacement` in
    // it; nullptr stands for a library that lacks the function.
    api_override(Fn& slot, Fn replacement) : slot_(slot), saved_(slot) { slot_ = replacement; }
    // Restores the entry saved by the constructor.
    ~api_override() { slot_ = saved_; }
    api_override(const api_override&) = delete;
    api_override& operator=(const api_override&) = delete;

private:
    Fn& slot_;
    Fn saved_;
};

}  // namespace gpukit
