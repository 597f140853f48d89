#include "gpukit/array/array.hpp"

#include "gpukit/array/element_copy.hpp"
#include "gpukit/array/elementwise.hpp"
#include "gpukit/array/expression.hpp"
#include "gpukit/array/reduction.hpp"
#include "gpukit/array/scan.hpp"
#include "gpukit/array/views.hpp"
#include "gpukit/core/error.hpp"
#include "gpukit/cuda/copy.hpp"
#include "gpukit/cuda/default_pool.hpp"
#include "gpukit/random/philox.hpp"
#include "gpukit/rtc/cache.hpp"

#include <algorithm>
#include <array>
#include <exception>
#include <functional>
#include <optional>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>

namespace gpukit::array {

namespace {

// The operations queue their work on the current context's default stream.
constexpr cuda::stream_view default_stream{};

// ---- elementwise operations

// An operand of a binary operation: an array or a scalar.
struct term {
    const device_array* a = nullptr;
    const scalar* s = nullptr;

    operand how() const { return a ? operand{operand::kind::typed, a->type(), {}} : s->how; }
    std::vector<std::int64_t> shape() const { return a ? a->shape() : std::vector<std::int64_t>{}; }
};

// "(2, 3)", as numpy writes a shape ("(3,)" for one axis).
std::string shape_text(const std::vector<std::int64_t>& shape) {
    std::string text = "(";
    for (std::size_t k = 0; k < shape.size(); ++k)
        text += (k ? ", " : "") + std::to_string(shape[k]);
    return text + (shape.size() == 1 ? ",)" : ")");
}

// The backend the operands of one operation share (null: the current CUDA context);
// logic_error when they live on different ones.
const std::shared_ptr<backend>& common_backend(std::initializer_list<const device_array*> operands) {
    const device_array* first = nullptr;
    for (const device_array* a : operands) {
        if (!a)
            continue;
        if (first && first->runs_on() != a->runs_on())
            throw logic_error("device_array operands live on different backends (" +
                              (first->runs_on() ? first->runs_on()->name() : std::string("the current CUDA context")) +
                              " and " +
                              (a->runs_on() ? a->runs_on()->name() : std::string("the current CUDA context")) +
                              "); copy one to the other's first");
        first = first ? first : a;
    }
    static const std::shared_ptr<backend> none;
    return first ? first->runs_on() : none;
}

// logic_error naming `what` for an operation a backend other than CUDA does not have yet.
void require_cuda(const std::shared_ptr<backend>& b, const char* what) {
    if (b)
        throw logic_error(std::string(what) + " of a device_array on " + b->name() + " is not supported yet");
}

// Runs `e` over `args` (the operands numbered as e numbers them) into a new array of `shape`
// on backend `b` (null: the current CUDA context).
device_array evaluate(const expression& e, std::vector<elementwise_arg> args, std::vector<std::int64_t> shape,
                      const std::shared_ptr<backend>& b) {
    if (b) {
        device_array out = device_array::empty(b, std::move(shape), e.type());
        args.emplace_back(out.view());
        run(expression_kernel(e, b->language()), args, *b);
        return out;
    }
    device_array out = device_array::empty(std::move(shape), e.type());
    args.emplace_back(out.view());
    run(expression_kernel(e), args, default_stream);
    return out;
}

device_array select(const device_array& condition, const term& then, const term& otherwise) {
    const std::shared_ptr<backend>& where = common_backend({&condition, then.a, otherwise.a});
    const dtype type = select_type(then.how(), otherwise.how());
    std::vector<std::int64_t> shape =
        broadcast_shapes(broadcast_shapes(condition.shape(), then.shape()), otherwise.shape());
    const auto broadcast = [&](const device_array& a) { return a.view().view(a.view().layout().broadcast_to(shape)); };
    std::vector<elementwise_arg> args{broadcast(condition)};
    const auto choice = [&](const term& x) {
        const int number = static_cast<int>(args.size());
        if (x.a) {
            args.emplace_back(broadcast(*x.a));
            return expression::array(number, x.a->type());
        }
        args.emplace_back(scalar_bytes(*x.s, type));
        return expression::scalar(number, type);
    };
    const expression e_then = choice(then);
    const expression e_otherwise = choice(otherwise);
    const expression e = expression::select(expression::array(0, condition.type()), e_then, e_otherwise, type);
    return evaluate(e, std::move(args), std::move(shape), where);
}

device_array unary(unary_op op, const device_array& x, dtype compute, dtype result) {
    return evaluate(expression::unary(op, expression::array(0, x.type()), compute, result), {x.view()}, x.shape(),
                    x.runs_on());
}

// ---- reductions

// A 0-d array of `out` holding the result of `spec` over `args`, with its scratch in the same
// block of the pool (on a backend: in memory of the backend's).
device_array reduced(const reduction_spec& spec, std::span<const elementwise_arg> args, dtype out,
                     const std::shared_ptr<backend>& b) {
    if (b) {
        device_array result = device_array::empty(b, {}, out);
        reduce(spec, args, result.view(), *b);
        return result;
    }
    const std::size_t result_bytes = 16;  // keeps the scratch 16-byte aligned
    const std::size_t scratch_bytes = reduction_scratch_bytes(spec);
    auto block =
        std::make_shared<cuda::pooled_device_memory>(cuda::allocate_from_default_pool(result_bytes + scratch_bytes));
    const CUdeviceptr address = block->block.pointer();
    device_array result(
        ndarray(borrow(address, result_bytes, block), out,
                layout::contiguous(std::vector<std::int64_t>{}, static_cast<std::int64_t>(size_of(out)))));
    reduce(spec, args, result.view(), cuda::device_pointer(address + result_bytes, scratch_bytes), default_stream);
    return result;
}

// ---- scans

// The sum scan of dtype `t`, made once per kind and type for the life of the process (a
// spec's kernels are loaded once per context).
const scan_spec& sum_scan_spec(scan_kind kind, dtype t) {
    static std::mutex mutex;
    static std::map<std::pair<scan_kind, dtype>, std::unique_ptr<scan_spec>> specs;
    const std::lock_guard lock(mutex);
    std::unique_ptr<scan_spec>& spec = specs[{kind, t}];
    if (!spec)
        spec = std::make_unique<scan_spec>(kind, std::string(c_type(t)), size_of(t), "a+b", "0", "gk_sum_scan",
                                           std::string(), rtc::compile_request{}, rtc::default_cache_dir());
    return *spec;
}

device_array scanned(scan_kind which, const device_array& a) {
    require_cuda(a.runs_on(), "a scan");
    if (a.ndim() != 1)
        throw logic_error("scans take a 1-d device_array, got " + std::to_string(a.ndim()) + " dimensions");
    if (kind(a.type()) == dtype_kind::complex)
        throw type_error("scans of complex arrays are not supported: scan the real and imaginary parts apart");
    // numpy's cumsum type, sum()'s: bool and narrower integers accumulate in 64 bits.
    const dtype t = sum_type(a.type());
    const device_array in = t == a.type() ? a : a.astype(t);
    device_array out = device_array::empty({a.size()}, t);
    const auto operand = [](const device_array& x) {
        return scan_operand{x.view().data(), x.ndim() == 1 ? x.view().layout().strides()[0] : 0};
    };
    scan(sum_scan_spec(which, t), operand(in), operand(out), a.size(), default_stream);
    return out;
}

}  // namespace

// ---- device_array

device_array device_array::empty(std::vector<std::int64_t> shape, dtype t, order o) {
    gpukit::layout l = gpukit::layout::contiguous(std::move(shape), static_cast<std::int64_t>(size_of(t)), o);
    // A zero-size array still gets a block of its own: a null address would make copies special.
    const std::size_t bytes = l.nbytes() > 0 ? static_cast<std::size_t>(l.nbytes()) : 1;
    auto block = std::make_shared<cuda::pooled_device_memory>(cuda::allocate_from_default_pool(bytes));
    const CUdeviceptr address = block->block.pointer();
    return device_array(ndarray(borrow(address, bytes, std::move(block)), t, std::move(l)));
}

device_array device_array::empty(std::shared_ptr<backend> b, std::vector<std::int64_t> shape, dtype t, order o) {
    if (!b)
        throw logic_error("device_array::empty: no backend");
    ndarray memory = ndarray::empty(*b, std::move(shape), t, o);
    return device_array(std::move(memory), std::move(b));
}

device_array device_array::zeros(std::shared_ptr<backend> b, std::vector<std::int64_t> shape, dtype t, order o) {
    device_array a = empty(std::move(b), std::move(shape), t, o);
    const std::vector<std::byte> zero_bytes(static_cast<std::size_t>(a.view().layout().nbytes()));
    a.runs_on()->write(*a.view().buffer(), 0, zero_bytes);
    return a;
}

device_array device_array::zeros(std::vector<std::int64_t> shape, dtype t, order o) {
    device_array a = empty(std::move(shape), t, o);
    if (a.size() > 0)
        cuda::memset_d8_async(a.view().data(), 0, static_cast<std::size_t>(a.view().layout().nbytes()), default_stream);
    return a;
}

device_array device_array::from_host_bytes(const std::shared_ptr<backend>& b, std::span<const std::byte> bytes, dtype t,
                                           std::size_t count, std::vector<std::int64_t> shape) {
    const gpukit::layout l = gpukit::layout::contiguous(shape, static_cast<std::int64_t>(size_of(t)));
    if (static_cast<std::size_t>(l.size()) != count)
        throw logic_error("from_host: " + std::to_string(count) + " values do not fill an array of shape " +
                          l.describe());
    if (b) {
        device_array a = empty(b, std::move(shape), t);
        b->write(*a.view().buffer(), 0, bytes);
        return a;
    }
    device_array a = empty(std::move(shape), t);
    if (!bytes.empty())
        cuda::memcpy_htod(a.view().data(), bytes.data(), bytes.size());
    return a;
}

void device_array::to_host_bytes(std::span<std::byte> out, dtype t) const {
    if (t != type())
        throw logic_error("to_host: the device_array holds " + std::string(name(type())) + ", not " +
                          std::string(name(t)));
    const device_array dense = view().layout().is_c_contiguous() ? *this : copy();
    if (backend_)
        backend_->read(*dense.view().buffer(), static_cast<std::size_t>(dense.view().layout().offset()), out);
    else if (!out.empty())
        cuda::memcpy_dtoh(out.data(), dense.view().data(), out.size());
}

namespace {

// The element of type `t` at `bytes` as a complex number (a real one has no imaginary part).
std::complex<double> element_value(dtype t, const std::byte* bytes) {
    const auto read = [bytes]<class T>(T) {
        T v;
        std::memcpy(&v, bytes, sizeof v);
        return v;
    };
    switch (t) {
    case dtype::bool_:
        return read(std::uint8_t{}) != 0 ? 1.0 : 0.0;
    case dtype::int8:
        return static_cast<double>(read(std::int8_t{}));
    case dtype::int16:
        return static_cast<double>(read(std::int16_t{}));
    case dtype::int32:
        return static_cast<double>(read(std::int32_t{}));
    case dtype::int64:
        return static_cast<double>(read(std::int64_t{}));
    case dtype::uint8:
        return static_cast<double>(read(std::uint8_t{}));
    case dtype::uint16:
        return static_cast<double>(read(std::uint16_t{}));
    case dtype::uint32:
        return static_cast<double>(read(std::uint32_t{}));
    case dtype::uint64:
        return static_cast<double>(read(std::uint64_t{}));
    case dtype::float32:
        return static_cast<double>(read(float{}));
    case dtype::float64:
        return read(double{});
    case dtype::complex64:
        return std::complex<double>(read(std::complex<float>{}));
    case dtype::complex128:
        return read(std::complex<double>{});
    }
    return {};
}

}  // namespace

std::complex<double> device_array::item_value() const {
    if (size() != 1)
        throw logic_error("item: the device_array has " + std::to_string(size()) + " elements, not one");
    if (backend_) {  // the element itself, converted here (the backend may lack complex128)
        std::array<std::byte, 16> bytes{};
        backend_->read(*view().buffer(), static_cast<std::size_t>(view().layout().offset()),
                       std::span(bytes).first(size_of(type())));
        return element_value(type(), bytes.data());
    }
    const device_array wide = astype(dtype::complex128);
    return wide.to_host<std::complex<double>>().front();
}

device_array device_array::astype(dtype t) const { return unary(unary_op::cast, *this, type(), t); }

device_array device_array::copy() const {
    if (backend_)  // an elementwise copy, through the backend
        return unary(unary_op::cast, *this, type(), type());
    device_array out = empty(shape(), type());
    copy_elements(element_array{out.view().data(), out.view().layout()}, element_array{view().data(), view().layout()},
                  default_stream);
    return out;
}

device_array& device_array::update(binary_op op, const device_array* other, const scalar* value) {
    common_backend({this, other});
    const term mine{this, nullptr}, theirs{other, value};
    const binary_types t = resolve_binary(op, mine.how(), theirs.how());
    const std::vector<std::int64_t> shape = broadcast_shapes(this->shape(), theirs.shape());
    if (shape != this->shape())
        throw std::invalid_argument("non-broadcastable output operand with shape " + shape_text(this->shape()) +
                                    " doesn't match the broadcast shape " + shape_text(shape));
    require_same_kind_output(symbol(op), t.result, type());
    std::vector<elementwise_arg> args{view()};
    expression right;
    if (other) {
        // Read in full first when it shares memory with this array as other elements.
        const ndarray& o = other->view();
        const bool overlaps = overlaps_differently(view().buffer()->address, view().layout(), o.buffer()->address,
                                                   o.layout(), o.type() != type());
        const device_array source = overlaps ? other->copy() : *other;
        args.emplace_back(source.view().view(source.view().layout().broadcast_to(shape)));
        right = expression::array(1, other->type());
    } else {
        const dtype read = t.signed_with_uint64 ? value->how.type : t.compute;
        args.emplace_back(scalar_bytes(*value, read));
        right = expression::scalar(1, read);
    }
    expression e = expression::binary(op, expression::array(0, type()), right, t);
    if (e.type() != type())
        e = expression::unary(unary_op::cast, e, e.type(), type());
    args.emplace_back(view());
    if (backend_)
        run(expression_kernel(e, backend_->language()), args, *backend_);
    else
        run(expression_kernel(e), args, default_stream);
    return *this;
}

device_array& device_array::assign(const device_array& source) {
    common_backend({this, &source});
    const std::vector<std::int64_t>& from = source.shape();
    bool fits = from.size() <= shape().size();
    for (std::size_t k = 1; fits && k <= from.size(); ++k)
        fits = from[from.size() - k] == 1 || from[from.size() - k] == shape()[shape().size() - k];
    if (!fits)
        throw std::invalid_argument("could not broadcast input array from shape " + shape_text(from) + " into shape " +
                                    shape_text(shape()));
    const ndarray& s = source.view();
    const bool overlaps = overlaps_differently(view().buffer()->address, view().layout(), s.buffer()->address,
                                               s.layout(), s.type() != type());
    const device_array read = overlaps ? source.copy() : source;
    const std::vector<elementwise_arg> args{read.view().view(read.view().layout().broadcast_to(shape())), view()};
    const expression e = expression::unary(unary_op::cast, expression::array(0, source.type()), source.type(), type());
    if (backend_)
        run(expression_kernel(e, backend_->language()), args, *backend_);
    else
        run(expression_kernel(e), args, default_stream);
    return *this;
}

device_array& device_array::assign(const scalar& value) {
    scalar v = value;
    if (kind(type()) == dtype_kind::signed_int || kind(type()) == dtype_kind::unsigned_int) {
        if (v.number != scalar::number_kind::integer) {  // truncated, as numpy's fill does
            const double whole = std::trunc(v.value.real());
            if (!std::isfinite(whole) || std::fabs(whole) >= 18446744073709551616.0)
                throw std::overflow_error("cannot convert " + std::to_string(v.value.real()) + " to " +
                                          std::string(name(type())));
            v = scalar(static_cast<long long>(0));
            v.how.value = {whole < 0, static_cast<unsigned long long>(std::fabs(whole)), false};
        }
        check_conversion(v.how.value, type());
    }
    const std::vector<elementwise_arg> args{scalar_bytes(v, type()), view()};
    const expression e = expression::scalar(0, type());
    if (backend_)
        run(expression_kernel(e, backend_->language()), args, *backend_);
    else
        run(expression_kernel(e), args, default_stream);
    return *this;
}

void device_array::assign_from_host(std::span<const std::byte> bytes) {
    const std::size_t expected = static_cast<std::size_t>(size()) * size_of(type());
    if (bytes.size() != expected)
        throw logic_error("assign_from_host: " + std::to_string(bytes.size()) + " bytes for an array of " +
                          std::to_string(expected));
    if (view().layout().is_c_contiguous()) {
        if (backend_)
            backend_->write(*view().buffer(), static_cast<std::size_t>(view().layout().offset()), bytes);
        else if (!bytes.empty())
            cuda::memcpy_htod(view().data(), bytes.data(), bytes.size());
        return;
    }
    device_array dense = backend_ ? empty(backend_, shape(), type()) : empty(shape(), type());
    dense.assign_from_host(bytes);
    assign(dense);
}

// ---- operations

// ---- fused operators

namespace detail {

// The expression a device_array stands for until its statement ends, and once computed, its
// memory. Shared by the copies of the array; settle() is thread safe. The recipe holds copies
// of its array operands (handles to their memory), not their addresses: `x = x + y` assigns
// the pending result to x within the statement whose end computes it from x's old value.
struct pending_array {
    pending_array(fused_expression<device_array> recipe, std::shared_ptr<backend> where, bool fusable)
        : recipe(std::move(recipe)), where(std::move(where)), fusable(fusable) {}

    // The result, computed on first call (later calls return it, or throw the first call's error).
    ndarray settle() {
        const std::lock_guard lock(mutex);
        if (failure)
            std::rethrow_exception(failure);
        if (!result) {
            try {
                std::vector<elementwise_arg> args;
                args.reserve(recipe.operands.size() + 1);
                for (const fused_operand<device_array>& o : recipe.operands) {
                    if (!o.array) {
                        args.emplace_back(o.scalar);
                        continue;
                    }
                    const ndarray& v = o.array->view();  // an unfused pending operand is computed here
                    if (v.shape() == recipe.shape)
                        args.emplace_back(v);
                    else
                        args.emplace_back(v.view(v.layout().broadcast_to(recipe.shape)));
                }
                result = evaluate(recipe.e, std::move(args), recipe.shape, where).view();
            } catch (...) {
                failure = std::current_exception();
                throw;
            }
            recipe.operands.clear();  // the operands' memory is not needed any more
        }
        return *result;
    }
    // The recipe, for fusing into the next operator, while the result is not computed.
    const fused_expression<device_array>* fusable_recipe() const { return fusable && !result ? &recipe : nullptr; }

    std::mutex mutex;
    fused_expression<device_array> recipe;
    std::shared_ptr<backend> where;
    bool fusable;  // made by an operator that fuses (array/fusion.hpp)
    std::optional<ndarray> result;
    std::exception_ptr failure;
};

settles_at_statement_end::~settles_at_statement_end() {
    if (const std::shared_ptr<pending_array> result = result_.lock()) {
        try {
            result->settle();
        } catch (...) {  // kept in the result: its first use throws it
        }
    }
}

}  // namespace detail

void device_array::settle() const {
    view_ = pending_->settle();
    pending_.reset();
}

namespace {

using fused = fused_expression<device_array>;
// Terms refer to the operators' operands; an operand list keeps copies (handles to the memory).
using fusion = fusion_term<device_array, std::reference_wrapper<const device_array>>;

// A view of nothing with the shape and type of a result not computed yet: shape(), type()
// and size() answer from it; view() computes the result first.
ndarray placeholder_view(const std::vector<std::int64_t>& shape, dtype t) {
    gpukit::layout l = gpukit::layout::contiguous(shape, static_cast<std::int64_t>(size_of(t)));
    // One buffer of no memory serves every placeholder (layouts never exceed INT64_MAX bytes).
    static const std::shared_ptr<const device_buffer> nothing =
        borrow(0, static_cast<std::size_t>(std::numeric_limits<std::int64_t>::max()));
    return ndarray(nothing, t, std::move(l));
}

}  // namespace

namespace detail {

struct fusion_access {
    // The term of an operator's array operand; a temporary pending result of a fusing
    // operator, held by nobody else, offers its expression to be fused (`fuse`).
    static fusion term_of(const array_operand& a, bool fuse) {
        const device_array& x = a.array();
        const fused* pending = nullptr;
        if (fuse && a.temporary() && x.pending_ && x.pending_.use_count() == 1)
            pending = x.pending_->fusable_recipe();
        return fusion::of_array(std::cref(x), &x, x.type(), x.shape(), pending);
    }

    // `a <op> b`, pending until the statement ends (or its first use): the operands' guards
    // compute it, unless the next operator fuses it.
    static device_array pending_result(binary_op op, const fusion& a, const fusion& b,
                                       const std::shared_ptr<backend>& where, const settles_at_statement_end& guard_a,
                                       const settles_at_statement_end& guard_b) {
        fused recipe;
        fusion r = combine(op, a, b, recipe);
        recipe.e = std::move(*r.built);
        recipe.shape = std::move(r.shape);
        device_array out(placeholder_view(recipe.shape, recipe.e.type()), where);
        out.pending_ = std::make_shared<pending_array>(std::move(recipe), where, fusable(op));
        guard_a.settles(out.pending_);
        guard_b.settles(out.pending_);
        return out;
    }
};

}  // namespace detail

device_array apply(binary_op op, const array_operand& a, const array_operand& b) {
    using detail::fusion_access;
    const std::shared_ptr<backend>& where = common_backend({&a.array(), &b.array()});
    return fusion_access::pending_result(op, fusion_access::term_of(a, fusable(op)),
                                         fusion_access::term_of(b, fusable(op)), where, a, b);
}
device_array apply(binary_op op, const array_operand& a, const scalar_operand& b) {
    using detail::fusion_access;
    return fusion_access::pending_result(op, fusion_access::term_of(a, fusable(op)), fusion::of_scalar(b.value()),
                                         a.array().runs_on(), a, b);
}
device_array apply(binary_op op, const scalar_operand& a, const array_operand& b) {
    using detail::fusion_access;
    return fusion_access::pending_result(op, fusion::of_scalar(a.value()), fusion_access::term_of(b, fusable(op)),
                                         b.array().runs_on(), a, b);
}

device_array where(const device_array& c, const device_array& a, const device_array& b) {
    return select(c, term{&a, nullptr}, term{&b, nullptr});
}
device_array where(const device_array& c, const device_array& a, const scalar& b) {
    return select(c, term{&a, nullptr}, term{nullptr, &b});
}
device_array where(const device_array& c, const scalar& a, const device_array& b) {
    return select(c, term{nullptr, &a}, term{&b, nullptr});
}
device_array where(const device_array& c, const scalar& a, const scalar& b) {
    return select(c, term{nullptr, &a}, term{nullptr, &b});
}

device_array operator-(const device_array& a) { return apply(unary_op::negative, a); }

device_array apply(unary_op op, const device_array& a) {
    if (op == unary_op::cast)
        throw logic_error("apply: unary_op::cast needs the type to convert to: use astype");
    const unary_types t = resolve_unary(op, a.type());
    return unary(op, a, t.compute, t.result);
}

device_array apply(math_function f, const device_array& x) {
    if (input_count(f) != 1 || output_count(f) != 1)
        throw logic_error("apply: " + std::string(name(f)) +
                          " takes or gives two arrays; run its math_spec with elementwise run()");
    const std::shared_ptr<backend>& where = x.runs_on();
    if (where) {
        const elementwise_spec& spec = math_spec(f, x.type(), std::nullopt, where->language());
        device_array out = device_array::empty(where, x.shape(), spec.params().back().type);
        const elementwise_arg args[] = {x.view(), out.view()};
        run(spec, args, *where);
        return out;
    }
    const elementwise_spec& spec = math_spec(f, x.type());
    device_array out = device_array::empty(x.shape(), spec.params().back().type);
    const elementwise_arg args[] = {x.view(), out.view()};
    run(spec, args, default_stream);
    return out;
}

namespace {

// numpy's reduction `op` of a (and b), in its default result type.
device_array reduction(reduction_op op, const char* what, const device_array& a, const device_array* b = nullptr) {
    const std::shared_ptr<backend>& where = common_backend({&a, b});
    const reduction_spec& spec =
        reduction_spec_for(op, what, a.type(), b ? std::optional(b->type()) : std::nullopt, std::nullopt, std::nullopt,
                           where ? where->language() : kernel_language::cuda);
    std::vector<elementwise_arg> args{a.view()};
    if (b)
        args.emplace_back(b->view());
    return reduced(spec, args, *spec.output().dtype, where);
}

}  // namespace

device_array sum(const device_array& a) { return reduction(reduction_op::sum, "sum", a); }

device_array dot(const device_array& a, const device_array& b) {
    if (a.ndim() != 1 || b.ndim() != 1 || a.size() != b.size())
        throw logic_error("dot: two 1-d arrays of one size, got shapes " + a.view().layout().describe() + " and " +
                          b.view().layout().describe());
    return reduction(reduction_op::dot, "dot", a, &b);
}

device_array subset_reduce(reduction_op op, const device_array& subset, const device_array& a, const device_array* b) {
    const std::shared_ptr<backend>& where = common_backend({&subset, &a, b});
    const reduction_spec& spec =
        reduction_spec_for(op, "subset reduction", a.type(), b ? std::optional(b->type()) : std::nullopt, subset.type(),
                           std::nullopt, where ? where->language() : kernel_language::cuda);
    if (b && b->size() != a.size())
        throw logic_error("subset reduction: a and b have " + std::to_string(a.size()) + " and " +
                          std::to_string(b->size()) + " elements");
    std::vector<elementwise_arg> args{subset.view(), a.view()};
    if (b)
        args.emplace_back(b->view());
    args.emplace_back(scalar_value::of(static_cast<std::int64_t>(a.size())));
    return reduced(spec, args, *spec.output().dtype, where);
}

device_array min(const device_array& a) { return reduction(reduction_op::min, "min", a); }
device_array max(const device_array& a) { return reduction(reduction_op::max, "max", a); }

device_array inclusive_scan(const device_array& a) { return scanned(scan_kind::inclusive, a); }
device_array exclusive_scan(const device_array& a) { return scanned(scan_kind::exclusive, a); }

device_array rand(std::vector<std::int64_t> shape, dtype t, std::uint64_t seed) {
    if (!random::rand_supports(t))
        throw type_error("rand: " + std::string(name(t)) + " is not supported; " + std::string(random::rand_dtypes()));
    device_array out = device_array::empty(std::move(shape), t);
    random::fill_rand(out.view(), seed, default_stream);
    return out;
}

device_array rand(std::shared_ptr<backend> b, std::vector<std::int64_t> shape, dtype t, std::uint64_t seed) {
    if (!random::rand_supports(t))
        throw type_error("rand: " + std::string(name(t)) + " is not supported; " + std::string(random::rand_dtypes()));
    device_array out = device_array::empty(std::move(b), std::move(shape), t);
    random::fill_rand(out.view(), seed, *out.runs_on());
    return out;
}

}  // namespace gpukit::array
