"""Reading other libraries' device arrays: __cuda_array_interface__ (version 2 or 3), else
a CUDA __dlpack__ export."""


def array_interface(obj):
    """(interface dict, owner) for an object exporting __cuda_array_interface__ or
    __dlpack__; the owner (the object, or the imported DLPack tensor) is kept alive by
    whatever views its memory."""
    interface = getattr(obj, "__cuda_array_interface__", None)
    if interface is None:
        if hasattr(obj, "__dlpack__") and hasattr(obj, "__dlpack_device__"):
            from gpukit import _dlpack
            return _dlpack.interface(obj)
        raise TypeError(f"{type(obj).__name__} exports neither __cuda_array_interface__ nor __dlpack__")
    if interface.get("mask") is not None:
        raise TypeError("masked arrays (__cuda_array_interface__ 'mask') are not supported")
    return interface, obj
