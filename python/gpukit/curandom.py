"""Random numbers on the GPU (PyCUDA's ``pycuda.curandom``).

``rand(shape, dtype)`` fills a new array from Philox4x32-10, a counter-based generator of
gpukit's own that needs no cuRAND headers (include/gpukit/random/philox.hpp). Each call
takes its key from numpy's global generator (``np.random.random_sample()``), as PyCUDA's
rand takes its seed from ``np.random.randint``, so ``np.random.seed(s)`` makes a program's
rand calls repeat.

The generator classes are cuRAND's device API compiled by NVRTC (curand_kernel.h must be
found: the CUDA toolkit's headers or the pip package nvidia-curand); their states are made
once, when the generator is made, and live in device memory the generator owns
(include/gpukit/random/generator.hpp). The Sobol direction vectors and scramble constants
come from cuRAND's host library, libcurand, loaded when first needed. See docs/random.md.
"""

from __future__ import annotations

import enum
import random as _random
from collections.abc import Callable
from typing import TYPE_CHECKING, SupportsIndex, cast

import numpy as np
import numpy.typing as npt

from gpukit import _gpukit, gpuarray

if TYPE_CHECKING:
    from gpukit._typing import StreamLike
    from gpukit.gpuarray import GPUArray, ShapeLike

__all__ = [
    "rand",
    "get_curand_version",
    "direction_vector_set",
    "seed_getter_uniform",
    "seed_getter_unique",
    "generate_direction_vectors",
    "generate_scramble_constants32",
    "generate_scramble_constants64",
    "XORWOWRandomNumberGenerator",
    "MRG32k3aRandomNumberGenerator",
    "Sobol32RandomNumberGenerator",
    "ScrambledSobol32RandomNumberGenerator",
    "Sobol64RandomNumberGenerator",
    "ScrambledSobol64RandomNumberGenerator",
]


def rand(shape: ShapeLike, dtype: npt.DTypeLike = np.float32, stream: StreamLike | None = None) -> GPUArray:
    """A new array of `shape` with uniform numbers in [0, 1) (float32, float64), or random
    32-bit patterns (int32, uint32)."""
    return _gpukit._curand_rand(shape, dtype, stream, np.random.random_sample())  # type: ignore[return-value]  # (the stub says object)


def get_curand_version() -> tuple[int, int, int] | None:
    """cuRAND's version as (major, minor, patch): that of the headers the generators compile
    against, else that of libcurand; None when neither is found."""
    return cast("tuple[int, int, int] | None", _gpukit._curand_version())  # (the stub says object)


class direction_vector_set(enum.IntEnum):
    """cuRAND's sets of Sobol direction vectors (Joe and Kuo's, 20000 dimensions)."""

    VECTOR_32 = 101
    SCRAMBLED_VECTOR_32 = 102
    VECTOR_64 = 103
    SCRAMBLED_VECTOR_64 = 104


def seed_getter_uniform(N: SupportsIndex) -> GPUArray:
    """An int32 GPUArray of `N` copies of one random seed (from Python's ``random``)."""
    return gpuarray.empty([N], np.int32).fill(_random.randint(0, 2**31 - 1))


def seed_getter_unique(N: SupportsIndex) -> GPUArray:
    """An int32 GPUArray of `N` random seeds (from numpy's global generator)."""
    return gpuarray.to_gpu(np.random.randint(0, 2**31 - 1, N).astype(np.int32))


def generate_direction_vectors(
    count: SupportsIndex, direction: direction_vector_set | int = direction_vector_set.VECTOR_32
) -> GPUArray:
    """cuRAND's direction vectors of the first `count` dimensions (at most 20000): a
    (count, 32) uint32 GPUArray, (count, 64) uint64 for the 64-bit sets."""
    # (the stub says object)
    return cast("GPUArray", _gpukit._curand_direction_vectors(count, int(direction_vector_set(direction))))


def generate_scramble_constants32(count: SupportsIndex) -> GPUArray:
    """cuRAND's scramble constants of the first `count` dimensions: a uint32 GPUArray."""
    return cast("GPUArray", _gpukit._curand_scramble_constants(count, 32))  # (the stub says object)


def generate_scramble_constants64(count: SupportsIndex) -> GPUArray:
    """cuRAND's scramble constants of the first `count` dimensions: a uint64 GPUArray."""
    return cast("GPUArray", _gpukit._curand_scramble_constants(count, 64))  # (the stub says object)


_Generator = _gpukit._RandomGenerator


class XORWOWRandomNumberGenerator(_Generator):
    """cuRAND's XORWOW generators, one per thread: generator g starts subsequence g (2^67
    draws apart) of the stream its seed picks, `offset` draws in. `seed_getter(count)` gives
    the int32 GPUArray of seeds (default: seed_getter_unique)."""

    has_box_muller = True

    def __init__(self, seed_getter: Callable[[int], GPUArray] | None = None, offset: SupportsIndex = 0) -> None:
        super().__init__("XORWOW", seed_getter_unique if seed_getter is None else seed_getter, None, offset)

    call_skip_ahead_sequence = _Generator._call_skip_ahead_sequence
    call_skip_ahead_sequence_array = _Generator._call_skip_ahead_sequence_array


class MRG32k3aRandomNumberGenerator(_Generator):
    """cuRAND's MRG32k3a generators, seeded as XORWOW's: generator g starts subsequence g
    (2^76 draws apart). call_skip_ahead_sequence skips 2^127 draws, call_skip_ahead_subsequence
    2^76."""

    has_box_muller = True

    def __init__(self, seed_getter: Callable[[int], GPUArray] | None = None, offset: SupportsIndex = 0) -> None:
        super().__init__("MRG32k3a", seed_getter_unique if seed_getter is None else seed_getter, None, offset)

    call_skip_ahead_sequence = _Generator._call_skip_ahead_sequence
    call_skip_ahead_sequence_array = _Generator._call_skip_ahead_sequence_array
    call_skip_ahead_subsequence = _Generator._call_skip_ahead_subsequence
    call_skip_ahead_subsequence_array = _Generator._call_skip_ahead_subsequence_array


class Sobol32RandomNumberGenerator(_Generator):
    """Sobol points, one dimension per generator: `dir_vector` is a (count, 32) uint32
    GPUArray (default: cuRAND's, generate_direction_vectors); `offset` points are skipped."""

    has_box_muller = False

    def __init__(self, dir_vector: GPUArray | None = None, offset: SupportsIndex = 0) -> None:
        super().__init__("Sobol32", dir_vector, None, offset)


class ScrambledSobol32RandomNumberGenerator(_Generator):
    """Scrambled Sobol points: as Sobol32, with cuRAND's scrambled direction vectors and a
    uint32 `scramble_vector` of one constant per generator (default: cuRAND's)."""

    has_box_muller = False

    def __init__(
        self, dir_vector: GPUArray | None = None, scramble_vector: GPUArray | None = None, offset: SupportsIndex = 0
    ) -> None:
        super().__init__("ScrambledSobol32", dir_vector, scramble_vector, offset)


class Sobol64RandomNumberGenerator(_Generator):
    """64-bit Sobol points: `dir_vector` is a (count, 64) uint64 GPUArray."""

    has_box_muller = False

    def __init__(self, dir_vector: GPUArray | None = None, offset: SupportsIndex = 0) -> None:
        super().__init__("Sobol64", dir_vector, None, offset)


class ScrambledSobol64RandomNumberGenerator(_Generator):
    """Scrambled 64-bit Sobol points, with a uint64 `scramble_vector`."""

    has_box_muller = False

    def __init__(
        self, dir_vector: GPUArray | None = None, scramble_vector: GPUArray | None = None, offset: SupportsIndex = 0
    ) -> None:
        super().__init__("ScrambledSobol64", dir_vector, scramble_vector, offset)
