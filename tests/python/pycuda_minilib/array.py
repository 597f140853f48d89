"""Array: a GPUArray over memory the library lends with an offset, as reikna's Array is."""

import pycuda.driver as cuda
import pycuda.gpuarray as gpuarray


class Array(gpuarray.GPUArray):
    """A view of `nbytes` bytes of `base_data` starting `offset` bytes in; results of operators
    come back as Arrays of the same thread (through _new_like_me)."""

    def __init__(
        self, thread, shape, dtype, strides=None, offset=0, nbytes=None, base_data=None, allocator=cuda.mem_alloc
    ):
        gpudata = None if base_data is None else int(base_data) + offset
        gpuarray.GPUArray.__init__(self, shape, dtype, strides=strides, allocator=allocator, gpudata=gpudata)
        self.base_data = self.gpudata if base_data is None else base_data
        self.offset = offset
        self.nbytes = nbytes
        self.thread = thread

    def _new_like_me(self, dtype=None):
        # Called by PyCUDA for the results of operators: keep them Arrays of this thread.
        return self.thread.array(self.shape, self.dtype if dtype is None else dtype)

    def copy(self):
        new = self._new_like_me()
        gpuarray._memcpy_discontig(new, self, async_=True, stream=self.thread.stream)
        return new

    def __getitem__(self, index):
        view = gpuarray.GPUArray.__getitem__(self, index)
        return self.thread.array(
            view.shape,
            view.dtype,
            strides=view.strides,
            base_data=self.base_data,
            offset=int(view.gpudata) - int(self.base_data),
        )

    def rebind(self, data):
        """Point the array at other memory of the same size (reikna's temporary-buffer trick)."""
        self.base_data = data
        self.gpudata = int(data) + self.offset
