"""Reading other libraries' device arrays: the __cuda_array_interface__ (version 2 or 3)."""


def array_interface(obj):
    """(interface dict, owner) for an object exporting __cuda_array_interface__; the owner
    is the object, kept alive by whatever views its memory."""
    interface = getattr(obj, "__cuda_array_interface__", None)
    if interface is None:
        raise TypeError(f"{type(obj).__name__} does not export __cuda_array_interface__")
    if interface.get("mask") is not None:
        raise TypeError("masked arrays (__cuda_array_interface__ 'mask') are not supported")
    return interface, obj
