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


# ---- PyCUDA's graph API: nodes by hand, capture info, dependencies, node parameters

PLUS = """
__global__ void plus(float *a, int num) { a[threadIdx.x] += num; }
__global__ void times(float *a, const float *b) { a[threadIdx.x] *= b[threadIdx.x]; }
"""


@pytest.mark.gpu
def test_a_graph_built_by_hand_runs_its_nodes_in_dependency_order(ctx):
    mod = SourceModule(PLUS)
    plus, times = mod.get_function("plus"), mod.get_function("times")
    host = np.random.default_rng(5).standard_normal(64).astype(np.float32)
    a, b = drv.to_device(host), drv.to_device(np.full(64, 3, np.float32))
    graph = drv.Graph()
    first = graph.add_kernel_node(a, np.int32(1), func=plus, block=(64, 1, 1))
    second = graph.add_kernel_node(a, b, func=times, block=(64, 1, 1), dependencies=[first])
    join = graph.add_empty_node(dependencies=[first, second])
    assert graph.node_count == 3 and join != first and first == first
    exec_ = graph.instantiate()
    exec_.launch()
    drv.Context.synchronize()
    np.testing.assert_array_equal(drv.from_device(a, (64,), np.float32), (host + 1) * 3)
    exec_.launch()  # the arguments were copied into the nodes: same work again
    drv.Context.synchronize()
    np.testing.assert_array_equal(drv.from_device(a, (64,), np.float32), ((host + 1) * 3 + 1) * 3)


@pytest.mark.gpu
def test_capture_info_dependencies_and_node_parameters(ctx):
    mod = SourceModule(PLUS)
    plus = mod.get_function("plus")
    a = drv.to_device(np.zeros(32, np.float32))
    result = drv.pagelocked_zeros(32, np.float32)
    stream = drv.Stream()
    status, _, graph, deps = stream.get_capture_info_v2()
    assert status == drv.capture_status.NONE and graph is None and deps == []
    stream.begin_capture()
    status, capture_id, building, deps = stream.get_capture_info_v2()
    assert status == drv.capture_status.ACTIVE and deps == []
    node = building.add_kernel_node(a, np.int32(3), func=plus, block=(32, 1, 1), dependencies=deps)
    stream.update_capture_dependencies([node], drv.update_capture_dependencies_flags.SET_CAPTURE_DEPENDENCIES)
    assert stream.get_capture_info_v2()[3] == [node]
    drv.memcpy_dtoh_async(result, a, stream)  # captured after the node
    graph = stream.end_capture()
    assert graph == building
    exec_ = graph.instantiate()
    assert stream.get_capture_info_v2()[0] == drv.capture_status.NONE
    total = 0
    for value in (5, 7, 11):
        exec_.kernel_node_set_params(a, np.int32(value), kernel_node=node, func=plus, block=(32, 1, 1))
        exec_.launch(stream)
        stream.synchronize()
        total += value
        np.testing.assert_array_equal(result, total)


@pytest.mark.gpu
def test_child_graphs_dependencies_and_dot_output(ctx, tmp_path):
    mod = SourceModule(PLUS)
    plus = mod.get_function("plus")
    a = drv.to_device(np.zeros(16, np.float32))
    child = drv.Graph()
    child.add_kernel_node(a, np.int32(2), func=plus, block=(16, 1, 1))
    parent = drv.Graph()
    inner = parent.add_child_graph_node(child)
    after = parent.add_kernel_node(a, np.int32(10), func=plus, block=(16, 1, 1))
    parent.add_dependencies([inner], [after])
    parent.debug_dot_print(str(tmp_path / "graph.dot"))
    assert "digraph" in (tmp_path / "graph.dot").read_text()
    parent.instantiate().launch()
    drv.Context.synchronize()
    np.testing.assert_array_equal(drv.from_device(a, (16,), np.float32), 12)


@pytest.mark.gpu
def test_graph_misuse_is_refused_clearly(ctx):
    plus = SourceModule(PLUS).get_function("plus")
    a = drv.to_device(np.zeros(4, np.float32))
    graph = drv.Graph()
    with pytest.raises(TypeError, match="In/Out/InOut"):
        graph.add_kernel_node(drv.In(np.zeros(4, np.float32)), np.int32(1), func=plus, block=(4, 1, 1))
    with pytest.raises(TypeError, match="block"):
        graph.add_kernel_node(a, np.int32(1), func=plus)
    with pytest.raises(TypeError, match="GraphNode"):
        graph.add_kernel_node(a, np.int32(1), func=plus, block=(4, 1, 1), dependencies=[1])
    node = graph.add_empty_node()
    with pytest.raises(drv.LogicError, match="pairs"):
        graph.add_dependencies([node, node], [node])
    with pytest.raises(drv.LogicError):
        graph.add_kernel_node(a, func=plus, block=(4, 1, 1))  # one argument missing
    with pytest.raises(TypeError):
        graph.add_kernel_node(a, np.int32(1), func=plus, block=(4, 1, 1), bogus=1)
