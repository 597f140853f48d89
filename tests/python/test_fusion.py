"""Fusion of chained GPUArray arithmetic (gpukit._array.fusion): when deferring is safe, and on
the GPU that fused results equal numpy's and run one kernel, and that operators which do
not fuse pay nothing for it."""

import numpy as np
import pytest

from gpukit._array import fusion as _fusion

# ---- when a result may be left pending (CPU: bytecode analysis only)


class Probe:
    """Records, for each operator applied to it, whether its result would be fused."""

    def __init__(self, log):
        self.log = log

    def _record(self, other):
        import sys

        self.log.append(_fusion.feeds_next_operator(sys._getframe(2)))
        return self

    def __mul__(self, other):
        return self._record(other)

    def __add__(self, other):
        return self._record(other)

    def __rmul__(self, other):
        return self._record(other)

    def __radd__(self, other):
        return self._record(other)

    def __sub__(self, other):
        return self._record(other)

    def __pow__(self, other):
        return self._record(other)

    def __iadd__(self, other):
        return self._record(other)


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


# ---- on the GPU

gpu = pytest.mark.gpu


@pytest.fixture
def arrays(ctx):
    import gpukit.gpuarray as gpuarray

    rng = np.random.default_rng(7)
    host = {name: rng.random(10_000, dtype=np.float32) for name in "xyw"}
    yield gpuarray, host, {name: gpuarray.to_gpu(h) for name, h in host.items()}
    gpuarray.release_default_pools()


class count_launches:
    """Kernels the GPUArray operators run inside the block."""

    def __enter__(self):
        from gpukit import _gpukit

        self._start = _gpukit._operator_kernel_launches()
        return self

    def __exit__(self, *exc):
        pass

    @property
    def count(self):
        from gpukit import _gpukit

        return _gpukit._operator_kernel_launches() - self._start


@gpu
def test_axpb_is_one_kernel_and_exact(arrays):
    gpuarray, host, dev = arrays
    a, b = np.float32(1.5), np.float32(0.25)
    x = dev["x"]
    with count_launches() as launches:
        z = a * x + b
    assert launches.count == 1 and type(z) is gpuarray.GPUArray and not z._pending
    assert z.dtype == np.float32 and z.shape == (10_000,)
    np.testing.assert_allclose(z.get(), a * host["x"] + b, rtol=1e-6)


@gpu
def test_fused_chains_follow_numpy_types_and_values(arrays):
    gpuarray, host, dev = arrays
    x, y, w = dev["x"], dev["y"], dev["w"]
    hx, hy, hw = host["x"], host["y"], host["w"]
    i = gpuarray.to_gpu(np.arange(10_000, dtype=np.int32))
    hi = np.arange(10_000, dtype=np.int32)
    checks = [
        (lambda: 2 * x - y * 3 + w, lambda: 2 * hx - hy * 3 + hw),
        (lambda: (x + y) * (x - y) / 2, lambda: (hx + hy) * (hx - hy) / 2),
        (lambda: i * 3 + 1, lambda: hi * 3 + 1),  # stays int32
        (lambda: i / 4 + x, lambda: hi / 4 + hx),  # float64 from int32 / int
        (lambda: x * x * x + x, lambda: hx * hx * hx + hx),  # one array, one operand
        (lambda: 1 - x[::2] * 2, lambda: 1 - hx[::2] * 2),  # a strided view
    ]
    launched = 0
    for device, reference in checks:
        expected = reference()
        with count_launches() as launches:
            got = device()
        launched += launches.count
        assert got.dtype == expected.dtype
        # atol: a fused multiply-add rounds once where numpy rounds twice, which shows on
        # results that cancel to near zero.
        np.testing.assert_allclose(got.get(), expected, rtol=1e-6, atol=1e-6)
    assert launched < 2 * len(checks)  # fused: fewer kernels than operators


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


@gpu
def test_each_place_is_analysed_once_and_unfused_operators_pay_a_lookup(arrays):
    from gpukit import _gpukit

    gpuarray, host, dev = arrays
    x, y = dev["x"], dev["y"]
    before = _gpukit._fusion_sites_analysed()
    for _ in range(50):
        z = x + y  # stored: never fuses
    assert _gpukit._fusion_sites_analysed() == before + 1
    with count_launches() as launches:
        for _ in range(50):
            z = x + y
    assert launches.count == 50
    np.testing.assert_allclose(z.get(), host["x"] + host["y"], rtol=1e-6)


@gpu
def test_fusion_can_be_turned_off_and_tracing_turns_it_off(arrays):
    import sys

    gpuarray, host, dev = arrays
    x = dev["x"]

    def axpb(x):
        return 1.5 * x + 0.5

    try:
        gpuarray.set_fusion(False)
        with count_launches() as launches:
            z = axpb(x)
        assert launches.count == 2
    finally:
        gpuarray.set_fusion(True)
    np.testing.assert_allclose(z.get(), 1.5 * host["x"] + 0.5, rtol=1e-6)
    sys.settrace(lambda *args: None)
    try:
        with count_launches() as launches:
            z = axpb(x)
    finally:
        sys.settrace(None)
    assert launches.count == 2
    with count_launches() as launches:
        z = axpb(x)
    assert launches.count == 1
    np.testing.assert_allclose(z.get(), 1.5 * host["x"] + 0.5, rtol=1e-6)


@gpu
def test_a_pending_result_is_computed_by_any_use_of_its_memory(arrays):
    from gpukit import _gpukit

    gpuarray, host, dev = arrays
    x = dev["x"]
    seen = []

    class Keep:
        """Another library's reflected operator that keeps the GPUArray it was given."""

        def __radd__(self, other):
            seen.append(other)
            return self

    keep = Keep()
    _ = 3 * x + keep  # 3 * x is left pending for the +, whose other operand is Keep's
    kept = seen[0]
    assert kept._pending and kept.shape == x.shape and kept.dtype == np.float32
    np.testing.assert_allclose(kept.get(), 3 * host["x"], rtol=1e-6)
    assert not kept._pending and kept.gpudata is not None
    assert isinstance(kept, gpuarray.GPUArray) and _gpukit._fusion_enabled()
