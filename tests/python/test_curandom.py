"""gpukit.curandom (PyCUDA's pycuda.curandom): rand against a numpy Philox4x32-10, and
cuRAND's generators by their statistics (mean, variance, a Kolmogorov-Smirnov statistic
computed here), their reproducibility and skip-ahead, the Sobol points by their definition,
and what bad input gets. The CPU tests check the API, the references the GPU tests use, and
the errors raised before a device is touched; the kernels themselves are compiled for sm_90
by tests/cpp/random/test_random.cpp."""

import ctypes
import gc
import inspect
import math

import numpy as np
import pytest

import gpukit.curandom as curandom
import gpukit.driver as drv
import gpukit.gpuarray as gpuarray

SIZES = [0, 1, 1000, 1025, 2**20 + 3]
GENERATORS = {
    "XORWOW": curandom.XORWOWRandomNumberGenerator,
    "MRG32k3a": curandom.MRG32k3aRandomNumberGenerator,
    "Sobol32": curandom.Sobol32RandomNumberGenerator,
    "ScrambledSobol32": curandom.ScrambledSobol32RandomNumberGenerator,
    "Sobol64": curandom.Sobol64RandomNumberGenerator,
    "ScrambledSobol64": curandom.ScrambledSobol64RandomNumberGenerator,
}
PSEUDO = ["XORWOW", "MRG32k3a"]
SOBOL = ["Sobol32", "ScrambledSobol32", "Sobol64", "ScrambledSobol64"]

needs_curand_headers = pytest.mark.skipif(
    curandom.get_curand_version() is None, reason="cuRAND is not installed (no headers, no library)"
)


# ---- references: Philox4x32-10, the KS statistic, distribution functions

MASK32 = np.uint64(0xFFFFFFFF)


def philox4x32_10(counters, key):
    """Philox4x32-10 of the counters (c, 0) (c: uint64 array, split into two words) under the
    64-bit key: an array of shape counters.shape + (4,) of uint32 words."""
    c = np.asarray(counters, dtype=np.uint64)
    c0, c1 = c & MASK32, c >> np.uint64(32)
    c2 = c3 = np.zeros_like(c)
    k0, k1 = np.uint64(key & 0xFFFFFFFF), np.uint64(key >> 32)
    for _ in range(10):
        p0, p1 = np.uint64(0xD2511F53) * c0, np.uint64(0xCD9E8D57) * c2
        c0, c1, c2, c3 = (p1 >> np.uint64(32)) ^ c1 ^ k0, p1 & MASK32, (p0 >> np.uint64(32)) ^ c3 ^ k1, p0 & MASK32
        k0, k1 = (k0 + np.uint64(0x9E3779B9)) & MASK32, (k1 + np.uint64(0xBB67AE85)) & MASK32
    return np.stack([c0, c1, c2, c3], axis=-1).astype(np.uint32)


def expected_rand(n, dtype, key):
    """What rand gives for n elements of dtype under key (include/gpukit/random/philox.hpp)."""
    dtype = np.dtype(dtype)
    per_block = 2 if dtype == np.float64 else 4
    words = philox4x32_10(np.arange((n + per_block - 1) // per_block, dtype=np.uint64), key)
    if dtype == np.float64:
        pairs = words.reshape(-1, 2, 2).astype(np.uint64)
        bits = ((pairs[..., 0] << np.uint64(32)) | pairs[..., 1]) >> np.uint64(11)
        return (bits.astype(np.float64) * 2.0**-53).reshape(-1)[:n]
    if dtype == np.float32:
        return ((words >> np.uint32(8)).astype(np.float32) * np.float32(2.0**-24)).reshape(-1)[:n]
    return words.reshape(-1)[:n].view(dtype)


def rand_key(seed):
    """The key rand uses after np.random.seed(seed)."""
    return int(np.random.RandomState(seed).random_sample() * 2**53)


def ks_statistic(samples, cdf):
    """The Kolmogorov-Smirnov distance between the samples' empirical distribution and `cdf`."""
    x = np.sort(np.asarray(samples, dtype=np.float64).ravel())
    n = x.size
    f = cdf(x)
    return max(np.max(np.arange(1, n + 1) / n - f), np.max(f - np.arange(n) / n))


def ks_bound(n, alpha=1e-6):
    """The KS distance that n samples of the distribution exceed with probability alpha."""
    return math.sqrt(-math.log(alpha / 2) / (2 * n))


def uniform_cdf(x):
    return np.clip(x, 0.0, 1.0)


_erf = np.frompyfunc(math.erf, 1, 1)


def normal_cdf(x, mean=0.0, stddev=1.0):
    return 0.5 * (1.0 + _erf((x - mean) / (stddev * math.sqrt(2.0))).astype(np.float64))


def sobol_points(vectors, count, scramble=0, offset=0):
    """The first `count` points (after `offset`) of one Sobol dimension with these direction
    vectors, in gray-code order as cuRAND gives them: point i is the scramble constant XOR
    the vectors of the bits set in gray(i)."""
    word = np.uint64 if vectors.dtype == np.uint64 else np.uint32
    points = []
    for i in range(offset, offset + count):
        gray, x, k = i ^ (i >> 1), word(scramble), 0
        while gray:
            if gray & 1:
                x ^= vectors[k]
            gray >>= 1
            k += 1
        points.append(x)
    return np.array(points, dtype=word)


# ---- CPU: the references


def test_philox_reference_gives_random123s_known_answers():
    assert philox4x32_10([0], 0).tolist() == [[0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8]]
    # The counter (c0, c1) = (0xffffffff, 0xffffffff) with zero high words, checked against
    # a direct evaluation of the rounds in Python integers.
    c, k = [0xFFFFFFFF, 0xFFFFFFFF, 0, 0], [0x12345678, 0x9ABCDEF0]
    for _ in range(10):
        p0, p1 = 0xD2511F53 * c[0], 0xCD9E8D57 * c[2]
        c = [(p1 >> 32) ^ c[1] ^ k[0], p1 & 0xFFFFFFFF, (p0 >> 32) ^ c[3] ^ k[1], p0 & 0xFFFFFFFF]
        k = [(k[0] + 0x9E3779B9) & 0xFFFFFFFF, (k[1] + 0xBB67AE85) & 0xFFFFFFFF]
    assert philox4x32_10([2**64 - 1], 0x9ABCDEF012345678).tolist() == [c]


def test_expected_rand_layout():
    words = philox4x32_10([0, 1], 5)
    f = expected_rand(7, np.float32, 5)
    assert f.dtype == np.float32 and f.shape == (7,)
    assert f[5] == np.float32((int(words[1, 1]) >> 8) * 2.0**-24)
    d = expected_rand(3, np.float64, 5)
    assert d[1] == ((int(words[0, 2]) << 32 | int(words[0, 3])) >> 11) * 2.0**-53
    assert expected_rand(5, np.int32, 5)[4] == np.uint32(words[1, 0]).view(np.int32)


def test_ks_statistic_tells_a_distribution_from_another():
    rng = np.random.default_rng(5)
    n = 200000
    assert ks_statistic(rng.random(n), uniform_cdf) < ks_bound(n)
    assert ks_statistic(rng.random(n) ** 1.1, uniform_cdf) > ks_bound(n)
    assert ks_statistic(rng.standard_normal(n), normal_cdf) < ks_bound(n)
    assert ks_statistic(rng.standard_normal(n) * 1.05, normal_cdf) > ks_bound(n)
    assert ks_statistic(rng.normal(2.0, 0.5, n), lambda x: normal_cdf(x, 2.0, 0.5)) < ks_bound(n)


def test_sobol_reference_is_the_gray_code_sequence():
    # Dimension 1: the van der Corput sequence in gray-code order.
    vectors = np.array([1 << (31 - k) for k in range(32)], dtype=np.uint32)
    assert (sobol_points(vectors, 5) / 2.0**32).tolist() == [0.0, 0.5, 0.75, 0.25, 0.375]
    assert sobol_points(vectors, 2, scramble=1, offset=3).tolist() == [(1 << 30) ^ 1, (3 << 29) ^ 1]


# ---- CPU: the API and what is refused before a device is touched


def test_the_api_is_pycudas():
    assert curandom.rand.__defaults__ == (np.float32, None)
    assert list(inspect.signature(curandom.rand).parameters) == ["shape", "dtype", "stream"]
    for name in ("XORWOW", "MRG32k3a"):
        assert list(inspect.signature(GENERATORS[name]).parameters) == ["seed_getter", "offset"]
        assert GENERATORS[name].has_box_muller
    for name in ("Sobol32", "Sobol64"):
        assert list(inspect.signature(GENERATORS[name]).parameters) == ["dir_vector", "offset"]
    for name in ("ScrambledSobol32", "ScrambledSobol64"):
        assert list(inspect.signature(GENERATORS[name]).parameters) == ["dir_vector", "scramble_vector", "offset"]
    for cls in GENERATORS.values():
        for method in (
            "fill_uniform",
            "fill_normal",
            "fill_log_normal",
            "fill_poisson",
            "gen_uniform",
            "gen_normal",
            "gen_log_normal",
            "gen_poisson",
            "call_skip_ahead",
            "call_skip_ahead_array",
            "state",
            "generators_per_block",
            "block_count",
        ):
            assert hasattr(cls, method), (cls, method)
    sequences = ("call_skip_ahead_sequence", "call_skip_ahead_sequence_array")
    subsequences = ("call_skip_ahead_subsequence", "call_skip_ahead_subsequence_array")
    for name, cls in GENERATORS.items():
        assert all(hasattr(cls, m) for m in sequences) == (name in PSEUDO)
        assert all(hasattr(cls, m) for m in subsequences) == (name == "MRG32k3a")
    assert [int(v) for v in curandom.direction_vector_set] == [101, 102, 103, 104]
    assert curandom.generate_direction_vectors.__defaults__ == (curandom.direction_vector_set.VECTOR_32,)
    for name in (
        "seed_getter_uniform",
        "seed_getter_unique",
        "generate_scramble_constants32",
        "generate_scramble_constants64",
        "get_curand_version",
    ):
        assert callable(getattr(curandom, name))


def test_pycuda_compat_aliases_curandom():
    from conftest import run_in_fresh_process

    out = run_in_fresh_process("""
        import gpukit.pycuda_compat
        import pycuda.curandom, gpukit.curandom
        from pycuda.curandom import rand, XORWOWRandomNumberGenerator
        print(pycuda.curandom is gpukit.curandom, rand is gpukit.curandom.rand)
        """)
    assert out.split() == ["True", "True"]


@needs_curand_headers
def test_curand_version_is_the_headers():
    version = curandom.get_curand_version()
    assert isinstance(version, tuple) and len(version) == 3 and all(isinstance(v, int) for v in version)
    assert version >= (5, 0, 0)  # PyCUDA's test asks for this to test Poisson numbers


@pytest.mark.parametrize("dtype", [np.float16, np.int64, np.uint8, np.complex64, np.bool_, "V8"])
def test_rand_refuses_other_dtypes(dtype):
    with pytest.raises(TypeError, match="rand: dtype .* is not supported; expected float32, float64"):
        curandom.rand(10, dtype)


def test_rand_refuses_bad_shapes_and_keywords():
    with pytest.raises(TypeError):
        curandom.rand((3,), np.float32, None, 1)
    with pytest.raises(TypeError):
        curandom.rand((3,), seed=1)
    with pytest.raises((TypeError, ValueError)):
        curandom.rand((2.5,))
    with pytest.raises(ValueError):
        curandom.rand((-1, 2))


def test_generators_refuse_unknown_keywords():
    with pytest.raises(TypeError):
        curandom.XORWOWRandomNumberGenerator(seed=1)
    with pytest.raises(TypeError):
        curandom.Sobol32RandomNumberGenerator(scramble_vector=None)


def test_direction_vector_set_must_be_one_of_curands():
    with pytest.raises(ValueError):
        curandom.generate_direction_vectors(4, 7)


def test_arguments_refused_before_a_device_is_touched():
    with pytest.raises(drv.LogicError, match="offset: expected an integer from 0"):
        curandom.XORWOWRandomNumberGenerator(offset=-1)
    with pytest.raises(TypeError, match="offset"):
        curandom.MRG32k3aRandomNumberGenerator(offset=1.5)
    with pytest.raises(TypeError, match=r"Sobol32RandomNumberGenerator\(dir_vector\) must be a GPUArray"):
        curandom.Sobol32RandomNumberGenerator(dir_vector=np.zeros((10, 32), np.uint32))
    with pytest.raises(TypeError, match=r"scramble_vector\) must be a GPUArray"):
        curandom.ScrambledSobol64RandomNumberGenerator(scramble_vector=[1, 2, 3])
    with pytest.raises(drv.LogicError, match=r"generate_direction_vectors\(count\): expected an integer from 0"):
        curandom.generate_direction_vectors(-1)


@pytest.mark.parametrize("name", ["XORWOWRandomNumberGenerator", "Sobol32RandomNumberGenerator"])
def test_without_a_context_generators_fail_before_compiling(name, tmp_path, monkeypatch):
    # Compiling cuRAND's headers takes tens of seconds with a cold cache; without a device or a
    # current context that was all spent before the error.
    try:
        current = drv.Context.get_current()
    except drv.Error:  # no driver, or no device
        current = None
    if current is not None:
        pytest.skip("a context is current")
    monkeypatch.setenv("GPUKIT_CACHE_DIR", str(tmp_path))
    with pytest.raises(drv.Error, match="libcuda|context"):
        getattr(curandom, name)()
    assert list(tmp_path.iterdir()) == []


@needs_curand_headers
def test_curands_tables_have_20000_dimensions():
    with pytest.raises(drv.LogicError, match="cuRAND's tables have 20000 dimensions, asked for 20001"):
        curandom.generate_direction_vectors(20001, curandom.direction_vector_set.VECTOR_64)
    with pytest.raises(drv.LogicError, match="20000 dimensions"):
        curandom.generate_scramble_constants32(20001)


# ---- GPU: rand


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.uint32])
@pytest.mark.parametrize("n", SIZES)
def test_rand_is_philox_under_numpys_seed(pool_ctx, dtype, n):
    np.random.seed(1234)
    a = curandom.rand((n,), dtype)
    assert isinstance(a, gpuarray.GPUArray) and a.shape == (n,) and a.dtype == dtype
    np.testing.assert_array_equal(a.get(), expected_rand(n, dtype, rand_key(1234)))


@pytest.mark.gpu
def test_rand_shapes_and_repeats(pool_ctx):
    np.random.seed(7)
    a = curandom.rand((3, 5, 7))
    np.random.seed(7)
    b = curandom.rand((3, 5, 7))
    assert a.shape == (3, 5, 7) and a.dtype == np.float32
    np.testing.assert_array_equal(a.get(), b.get())
    np.testing.assert_array_equal(a.get().ravel(), expected_rand(105, np.float32, rand_key(7)))
    assert not np.array_equal(curandom.rand((3, 5, 7)).get(), a.get())  # the next call, the next key
    assert curandom.rand(np.int64(4)).shape == (4,)
    stream = drv.Stream()
    c = curandom.rand(1000, np.float64, stream=stream)
    stream.synchronize()
    assert c.shape == (1000,) and ((0 <= c.get()) & (c.get() < 1)).all()


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_rand_is_uniform_in_0_1(pool_ctx, dtype):
    np.random.seed(99)
    x = curandom.rand(2**22 + 1, dtype).get()
    assert x.min() >= 0 and x.max() < 1
    assert abs(x.mean() - 0.5) < 5 * math.sqrt(1 / 12 / x.size)
    assert abs(x.var() - 1 / 12) < 1e-3
    assert ks_statistic(x, uniform_cdf) < ks_bound(x.size)


@pytest.mark.gpu
def test_rand_of_integers_covers_every_bit(pool_ctx):
    x = curandom.rand(2**20, np.uint32).get()
    bits = np.unpackbits(x.view(np.uint8)).reshape(-1, 32).mean(axis=0)
    assert np.all(np.abs(bits - 0.5) < 0.005)
    assert (curandom.rand(1000, np.int32).get() < 0).any()


# ---- GPU: the generators


def fixed_seeds(value=None):
    """A seed_getter giving the same seeds every time: `value` everywhere, or 0, 1, 2, ..."""

    def getter(count):
        seeds = np.full(count, value, np.int32) if value is not None else np.arange(count, dtype=np.int32) * 7919
        return gpuarray.to_gpu(seeds)

    return getter


def make(name, **kwargs):
    cls = GENERATORS[name]
    if name in PSEUDO:
        kwargs.setdefault("seed_getter", fixed_seeds())
    return cls(**kwargs)


def count_of(gen):
    return gen.block_count * gen.generators_per_block


def nan_array(n, dtype):
    return gpuarray.to_gpu(np.full(n, np.nan, dtype))


@pytest.mark.gpu
@needs_curand_headers
@pytest.mark.parametrize("name", GENERATORS)
def test_shape_state_and_box_muller(pool_ctx, name):
    gen = make(name)
    assert gen.generators_per_block == 256 and gen.block_count >= 1
    count = count_of(gen)
    if name in SOBOL:
        assert count <= 20000  # cuRAND's dimensions: no two generators share one
    state = gen.state
    assert isinstance(state, drv.DeviceAllocation) and state.size % count == 0 and state.size >= 8 * count
    assert int(state) == int(gen.state)


@pytest.mark.gpu
@needs_curand_headers
@pytest.mark.parametrize("name", GENERATORS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", SIZES)
def test_uniform_fills_every_element_and_no_other(pool_ctx, name, dtype, n):
    gen = make(name)
    buffer = nan_array(n + 8, dtype)
    gen.fill_uniform(buffer[3 : 3 + n])  # neither start nor end on a 16-byte boundary
    x = buffer.get()
    assert np.isnan(x[:3]).all() and np.isnan(x[3 + n :]).all()
    inside = x[3 : 3 + n]
    assert ((0 < inside) & (inside <= 1)).all()  # cuRAND's uniform numbers are in (0, 1]
    y = gen.gen_uniform((n,), dtype)
    assert y.shape == (n,) and y.dtype == dtype and ((0 < y.get()) & (y.get() <= 1)).all()


@pytest.mark.gpu
@needs_curand_headers
@pytest.mark.parametrize("name", PSEUDO)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_pseudorandom_distributions(pool_ctx, name, dtype):
    gen = make(name)
    n = 2**20 + 3
    u = gen.gen_uniform(n, dtype).get()
    assert abs(u.mean() - 0.5) < 6 * math.sqrt(1 / 12 / n) and abs(u.var() - 1 / 12) < 2e-3
    assert ks_statistic(u, uniform_cdf) < ks_bound(n)
    z = gen.gen_normal(n, dtype).get()
    assert abs(z.mean()) < 6 / math.sqrt(n) and abs(z.var() - 1) < 0.01
    assert ks_statistic(z, normal_cdf) < ks_bound(n)
    w = gen.gen_log_normal(n, dtype, 0.5, 0.25).get()
    assert (w > 0).all()
    assert abs(w.mean() / math.exp(0.5 + 0.25**2 / 2) - 1) < 0.01
    assert ks_statistic(np.log(w.astype(np.float64)), lambda x: normal_cdf(x, 0.5, 0.25)) < ks_bound(n)


@pytest.mark.gpu
@needs_curand_headers
@pytest.mark.parametrize("name", PSEUDO)
def test_uniform_integers_are_random_bits(pool_ctx, name):
    gen = make(name)
    u = gen.gen_uniform(2**20, np.uint32).get()
    bits = np.unpackbits(u.view(np.uint8)).reshape(-1, 32).mean(axis=0)
    assert np.all(np.abs(bits - 0.5) < 0.005)
    assert ks_statistic(u / 2.0**32, uniform_cdf) < ks_bound(u.size)
    assert gen.gen_uniform(1000, np.int32).dtype == np.int32


@pytest.mark.gpu
@needs_curand_headers
@pytest.mark.parametrize("name", GENERATORS)
def test_poisson(pool_ctx, name):
    gen = make(name)
    n = 2**20
    if name in SOBOL:
        n = count_of(gen) * 64  # whole strata of the quasirandom points
    x = gen.gen_poisson(n, np.uint32, 13.0).get()
    assert x.dtype == np.uint32
    tolerance = 0.02 if name in PSEUDO else 0.05
    assert abs(x.mean() / 13 - 1) < tolerance and abs(x.var() / 13 - 1) < 4 * tolerance
    # In place, each element its own lambda (PyCUDA's test_curand_wrappers).
    for dtype in (np.float32, np.float64, np.uint32):
        a = gpuarray.empty(n, dtype).fill(10)
        gen.fill_poisson(a)
        y = a.get()
        assert y.dtype == dtype and np.all(y == np.round(y))
        assert abs(y.mean() / 10 - 1) < tolerance
        if name in PSEUDO:  # P(9) for lambda 10 is 0.12511
            p = (y == 9).mean()
            assert abs(p - 0.12511) < 5 * math.sqrt(0.12511 * (1 - 0.12511) / n)
    lambdas = gpuarray.to_gpu(np.array([0.0, 2e9, np.inf, -1.0, np.nan, 3.0], np.float64))
    gen.fill_poisson(lambdas)
    got = lambdas.get()
    assert got[0] == 0 and abs(got[1] / 2e9 - 1) < 1e-3 and got[2] == np.inf
    assert np.isnan(got[3]) and np.isnan(got[4]) and got[5] >= 0


@pytest.mark.gpu
@needs_curand_headers
@pytest.mark.parametrize("name", SOBOL)
def test_sobol_points_are_curands_definition(pool_ctx, name):
    bits = 64 if "64" in name else 32
    word = np.uint64 if bits == 64 else np.uint32
    scrambled = name.startswith("Scrambled")
    offset = 5
    gen = make(name, offset=offset)
    count = count_of(gen)
    points = 6
    x = gen.gen_uniform(points * count, word).get().reshape(points, count)
    kind = ("SCRAMBLED_" if scrambled else "") + f"VECTOR_{bits}"
    vectors = curandom.generate_direction_vectors(count, curandom.direction_vector_set[kind]).get()
    assert vectors.shape == (count, bits) and vectors.dtype == word
    constants = (
        (
            curandom.generate_scramble_constants64(count)
            if bits == 64
            else curandom.generate_scramble_constants32(count)
        ).get()
        if scrambled
        else np.zeros(count, word)
    )
    for dim in list(range(0, count, 1231)) + [count - 1]:
        np.testing.assert_array_equal(x[:, dim], sobol_points(vectors[dim], points, constants[dim], offset))
    # 32 random bits of a 64-bit point are its high half.
    if bits == 64:
        y = make(name, offset=offset).gen_uniform(count, np.uint32).get()
        np.testing.assert_array_equal(y, (x[0] >> np.uint64(32)).astype(np.uint32))
    # Floating point numbers are the same points, scaled into (0, 1].
    f = make(name, offset=offset).gen_uniform(count, np.float64).get()
    np.testing.assert_allclose(f, x[0] / 2.0**bits, rtol=0, atol=2.0**-32)


@pytest.mark.gpu
@needs_curand_headers
@pytest.mark.parametrize("name", SOBOL)
def test_sobol_dimensions_are_stratified(pool_ctx, name):
    # The first 2^k points of each dimension fall one into each of 2^k equal intervals, so
    # the empirical distribution of all of them is within 2^-k of the uniform one.
    gen = make(name)
    count, k = count_of(gen), 6
    bits = 64 if "64" in name else 32
    word = np.uint64 if bits == 64 else np.uint32
    x = gen.gen_uniform(count << k, word).get().reshape(1 << k, count)
    strata = np.sort((x >> word(bits - k)).astype(np.int64), axis=0)
    assert (strata == np.arange(1 << k)[:, None]).all()
    u = make(name).gen_uniform(count << k, np.float64).get()
    assert ks_statistic(u, uniform_cdf) <= 1.01 / (1 << k)
    z = make(name).gen_normal(count << k, np.float32).get()
    assert ks_statistic(z, normal_cdf) <= 1.01 / (1 << k) + 1e-6
    w = make(name).gen_log_normal(count << k, np.float64, 1.0, 2.0).get()
    assert ks_statistic(np.log(w), lambda v: normal_cdf(v, 1.0, 2.0)) <= 1.01 / (1 << k) + 1e-9


@pytest.mark.gpu
@needs_curand_headers
@pytest.mark.parametrize("name", ["Sobol64", "ScrambledSobol64"])
def test_64_bit_integers_need_a_64_bit_generator(pool_ctx, name):
    x = make(name).gen_uniform(1000, np.int64)
    assert x.dtype == np.int64
    with pytest.raises(TypeError, match="int64 and uint64 need a 64-bit Sobol generator"):
        make("XORWOW").gen_uniform(10, np.uint64)


@pytest.mark.gpu
@needs_curand_headers
@pytest.mark.parametrize("name", GENERATORS)
def test_same_seeds_same_numbers_alignment_aside(pool_ctx, name):
    a, b = make(name), make(name)
    n = 10007
    x = a.gen_normal(n, np.float32)
    buffer = gpuarray.empty(n + 1, np.float32)
    b.fill_normal(buffer[1:])
    np.testing.assert_array_equal(x.get(), buffer[1:].get())
    if name in PSEUDO:
        other = GENERATORS[name](seed_getter=fixed_seeds(12345))
        assert not np.array_equal(other.gen_normal(n, np.float32).get(), x.get())


def chunk(name, dtype):
    """Elements per chunk of a fill: a 16-byte word for XORWOW and MRG32k3a, one for Sobol."""
    return 1 if name in SOBOL else 16 // np.dtype(dtype).itemsize


@pytest.mark.gpu
@needs_curand_headers
@pytest.mark.parametrize("name", GENERATORS)
def test_skip_ahead_is_generate_and_drop(pool_ctx, name):
    dtype = np.float32
    v = chunk(name, dtype)  # draws per chunk of uniform float32 (one per value)
    reference = make(name)
    count = count_of(reference)
    rows = reference.gen_uniform(3 * count * v, dtype).get().reshape(3, count, v)

    skipped = make(name)
    skipped.call_skip_ahead(2 * v)
    np.testing.assert_array_equal(skipped.gen_uniform(count * v, dtype).get().reshape(count, v), rows[2])

    with_offset = make(name, offset=v)
    np.testing.assert_array_equal(with_offset.gen_uniform(count * v, dtype).get().reshape(count, v), rows[1])

    # Generator g skips (g % 3) chunks.
    per_generator = make(name)
    skips = (np.arange(count) % 3) * v
    counts = gpuarray.to_gpu(skips.astype(np.uint32 if name in ("Sobol32", "ScrambledSobol32") else np.uint64))
    per_generator.call_skip_ahead_array(counts)
    got = per_generator.gen_uniform(count * v, dtype).get().reshape(count, v)
    np.testing.assert_array_equal(got, rows[np.arange(count) % 3, np.arange(count)])


@pytest.mark.gpu
@needs_curand_headers
@pytest.mark.parametrize(
    "name, method", [("XORWOW", "call_skip_ahead_sequence"), ("MRG32k3a", "call_skip_ahead_subsequence")]
)
def test_generator_g_starts_where_one_subsequence_skip_takes_g_minus_1(pool_ctx, name, method):
    # With one seed for all, generator g is at subsequence g (XORWOW's sequences, MRG32k3a's
    # subsequences): skipping one moves each generator to where the next one began.
    fresh = GENERATORS[name](seed_getter=fixed_seeds(42))
    count = count_of(fresh)
    start = fresh.gen_uniform(count * 4, np.float32).get().reshape(count, 4)
    moved = GENERATORS[name](seed_getter=fixed_seeds(42))
    getattr(moved, method)(1)
    np.testing.assert_array_equal(moved.gen_uniform(count * 4, np.float32).get().reshape(count, 4)[:-1], start[1:])
    by_array = GENERATORS[name](seed_getter=fixed_seeds(42))
    getattr(by_array, method + "_array")(gpuarray.to_gpu(np.ones(count, np.uint64)))
    np.testing.assert_array_equal(by_array.gen_uniform(count * 4, np.float32).get().reshape(count, 4)[:-1], start[1:])
    seeded = GENERATORS[name](seed_getter=curandom.seed_getter_uniform)
    seeded.call_skip_ahead_sequence(2)
    assert seeded.gen_uniform(16, np.float32).shape == (16,)


@pytest.mark.gpu
@needs_curand_headers
def test_seed_getters(pool_ctx):
    uniform = curandom.seed_getter_uniform(1000)
    assert uniform.dtype == np.int32 and uniform.shape == (1000,) and len(set(uniform.get())) == 1
    unique = curandom.seed_getter_unique(1000)
    assert unique.dtype == np.int32 and len(set(unique.get())) > 990 and (unique.get() >= 0).all()
    # Any callable giving int32 seeds of the right length.
    curandom.XORWOWRandomNumberGenerator(seed_getter=curandom.seed_getter_uniform).gen_uniform(4, np.float32)
    curandom.MRG32k3aRandomNumberGenerator().gen_uniform(4, np.float32)


def allocation_holding(address):
    """The (base, size) of the allocation of the current context holding device `address`, or
    None when none holds it (the driver's cuMemGetAddressRange, asked directly: the device's
    free memory, which other test processes change meanwhile, cannot tell)."""
    libcuda = ctypes.CDLL("libcuda.so.1")
    base, size = ctypes.c_uint64(), ctypes.c_size_t()
    status = libcuda.cuMemGetAddressRange_v2(ctypes.byref(base), ctypes.byref(size), ctypes.c_uint64(address))
    return (base.value, size.value) if status == 0 else None


@pytest.mark.gpu
@needs_curand_headers
def test_the_state_is_freed_with_the_generator(pool_ctx):
    gen = make("XORWOW")
    address, size = int(gen.state), gen.state.size
    base, extent = allocation_holding(address)
    assert base == address and extent >= size  # an allocation of its own
    del gen
    gc.collect()
    assert allocation_holding(address) is None


@pytest.mark.gpu
@needs_curand_headers
def test_the_state_keeps_its_generator(pool_ctx):
    state = make("XORWOW").state
    gc.collect()
    assert state.size > 0 and int(state) != 0


@pytest.mark.gpu
@needs_curand_headers
def test_pycudas_curand_wrappers_test(pool_ctx):
    # PyCUDA's test_gpuarray.py::test_curand_wrappers, as it is.
    for gen_type in GENERATORS.values():
        gen = gen_type()
        for dtype in (np.float32, np.float64):
            gen.gen_normal(10000, dtype)
            gen.gen_normal(10001, dtype)
            gen.gen_log_normal(10000, dtype, 10.0, 3.0)
            gen.gen_log_normal(10001, dtype, 10.0, 3.0)
            x = gen.gen_uniform(10000, dtype).get()
            assert (-1 <= x).all() and (x <= 1).all()
        gen.gen_uniform(10000, np.uint32)
        gen.gen_poisson(10000, np.uint32, 13.0)
        for dtype in (np.float32, np.float64, np.uint32):
            a = gpuarray.empty(1000000, dtype=dtype)
            a.fill(10)
            gen.fill_poisson(a)


# ---- GPU: what bad input gets


@pytest.mark.gpu
@needs_curand_headers
def test_bad_arrays_are_refused(pool_ctx):
    gen = make("XORWOW")
    with pytest.raises(drv.LogicError, match="must be contiguous"):
        gen.fill_uniform(gpuarray.zeros(100, np.float32)[::2])
    with pytest.raises(drv.LogicError, match="must be contiguous"):
        gen.fill_normal(gpuarray.zeros((10, 10), np.float64)[:, :5])
    with pytest.raises(TypeError, match="expected float32, float64, int32 or uint32"):
        gen.fill_uniform(gpuarray.zeros(10, np.int16))
    with pytest.raises(TypeError, match="expected float32 or float64"):
        gen.fill_normal(gpuarray.zeros(10, np.int32))
    with pytest.raises(TypeError, match="expected float32 or float64"):
        gen.gen_log_normal(10, np.uint32, 0.0, 1.0)
    with pytest.raises(TypeError, match="expected uint32, float32 or float64"):
        gen.fill_poisson(gpuarray.zeros(10, np.int64), 3.0)
    with pytest.raises(TypeError, match="must be a GPUArray"):
        gen.fill_uniform(np.zeros(10, np.float32))
    with pytest.raises(TypeError):
        gen.fill_uniform(gpuarray.zeros(10, np.float16))
    with pytest.raises(TypeError):
        gen.gen_uniform(10, np.float32, None, 3)
    with pytest.raises(TypeError):
        gen.fill_uniform(gpuarray.zeros(10, np.float32), steam=None)


@pytest.mark.gpu
@needs_curand_headers
def test_bad_parameters_are_refused(pool_ctx):
    gen = make("MRG32k3a")
    data = gpuarray.zeros(10, np.float32)
    for mean, stddev in ((0.0, -1.0), (np.nan, 1.0), (0.0, np.inf)):
        with pytest.raises(drv.LogicError, match="stddev"):
            gen.fill_log_normal(data, mean, stddev)
    with pytest.raises(TypeError, match=r"mean\) must be a real number"):
        gen.fill_log_normal(data, "1", 1.0)
    for bad in (-1.0, np.nan, np.inf):
        with pytest.raises(drv.LogicError, match="lambda"):
            gen.fill_poisson(gpuarray.zeros(10, np.uint32), bad)
    with pytest.raises(drv.LogicError, match="from 0 to"):
        gen.call_skip_ahead(-1)
    with pytest.raises(TypeError):
        gen.call_skip_ahead(1.5)
    count = count_of(gen)
    with pytest.raises(drv.LogicError, match=f"one count per generator, {count}"):
        gen.call_skip_ahead_array(gpuarray.zeros(count - 1, np.uint64))
    with pytest.raises(TypeError, match="64-bit integers"):
        gen.call_skip_ahead_array(gpuarray.zeros(count, np.uint32))
    with pytest.raises(TypeError, match="must be a GPUArray"):
        gen.call_skip_ahead_sequence_array(np.zeros(count, np.uint64))
    sobol = make("Sobol32")
    with pytest.raises(drv.LogicError, match="below 2\\^32"):
        sobol.call_skip_ahead(2**32)
    with pytest.raises(TypeError, match="32-bit integers"):
        sobol.call_skip_ahead_array(gpuarray.zeros(count_of(sobol), np.uint64))


@pytest.mark.gpu
@needs_curand_headers
def test_bad_seeds_and_vectors_are_refused(pool_ctx):
    with pytest.raises(drv.LogicError, match="one seed per generator"):
        curandom.XORWOWRandomNumberGenerator(seed_getter=lambda count: gpuarray.zeros(count - 1, np.int32))
    with pytest.raises(TypeError, match="seeds must be int32"):
        curandom.XORWOWRandomNumberGenerator(seed_getter=lambda count: gpuarray.zeros(count, np.float32))
    with pytest.raises(TypeError, match="must return a GPUArray"):
        curandom.MRG32k3aRandomNumberGenerator(seed_getter=lambda count: np.zeros(count, np.int32))
    with pytest.raises(drv.LogicError, match="offset"):
        curandom.XORWOWRandomNumberGenerator(offset=-1)
    count = count_of(make("Sobol32"))
    with pytest.raises(TypeError, match=f"dir_vector must be a C-contiguous uint32 array of shape \\({count}, 32\\)"):
        curandom.Sobol32RandomNumberGenerator(dir_vector=gpuarray.zeros((count, 64), np.uint64))
    with pytest.raises(TypeError, match="dir_vector must be a C-contiguous uint64"):
        curandom.Sobol64RandomNumberGenerator(dir_vector=curandom.generate_direction_vectors(count))
    with pytest.raises(TypeError, match="scramble_vector must be a contiguous uint32 array"):
        curandom.ScrambledSobol32RandomNumberGenerator(scramble_vector=gpuarray.zeros(count + 1, np.uint32))
    with pytest.raises(drv.LogicError, match="below 2\\^32"):
        curandom.Sobol32RandomNumberGenerator(offset=2**32)
    # Given vectors and constants are used as they are.
    vectors = curandom.generate_direction_vectors(count, curandom.direction_vector_set.SCRAMBLED_VECTOR_32)
    constants = curandom.generate_scramble_constants32(count)
    mine = curandom.ScrambledSobol32RandomNumberGenerator(vectors, constants)
    np.testing.assert_array_equal(mine.gen_uniform(count, np.uint32).get(), constants.get())


@pytest.mark.gpu
@needs_curand_headers
def test_another_context_is_refused(pool_ctx):
    gen = make("XORWOW")
    other = drv.Device(0).make_context()
    try:
        with pytest.raises(drv.LogicError, match="another context"):
            gen.fill_uniform(gpuarray.zeros(4, np.float32))
    finally:
        drv.Context.pop()
        other.detach()
    gen.fill_uniform(gpuarray.zeros(4, np.float32))  # its own context again


@pytest.mark.gpu
@needs_curand_headers
def test_streams(pool_ctx):
    gen = make("XORWOW")
    stream = drv.Stream()
    a = gpuarray.zeros(10000, np.float32)
    gen.fill_uniform(a, stream=stream)
    b = gen.gen_normal(10000, np.float64, stream=stream)
    gen.call_skip_ahead(3, stream=stream)
    stream.synchronize()
    assert (a.get() > 0).all() and abs(b.get().mean()) < 0.1


# ---- the benchmark case


def test_bench_case_is_registered():
    from gpukit.bench import cases

    by_name = {c.name: c for c in cases.ALL}
    big, small = by_name["random_uniform_big"], by_name["random_uniform_small"]
    assert big.higher_is_better and big.unit == "GB/s" and "2^26 float32" in big.description
    assert not small.higher_is_better and small.unit == "µs per call" and "1000 float32" in small.description
    for case in (big, small):
        assert [side.name for side in case.sides] == [
            "gpukit curandom.rand (Philox)",
            "gpukit XORWOW fill_uniform",
            "CuPy cupy.random.random_sample",
            "PyCUDA XORWOW fill_uniform",
        ]


@pytest.mark.gpu
def test_bench_sides_measure():
    from conftest import run_in_fresh_process

    out = run_in_fresh_process("""
        from gpukit.bench import cases
        settings = {"repeats": 1, "quick": True}
        for case in cases.ALL:
            if case.name.startswith("random_uniform"):
                for side in case.sides[:2]:
                    samples = side.run(settings)
                    print(case.name, len(samples), all(s > 0 for s in samples))
        """)
    assert out.split() == ["random_uniform_big", "1", "True"] * 2 + ["random_uniform_small", "1", "True"] * 2
