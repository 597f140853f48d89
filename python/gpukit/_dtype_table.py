"""Looking a numpy dtype up in a table keyed by dtypes, as the CUDA array and OpenCL argument
code do, with one error that names the dtypes the table knows."""

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import numpy as np

Entry = TypeVar("Entry")


def look_up_dtype(table: Mapping[np.dtype[Any], Entry], dtype: Any, missing: Callable[[np.dtype[Any]], str]) -> Entry:
    """table[np.dtype(dtype)]; for a dtype the table lacks, ValueError with ``missing(dtype)``
    followed by the dtypes it has."""
    dtype = np.dtype(dtype)
    try:
        return table[dtype]
    except KeyError:
        known = ", ".join(str(d) for d in table)
        raise ValueError(f"{missing(dtype)}; expected one of {known}") from None
