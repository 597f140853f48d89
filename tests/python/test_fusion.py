"""Fusion of chained GPUArray arithmetic (gpukit._fusion): when deferring is safe, the
expressions built, and on the GPU that fused results equal numpy's and run one kernel."""
import numpy as np
import pytest

from gpukit import _fusion

# ---- when a result may be left pending (CPU: bytecode analysis only)


class Probe:
    """Records, for each operator applied to it, whether its result would be fused."""

    def __init__(self, log):
        self.log = log

    def _record(self, other):
        import sys
        self.log.append(_fusion.feeds_next_operator(sys._getframe(2)))
        return self

    def __mul__(self, other): return self._record(other)
    def __add__(self, other): return self._record(other)
    def __rmul__(self, other): return self._record(other)
    def __radd__(self, other): return self._record(other)
    def __sub__(self, other): return self._record(other)
    def __pow__(self, other): return self._record(other)
    def __iadd__(self, other): return self._record(other)


def decisions(function, *args):
    log = []
    function(Probe(log), log, *args)
    return log


GLOBAL_SCALAR = 2.0


def test_chained_operators_defer_the_inner_result():
    def axpb(x, log, a=3.0, b=1.0):
        return a * x + b
    assert decisions(axpb) == [True, False]  # the sum is returned: computed at once

    def b_plus_ax(x, log, a=3.0, b=1.0):
        return b + a * x
    assert decisions(b_plus_ax) == [True, False]

    def with_global(x, log):
        return x * GLOBAL_SCALAR + GLOBAL_SCALAR
    assert decisions(with_global) == [True, False]

    def three_steps(x, log, a=2.0, b=1.0):
        y = (a * x + b) * a
        return y
    assert decisions(three_steps) == [True, True, False]


def test_anything_that_may_run_code_in_between_prevents_it():
    def stored(x, log, a=3.0):
        y = a * x
        return y + a
    assert decisions(stored) == [False, False]

    def call_between(x, log, a=3.0):
        return a * x + float(a)
    assert decisions(call_between) == [False, False]

    class Holder:
        value = 1.0

    def attribute_between(x, log, h=Holder()):
        return x * 2.0 + h.value
    assert decisions(attribute_between) == [False, False]

    def other_operator_first(x, log, a=3.0, b=2.0, y=1.0):
        return a * x + b * y  # b * y runs (on floats) before the sum
    assert decisions(other_operator_first)[0] is False

    def not_fusable_next(x, log, a=3.0):
        return (a * x) ** 2
    assert decisions(not_fusable_next) == [False, False]

    def in_place_next(x, log, a=3.0):
        acc = x
        acc += a * x
        return acc
    assert decisions(in_place_next) == [False, False]

    def explicit_call(x, log, a=3.0):
        return x.__mul__(a) + a
    assert decisions(explicit_call) == [False, False]


def test_tracing_turns_it_off():
    import sys

    def axpb(x, log, a=3.0, b=1.0):
        return a * x + b
    sys.settrace(lambda *args: None)
    try:
        assert decisions(axpb) == [False, False]
    finally:
        sys.settrace(None)


# ---- the expressions (CPU)

class FakeArray:
    def __init__(self, dtype, shape=(4,)):
        self.dtype, self.shape, self.allocator, self.stream = np.dtype(dtype), shape, None, None


def test_expressions_combine_operands_once():
    x, y = FakeArray(np.float32), FakeArray(np.float32)
    ax = _fusion.Expression.of_scalar(b"\0\0\0@", np.dtype(np.float32)).combine(
        _fusion.Expression.of_array(x), lambda l, r: f"({l} * {r})", np.dtype(np.float32))
    axx = ax.combine(_fusion.Expression.of_array(x), lambda l, r: f"({l} + {r})", np.dtype(np.float32))
    axxy = axx.combine(_fusion.Expression.of_array(y), lambda l, r: f"({l} - {r})", np.dtype(np.float32))
    assert axxy.operands[1] is x and axxy.operands[2] is y and len(axxy.operands) == 3
    assert axxy.operation() == "z[i] = (((p0 * p1[i]) + p1[i]) - p2[i])"
    assert axxy.shape == (4,)


# ---- the operators, with kernel launches recorded instead of run (CPU)

class Recorded:
    """GPUArrays over fake device memory, and the kernels their operators would launch."""

    def __init__(self, monkeypatch):
        import gpukit.gpuarray as gpuarray
        self.gpuarray = gpuarray
        self.launches = []
        monkeypatch.setattr(gpuarray, "_launch", lambda spec, args, stream: self.launches.append((spec, args)))

    def array(self, dtype=np.float32):
        return self.gpuarray.GPUArray((8,), dtype, allocator=lambda nbytes: 4096)


class Inspect:
    """Another library's object whose operator looks at the GPUArray on its right."""

    def __add__(self, other):
        return other.shape


def test_operators_launch_one_kernel_per_fused_chain(monkeypatch):
    rec = Recorded(monkeypatch)
    x, y = rec.array(), rec.array(np.int16)

    def axpb(x, a=np.float32(1.5), b=np.float32(0.5)):
        return a * x + b
    z = axpb(x)
    assert type(z) is rec.gpuarray.GPUArray and z.dtype == np.float32 and len(rec.launches) == 1
    spec, args = rec.launches[0]
    assert len(args) == 4  # a, x, b and the result
    assert "p0" in spec.source("contiguous") and "p2" in spec.source("contiguous")

    def mixed(x, y):
        return (x - y) * 2 + y  # numpy's types: float32 - int16 is float32
    assert mixed(x, y).dtype == np.float32 and len(rec.launches) == 2

    w = 2 * x  # stored in a variable: computed at once
    assert type(w) is rec.gpuarray.GPUArray and len(rec.launches) == 3
    # A pending result that another object looks at is computed first.
    assert Inspect() + 2 * x == (8,) and len(rec.launches) == 4


# ---- on the GPU

gpu = pytest.mark.gpu


@pytest.fixture
def arrays(ctx):
    import gpukit.gpuarray as gpuarray
    rng = np.random.default_rng(7)
    host = {name: rng.random(10_000, dtype=np.float32) for name in "xyw"}
    yield gpuarray, host, {name: gpuarray.to_gpu(h) for name, h in host.items()}
    gpuarray.release_default_pools()


def count_launches(monkeypatch):
    import gpukit.gpuarray as gpuarray
    calls = []
    launch = gpuarray._launch
    monkeypatch.setattr(gpuarray, "_launch", lambda *args: (calls.append(args[0]), launch(*args))[1])
    return calls


@gpu
def test_axpb_is_one_kernel_and_exact(arrays, monkeypatch):
    gpuarray, host, dev = arrays
    a, b = np.float32(1.5), np.float32(0.25)
    x = dev["x"]
    calls = count_launches(monkeypatch)
    z = a * x + b
    assert len(calls) == 1 and type(z) is gpuarray.GPUArray
    assert z.dtype == np.float32 and z.shape == (10_000,)
    np.testing.assert_allclose(z.get(), a * host["x"] + b, rtol=1e-6)


@gpu
def test_fused_chains_follow_numpy_types_and_values(arrays, monkeypatch):
    gpuarray, host, dev = arrays
    x, y, w = dev["x"], dev["y"], dev["w"]
    hx, hy, hw = host["x"], host["y"], host["w"]
    i = gpuarray.to_gpu(np.arange(10_000, dtype=np.int32))
    hi = np.arange(10_000, dtype=np.int32)
    calls = count_launches(monkeypatch)
    checks = [
        (lambda: 2 * x - y * 3 + w, lambda: 2 * hx - hy * 3 + hw),
        (lambda: (x + y) * (x - y) / 2, lambda: (hx + hy) * (hx - hy) / 2),
        (lambda: i * 3 + 1, lambda: hi * 3 + 1),            # stays int32
        (lambda: i / 4 + x, lambda: hi / 4 + hx),           # float64 from int32 / int
        (lambda: x * x * x + x, lambda: hx * hx * hx + hx),  # one array, one operand
        (lambda: 1 - x[::2] * 2, lambda: 1 - hx[::2] * 2),   # a strided view
    ]
    for device, reference in checks:
        expected = reference()
        got = device()
        assert got.dtype == expected.dtype
        # atol: a fused multiply-add rounds once where numpy rounds twice, which shows on
        # results that cancel to near zero.
        np.testing.assert_allclose(got.get(), expected, rtol=1e-6, atol=1e-6)
    assert len(calls) < 2 * len(checks)  # fused: fewer kernels than operators


class Peek:
    """Another library's object: its operator looks at the GPUArray on its right."""

    def __add__(self, other):
        return other.get()


@gpu
def test_a_pending_result_used_otherwise_is_computed(arrays):
    gpuarray, host, dev = arrays
    x = dev["x"]
    # 2 * x is left pending for the sum, but Peek's __add__ gets it and reads it.
    np.testing.assert_allclose(Peek() + 2 * x, 2 * host["x"], rtol=1e-6)
    # Errors raised by the fusing operator leave nothing behind.
    with pytest.raises(ValueError, match="shapes"):
        2 * x + gpuarray.zeros(3, np.float32)
    np.testing.assert_allclose((x * 2 + 1).get(), host["x"] * 2 + 1, rtol=1e-6)


@gpu
def test_cupy_sees_the_computed_values(primary_ctx):
    cp = pytest.importorskip("cupy")
    import gpukit.gpuarray as gpuarray
    rng = np.random.default_rng(7)
    host = {name: rng.random(10_000, dtype=np.float32) for name in "xy"}
    x = gpuarray.to_gpu(host["x"])
    c = cp.asarray(host["y"])
    result = c + 2 * x  # CuPy's __add__ reads the pending operand's __cuda_array_interface__
    np.testing.assert_allclose(cp.asnumpy(result), host["y"] + 2 * host["x"], rtol=1e-6)
