"""gpukit.tools: DeviceData, OccupancyRecord, context_dependent_memoize, mark_cuda_test and
the pytest plugin."""

import pytest

import gpukit.driver as drv
from gpukit import tools


@pytest.mark.gpu
def test_device_data_reads_the_device(ctx):
    data = tools.DeviceData()
    dev = drv.Device(0)
    assert data.max_threads == dev.max_threads_per_block
    assert data.warp_size == 32
    assert data.warps_per_mp * 32 == dev.max_threads_per_multiprocessor
    assert data.thread_blocks_per_mp == dev.max_blocks_per_multiprocessor
    assert data.registers == dev.max_registers_per_multiprocessor
    assert data.shared_memory == dev.max_shared_memory_per_multiprocessor
    assert data.smem_granularity == 32
    assert data.smem_alloc_granularity in (128, 256)
    assert tools.DeviceData(dev).max_threads == data.max_threads
    assert data.align(1) == data.align_bytes() == 128
    assert data.align_dtype(33, 4) == 64
    with pytest.raises(drv.LogicError, match="word_size"):
        data.align_bytes(3)


@pytest.mark.gpu
def test_occupancy_record(ctx):
    data = tools.DeviceData()
    full = tools.OccupancyRecord(data, 1024)
    assert full.limited_by == "warps" and full.occupancy == 1.0
    assert tools.OccupancyRecord(data, 32).limited_by == "device"
    regs = tools.OccupancyRecord(data, 256, registers=128)
    assert regs.limited_by == "regs" and regs.tb_per_mp == 2
    smem = tools.OccupancyRecord(data, 128, shared_mem=48 * 1024)
    assert smem.limited_by == "smem"
    with pytest.raises(drv.LogicError, match="threads"):
        tools.OccupancyRecord(data, 0)


def test_make_valid_tex_channel_count():
    assert [tools.DeviceData.make_valid_tex_channel_count(n) for n in (1, 2, 3, 4)] == [1, 2, 4, 4]
    with pytest.raises(drv.LogicError):
        tools.DeviceData.make_valid_tex_channel_count(5)


def test_memoize_needs_a_context_when_there_is_none():
    if drv.driver_available() and drv.Device.count() > 0:
        pytest.skip("checks the error on a machine without a current context")
    with pytest.raises(drv.Error):
        tools.context_dependent_memoize(lambda x: x)(1)


@pytest.mark.gpu
def test_context_dependent_memoize(ctx):
    calls = []

    @tools.context_dependent_memoize
    def square(x):
        calls.append(x)
        return x * x

    assert square(3) == 9 and square(3) == 9 and calls == [3]
    other = drv.Device(0).make_context()  # a second context computes afresh
    assert square(3) == 9 and calls == [3, 3]
    drv.Context.pop()
    other.detach()
    tools.clear_context_caches()
    assert square(3) == 9 and calls == [3, 3, 3]


@pytest.mark.gpu
def test_mark_cuda_test_provides_a_context():
    from conftest import drain_context_stack

    drain_context_stack()
    seen = []

    @tools.mark_cuda_test
    def body():
        seen.append(drv.Context.get_current())

    body()
    assert seen[0] is not None
    assert drv.Context.get_current() is None


def test_plugin_fixtures(request):
    # The fixtures skip with the reason on machines without CUDA, and work on those with it.
    if drv.driver_available() and drv.Device.count() > 0:
        context = request.getfixturevalue("cuda_context")
        assert drv.Context.get_current() == context
        assert request.getfixturevalue("cuda_device") == context.get_device()
    else:
        with pytest.raises(pytest.skip.Exception, match="CUDA"):
            request.getfixturevalue("cuda_device")
