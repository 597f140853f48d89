"""The layout arithmetic of gpukit's arrays, checked against numpy's own views on random
shapes, strides, indices and reshapes."""
import numpy as np
import pytest

from gpukit._gpukit import Layout


def layout_of(a):
    base = a.base if a.base is not None else a
    offset = a.__array_interface__["data"][0] - base.__array_interface__["data"][0]
    return Layout(list(a.shape), list(a.strides), a.itemsize, offset)


def same(layout, a):
    expected = layout_of(a)
    if a.size == 0:  # an empty view's strides and offset are arbitrary
        return layout.shape == list(a.shape)
    # The stride of a length-1 axis is never used, and numpy leaves it arbitrary.
    used = [n != 1 for n in a.shape]
    strides = [s for s, u in zip(layout.strides, used) if u]
    expected_strides = [s for s, u in zip(expected.strides, used) if u]
    return (layout.shape, strides, layout.offset) == (expected.shape, expected_strides, expected.offset)


def random_base(rng):
    ndim = int(rng.integers(1, 5))
    shape = tuple(int(n) for n in rng.integers(1, 6, size=ndim))
    order = "C" if rng.random() < 0.5 else "F"
    dtype = rng.choice([np.int8, np.float32, np.float64, np.complex128])
    return np.zeros(shape, dtype=dtype, order=order)


def random_index(rng, ndim):
    items = []
    for _ in range(ndim):
        r = rng.random()
        if r < 0.25:
            items.append(int(rng.integers(-2, 2)))
        elif r < 0.85:
            start = None if rng.random() < 0.3 else int(rng.integers(-6, 6))
            stop = None if rng.random() < 0.3 else int(rng.integers(-6, 6))
            step = None if rng.random() < 0.3 else int(rng.choice([-3, -2, -1, 1, 2, 3]))
            items.append(slice(start, stop, step))
        elif r < 0.95:
            items.append(None)
        else:
            items.append(Ellipsis)
    if items.count(Ellipsis) > 1:
        items = [i for i in items if i is not Ellipsis]
    return tuple(items)


def test_contiguous_strides_match_numpy():
    for order in "CF":
        a = np.empty((3, 4, 5), dtype=np.float32, order=order)
        assert Layout.contiguous([3, 4, 5], 4, order).strides == list(a.strides)


def test_bare_keys_match_numpy():
    # A key that is not a tuple: a[None], a[...], a[1], a[::2].
    a = np.zeros((4, 6), np.float32)
    for key in (None, Ellipsis, 1, -1, slice(None, None, 2)):
        assert same(layout_of(a)[key], a[key]), key


def test_random_indexing_matches_numpy():
    rng = np.random.default_rng(1)
    checked = 0
    for _ in range(3000):
        a = random_base(rng)
        key = random_index(rng, a.ndim)
        try:
            view = a[key]
        except IndexError:
            with pytest.raises(IndexError):
                layout_of(a)[key]
            continue
        if not isinstance(view, np.ndarray):  # a scalar: take the 0-d view instead
            if Ellipsis in key:
                continue
            view = a[key + (Ellipsis,)]
        assert same(layout_of(a)[key], view), (a.shape, a.strides, key)
        checked += 1
    assert checked > 1000


def test_random_reshapes_match_numpy():
    rng = np.random.default_rng(2)
    for _ in range(2000):
        a = random_base(rng)
        try:
            view = a[random_index(rng, a.ndim)]
        except IndexError:
            continue
        if view.ndim == 0 or view.size == 0:
            continue
        flat = int(np.prod(view.shape))
        shapes = [(flat,), (-1,), (1, flat), (flat, 1)]
        divisors = [d for d in range(1, flat + 1) if flat % d == 0]
        d = int(rng.choice(divisors))
        shapes += [(d, flat // d), (d, -1, 1), (1, d, 1, flat // d)]
        for shape in shapes:
            for order in "CF":
                layout = layout_of(view)
                reshaped = view.reshape(shape, order=order)
                shares = np.shares_memory(reshaped, view) or view.size <= 1
                if shares:
                    assert same(layout.reshape(list(shape), order), reshaped), (view.shape, view.strides, shape, order)
                else:
                    with pytest.raises(Exception, match="without a copy"):
                        layout.reshape(list(shape), order)


def test_transpose_squeeze_split_ravel():
    a = np.zeros((2, 1, 6, 3), dtype=np.float32)
    lay = layout_of(a)
    assert same(lay.transpose(), a.T)
    assert same(lay.transpose([2, 0, 3, 1]), a.transpose(2, 0, 3, 1))
    assert same(lay.squeeze(), a.squeeze())
    assert same(lay.squeeze([1]), a.squeeze(1))
    for part, expected in zip(lay.split(3, axis=2), np.split(a, 3, axis=2)):
        assert same(part, expected)
    for part, expected in zip(lay.split_at([1, 4, 10], axis=-2), np.split(a, [1, 4, 10], axis=-2)):
        assert same(part, expected)
    assert same(lay.ravel(), a.ravel())
    with pytest.raises(Exception, match="not F-contiguous"):
        lay.ravel("F")
    with pytest.raises(Exception, match="repeated"):
        lay.transpose([0, 0, 1, 2])
    with pytest.raises(Exception, match="length 6"):
        lay.squeeze([2])
    with pytest.raises(Exception, match="equal sections"):
        lay.split(4, axis=2)
    with pytest.raises(IndexError):
        lay.transpose([0, 1, 2, 7])


def test_bad_input():
    with pytest.raises(Exception, match="negative"):
        Layout([2, -1], [4, 4], 4)
    with pytest.raises(Exception, match="different lengths"):
        Layout([2, 2], [4], 4)
    lay = Layout.contiguous([4, 5], 8)
    with pytest.raises(Exception, match="cannot reshape"):
        lay.reshape([3, 7])
    with pytest.raises(Exception, match="only one dimension may be -1"):
        lay.reshape([-1, -1])
    with pytest.raises(ValueError, match="step cannot be zero"):
        lay[::0]
    with pytest.raises(IndexError, match="too many indices"):
        lay[0, 0, 0]
    with pytest.raises(IndexError, match="valid indices"):
        lay["a"]
    with pytest.raises(ValueError, match="order"):
        lay.reshape([20], "K")


def test_byte_extent():
    a = np.zeros((4, 5), dtype=np.float32)
    assert Layout.contiguous([4, 5], 4).byte_extent() == (0, 80)
    assert layout_of(a[::-1, 1:3]).byte_extent() == (4, 72)
    assert Layout.contiguous([0, 5], 4).byte_extent() == (0, 0)
