"""StreamCapture: record a stream's work into a CUDA graph (re-exported by gpukit.driver)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from gpukit import _gpukit

if TYPE_CHECKING:
    from types import TracebackType


class StreamCapture:
    """Records the work queued on `stream` inside the ``with`` block, instead of running it::

        with drv.StreamCapture(stream) as capture:
            kernel(..., stream=stream)
            drv.memset_d32_async(ptr, 0, n, stream)
        exec_ = capture.graph.instantiate()
        exec_.launch(stream)         # replays everything; repeat as often as wanted

    `stream` must be a Stream you created (the legacy default stream cannot be captured).
    `mode` is a drv.capture_mode: GLOBAL (default) makes unsafe calls such as mem_alloc or
    synchronize fail in every thread during the capture, THREAD_LOCAL only in this thread,
    RELAXED nowhere. If the block raises, the capture is ended and discarded.
    """

    def __init__(self, stream: _gpukit.Stream, mode: _gpukit.capture_mode = _gpukit.capture_mode.GLOBAL) -> None:
        self.stream = stream
        self.mode = mode
        #: The recorded Graph, set when the with block ends without an exception.
        self.graph: _gpukit.Graph | None = None

    def __enter__(self) -> StreamCapture:
        _gpukit._begin_capture(self.stream, self.mode)
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, traceback: TracebackType | None
    ) -> Literal[False]:
        if exc_type is None:
            self.graph = _gpukit._end_capture(self.stream)
        elif _gpukit._is_capturing(self.stream):
            try:
                _gpukit._end_capture(self.stream)
            except _gpukit.Error:
                pass  # the capture was invalidated by the failure being raised; that error wins
        return False
