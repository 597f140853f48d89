// gpukit.curandom's compiled half: rand() over Philox, cuRAND's generators (the C++ base
// class _RandomGenerator of the Python generator classes), cuRAND's tables and version.
// Each call is one crossing; arrays come in as _Array objects and results are new GPUArrays
// from the default pool.
#include "array/array_object.hpp"
#include "common/int_args.hpp"
#include "common/layout_args.hpp"
#include "common/memory_args.hpp"
#include "common/path_args.hpp"
#include "common/stub_types.hpp"

#include "gpukit/cuda/copy.hpp"
#include "gpukit/random/curand_headers.hpp"
#include "gpukit/random/curand_library.hpp"
#include "gpukit/random/generator.hpp"
#include "gpukit/random/philox.hpp"

#include <nanobind/stl/string.h>

#include <cmath>
#include <optional>
#include <string>

namespace gpukit::python {

using namespace nb::literals;
using random::generator;
using random::generator_kind;

namespace {

generator_kind generator_kind_from(const std::string& kind) {
    for (auto k : {generator_kind::xorwow, generator_kind::mrg32k3a, generator_kind::sobol32,
                   generator_kind::scrambled_sobol32, generator_kind::sobol64, generator_kind::scrambled_sobol64})
        if (kind == random::name(k))
            return k;
    throw nb::value_error(("unknown generator kind " + kind).c_str());
}

// The _Array object `obj`, settled; TypeError naming `what` for anything else.
array_object& gpuarray_arg(nb::handle obj, const std::string& what) {
    if (!nb::isinstance<array_object>(obj))
        throw nb::type_error((what + " must be a GPUArray, got " + nb::cast<std::string>(nb::str(obj.type()))).c_str());
    return settled(obj);
}

// What new arrays are made like: the default pool, no stream (as gpuarray.empty(shape, dtype)).
array_object plain_array() {
    array_object a;
    a.allocator = nb::none();
    a.stream = nb::none();
    return a;
}

// A new, uninitialised GPUArray of `shape` and `dtype`; TypeError for a dtype without kernels.
nb::object new_result(const shape_arg& shape, nb::handle dtype, const char* what) {
    const std::vector<std::int64_t> extents = shape_of(shape, what);
    const nb::object numpy_type = as_numpy_dtype(dtype);
    const std::optional<array::dtype> type = kernel_type(numpy_type);
    if (!type)
        throw nb::type_error(
            (std::string(what) + ": dtype " + nb::cast<std::string>(nb::str(numpy_type)) + " is not supported")
                .c_str());
    return new_array(extents, *type, plain_array());
}

// The stream a call on `a` runs on: `stream`, else the array's own.
cuda::stream_view stream_for(nb::handle stream, const array_object& a) {
    return stream.is_none() ? stream_of(a) : stream_arg(stream);
}

// Runs `fill(generator, ndarray, stream)` on the GPUArray `data`, without the GIL.
template <class Fill>
void fill_array(generator& g, nb::handle data, nb::handle stream, const char* method, Fill fill) {
    array_object& a = gpuarray_arg(data, std::string(method) + "(data)");
    require_kernel_type(a, method);
    const array::ndarray out = as_ndarray(a);
    const cuda::stream_view s = stream_for(stream, a);
    release_gil unlocked;
    fill(g, out, s);
}

// The same on a new array of `shape` and `dtype`, which is returned.
template <class Fill>
python_type<"gpukit.gpuarray.GPUArray"> generate(generator& g, const shape_arg& shape, nb::handle dtype,
                                                 nb::handle stream, const char* method, Fill fill) {
    nb::object result = new_result(shape, dtype, method);
    fill_array(g, result, stream, method, fill);
    return result;
}

double real_arg(nb::handle value, const char* what) {
    if (!PyFloat_Check(value.ptr()) && !PyLong_Check(value.ptr()) && !PyObject_HasAttrString(value.ptr(), "__float__"))
        throw nb::type_error(
            (std::string(what) + " must be a real number, got " + nb::cast<std::string>(nb::str(value.type())))
                .c_str());
    return nb::cast<double>(nb::float_(value));
}

// generator::seeded with seed_getter(count) as the seeds, called once the generator knows
// its count (with the GIL, which is released while the generator is made).
generator make_seeded(generator_kind kind, nb::handle seed_getter, std::uint64_t offset) {
    const std::string what = std::string(random::name(kind)) + "RandomNumberGenerator";
    nb::object seeds;  // keeps the seeds' memory while the generator is made
    const generator::seed_source source = [&](long long count) {
        nb::gil_scoped_acquire gil;
        seeds = seed_getter(count);
        if (!nb::isinstance<array_object>(seeds))
            throw nb::type_error((what + ": seed_getter(" + std::to_string(count) + ") must return a GPUArray of " +
                                  std::to_string(count) + " int32 seeds, got " +
                                  nb::cast<std::string>(nb::str(seeds.type())))
                                     .c_str());
        array_object& a = settled(seeds);
        require_kernel_type(a, (what + " seeds").c_str());
        return as_ndarray(a);
    };
    release_gil unlocked;
    return generator::seeded(kind, source, offset);
}

std::optional<array::ndarray> optional_array(nb::handle obj, const std::string& what) {
    if (obj.is_none())
        return std::nullopt;
    array_object& a = gpuarray_arg(obj, what);
    require_kernel_type(a, what.c_str());
    return as_ndarray(a);
}

generator make_sobol(generator_kind kind, nb::handle dir_vector, nb::handle scramble_vector, std::uint64_t offset) {
    const std::string what = std::string(random::name(kind)) + "RandomNumberGenerator";
    const std::optional<array::ndarray> vectors = optional_array(dir_vector, what + "(dir_vector)");
    const std::optional<array::ndarray> scramble = optional_array(scramble_vector, what + "(scramble_vector)");
    release_gil unlocked;
    return generator::sobol(kind, vectors, scramble, offset);
}

// A new GPUArray of `shape` holding `host` (whose element type is `type`).
template <class T>
nb::object uploaded(const std::vector<T>& host, std::vector<std::int64_t> shape, array::dtype type) {
    nb::object result = new_array(shape, type, plain_array());
    if (!host.empty()) {
        const CUdeviceptr address = settled(result).data();
        release_gil unlocked;
        cuda::memcpy_htod(address, host.data(), host.size() * sizeof(T));
    }
    return result;
}

}  // namespace

void bind_random(nb::module_& m) {
    m.def(
        "_curand_rand",
        [](shape_arg shape, nb::handle dtype, nb::handle stream, double seed) {
            const nb::object numpy_type = as_numpy_dtype(dtype);
            const std::optional<array::dtype> type = kernel_type(numpy_type);
            if (!type || !random::rand_supports(*type))
                throw nb::type_error(("rand: dtype " + nb::cast<std::string>(nb::str(numpy_type)) +
                                      " is not supported; " + std::string(random::rand_dtypes()))
                                         .c_str());
            nb::object result = new_result(shape, numpy_type, "rand");
            array_object& a = settled(result);
            // The seed, uniform in [0, 1), carries 53 random bits: they are the key.
            if (!(seed >= 0 && seed < 1))
                throw nb::value_error("_curand_rand: the seed must be in [0, 1)");
            const auto key = static_cast<std::uint64_t>(std::ldexp(seed, 53));
            const array::ndarray out = as_ndarray(a);
            const cuda::stream_view s = stream_arg(stream);
            release_gil unlocked;
            random::fill_rand(out, key, s);
            return result;
        },
        "shape"_a, "dtype"_a, "stream"_a.none(), "seed"_a,
        "rand(shape, dtype, stream) filled from Philox4x32-10 under the key seed * 2**53 (seed in [0, 1)).");

    m.def(
        "_curand_version",
        []() -> nb::object {
            const auto version = random::curand_version();
            if (!version)
                return nb::none();
            return nb::make_tuple((*version)[0], (*version)[1], (*version)[2]);
        },
        "cuRAND's (major, minor, patch): its headers', else its library's; None when neither is found.");

    m.def(
        "_curand_library_path", [] { return path_text(random::curand_library_file()); },
        "The file of the cuRAND library in use, links resolved; RuntimeError when none can be loaded.");
    m.def(
        "_curand_library_version",
        []() -> nb::typed<nb::tuple, int, int, int> {
            const auto version = random::curand_library_version();
            return nb::make_tuple(version[0], version[1], version[2]);
        },
        "cuRAND's library (major, minor, patch); RuntimeError when it cannot be loaded.");
    m.def(
        "_curand_headers",
        []() -> nb::object {
            const auto headers = random::find_curand_headers();
            if (!headers)
                return nb::none();
            nb::object version = nb::none();
            if (headers->version)
                version = nb::make_tuple((*headers->version)[0], (*headers->version)[1], (*headers->version)[2]);
            return nb::make_tuple(headers->include_dir, version);
        },
        "(directory holding curand_kernel.h, its (major, minor, patch) or None); None when not found.");

    m.def(
        "_curand_direction_vectors",
        [](int_arg<std::size_t> count_arg, int set_value) {
            const std::size_t count = count_arg.get("generate_direction_vectors(count)");
            const auto set = static_cast<random::direction_vector_set>(set_value);
            const auto rows = static_cast<std::int64_t>(count);
            if (random::is_64_bit(set))
                return uploaded(random::direction_vectors64(set, count), {rows, 64}, array::dtype::uint64);
            return uploaded(random::direction_vectors32(set, count), {rows, 32}, array::dtype::uint32);
        },
        "count"_a.none(), "direction"_a, "cuRAND's direction vectors of `count` dimensions as a GPUArray.");

    m.def(
        "_curand_scramble_constants",
        [](int_arg<std::size_t> count_arg, int bits) {
            const std::size_t count = count_arg.get(bits == 64 ? "generate_scramble_constants64(count)"
                                                               : "generate_scramble_constants32(count)");
            const std::vector<std::int64_t> shape = {static_cast<std::int64_t>(count)};
            if (bits == 64)
                return uploaded(random::scramble_constants64(count), shape, array::dtype::uint64);
            return uploaded(random::scramble_constants32(count), shape, array::dtype::uint32);
        },
        "count"_a.none(), "bits"_a, "cuRAND's scramble constants of `count` dimensions as a GPUArray.");

    nb::class_<generator> cls(m, "_RandomGenerator",
                              "A cuRAND generator in device memory (random/generator.hpp); curandom's classes "
                              "derive from it.");
    cls.def(
        "__init__",
        [](generator* self, const std::string& kind_name, nb::handle seeds_or_vectors, nb::handle scramble_vector,
           int_arg<std::uint64_t> offset_arg) {
            const generator_kind kind = generator_kind_from(kind_name);
            const std::uint64_t offset = offset_arg.get("offset");
            if (random::is_quasi(kind))
                new (self) generator(make_sobol(kind, seeds_or_vectors, scramble_vector, offset));
            else
                new (self) generator(make_seeded(kind, seeds_or_vectors, offset));
        },
        "kind"_a, "seed_getter_or_dir_vector"_a.none(), "scramble_vector"_a.none(), "offset"_a.none());

    cls.def_prop_ro(
        "generators_per_block", [](const generator& g) { return g.shape().generators_per_block; },
        "Threads (generator states) per block.");
    cls.def_prop_ro(
        "block_count", [](const generator& g) { return g.shape().block_count; },
        "Blocks of generators; block_count * generators_per_block states in all.");
    cls.def_prop_ro(
        "state", [](generator& g) -> cuda::device_allocation& { return g.state(); }, nb::rv_policy::reference_internal,
        "The states' device memory (cuRAND's state type, one per generator); the generator owns it.");

    // Each fill once, for fill_* (into `data`) and gen_* (into a new array).
    const auto uniform = [](generator& gen, const array::ndarray& out, cuda::stream_view s) {
        gen.fill_uniform(out, s);
    };
    const auto normal = [](generator& gen, const array::ndarray& out, cuda::stream_view s) { gen.fill_normal(out, s); };
    const auto log_normal = [](double mean, double stddev) {
        return [=](generator& gen, const array::ndarray& out, cuda::stream_view s) {
            gen.fill_log_normal(out, mean, stddev, s);
        };
    };
    const auto poisson = [](std::optional<double> lambda) {
        return
            [=](generator& gen, const array::ndarray& out, cuda::stream_view s) { gen.fill_poisson(out, lambda, s); };
    };

    cls.def(
        "fill_uniform",
        [uniform](generator& g, nb::handle data, nb::handle stream) {
            fill_array(g, data, stream, "fill_uniform", uniform);
        },
        "data"_a.none(), "stream"_a.none() = nb::none(),
        "Fill `data` with uniform numbers in (0, 1] (random bits for integers).");
    cls.def(
        "gen_uniform",
        [uniform](generator& g, shape_arg shape, nb::handle dtype, nb::handle stream) {
            return generate(g, shape, dtype, stream, "gen_uniform", uniform);
        },
        "shape"_a, "dtype"_a, "stream"_a.none() = nb::none(), "A new array filled by fill_uniform.");
    cls.def(
        "fill_normal",
        [normal](generator& g, nb::handle data, nb::handle stream) {
            fill_array(g, data, stream, "fill_normal", normal);
        },
        "data"_a.none(), "stream"_a.none() = nb::none(), "Fill `data` with standard normal numbers.");
    cls.def(
        "gen_normal",
        [normal](generator& g, shape_arg shape, nb::handle dtype, nb::handle stream) {
            return generate(g, shape, dtype, stream, "gen_normal", normal);
        },
        "shape"_a, "dtype"_a, "stream"_a.none() = nb::none(), "A new array filled by fill_normal.");
    cls.def(
        "fill_log_normal",
        [log_normal](generator& g, nb::handle data, nb::handle mean, nb::handle stddev, nb::handle stream) {
            fill_array(g, data, stream, "fill_log_normal",
                       log_normal(real_arg(mean, "fill_log_normal(mean)"),
                                  real_arg(stddev, "fill_log_normal(stddev)")));
        },
        "data"_a.none(), "mean"_a.none(), "stddev"_a.none(), "stream"_a.none() = nb::none(),
        "Fill `data` with exp(mean + stddev * a standard normal number).");
    cls.def(
        "gen_log_normal",
        [log_normal](generator& g, shape_arg shape, nb::handle dtype, nb::handle mean, nb::handle stddev,
                     nb::handle stream) {
            return generate(g, shape, dtype, stream, "gen_log_normal",
                            log_normal(real_arg(mean, "gen_log_normal(mean)"),
                                       real_arg(stddev, "gen_log_normal(stddev)")));
        },
        "shape"_a, "dtype"_a, "mean"_a.none(), "stddev"_a.none(), "stream"_a.none() = nb::none(),
        "A new array filled by fill_log_normal.");
    cls.def(
        "fill_poisson",
        [poisson](generator& g, nb::handle data, nb::handle lambda, nb::handle stream) {
            fill_array(g, data, stream, "fill_poisson",
                       poisson(lambda.is_none()
                                   ? std::nullopt
                                   : std::optional<double>(real_arg(lambda, "fill_poisson(lambda_value)"))));
        },
        "data"_a.none(), "lambda_value"_a.none() = nb::none(), "stream"_a.none() = nb::none(),
        "Fill `data` with Poisson numbers of mean lambda_value, or of each element's own value as its mean "
        "when lambda_value is None.");
    cls.def(
        "gen_poisson",
        [poisson](generator& g, shape_arg shape, nb::handle dtype, nb::handle lambda, nb::handle stream) {
            return generate(g, shape, dtype, stream, "gen_poisson",
                            poisson(real_arg(lambda, "gen_poisson(lambda_value)")));
        },
        "shape"_a, "dtype"_a, "lambda_value"_a.none(), "stream"_a.none() = nb::none(),
        "A new array filled by fill_poisson with mean lambda_value.");

    // The skip-ahead calls: a count for every generator, or an array of one per generator.
    // The sequence calls are bound with a leading underscore: the Python classes of XORWOW
    // and MRG32k3a offer them under PyCUDA's names (`name` without it, used in messages).
    using skip_by_count = void (generator::*)(std::uint64_t, cuda::stream_view);
    using skip_by_array = void (generator::*)(const array::ndarray&, cuda::stream_view);
    const auto def_skip = [&cls](const char* bound_name, const char* name, const char* bound_array_name,
                                 const char* array_name, skip_by_count by_count, skip_by_array by_array,
                                 const char* doc) {
        cls.def(
            bound_name,
            [name, by_count](generator& g, int_arg<std::uint64_t> i, nb::handle stream) {
                const std::uint64_t n = i.get(name);
                const cuda::stream_view s = stream_arg(stream);
                release_gil unlocked;
                (g.*by_count)(n, s);
            },
            "i"_a.none(), "stream"_a.none() = nb::none(), doc);
        cls.def(
            bound_array_name,
            [array_name, by_array](generator& g, nb::handle i, nb::handle stream) {
                array_object& a = gpuarray_arg(i, std::string(array_name) + "(i)");
                require_kernel_type(a, array_name);
                const array::ndarray counts = as_ndarray(a);
                const cuda::stream_view s = stream_arg(stream);
                release_gil unlocked;
                (g.*by_array)(counts, s);
            },
            "i"_a.none(), "stream"_a.none() = nb::none(), "The same with one count per generator in the GPUArray i.");
    };
    def_skip("call_skip_ahead", "call_skip_ahead", "call_skip_ahead_array", "call_skip_ahead_array",
             &generator::skip_ahead, &generator::skip_ahead,
             "Every generator skips i draws, as if it had made and dropped them.");
    def_skip("_call_skip_ahead_sequence", "call_skip_ahead_sequence", "_call_skip_ahead_sequence_array",
             "call_skip_ahead_sequence_array", &generator::skip_ahead_sequence, &generator::skip_ahead_sequence,
             "Every generator skips i sequences (XORWOW: 2^67 draws, MRG32k3a: 2^127).");
    def_skip("_call_skip_ahead_subsequence", "call_skip_ahead_subsequence", "_call_skip_ahead_subsequence_array",
             "call_skip_ahead_subsequence_array", &generator::skip_ahead_subsequence,
             &generator::skip_ahead_subsequence, "Every generator skips i subsequences of 2^76 draws (MRG32k3a).");
}

}  // namespace gpukit::python
