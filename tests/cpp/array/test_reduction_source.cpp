// The generated reduction kernels (gpukit::array::reduction_source, numpy's specs and PyCUDA's
// ReductionKernel), compiled by NVRTC for sm_90 (no GPU needed), their text, and the specs'
// checks.
#include "gpukit/array/reduction.hpp"
#include "gpukit/array/reduction_kernel.hpp"
#include "gpukit/core/error.hpp"
#include "gpukit/rtc/program.hpp"
#include "array_test.hpp"
#include "nvrtc_test.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

#include <set>

namespace {

using namespace gpukit;
using namespace gpukit::array;
using test::contains;
using role = reduction_param_kind;

const dtype reduction_index_types[] = {dtype::int8,  dtype::int16,  dtype::int32,  dtype::int64,
                                       dtype::uint8, dtype::uint16, dtype::uint32, dtype::uint64};

// The variant's source: the strided one over three axes.
std::string source_of(const reduction_spec& spec, reduction_variant v) { return reduction_source(spec, v, 3); }

const reduction_variant variants[] = {reduction_variant::vectorized, reduction_variant::contiguous,
                                      reduction_variant::strided};

// Every operation of every dtype, each dtype in one of the three variants in turn; then
// every variant of every operation for a narrow, a real and a complex dtype.
TEST(ReductionSource, EveryOperationOfEveryDtypeCompiles) {
    GPUKIT_REQUIRE_NVRTC();
    int turn = 0;
    for (dtype t : test::every_dtype) {
        const reduction_variant v = variants[turn++ % 3];
        SCOPED_TRACE(std::string(name(t)));
        for (const reduction_spec* spec :
             {&sum_spec(t), &min_spec(t), &max_spec(t), &any_spec(t), &all_spec(t), &dot_spec(t, t)})
            test::expect_generated_kernel_compiles(source_of(*spec, v));
    }
    for (dtype t : {dtype::int8, dtype::float32, dtype::complex128})
        for (reduction_variant v : variants) {
            SCOPED_TRACE(std::string(name(t)));
            for (const reduction_spec* spec :
                 {&sum_spec(t), &min_spec(t), &max_spec(t), &any_spec(t), &all_spec(t), &dot_spec(t, t)})
                test::expect_generated_kernel_compiles(source_of(*spec, v));
        }
}

// dtype= of sum and dot, and dot of mixed dtypes (complex with real, narrow with wide).
TEST(ReductionSource, ConversionsCompile) {
    GPUKIT_REQUIRE_NVRTC();
    test::expect_generated_kernel_compiles(
        source_of(sum_spec(dtype::int8, dtype::int8), reduction_variant::vectorized));
    test::expect_generated_kernel_compiles(
        source_of(sum_spec(dtype::float32, dtype::complex64), reduction_variant::contiguous));
    test::expect_generated_kernel_compiles(
        source_of(sum_spec(dtype::complex64, dtype::float64), reduction_variant::strided));
    test::expect_generated_kernel_compiles(
        source_of(sum_spec(dtype::float64, dtype::bool_), reduction_variant::vectorized));
    test::expect_generated_kernel_compiles(
        source_of(dot_spec(dtype::complex64, dtype::float64), reduction_variant::vectorized));
    test::expect_generated_kernel_compiles(
        source_of(dot_spec(dtype::bool_, dtype::complex128), reduction_variant::strided));
    test::expect_generated_kernel_compiles(
        source_of(dot_spec(dtype::int8, dtype::uint64, dtype::float32), reduction_variant::contiguous));
}

TEST(ReductionSource, SubsetsCompile) {
    GPUKIT_REQUIRE_NVRTC();
    for (dtype index : reduction_index_types) {
        SCOPED_TRACE(std::string(name(index)));
        test::expect_generated_kernel_compiles(
            source_of(subset_sum_spec(index, dtype::float32, dtype::float32), reduction_variant::vectorized));
    }
    for (dtype t : test::every_dtype) {
        SCOPED_TRACE(std::string(name(t)));
        test::expect_generated_kernel_compiles(
            source_of(subset_min_spec(dtype::int32, t), reduction_variant::contiguous));
        test::expect_generated_kernel_compiles(
            source_of(subset_max_spec(dtype::uint32, t), reduction_variant::strided));
    }
    test::expect_generated_kernel_compiles(
        source_of(subset_sum_spec(dtype::int64, dtype::complex64, dtype::complex64), reduction_variant::strided));
    test::expect_generated_kernel_compiles(
        source_of(subset_dot_spec(dtype::int32, dtype::float32, dtype::complex128, dtype::complex128),
                  reduction_variant::vectorized));
    test::expect_generated_kernel_compiles(
        source_of(subset_dot_spec(dtype::uint8, dtype::int16, dtype::int16, dtype::int16),
                  reduction_variant::contiguous));
}

TEST(ReductionSource, SubsetsNeedIntegerIndices) {
    for (dtype bad : {dtype::bool_, dtype::float32, dtype::complex64}) {
        EXPECT_THROW(subset_sum_spec(bad, dtype::float32, dtype::float32), logic_error);
        EXPECT_THROW(subset_min_spec(bad, dtype::float32), logic_error);
        EXPECT_THROW(subset_max_spec(bad, dtype::float32), logic_error);
        EXPECT_THROW(subset_dot_spec(bad, dtype::float32, dtype::float32, dtype::float32), logic_error);
    }
}

// A spec of the user's: a preamble, the index i, a scalar, two element arrays of different
// types and an output type unlike the accumulator's.
const reduction_spec weighted_dot{"weighted_dot",
                                  {{"a", dtype::int16, role::element},
                                   {"b", dtype::float32, role::element},
                                   {"scale", dtype::float64, role::scalar}},
                                  dtype::float64,
                                  dtype::float32,
                                  "0.0",
                                  "scale * weight(i) * a[i] * b[i]",
                                  "a + b",
                                  "__device__ double weight(long long i) { return (double)(i % 7); }"};

TEST(ReductionSource, UserSpecCompilesInEveryVariant) {
    GPUKIT_REQUIRE_NVRTC();
    for (reduction_variant v : variants)
        test::expect_generated_kernel_compiles(source_of(weighted_dot, v));
    test::expect_generated_kernel_compiles(reduction_source(weighted_dot, reduction_variant::strided, 1));
    test::expect_generated_kernel_compiles(reduction_source(weighted_dot, reduction_variant::strided, 64));
}

TEST(ReductionSource, VectorizedLoadsSixteenBytesOfTheNarrowestElementArray) {
    const std::string source = reduction_source(dot_spec(dtype::int8, dtype::float64), reduction_variant::vectorized);
    EXPECT_TRUE(contains(source, "constexpr int V = 16;"));
    EXPECT_TRUE(contains(source, "gk_load(gk_v_a, gk_p_a + gk_base);"));
    EXPECT_TRUE(contains(source, "gk_load(gk_v_b, gk_p_b + gk_base);"));
    EXPECT_TRUE(contains(source,
                         "dot_stage1(const signed char* gk_p_a, const double* gk_p_b, gk_acc* gk_partial, "
                         "gk_out_t* gk_out, long long gk_start, long long gk_step, long long gk_count)"));
    EXPECT_TRUE(contains(source,
                         "dot_stage2(const signed char* gk_p_a, const double* gk_p_b, const gk_acc* gk_partial, "
                         "gk_out_t* gk_out, int gk_count)"));
    EXPECT_TRUE(
        contains(reduction_source(sum_spec(dtype::float32), reduction_variant::vectorized), "constexpr int V = 4;"));
}

// The contiguous variant, and the strided one over one axis, have no vector loads; they take
// four indices per thread and step, then the rest one by one, each index start + k * step.
// Over more axes (offsets by division) the strided variant takes one at a time.
TEST(ReductionSource, IndexLoopsTakeFourIndicesAtATimeUnlessStridedOverAxes) {
    for (reduction_variant v : {reduction_variant::contiguous, reduction_variant::strided}) {
        const std::string source = reduction_source(sum_spec(dtype::float32), v, 1);
        EXPECT_FALSE(contains(source, "gk_load(gk_v"));
        EXPECT_TRUE(contains(source, "for (; gk_k + 3 * gk_threads < gk_count; gk_k += 4 * gk_threads)"));
        EXPECT_TRUE(contains(source, "const long long gk_i3 = gk_start + (gk_k + 3 * gk_threads) * gk_step;"));
        EXPECT_TRUE(contains(source, "for (; gk_k < gk_count; gk_k += gk_threads)"));
    }
    const std::string strided =
        reduction_source(dot_spec(dtype::float32, dtype::float32), reduction_variant::strided, 3);
    EXPECT_TRUE(contains(strided, "gk_dims<3> gk_shape, gk_dims<6> gk_strides, gk_acc* gk_partial"));
    EXPECT_TRUE(contains(strided, "gk_offsets<3, 2>(gk_i0, gk_shape, gk_strides, gk_o0);"));
    EXPECT_FALSE(contains(strided, "gk_i3"));
    EXPECT_TRUE(contains(strided, "for (; gk_k < gk_count; gk_k += gk_threads)"));
}

TEST(ReductionSource, ParametersAreDeclaredAsGiven) {
    const reduction_spec spec{"k",
                              {{"x", value_type("float", 4), role::pointer, "const float *__restrict__ x"},
                               {"y", dtype::float64, role::pointer},
                               {"c", value_type("float3", 12), role::scalar},
                               {"d", dtype::int32, role::scalar}},
                              dtype::float32,
                              dtype::float32,
                              "0",
                              "x[i] + (float)y[n - 1 - i] + c.x + d",
                              "a + b"};
    const std::string source = reduction_source(spec, reduction_variant::contiguous);
    EXPECT_TRUE(contains(source, "k_stage1(const float *__restrict__ x, const double *y, float3 c, int d, gk_acc* "));
    EXPECT_TRUE(contains(source, "const long long n = gk_count;"));
    EXPECT_TRUE(contains(source, "typedef gk_acc out_type;"));
}

TEST(ReductionSource, ADeclaredNIsTheCallers) {
    const reduction_spec spec{"k",
                              {{"x", dtype::float32, role::pointer}, {"n", dtype::int32, role::scalar}},
                              dtype::float32,
                              dtype::float32,
                              "0",
                              "x[n - 1 - i]",
                              "a + b"};
    EXPECT_FALSE(contains(reduction_source(spec, reduction_variant::contiguous), "const long long n"));
}

TEST(ReductionSource, VariantsNeedWhatTheyRead) {
    const reduction_spec pointers_only{
        "k", {{"x", dtype::float32, role::pointer}}, dtype::float32, dtype::float32, "0", "x[i]", "a + b"};
    EXPECT_NO_THROW(reduction_source(pointers_only, reduction_variant::contiguous));
    EXPECT_THROW(reduction_source(pointers_only, reduction_variant::vectorized), logic_error);
    EXPECT_THROW(reduction_source(pointers_only, reduction_variant::strided), logic_error);
    EXPECT_THROW(reduction_source(weighted_dot, reduction_variant::strided, 0), logic_error);
    EXPECT_THROW(reduction_source(weighted_dot, reduction_variant::strided, 65), logic_error);
}

TEST(ReductionSpecs, FollowNumpy) {
    // sum: numpy's sum() type; accumulated in the widest type of the result's kind.
    EXPECT_EQ(sum_spec(dtype::int8).output().dtype, dtype::int64);
    EXPECT_EQ(sum_spec(dtype::int8).accumulator().dtype, dtype::int64);
    EXPECT_EQ(sum_spec(dtype::bool_).output().dtype, dtype::int64);
    EXPECT_EQ(sum_spec(dtype::uint16).output().dtype, dtype::uint64);
    EXPECT_EQ(sum_spec(dtype::uint16).accumulator().dtype, dtype::uint64);
    EXPECT_EQ(sum_spec(dtype::float32).output().dtype, dtype::float32);
    EXPECT_EQ(sum_spec(dtype::float32).accumulator().dtype, dtype::float64);
    EXPECT_EQ(sum_spec(dtype::complex64).output().dtype, dtype::complex64);
    EXPECT_EQ(sum_spec(dtype::complex64).accumulator().dtype, dtype::complex128);
    EXPECT_EQ(sum_spec(dtype::complex64).accumulator().size, 16u);
    EXPECT_EQ(sum_spec(dtype::float32).empty(), empty_reduction::identity);
    EXPECT_EQ(sum_spec(dtype::int32, dtype::float32).accumulator().dtype, dtype::float64);
    EXPECT_EQ(sum_spec(dtype::int32, dtype::int8).output().dtype, dtype::int8);
    // min and max: the input's type; empty is an error.
    for (dtype t : test::every_dtype) {
        EXPECT_EQ(min_spec(t).output().dtype, t);
        EXPECT_EQ(max_spec(t).accumulator().dtype, t);
        EXPECT_EQ(min_spec(t).empty(), empty_reduction::error);
        EXPECT_EQ(max_spec(t).empty(), empty_reduction::error);
        EXPECT_EQ(any_spec(t).output().dtype, dtype::bool_);
        EXPECT_EQ(all_spec(t).output().dtype, dtype::bool_);
    }
    // dot: the promoted type, accumulated as sum() does.
    EXPECT_EQ(dot_spec(dtype::int32, dtype::float32).output().dtype, dtype::float64);
    EXPECT_EQ(dot_spec(dtype::int8, dtype::uint8).output().dtype, dtype::int16);
    EXPECT_EQ(dot_spec(dtype::int8, dtype::uint8).accumulator().dtype, dtype::int64);
    EXPECT_EQ(dot_spec(dtype::int64, dtype::uint64).output().dtype, dtype::float64);
    EXPECT_EQ(dot_spec(dtype::float32, dtype::complex64).output().dtype, dtype::complex64);
    EXPECT_EQ(dot_spec(dtype::float32, dtype::complex64).accumulator().dtype, dtype::complex128);
    // No conjugation, as numpy.dot.
    EXPECT_FALSE(contains(dot_spec(dtype::complex64, dtype::complex64).map(), "conj"));
    // Subsets: the index array is read as subset[i], the data gathered through it.
    const reduction_spec& subset = subset_dot_spec(dtype::int32, dtype::float32, dtype::float64, dtype::float64);
    ASSERT_EQ(subset.params().size(), 4u);
    EXPECT_EQ(subset.params()[0].kind, role::element);
    EXPECT_EQ(subset.params()[1].kind, role::pointer);
    EXPECT_EQ(subset.params()[2].kind, role::pointer);
    EXPECT_EQ(subset.params()[3].kind, role::scalar);
    EXPECT_EQ(subset.element_arrays(), 1u);
    EXPECT_EQ(subset_min_spec(dtype::uint8, dtype::int16).empty(), empty_reduction::error);
}

// Each spec is made once per dtype combination, with its own key.
TEST(ReductionSpecs, AreMadeOnceWithDistinctKeys) {
    EXPECT_EQ(&sum_spec(dtype::float32), &sum_spec(dtype::float32));
    EXPECT_EQ(&sum_spec(dtype::float32), &sum_spec(dtype::float32, dtype::float32));
    EXPECT_EQ(&dot_spec(dtype::int8, dtype::float32), &dot_spec(dtype::int8, dtype::float32));
    EXPECT_NE(&dot_spec(dtype::int8, dtype::float32), &dot_spec(dtype::float32, dtype::int8));
    std::set<std::uint64_t> keys{weighted_dot.key()};
    std::size_t specs = 1;
    for (dtype t : test::every_dtype) {
        keys.insert({sum_spec(t).key(), min_spec(t).key(), max_spec(t).key(), any_spec(t).key(), all_spec(t).key(),
                     subset_sum_spec(dtype::int32, t, t).key(), subset_min_spec(dtype::int32, t).key(),
                     subset_max_spec(dtype::int32, t).key()});
        specs += 8;
        for (dtype other : test::every_dtype) {
            keys.insert(dot_spec(t, other).key());
            ++specs;
        }
    }
    EXPECT_EQ(keys.size(), specs);
}

TEST(ReductionSpecs, BadSpecsAreRefused) {
    const auto make = [](std::string name, std::vector<reduction_param> params, std::string neutral, std::string map,
                         std::string reduce) {
        return reduction_spec(std::move(name), std::move(params), dtype::float64, dtype::float64, std::move(neutral),
                              std::move(map), std::move(reduce));
    };
    const std::vector<reduction_param> x{{"x", dtype::float32, role::element}};
    EXPECT_NO_THROW(make("ok", x, "0", "x[i]", "a + b"));
    EXPECT_THROW(make("bad name", x, "0", "x[i]", "a + b"), logic_error);
    // No array at all: a reduction over an index range (map "i", PyOpenCL's ReductionKernel
    // with range=), which reduce() refuses without one.
    EXPECT_NO_THROW(make("k", {}, "0", "i", "a + b"));
    EXPECT_NO_THROW(make("k", {{"s", dtype::float32, role::scalar}}, "0", "s", "a + b"));
    // Keywords too: the kernel would fail to compile at its first launch.
    for (const char* bad : {"i", "gk_x", "two words", "", "if", "float", "class", "threadIdx"})
        EXPECT_THROW(make("k", {{bad, dtype::float32, role::pointer}}, "0", "0", "a + b"), logic_error) << bad;
    EXPECT_NO_THROW(make("if", x, "0", "x[i]", "a + b"));  // the kernels are if_stage1 and if_stage2
    EXPECT_THROW(make("k", {{"x", dtype::float32, role::pointer}, {"x", dtype::int32, role::scalar}}, "0", "x[i]",
                      "a + b"),
                 logic_error);  // twice
    EXPECT_THROW(make("k", {{"x", value_type("", 4), role::pointer}}, "0", "x[i]", "a + b"), logic_error);
    EXPECT_THROW(make("k", x, "", "x[i]", "a + b"), logic_error);
    EXPECT_THROW(make("k", x, "0", "", "a + b"), logic_error);
    EXPECT_THROW(make("k", x, "0", "x[i]", ""), logic_error);
    EXPECT_THROW(make("k", x, " \n", "x[i]", "a + b"), logic_error);  // blank
    EXPECT_THROW(make("k", x, "0", "x[i]", "\t"), logic_error);
    EXPECT_THROW(reduction_spec("k", x, value_type("s", 0), dtype::float64, "0", "x[i]", "a + b"), logic_error);
}

// ---- PyCUDA's ReductionKernel

reduction_kernel user_kernel(std::vector<reduction_param> params, value_type out, std::string neutral, std::string map,
                             std::string reduce, std::string preamble = {}) {
    reduction_spec spec("reduce_kernel", std::move(params), out, out, std::move(neutral), std::move(map),
                        std::move(reduce), std::move(preamble));
    return reduction_kernel(std::move(spec), rtc::compile_request{}, std::nullopt);
}

reduction_param pointer(const char* declarator, const char* name, value_type t) {
    return {name, std::move(t), role::pointer, declarator};
}

reduction_param scalar(const char* declarator, const char* name, value_type t) {
    return {name, std::move(t), role::scalar, declarator};
}

// PyCUDA's test_struct_reduce: a struct accumulator with constructors and a volatile
// assignment, built by map and reduce functions of the preamble.
const char* const minmax_collector = R"(
struct minmax_collector {
    float cur_min;
    float cur_max;
    __device__ minmax_collector() {}
    __device__ minmax_collector(float cmin, float cmax) : cur_min(cmin), cur_max(cmax) {}
    __device__ minmax_collector(minmax_collector const &src) : cur_min(src.cur_min), cur_max(src.cur_max) {}
    __device__ minmax_collector(minmax_collector const volatile &src) : cur_min(src.cur_min), cur_max(src.cur_max) {}
    __device__ minmax_collector volatile &operator=(minmax_collector const &src) volatile {
        cur_min = src.cur_min;
        cur_max = src.cur_max;
        return *this;
    }
};
__device__ minmax_collector agg_mmc(minmax_collector a, minmax_collector b) {
    return minmax_collector(fminf(a.cur_min, b.cur_min), fmaxf(a.cur_max, b.cur_max));
}
)";

TEST(ReductionKernelSource, PyCudasExamplesCompile) {
    GPUKIT_REQUIRE_NVRTC();
    const value_type f32 = value_type("float", 4, dtype::float32);
    // Sum of squares; the dot product of PyCUDA's documentation; max(a, b) of CUDA's math.
    test::expect_user_kernel_compiles(
        user_kernel({pointer("float *x", "x", f32)}, f32, "0", "x[i]*x[i]", "a+b").source());
    test::expect_user_kernel_compiles(
        user_kernel({pointer("float *x", "x", f32), pointer("float *y", "y", f32)}, f32, "0", "x[i]*y[i]", "a+b")
            .source());
    test::expect_user_kernel_compiles(
        user_kernel({pointer("const float *in", "in", f32)}, f32, "0", "in[i]", "max(a,b)").source());
    // Arrays called a and b, hidden by the reduce expression's operands.
    test::expect_user_kernel_compiles(
        user_kernel({pointer("const double *a", "a", dtype::float64), pointer("const double *b", "b", dtype::float64)},
                    value_type("double", 8, dtype::float64), "0", "a[i]*b[i]", "a+b")
            .source());
    // A gather through an index array, a scalar and a declared n.
    test::expect_user_kernel_compiles(
        user_kernel({pointer("const unsigned int *lookup_tbl", "lookup_tbl", dtype::uint32),
                     pointer("const float *in", "in", f32), scalar("float scale", "scale", f32),
                     scalar("int n", "n", dtype::int32)},
                    f32, "-3.0f", "scale * in[lookup_tbl[i] % n]", "fmaxf(a, b)")
            .source());
    // The struct accumulator of PyCUDA's test_struct_reduce.
    test::expect_user_kernel_compiles(user_kernel({pointer("float *x", "x", f32)}, value_type("minmax_collector", 8),
                                                  "minmax_collector(10000, -10000)", "minmax_collector(x[i], x[i])",
                                                  "agg_mmc(a, b)", minmax_collector)
                                          .source());
    // pycuda::complex and a CUDA vector type (12 bytes: three words per shuffle).
    const value_type c64("pycuda::complex<float>", 8, dtype::complex64);
    test::expect_user_kernel_compiles(
        user_kernel({pointer("pycuda::complex<float> *z", "z", c64)}, c64, "0", "z[i] * z[i]", "a + b").source());
    test::expect_user_kernel_compiles(user_kernel({pointer("const float3 *v", "v", value_type("float3", 12))},
                                                  value_type("float3", 12), "make_float3(0, 0, 0)", "v[i]",
                                                  "make_float3(a.x + b.x, a.y + b.y, a.z + b.z)")
                                          .source());
    // A 1-byte accumulator.
    test::expect_user_kernel_compiles(user_kernel({pointer("const int *x", "x", dtype::int32)},
                                                  value_type("bool", 1, dtype::bool_), "false", "x[i] != 0", "a || b")
                                          .source());
}

TEST(ReductionKernelSource, IncludesPyCudasComplexHeaderAndUsesTheContiguousLoop) {
    const reduction_kernel k =
        user_kernel({pointer("float *x", "x", dtype::float32)}, dtype::float32, "0", "x[i]*x[i]", "a+b");
    EXPECT_EQ(k.source().rfind("#include <pycuda-complex.hpp>\n", 0), 0u);
    EXPECT_TRUE(contains(k.source(), "reduce_kernel_stage1(float *x, gk_acc* gk_partial"));
    EXPECT_TRUE(contains(k.source(), "reduce_kernel_stage2(float *x, const gk_acc* gk_partial"));
    EXPECT_TRUE(contains(k.source(), "gk_k += 4 * gk_threads"));
}

TEST(ReductionKernelSource, ElementArraysAreRefused) {
    EXPECT_THROW(user_kernel({{"x", dtype::float32, role::element}}, dtype::float32, "0", "x[i]", "a+b"), logic_error);
}

TEST(ReductionSpecFor, NumpysDefaultsAndRefusals) {
    EXPECT_EQ(reduction_op_from_name("dot"), reduction_op::dot);
    EXPECT_THROW(reduction_op_from_name("mean"), std::invalid_argument);
    EXPECT_EQ(*reduction_spec_for(reduction_op::sum, "sum", dtype::int8, {}, {}, {}).output().dtype, dtype::int64);
    EXPECT_EQ(*reduction_spec_for(reduction_op::sum, "sum", dtype::float32, {}, {}, {}).output().dtype, dtype::float32);
    EXPECT_EQ(*reduction_spec_for(reduction_op::sum, "sum", dtype::int8, {}, {}, dtype::float64).output().dtype,
              dtype::float64);
    EXPECT_EQ(*reduction_spec_for(reduction_op::dot, "dot", dtype::float32, dtype::int8, {}, {}).output().dtype,
              dtype::float32);
    EXPECT_EQ(&reduction_spec_for(reduction_op::max, "max", dtype::uint16, {}, {}, {}), &max_spec(dtype::uint16));
    EXPECT_EQ(&reduction_spec_for(reduction_op::min, "subset_min", dtype::float64, {}, dtype::int32, {}),
              &subset_min_spec(dtype::int32, dtype::float64));
    EXPECT_THROW(reduction_spec_for(reduction_op::dot, "dot", dtype::float32, {}, {}, {}), logic_error);
    EXPECT_THROW(reduction_spec_for(reduction_op::sum, "sum", dtype::float32, dtype::float32, {}, {}), logic_error);
    EXPECT_THROW(reduction_spec_for(reduction_op::max, "max", dtype::float32, {}, {}, dtype::float64), logic_error);
    EXPECT_THROW(reduction_spec_for(reduction_op::any, "any", dtype::float32, {}, dtype::int32, {}), logic_error);
}

}  // namespace
