"""stream= takes any object with __cuda_stream__ (CUDA Python's stream protocol), as well as
gpukit's Stream and None (python/bindings/common/memory_args.cpp, stream_arg)."""

import numpy as np
import pytest

import gpukit.driver as drv
from gpukit import cuda, gpuarray


class ForeignStream:
    """A stream of another library, as the protocol presents it."""

    def __init__(self, answer):
        self.answer = answer

    def __cuda_stream__(self):
        if isinstance(self.answer, Exception):
            # A new exception each time: raising the parameter itself would give it a traceback
            # holding this call's frames (a half-made GPUArray among them) for the whole session.
            raise type(self.answer)(*self.answer.args)
        return self.answer


def fake_array(stream):
    return gpuarray.GPUArray((3,), np.float32, gpudata=1 << 20, stream=stream)


@pytest.mark.parametrize("handle", [0, 1, 2, 0x7F00_1234_5600])
def test_a_protocol_stream_is_accepted(handle):
    assert fake_array(ForeignStream((0, handle))).stream.__cuda_stream__() == (0, handle)


@pytest.mark.parametrize(
    "answer, error, message",
    [
        (5, TypeError, r"ForeignStream.__cuda_stream__\(\) must return a \(version, handle\) tuple, got int"),
        ((0, 1, 2), TypeError, "must return a"),
        ((1, 5), ValueError, "returned version 1; gpukit knows version 0"),
        (("0", 5), ValueError, "returned version '0'"),
        ((0, -1), Exception, "handle"),
        ((0, 2**64), Exception, "handle"),
        ((0, 2.5), TypeError, "handle"),
        (KeyError("from the object"), KeyError, "from the object"),
    ],
)
def test_a_bad_protocol_answer_is_a_clear_error(answer, error, message):
    with pytest.raises(error, match=message):
        fake_array(ForeignStream(answer))


@pytest.mark.parametrize("handle, spelled", [(0, 1), (1, 1), (0x7F00_1234_5600, 0x7F00_1234_5600)])
def test_the_array_interface_names_a_protocol_streams_handle(handle, spelled):
    assert fake_array(ForeignStream((0, handle))).__cuda_array_interface__["stream"] == spelled


def test_other_objects_are_refused_with_what_is_accepted():
    with pytest.raises(TypeError, match="Stream, an object with __cuda_stream__ .* or None, got int"):
        fake_array(3)


def test_numba_style_calls_take_protocol_streams():
    foreign = ForeignStream((0, 0))
    assert cuda._stream(foreign) is foreign and cuda._stream(0) is None
    with pytest.raises(TypeError, match="__cuda_stream__"):
        cuda._stream("stream")


@pytest.mark.gpu
def test_work_queued_on_a_protocol_stream_runs_there(ctx):
    own = drv.Stream()
    foreign = ForeignStream(own.__cuda_stream__())
    host = np.arange(1001, dtype=np.float32)
    a = gpuarray.to_gpu_async(host, stream=foreign)
    b = (2 * a).get(stream=foreign)
    np.testing.assert_array_equal(b, 2 * host)
    c = gpuarray.empty_like(a)
    c.set_async(host[::-1].copy(), stream=foreign)
    own.synchronize()
    np.testing.assert_array_equal(c.get(), host[::-1])
    event = drv.Event().record(foreign)
    event.synchronize()
    assert event.query()


@pytest.mark.gpu
def test_dlpack_export_of_an_array_on_a_protocol_stream(ctx):
    own = drv.Stream()
    foreign = ForeignStream(own.__cuda_stream__())
    host = np.arange(1001, dtype=np.float32)
    a = 3 * gpuarray.to_gpu_async(host, stream=foreign)
    a.stream = foreign
    assert a.__cuda_array_interface__["stream"] == own.handle
    for consumer in (None, 1, drv.Stream().handle):
        b = gpuarray.asarray(_DLPackOnly(a, consumer))  # the consumer's stream waits for `foreign`
        np.testing.assert_array_equal(b.get(), 3 * host)


class _DLPackOnly:
    """`array` seen through DLPack alone, exported for a consumer on `stream`."""

    def __init__(self, array, stream):
        self.array, self.stream = array, stream

    def __dlpack_device__(self):
        return self.array.__dlpack_device__()

    def __dlpack__(self, **kwargs):
        return self.array.__dlpack__(**dict(kwargs, stream=self.stream))


@pytest.mark.gpu
def test_a_stream_of_another_context_is_refused_naming_the_primary_context(ctx):
    other = drv.Device(0).make_context()
    try:
        stream = drv.Stream()  # kept alive for the whole test
        foreign = ForeignStream(stream.__cuda_stream__())
    finally:
        other.pop()
    with pytest.raises(drv.LogicError, match="another CUDA context than the current one.*primary context"):
        gpuarray.to_gpu_async(np.arange(4.0), stream=foreign)
    other.push()
    try:
        np.testing.assert_array_equal(gpuarray.to_gpu_async(np.arange(4.0), stream=foreign).get(), np.arange(4.0))
    finally:
        other.pop()


@pytest.mark.gpu
def test_cupy_and_torch_streams(primary_ctx):
    host = np.arange(100, dtype=np.float64)
    for module_name in ("cupy", "torch"):
        module = pytest.importorskip(module_name)
        stream = module.cuda.Stream()
        handle = stream.ptr if module_name == "cupy" else stream.cuda_stream
        protocol = stream if hasattr(stream, "__cuda_stream__") else ForeignStream((0, handle))
        a = gpuarray.to_gpu_async(host, stream=protocol)
        result = (a + 1).get(stream=protocol)
        np.testing.assert_array_equal(result, host + 1)
