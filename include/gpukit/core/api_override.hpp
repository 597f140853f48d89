// Replaces one entry of a run-time loaded function table (the CUDA driver's, OpenCL's) for
// the lifetime of the object: the seam for fault injection in tests.
#pragma once

namespace gpukit {

template <class Fn>
class api_override {
public:
    api_override(Fn& slot, Fn replacement) : slot_(slot), saved_(slot) { slot_ = replacement; }
    ~api_override() { slot_ = saved_; }
    api_override(const api_override&) = delete;
    api_override& operator=(const api_override&) = delete;

private:
    Fn& slot_;
    Fn saved_;
};

}  // namespace gpukit
