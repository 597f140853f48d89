"""PyOpenCL's classes of constants (mem_info, device_info, ...): class attributes that are
plain ints, and ``to_string(value, default_format=None)``, so that code which walks
``dir(cls)`` (PyOpenCL's own tests do) finds the members, ``to_string`` and ``_is_bitfield``."""


def _to_string(cls, value, default_format=None):
    """The member name of `value`; with no such member, ``default_format % value`` when
    given, else ValueError."""
    for name, member in cls._members:
        if member == value:
            return name
    if default_format is None:
        raise ValueError(f"a name for value {value!r} was not found in {cls.__name__}")
    return default_format % value


def constant_class(name, members):
    """A class named `name` whose attributes are the (name, int) pairs of `members`."""
    namespace = dict(members)
    namespace.update(
        _members=tuple(members),
        _is_bitfield=False,
        to_string=classmethod(_to_string),
        __module__="gpukit.cl",
        __doc__=f"The {name} parameters of get_info (PyOpenCL's constants: plain ints).",
    )
    return type(name, (), namespace)
