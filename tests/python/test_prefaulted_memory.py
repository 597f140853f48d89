"""prefaulted_empty, the new-array side of GPUArray.get() and from_device: numpy.empty below
the threshold, prefaulted memory from it on; shape, dtype, order and strides as numpy.empty
gives them, memory writable and returned when the array dies, with or without transparent
huge pages. No GPU needed."""

import gc

import numpy as np
import pytest

import gpukit.driver as drv
from gpukit import _gpukit

from conftest import run_in_fresh_process

MiB = 1 << 20
THRESHOLD = _gpukit._prefaulted_min_bytes
HUGE_PAGE = 2 * MiB


def rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096


def thp_mode():
    try:
        with open("/sys/kernel/mm/transparent_hugepage/enabled") as f:
            return f.read().split("[")[1].split("]")[0]
    except (OSError, IndexError):
        return None


def test_threshold_is_glibcs_largest_heap_block():
    assert THRESHOLD == 32 * MiB


@pytest.mark.parametrize(
    "shape, dtype",
    [
        (THRESHOLD, np.uint8),  # exactly the threshold
        ((THRESHOLD // 8 + 1,), np.float64),  # one element over
        ((4099, 2053), np.float32),  # odd extents
        ((3, 1031, 2063), np.complex64),
        ((97, 89, 13, 71), np.int64),
        ((5, 3), np.dtype([("a", np.int32), ("b", np.float64, (300001,))])),  # record dtype
    ],
)
@pytest.mark.parametrize("order", ["C", "F"])
def test_large_arrays_match_numpy_empty(shape, dtype, order):
    a = drv.prefaulted_empty(shape, dtype, order=order)
    like = np.empty(shape, dtype, order=order)
    assert a.nbytes >= THRESHOLD
    assert isinstance(a.base, drv.PrefaultedHostMemory)
    assert (a.shape, a.dtype, a.strides) == (like.shape, like.dtype, like.strides)
    assert (a.flags.c_contiguous, a.flags.f_contiguous) == (like.flags.c_contiguous, like.flags.f_contiguous)
    assert a.flags.writeable and a.flags.aligned
    assert a.ctypes.data % HUGE_PAGE == 0
    # The array covers its memory exactly, element by element in memory order.
    values = np.resize(np.arange(251, dtype=np.uint8), a.nbytes)
    np.frombuffer(a.base, np.uint8)[...] = values
    assert a.tobytes(order="A") == values.tobytes()


@pytest.mark.parametrize("shape", [0, (0, 7), 1, (3, 5), (THRESHOLD // 4 - 1,)])
def test_small_arrays_are_numpys_own(shape):
    a = drv.prefaulted_empty(shape, np.float32)
    assert a.base is None and a.flags.owndata
    assert a.shape == np.empty(shape, np.float32).shape


def test_order_of_small_arrays_too():
    a = drv.prefaulted_empty((3, 5), np.float64, order="F")
    assert a.flags.f_contiguous and not a.flags.c_contiguous


@pytest.mark.parametrize("nbytes", [1, THRESHOLD])
def test_bad_arguments(nbytes):
    with pytest.raises(ValueError, match="negative"):
        drv.prefaulted_empty((nbytes, -1), np.uint8)
    with pytest.raises(TypeError):
        drv.prefaulted_empty(2.5, np.uint8)
    with pytest.raises(TypeError):
        drv.prefaulted_empty(nbytes, "no such dtype")
    with pytest.raises(ValueError, match="order must be 'C' or 'F'"):
        drv.prefaulted_empty(nbytes, np.uint8, order="A")
    with pytest.raises(TypeError, match="unexpected keyword"):
        drv.prefaulted_empty(nbytes, np.uint8, alignment=4096)


def test_views_keep_the_memory_alive():
    a = drv.prefaulted_empty((THRESHOLD // 4,), np.int32)
    a[...] = np.arange(a.size, dtype=np.int32)
    view = a[1::3]
    del a
    gc.collect()
    np.testing.assert_array_equal(view[:5], [1, 4, 7, 10, 13])
    assert view[-1] == 1 + 3 * (view.size - 1)


@pytest.fixture
def reuse_limit():
    """Sets the reuse limit for one test; afterwards unmaps what is kept and puts the old
    limit back."""
    old = []
    yield lambda nbytes: old.append(drv.set_prefaulted_reuse_limit(nbytes))
    drv.set_prefaulted_reuse_limit(0)
    drv.set_prefaulted_reuse_limit(old[0])


def test_memory_is_returned_when_the_array_dies(reuse_limit):
    reuse_limit(0)
    before = rss_bytes()
    for i in range(30):
        a = drv.prefaulted_empty(64 * MiB, np.uint8)
        a.fill(i)
        if i == 0:
            assert rss_bytes() >= before + 63 * MiB
        del a
    assert rss_bytes() < before + 16 * MiB


def test_memory_of_a_dead_array_is_reused_within_the_limit(reuse_limit):
    reuse_limit(128 * MiB)
    a = drv.prefaulted_empty(64 * MiB, np.uint8)
    address = a.ctypes.data
    a.fill(1)
    del a
    before = rss_bytes()
    for i in range(10):  # as a loop of get() calls: the same pages every time
        a = drv.prefaulted_empty((8 * MiB, 2), np.float32)
        assert a.ctypes.data == address
        a[...] = i
        assert a[-1, -1] == i and a[0, 0] == i
        del a
    assert rss_bytes() < before + 16 * MiB
    assert drv.set_prefaulted_reuse_limit(0) == 128 * MiB
    assert rss_bytes() < before - 48 * MiB  # emptied: the kept 64 MiB are unmapped
    with pytest.raises(drv.LogicError, match="from 0"):
        drv.set_prefaulted_reuse_limit(-1)
    with pytest.raises(TypeError):
        drv.set_prefaulted_reuse_limit("1 GiB")


def test_free_early_and_wait():
    a = drv.prefaulted_empty(THRESHOLD, np.uint8)
    a.base.wait_prefaulted()
    a[::4096] = 7
    assert int(a[::4096].sum()) == 7 * (THRESHOLD // 4096)
    memory = a.base
    del a
    memory.free()
    memory.free()  # a second free does nothing
    with pytest.raises(drv.LogicError, match="freed"):
        memory.wait_prefaulted()
    with pytest.raises(BufferError, match="freed"):
        np.frombuffer(memory, np.uint8)


def _thp_eligible(address):
    """smaps' THPeligible for the mapping that holds `address`."""
    with open("/proc/self/smaps") as f:
        inside = False
        for line in f:
            first = line.split()[0]
            if "-" in first and not first.endswith(":"):
                start, end = (int(x, 16) for x in first.split("-"))
                inside = start <= address < end
            elif inside and first == "THPeligible:":
                return int(line.split()[1])
    raise AssertionError(f"no mapping holds {address:#x}")


@pytest.mark.skipif(thp_mode() not in ("always", "madvise"), reason="transparent huge pages are not enabled")
def test_memory_may_use_huge_pages():
    a = drv.prefaulted_empty(THRESHOLD + 3, np.uint8)
    assert _thp_eligible(a.ctypes.data) == 1


def test_works_with_huge_pages_disabled():
    # PR_SET_THP_DISABLE gives this process what THP "never" gives the whole system.
    out = run_in_fresh_process("""
        import ctypes, numpy as np
        assert ctypes.CDLL(None).prctl(41, 1, 0, 0, 0) == 0   # PR_SET_THP_DISABLE
        import gpukit.driver as drv
        from test_prefaulted_memory import _thp_eligible
        for order in "CF":
            a = drv.prefaulted_empty((4099, 2053), np.float32, order=order)
            assert isinstance(a.base, drv.PrefaultedHostMemory)
            a[...] = np.arange(a.size, dtype=np.float32).reshape(a.shape)
            a.base.wait_prefaulted()
            assert a[4098, 2052] == a.size - 1 and a[1, 0] == 2053
            print(_thp_eligible(a.ctypes.data))
    """)
    assert out.split() == ["0", "0"]
