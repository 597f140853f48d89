// Fusing operators into one elementwise kernel: `2 * x + y` computed in one pass over memory,
// as one expression (2, x, *, y, +), instead of a kernel for `2 * x` and one for the sum.
//
// The array front ends keep arrays their own way (the C++ device_array, the Python GPUArray)
// and decide when a result may wait to be fused; what an operator makes of its operands is
// decided here, once for both: numpy's types for each operator (resolve_binary), a scalar
// read in the type its operator computes in, one operand per array however often it is used,
// and a waiting ("pending") array's own expression fused in while the kernel keeps at most
// max_fused_operands operands. `Handle` is how the front end holds an array in an operand list
// (it keeps the array alive), `Ref` how an operator's term refers to one while the operator
// runs (a Handle is made from it when the array joins a list; by default a Handle itself);
// arrays are told apart by an identity the front end chooses.
#pragma once

#include "gpukit/array/expression.hpp"
#include "gpukit/array/promotion.hpp"
#include "gpukit/array/scalar.hpp"
#include "gpukit/core/layout.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace gpukit::array {

// Beyond this many operands a pending expression is computed on its own first, so long
// chains do not generate kernels with ever more parameters.
inline constexpr std::size_t max_fused_operands = 16;

// Operand k of a fused expression: an array, or a scalar's bytes in the type it is read as.
template <class Handle>
struct fused_operand {
    std::optional<Handle> array;     // set for arrays
    const void* identity = nullptr;  // the array's identity; null for a scalar
    scalar_value scalar;             // a scalar's value
};

// An expression and its operands, and the shape they broadcast to: what an operator runs, or
// what a pending array stands for.
template <class Handle>
struct fused_expression {
    // The expression, its operand k being `operands[k]`.
    expression e;
    // The operands, each array once however often the expression uses it.
    std::vector<fused_operand<Handle>> operands;
    // The shape the operands broadcast to: the result's.
    std::vector<std::int64_t> shape;

    // The operand number of array `h`, added unless an operand of the same identity is there.
    int add_array(const Handle& h, const void* identity) {
        for (std::size_t k = 0; k < operands.size(); ++k)
            if (operands[k].identity == identity)
                return static_cast<int>(k);
        operands.push_back({h, identity, {}});
        return static_cast<int>(operands.size() - 1);
    }
    // The operand number of a new scalar operand of bytes `v` (scalars are never shared).
    int add_scalar(const scalar_value& v) {
        operands.push_back({std::nullopt, nullptr, v});
        return static_cast<int>(operands.size() - 1);
    }
    // The expression of `pending` with its operands joining these (renumbered); nullopt when
    // the kernel would then have max_fused_operands operands or more.
    std::optional<expression> fused_in(const fused_expression& pending) {
        if (operands.size() + pending.operands.size() >= max_fused_operands)
            return std::nullopt;
        std::vector<int> numbers;
        numbers.reserve(pending.operands.size());
        for (const fused_operand<Handle>& o : pending.operands)
            numbers.push_back(o.identity ? add_array(*o.array, o.identity) : add_scalar(o.scalar));
        return pending.e.renumbered(numbers);
    }
};

// An operand of an operator being fused: an array (with its pending expression when its value
// is not computed yet and may be fused into this operator's), a scalar not yet read in a type,
// or the expression an earlier operator of the same fusion built.
template <class Handle, class Ref = Handle>
struct fusion_term {
    // The array of an array term, as the operator refers to it.
    std::optional<Ref> array;
    // The array's identity, which tells arrays apart; null for other terms.
    const void* identity = nullptr;
    // The array's pending expression, when it may be fused into this operator's; else null.
    const fused_expression<Handle>* pending = nullptr;
    // The scalar of a scalar term, not yet read in a type.
    std::optional<scalar> value;
    // The expression an earlier operator of the fusion built, for such a term.
    std::optional<expression> built;
    operand how;  // as type resolution sees the term

    // The term's shape; empty for a scalar.
    std::vector<std::int64_t> shape;

    // The term of array `h` of type `t` and `shape`, told apart from others by `identity`;
    // `pending`: its expression when its value is not computed yet and may be fused in.
    static fusion_term of_array(Ref h, const void* identity, dtype t, std::vector<std::int64_t> shape,
                                const fused_expression<Handle>* pending = nullptr) {
        fusion_term r;
        r.array.emplace(std::move(h));
        r.identity = identity;
        r.pending = pending;
        r.how = {operand::kind::typed, t, {}};
        r.shape = std::move(shape);
        return r;
    }
    // The term of scalar `s`, typed as s.how says (a Python-like scalar stays weak).
    static fusion_term of_scalar(const scalar& s) {
        fusion_term r;
        r.value = s;
        r.how = s.how;
        return r;
    }
};

// The expression of term `t` in `into`, its array or scalar (read as `read_as`) joining the
// operands: a pending array's expression is fused in when there is room, otherwise the array
// is an operand (its owner computes it before the kernel runs).
template <class Handle, class Ref>
expression materialize(const fusion_term<Handle, Ref>& t, dtype read_as, fused_expression<Handle>& into) {
    if (t.built)
        return *t.built;
    if (t.array) {
        if (t.pending)
            if (std::optional<expression> fused = into.fused_in(*t.pending))
                return *fused;
        for (std::size_t k = 0; k < into.operands.size(); ++k)  // an array used twice is one operand
            if (into.operands[k].identity == t.identity)
                return expression::array(static_cast<int>(k), t.how.type);
        return expression::array(into.add_array(Handle(*t.array), t.identity), t.how.type);
    }
    return expression::scalar(into.add_scalar(scalar_bytes(*t.value, read_as)), read_as);
}

// The term of `a <op> b`, in numpy's types, its operands joining `into`. A comparison numpy
// answers from the types alone (uint8 < 1000) is a constant expression of no operands.
template <class Handle, class Ref>
fusion_term<Handle, Ref> combine(binary_op op, const fusion_term<Handle, Ref>& a, const fusion_term<Handle, Ref>& b,
                                 fused_expression<Handle>& into) {
    const binary_types t = resolve_binary(op, a.how, b.how);
    fusion_term<Handle, Ref> r;
    r.shape = broadcast_shapes(a.shape, b.shape);
    r.how = {operand::kind::typed, t.result, {}};
    if (t.constant) {
        r.built = expression::constant(*t.constant);
        return r;
    }
    // A scalar is read in the compute type, except the uint64 side of an exact signed/uint64
    // comparison, which keeps its own.
    const auto read_as = [&](const fusion_term<Handle, Ref>& x) {
        return t.signed_with_uint64 ? x.how.type : t.compute;
    };
    const expression left = materialize(a, read_as(a), into);
    const expression right = materialize(b, read_as(b), into);
    r.built = expression::binary(op, left, right, t);
    return r;
}

// The operators whose results may wait to be fused into the next operator: the arithmetic ones.
// (Fusing everything would make a kernel, compiled once, for every chain a program writes.)
constexpr bool fusable(binary_op op) noexcept {
    return op == binary_op::add || op == binary_op::subtract || op == binary_op::multiply ||
           op == binary_op::true_divide;
}

}  // namespace gpukit::array
