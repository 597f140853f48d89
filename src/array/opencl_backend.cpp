#include "gpukit/array/opencl_backend.hpp"

#include "gpukit/cl/kernel.hpp"
#include "gpukit/cl/program.hpp"
#include "gpukit/core/error.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <unordered_map>
#include <string>
#include <vector>

namespace gpukit::array {

// One kernel of a built program. OpenCL keeps a kernel's arguments in the kernel object, so
// setting them and enqueuing it is one step under `mutex`.
struct opencl_backend::built_kernel {
    built_kernel(cl::kernel k, unsigned most) : kernel(std::move(k)), max_group(most) {}

    cl::kernel kernel;  // keeps its program alive
    unsigned max_group;
    std::mutex mutex;
};

// A generated source, built once, and the kernels taken from it so far (a reduction's two
// stages share one program).
struct opencl_backend::built_program {
    explicit built_program(cl::program p) : program(std::move(p)) {}

    cl::program program;
    // Guarded by the backend's mutex. Not loaded_kernels: a kernel need not hold its program
    // (the cl::kernel does), and holding it here would make a cycle that is never freed.
    std::vector<std::pair<std::string, std::shared_ptr<built_kernel>>> kernels;
};

// The programs built for one device of one context, by key; every backend of the pair shares
// them (a new backend per queue or per allocator compiles nothing again).
struct opencl_backend::program_cache {
    std::mutex mutex;
    std::unordered_map<std::uint64_t, std::shared_ptr<built_program>> programs;
};

namespace {

// The work items one group of the engine's kernels has: 256 where the device allows it.
unsigned group_size_for(const cl::device& dev) {
    return static_cast<unsigned>(std::clamp<std::size_t>(dev.max_work_group_size(), 1, 256));
}

[[noreturn]] void throw_not_opencl_memory(std::size_t index) {
    throw logic_error("opencl_backend: argument " + std::to_string(index) +
                      " is not OpenCL memory of an opencl_backend (CUDA memory, or a device_buffer "
                      "made by hand); OpenCL kernels take memory array::borrow made");
}

const cl::buffer& cl_buffer_of(const device_buffer& b, std::size_t index) {
    const auto* buffer = static_cast<const cl::buffer*>(b.owner.get());
    if (b.space != memory_space::opencl || b.svm || !buffer ||
        reinterpret_cast<CUdeviceptr>(buffer->handle()) != b.address)
        throw_not_opencl_memory(index);
    return *buffer;
}

const cl::svm_pointer& svm_of(const device_buffer& b, std::size_t index) {
    const auto* svm = static_cast<const cl::svm_pointer*>(b.owner.get());
    if (b.space != memory_space::opencl || !b.svm || !svm)
        throw_not_opencl_memory(index);
    if (svm->released() || reinterpret_cast<CUdeviceptr>(svm->pointer()) != b.address)
        throw logic_error("opencl_backend: argument " + std::to_string(index) +
                          " is SVM that was released while an array used it; keep SVM until its arrays are done");
    return *svm;
}

// The context of OpenCL memory array::borrow made.
cl_context context_of(const device_buffer& b) {
    if (b.svm)
        return svm_of(b, 0).context_handle();
    cl_context owner = nullptr;
    const std::vector<std::byte> info = cl_buffer_of(b, 0).info_bytes(CL_MEM_CONTEXT);
    std::memcpy(&owner, info.data(), std::min(info.size(), sizeof owner));
    return owner;
}

}  // namespace

std::shared_ptr<const device_buffer> borrow(std::shared_ptr<const cl::buffer> b) {
    if (!b)
        throw logic_error("array::borrow: no OpenCL buffer");
    const auto address = reinterpret_cast<CUdeviceptr>(b->handle());
    const std::size_t size = b->size();
    return std::make_shared<const device_buffer>(
        device_buffer{address, size, std::move(b), memory_space::opencl, /*svm=*/false});
}

std::shared_ptr<const device_buffer> borrow(std::shared_ptr<const cl::svm_pointer> p) {
    if (!p)
        throw logic_error("array::borrow: no SVM");
    if (p->released())
        throw logic_error("array::borrow: the SVM was released; expected live SVM");
    const auto address = reinterpret_cast<CUdeviceptr>(p->pointer());
    const std::size_t size = p->size();
    return std::make_shared<const device_buffer>(
        device_buffer{address, size, std::move(p), memory_space::opencl, /*svm=*/true});
}

namespace {

// The program cache of `context` and `device`, made on first use. The registry holds weak
// references only: a cache goes with the last backend of its pair, and an entry whose cache
// went is dropped here (a context's handle may be reused once the context is gone).
template <class Cache>
std::shared_ptr<Cache> cache_of(cl_context context, cl_device_id device) {
    static std::mutex mutex;
    static std::map<std::pair<cl_context, cl_device_id>, std::weak_ptr<Cache>> caches;
    const std::lock_guard lock(mutex);
    std::erase_if(caches, [](const auto& entry) { return entry.second.expired(); });
    std::weak_ptr<Cache>& entry = caches[{context, device}];
    std::shared_ptr<Cache> cache = entry.lock();
    if (!cache) {
        cache = std::make_shared<Cache>();
        entry = cache;
    }
    return cache;
}

}  // namespace

opencl_backend::opencl_backend(const cl::queue& q, buffer_source source, std::string build_options)
    : queue_(cl::queue::wrap(q.handle())), context_(cl::context::wrap(q.context_handle())), source_(std::move(source)),
      build_options_(std::move(build_options)),
      has_fp64_(q.get_device().extensions().find("cl_khr_fp64") != std::string::npos),
      group_size_(group_size_for(q.get_device())),
      // Four groups per compute unit keep a device busy; the kernels loop over the rest.
      full_grid_(std::max(1u, q.get_device().max_compute_units()) * 4),
      gpu_((q.get_device().type() & CL_DEVICE_TYPE_GPU) != 0),
      programs_(cache_of<program_cache>(q.context_handle(), q.get_device().handle())) {}

std::string opencl_backend::name() const { return "OpenCL (" + queue_.get_device().name() + ")"; }

std::string opencl_backend::type_problem(dtype t) const {
    if ((t == dtype::float64 || t == dtype::complex128) && !has_fp64_)
        return std::string(array::name(t)) + " needs double precision (cl_khr_fp64), which " +
               queue_.get_device().name() + " lacks";
    return {};
}

std::shared_ptr<const device_buffer> opencl_backend::allocate(std::size_t bytes) {
    const std::size_t asked = bytes > 0 ? bytes : 1;
    if (!source_)
        return borrow(std::make_shared<const cl::buffer>(cl::buffer::create(context_, CL_MEM_READ_WRITE, asked)));
    std::shared_ptr<const device_buffer> given = source_(asked);
    if (!given || given->size < asked)
        throw logic_error("opencl_backend: the buffer source gave " +
                          (given ? std::to_string(given->size) + " bytes" : std::string("no memory")) + " for " +
                          std::to_string(asked) + " asked");
    if (given->space != memory_space::opencl || !given->owner)
        throw logic_error(
            "opencl_backend: the buffer source gave memory that is not OpenCL memory; expected what "
            "array::borrow makes of a cl::buffer or of SVM");
    if (context_of(*given) != context_.handle())
        throw logic_error("opencl_backend: the buffer source gave memory of another context");
    return given;
}

void opencl_backend::write(const device_buffer& dst, std::size_t offset, std::span<const std::byte> src) {
    require_own_range(*this, dst, offset, src.size(), "opencl_backend::write");
    if (src.empty())
        return;
    if (dst.svm)
        cl::enqueue_svm_copy(queue_, static_cast<std::byte*>(svm_of(dst, 0).pointer()) + offset, src.data(), src.size(),
                             /*blocking=*/true);
    else
        cl::enqueue_write(queue_, cl_buffer_of(dst, 0), offset, src.data(), src.size(), /*blocking=*/true);
}

void opencl_backend::read(const device_buffer& src, std::size_t offset, std::span<std::byte> dst) {
    require_own_range(*this, src, offset, dst.size(), "opencl_backend::read");
    if (dst.empty())
        return;
    if (src.svm)
        cl::enqueue_svm_copy(queue_, dst.data(), static_cast<const std::byte*>(svm_of(src, 0).pointer()) + offset,
                             dst.size(), /*blocking=*/true);
    else
        cl::enqueue_read(queue_, cl_buffer_of(src, 0), offset, dst.data(), dst.size(), /*blocking=*/true);
}

loaded_kernel opencl_backend::kernel(std::uint64_t key, const std::string& name,
                                     const std::function<std::string()>& source) {
    const auto loaded = [this](const std::shared_ptr<built_kernel>& k) {
        return loaded_kernel{k, {}, kernel_language::opencl, full_grid_, k->max_group, gpu_};
    };
    const auto taken = [&](const built_program& p) -> std::shared_ptr<built_kernel> {
        for (const auto& [kernel_name, k] : p.kernels)
            if (kernel_name == name)
                return k;
        return nullptr;
    };
    std::shared_ptr<built_program> program;
    {
        std::lock_guard lock(programs_->mutex);
        if (auto found = programs_->programs.find(key); found != programs_->programs.end()) {
            program = found->second;
            if (auto k = taken(*program))
                return loaded(k);
        }
    }
    const cl::device dev = queue_.get_device();
    if (!program) {
        // Built outside the lock (a build takes a while); two threads building one source at
        // once both succeed, and the first stored is kept.
        cl::program built = cl::program::create_with_source(context_, source());
        // GK_CPU tells generated kernels that the device runs a group's work items one after
        // the other (a CPU): a loop should then walk memory in order within each work item.
        std::string options = build_options_;
        if (dev.type() & CL_DEVICE_TYPE_CPU)
            options += options.empty() ? "-D GK_CPU=1" : " -D GK_CPU=1";
        built.build(options, std::span(&dev, 1));
        std::lock_guard lock(programs_->mutex);
        program = programs_->programs.try_emplace(key, std::make_shared<built_program>(std::move(built))).first->second;
    }
    std::lock_guard lock(programs_->mutex);
    if (auto k = taken(*program))
        return loaded(k);
    cl::kernel k = cl::kernel::create(program->program, name);
    std::size_t kernel_limit = 0;
    const std::vector<std::byte> limit = k.work_group_info_bytes(CL_KERNEL_WORK_GROUP_SIZE, dev);
    std::memcpy(&kernel_limit, limit.data(), std::min(limit.size(), sizeof kernel_limit));
    const unsigned max_group = static_cast<unsigned>(std::clamp<std::size_t>(kernel_limit, 1, group_size_));
    auto built = std::make_shared<built_kernel>(std::move(k), max_group);
    program->kernels.emplace_back(name, built);
    return loaded(built);
}

void opencl_backend::launch(const loaded_kernel& k, const launch_shape& shape, std::span<const kernel_argument> args) {
    if (k.language != kernel_language::opencl)
        throw logic_error("opencl_backend::launch: the kernel was loaded by a CUDA backend");
    if (shape.groups_y != 1)
        throw logic_error("opencl_backend::launch: the engine's OpenCL kernels run over one axis of groups");
    auto& built = *static_cast<built_kernel*>(const_cast<void*>(k.handle.get()));
    drop_finished_svm(/*all=*/false);
    std::vector<std::shared_ptr<const void>> svm_owners;
    std::lock_guard lock(built.mutex);
    cl_uint index = 0;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const kernel_argument& a = args[i];
        if (a.buffer) {
            // An array is two parameters in OpenCL C: the memory, and the byte offset into it.
            if (a.buffer->svm) {
                built.kernel.set_arg(index++, svm_of(*a.buffer, i));
                svm_owners.push_back(a.buffer->owner);
            } else {
                built.kernel.set_arg(index++, cl_buffer_of(*a.buffer, i));
            }
            const cl_long offset = a.offset;
            built.kernel.set_arg_bytes(index++, &offset, sizeof offset, cl::value_type::integer);
        } else {
            built.kernel.set_arg_bytes(index++, a.value, a.size);
        }
    }
    const std::size_t global = static_cast<std::size_t>(shape.groups_x) * shape.group_size;
    const std::size_t local = shape.group_size;
    cl::event done = cl::enqueue_nd_range(queue_, built.kernel, std::span(&global, 1), std::span(&local, 1));
    const std::lock_guard launches_lock(launches_mutex_);
    last_launch_ = cl::detail::retained<cl_event>(done.handle());
    if (!svm_owners.empty())
        svm_in_use_.push_back({std::move(done), std::move(svm_owners)});
}

std::optional<cl::event> opencl_backend::last_event() const {
    const std::lock_guard lock(launches_mutex_);
    if (!last_launch_)
        return std::nullopt;
    return cl::event::wrap(last_launch_.get());
}

void opencl_backend::synchronize() {
    queue_.finish();
    drop_finished_svm(/*all=*/true);
}

void opencl_backend::drop_finished_svm(bool all) {
    std::vector<svm_in_use> finished;  // dropped after the lock, where freeing SVM may take time
    const std::lock_guard lock(launches_mutex_);
    if (svm_in_use_.empty())
        return;
    const auto over = [all](const svm_in_use& u) {
        if (all)
            return true;
        const cl_int status = u.done.status();
        return status == CL_COMPLETE || status < 0;
    };
    const auto keep =
        std::stable_partition(svm_in_use_.begin(), svm_in_use_.end(), [&](const svm_in_use& u) { return !over(u); });
    finished.assign(std::make_move_iterator(keep), std::make_move_iterator(svm_in_use_.end()));
    svm_in_use_.erase(keep, svm_in_use_.end());
}

opencl_backend::~opencl_backend() {
    if (!svm_in_use_.empty()) {
        try {
            queue_.finish();
        } catch (...) {  // a lost device: the commands are over either way
        }
    }
}

}  // namespace gpukit::array
