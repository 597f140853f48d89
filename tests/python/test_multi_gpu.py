"""Two GPUs: peer copies between devices (flat, async and 3-D), arrays, pools and kernels on
the second device. Skipped, with the reason, on machines with fewer than two."""

import numpy as np
import pytest

import gpukit.driver as drv
from conftest import drain_context_stack, in_context


def _two_devices():
    if not drv.driver_available():
        return False
    try:
        return drv.Device.count() >= 2
    except drv.Error:
        return False


pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not _two_devices(), reason="needs two CUDA devices")]


@pytest.fixture
def contexts():
    """A context on each of devices 0 and 1; device 0's is current."""
    drain_context_stack()
    c1 = drv.Device(1).make_context()
    drv.Context.pop()
    c0 = drv.Device(0).make_context()
    yield c0, c1
    import gpukit.gpuarray as gpuarray

    gpuarray.release_default_pools()
    drain_context_stack()
    c0.detach()
    c1.detach()


def random_bytes(n, seed):
    return np.random.default_rng(seed).integers(0, 256, n, dtype=np.uint8)


def test_peer_copies_between_devices(contexts):
    c0, c1 = contexts
    data = random_bytes(3 * (1 << 20) + 5, 1)
    src = drv.to_device(data)  # on device 0
    dst = in_context(c1, lambda: drv.mem_alloc(data.nbytes))
    drv.memcpy_peer(dst, src, data.nbytes, dest_context=c1, src_context=c0)
    back = in_context(c1, lambda: drv.from_device(dst, data.shape, np.uint8))
    np.testing.assert_array_equal(back, data)

    # Asynchronous, on a stream of device 1, back to a fresh allocation on device 0.
    stream = in_context(c1, drv.Stream)
    again = drv.mem_alloc(data.nbytes)
    drv.memcpy_peer_async(again, dst, data.nbytes, dest_context=c0, src_context=c1, stream=stream)
    stream.synchronize()
    np.testing.assert_array_equal(drv.from_device(again, data.shape, np.uint8), data)


def test_3d_peer_copy_of_a_sub_box(contexts):
    c0, c1 = contexts
    box = np.random.default_rng(2).standard_normal((5, 6, 7)).astype(np.float32)
    src = drv.to_device(box)
    dst = in_context(c1, lambda: drv.mem_alloc(box.nbytes))
    in_context(c1, lambda: drv.memset_d8(dst, 0, box.nbytes))
    copy = drv.Memcpy3DPeer()
    copy.set_src_device(src)
    copy.set_src_context(c0)
    copy.set_dst_device(dst)
    copy.set_dst_context(c1)
    copy.src_pitch = copy.dst_pitch = 7 * 4
    copy.src_height = copy.dst_height = 6
    # Rows 1..4, columns 2..5, layers 1..3 of the source land in the same place.
    copy.src_x_in_bytes = copy.dst_x_in_bytes = 2 * 4
    copy.src_y = copy.dst_y = 1
    copy.src_z = copy.dst_z = 1
    copy.width_in_bytes, copy.height, copy.depth = 4 * 4, 4, 3
    copy()
    in_context(c1, drv.Context.synchronize)
    got = in_context(c1, lambda: drv.from_device(dst, box.shape, np.float32))
    expected = np.zeros_like(box)
    expected[1:4, 1:5, 2:6] = box[1:4, 1:5, 2:6]
    np.testing.assert_array_equal(got, expected)


def test_arrays_kernels_and_pools_on_the_second_device(contexts):
    import gpukit.gpuarray as gpuarray
    from gpukit import tools
    from gpukit.compiler import SourceModule

    c0, c1 = contexts
    host = np.random.default_rng(3).standard_normal(10_001).astype(np.float32)

    def on_device_1():
        assert drv.Context.get_device() == drv.Device(1)
        a = gpuarray.to_gpu(host)
        np.testing.assert_allclose((2 * a + 1).get(), 2 * host + 1, rtol=1e-6)
        np.testing.assert_allclose(gpuarray.sum(a).get(), host.astype(np.float64).sum(), rtol=1e-5)
        pool = tools.DeviceMemoryPool()
        block = pool.allocate(1 << 20)
        assert pool.active_blocks == 1
        block.free()
        triple = SourceModule("__global__ void triple(float *x) { x[threadIdx.x] *= 3; }").get_function("triple")
        triple(a, block=(32, 1, 1))
        np.testing.assert_allclose(a.get()[:32], 3 * host[:32], rtol=1e-6)
        np.testing.assert_array_equal(a.get()[32:], host[32:])

    in_context(c1, on_device_1)
