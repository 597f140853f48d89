"""CUDA graphs by stream capture (drv.StreamCapture, Graph, GraphExec); GPU only."""
import numpy as np
import pytest

import gpukit.driver as drv
from gpukit import _gpukit
from gpukit.compiler import SourceModule

KERNELS = """
__global__ void add(float *a, float v, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) a[i] += v; }
__global__ void scale(float *a, float s, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) a[i] *= s; }
__global__ void accumulate(float *sum, const float *a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) sum[i] += a[i];
}
"""


def test_graph_types_are_exported():
    assert drv.StreamCapture and drv.Graph and drv.GraphExec
    assert {m.name for m in drv.capture_mode} >= {"GLOBAL", "THREAD_LOCAL", "RELAXED"}


@pytest.mark.gpu
def test_capture_three_kernels_and_a_memset_then_replay_twice(ctx):
    mod = SourceModule(KERNELS)
    add, scale, accumulate = (mod.get_function(name) for name in ("add", "scale", "accumulate"))
    n = 1000
    host = np.random.default_rng(3).standard_normal(n).astype(np.float32)
    a = drv.to_device(host)
    total = drv.to_device(np.zeros(n, np.float32))
    stream = drv.Stream()
    shape = dict(block=(256, 1, 1), grid=((n + 255) // 256, 1), stream=stream)
    with drv.StreamCapture(stream) as capture:
        add(a, np.float32(1), np.int32(n), **shape)
        scale(a, np.float32(2), np.int32(n), **shape)
        accumulate(total, a, np.int32(n), **shape)
        drv.memset_d32_async(a, 0, n, stream)
    graph = capture.graph
    assert graph.node_count == 4
    np.testing.assert_array_equal(drv.from_device(total, (n,), np.float32), 0)  # nothing ran yet

    exec_ = graph.instantiate()
    exec_.launch(stream)
    stream.synchronize()
    expected = (host + 1) * 2
    np.testing.assert_allclose(drv.from_device(total, (n,), np.float32), expected, rtol=1e-6)
    exec_.launch(stream)  # `a` was cleared by the memset: total gains (0 + 1) * 2
    stream.synchronize()
    np.testing.assert_allclose(drv.from_device(total, (n,), np.float32), expected + 2, rtol=1e-6)


@pytest.mark.gpu
def test_an_exception_inside_the_capture_ends_it(ctx):
    stream = drv.Stream()
    with pytest.raises(ZeroDivisionError):
        with drv.StreamCapture(stream) as capture:
            1 / 0
    assert capture.graph is None
    assert not _gpukit._is_capturing(stream)


@pytest.mark.gpu
def test_the_default_stream_cannot_be_captured(ctx):
    with pytest.raises(drv.LogicError, match="default stream"):
        with drv.StreamCapture(None):
            pass
