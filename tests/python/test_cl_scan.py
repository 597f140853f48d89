"""PyOpenCL's scans, scan-based algorithms and sorts (gpukit.cl.scan, .algorithm, .bitonic_sort;
pyopencl's with GPUKIT_PYOPENCL_ORIGINAL=1) against numpy: sizes around the kernels' pass (1024) and
interval boundaries, segments, offsets into the arrays, structured inputs and the algorithms'
counts. These run on PoCL in CI."""

import numpy as np
import pytest

from cl_either import ORIGINAL, cl, cl_tools, ctx, needs_device, queue  # noqa: F401  (ctx, queue: fixtures)

if ORIGINAL:
    import pyopencl.array as cla
    from pyopencl.algorithm import KeyValueSorter, ListOfListsBuilder, RadixSort, copy_if, partition, remove_if, unique
    from pyopencl.bitonic_sort import BitonicSort
    from pyopencl.scan import ExclusiveScanKernel, GenericScanKernel, InclusiveScanKernel
else:
    import gpukit.cl.array as cla
    from gpukit.cl.algorithm import KeyValueSorter, ListOfListsBuilder, RadixSort, copy_if, partition, remove_if, unique
    from gpukit.cl.bitonic_sort import BitonicSort
    from gpukit.cl.scan import ExclusiveScanKernel, GenericScanKernel, InclusiveScanKernel

pytestmark = [pytest.mark.opencl, needs_device]

SIZES = [1, 7, 1023, 1024, 1025, 10007, 300001]


def ints(n, high=10, seed=0, dtype=np.int32):
    return np.random.default_rng(seed).integers(0, high, n).astype(dtype)


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float32, np.uint64])
def test_inclusive_and_exclusive_sums(queue, dtype):
    inclusive = InclusiveScanKernel(queue.context, dtype, "a+b", "0")
    exclusive = ExclusiveScanKernel(queue.context, dtype, "a+b", "0")
    for n in SIZES:
        host = ints(n, seed=n).astype(dtype)
        x = cla.to_device(queue, host)
        out = inclusive(x, "new")
        np.testing.assert_array_equal(out.get(), np.cumsum(host, dtype=dtype), err_msg=f"n = {n}")
        assert np.array_equal(x.get(), host)  # "new" leaves the input alone
        exclusive(x)  # in place
        np.testing.assert_array_equal(x.get(), np.cumsum(host, dtype=dtype) - host, err_msg=f"n = {n}")


def test_a_scan_of_a_part_of_an_array_and_of_a_non_commutative_operator(queue):
    # "b" (the later element) keeps the last value: an operator whose order matters. Over an
    # offset view: element 0 is host[5] (PyOpenCL passes the offset only for a VectorArg
    # declared with_offset; gpukit always does).
    host = ints(5000, high=1000, seed=3)
    x = cla.to_device(queue, host)
    arguments = [cl_tools.VectorArg(np.int32, "x", with_offset=True), cl_tools.VectorArg(np.int32, "out")]
    knl = GenericScanKernel(
        queue.context, np.int32, arguments, "x[i] * 2 + (int)(i % 3)", "b", "0", "out[i] = item - prev_item;"
    )
    part, out = x[5:4000], cla.zeros(queue, 3995, np.int32)
    knl(part, out)
    mapped = host[5:4000] * 2 + np.arange(3995) % 3
    expected = mapped - np.concatenate([[0], mapped[:-1]])
    np.testing.assert_array_equal(out.get(), expected)


@pytest.mark.parametrize("exclusive", [False, True])
def test_segmented_sums(queue, exclusive):
    knl = GenericScanKernel(
        queue.context,
        np.int32,
        "__global int *ary, __global char *segflags, __global int *out",
        "ary[i]",
        "across_seg_boundary ? b : (a+b)",
        "0",
        "out[i] = prev_item" if exclusive else "out[i] = item",
        is_segment_start_expr="segflags[i]",
    )
    rng = np.random.default_rng(5)
    for n in SIZES:
        host = ints(n, seed=n)
        flags = np.zeros(n, np.int8)
        flags[rng.integers(0, n, max(1, n // 300))] = 1
        out = cla.empty(queue, n, np.int32)
        knl(cla.to_device(queue, host), cla.to_device(queue, flags), out)
        expected, total = np.empty(n, np.int32), 0
        for i in range(n):
            total = 0 if flags[i] else total
            if exclusive:
                expected[i] = total
            total += host[i]
            if not exclusive:
                expected[i] = total
        np.testing.assert_array_equal(out.get(), expected, err_msg=f"n = {n}")


def test_size_last_item_scalars_and_fetches(queue):
    # Runs of equal elements numbered from 1 (a fetch of the previous element), times a
    # scalar; the number of runs through last_item; size= scans a prefix only.
    knl = GenericScanKernel(
        queue.context,
        np.int64,
        "__global short *x, long scale, __global long *out, __global long *runs",
        "(i == 0 || x_prev != x[i]) ? 1 : 0",
        "a+b",
        "0",
        "out[i] = item * scale; if (i == 0) runs[0] = last_item;",
        input_fetch_exprs=[("x_prev", "x", -1)],
    )
    host = (np.arange(30000) // 7).astype(np.int16)
    host[::11] = -1
    out, runs = cla.zeros(queue, 30000, np.int64), cla.zeros(queue, 1, np.int64)
    knl(cla.to_device(queue, host), np.int64(3), out, runs, size=20000)
    starts = np.concatenate([[1], host[1:20000] != host[:19999]]).astype(np.int64)
    np.testing.assert_array_equal(out.get()[:20000], np.cumsum(starts) * 3)
    assert not out.get()[20000:].any()
    assert runs.get()[0] == starts.sum()


@pytest.mark.parametrize("n", SIZES)
def test_copy_if_remove_if_partition_unique(queue, n):
    host = ints(n, high=1000, seed=n)
    x = cla.to_device(queue, host)
    crit = np.int32(300)
    selected, count, _ = copy_if(x, "ary[i] > myval", [("myval", crit)])
    np.testing.assert_array_equal(selected.get()[: count.get()], host[host > crit])
    removed, count, _ = remove_if(x, "ary[i] > myval", [("myval", crit)])
    np.testing.assert_array_equal(removed.get()[: count.get()], host[host <= crit])
    yes, no, count, _ = partition(x, "ary[i] > myval", [("myval", crit)])
    count = int(count.get())
    np.testing.assert_array_equal(yes.get()[:count], host[host > crit])
    np.testing.assert_array_equal(no.get()[: n - count], host[host <= crit])
    ordered = np.sort(host)
    distinct, count, _ = unique(cla.to_device(queue, ordered))
    np.testing.assert_array_equal(distinct.get()[: count.get()], np.unique(ordered))


def test_copy_if_reads_an_array_extra_argument(queue):
    host = ints(5000, high=100, seed=9)
    limits = ints(5000, high=100, seed=10)
    selected, count, _ = copy_if(cla.to_device(queue, host), "ary[i] < lim[i]", [("lim", cla.to_device(queue, limits))])
    np.testing.assert_array_equal(selected.get()[: count.get()], host[host < limits])


@pytest.mark.parametrize("bits", [1, 2, 4])
def test_radix_sort_is_stable_and_moves_every_sorted_argument(queue, bits):
    n = 20001
    keys = ints(n, high=2**12, seed=bits).astype(np.uint32)
    values = np.arange(n, dtype=np.int32)
    sort = RadixSort(
        queue.context,
        "__global uint *keys, __global int *values",
        "keys[i]",
        ["keys", "values"],
        bits_at_a_time=bits,
        key_dtype=np.uint32,
    )
    (sorted_keys, sorted_values), _ = sort(cla.to_device(queue, keys), cla.to_device(queue, values), key_bits=12)
    order = np.argsort(keys, kind="stable")
    np.testing.assert_array_equal(sorted_keys.get(), keys[order])
    np.testing.assert_array_equal(sorted_values.get(), values[order])


def test_key_value_sorter_groups_values_by_key(queue):
    n, nkeys = 20000, 700
    keys = ints(n, high=nkeys - 5, seed=11) + 5  # keys 0..4 have no values
    values = ints(n, high=10**6, seed=12).astype(np.int64)
    starts, lists, _ = KeyValueSorter(queue.context)(
        queue, cla.to_device(queue, keys), cla.to_device(queue, values), nkeys, starts_dtype=np.int32
    )
    starts, lists = starts.get(), lists.get()
    assert starts[0] == 0 and starts[nkeys] == n
    for k in range(nkeys):
        assert sorted(lists[starts[k] : starts[k + 1]]) == sorted(values[keys == k]), k


@pytest.mark.parametrize("dtype", [np.int32, np.float32, np.float64])
@pytest.mark.parametrize("size", [4, 16, 512])
def test_bitonic_sort_along_an_axis(queue, dtype, size):
    if dtype == np.float64 and "cl_khr_fp64" not in queue.device.extensions:
        pytest.skip("the device has no double precision")
    host = (np.random.default_rng(size).standard_normal((2, size, 3)) * 1000).astype(dtype)
    x = cla.to_device(queue, host)
    sorted_x, _ = BitonicSort(queue.context)(x, axis=1)
    assert sorted_x is x
    np.testing.assert_array_equal(x.get(), np.sort(host, axis=1))


@pytest.mark.parametrize("size", [0, 4, 2**14])
def test_bitonic_argsort_moves_the_indices(queue, size):
    host = np.random.default_rng(size).integers(0, 1000, size).astype(np.float32)
    x = cla.to_device(queue, host)
    index = cla.arange(queue, 0, size, 1, dtype=np.int32)
    BitonicSort(queue.context)(x, idx=index, axis=0)
    np.testing.assert_array_equal(x.get(), np.sort(host))
    np.testing.assert_array_equal(host[index.get()], np.sort(host))


@pytest.mark.skipif(ORIGINAL, reason="PyOpenCL's bitonic sort takes powers of two only")
def test_bitonic_sort_of_any_length_and_of_views(queue):
    host = np.random.default_rng(1).integers(-500, 500, (37, 1001)).astype(np.int64)
    x = cla.to_device(queue, host)
    BitonicSort(queue.context)(x[::-2, 3:], axis=1)
    expected = host.copy()
    expected[::-2, 3:] = np.sort(host[::-2, 3:], axis=1)
    np.testing.assert_array_equal(x.get(), expected)


def test_list_builder_counts_shares_omits_and_eliminates(queue):
    # Object i appends i % 4 entries of values[i] * scale + j to "main", the same count to
    # "twin" (count_sharing), and i % 3 entries to "third" when i is even.
    generate = """
        void generate(LIST_ARG_DECL USER_ARG_DECL index_type i)
        {
            for (int j = 0; j < i % 4; ++j) { APPEND_main(values[i] * scale + j); APPEND_twin(-j); }
            if (i % 2 == 0) for (int j = 0; j < i % 3; ++j) APPEND_third(j);
        }"""
    builder = ListOfListsBuilder(
        queue.context,
        [("main", np.int32), ("twin", np.int32), ("third", np.int64)],
        generate,
        arg_decls=[cl_tools.VectorArg(np.int32, "values", with_offset=True), cl_tools.ScalarArg(np.int32, "scale")],
        count_sharing={"twin": "main"},
        eliminate_empty_output_lists=["third"],
    )
    n = 3001
    host = np.arange(n + 7, dtype=np.int32) % 97
    values = cla.to_device(queue, host)
    result, _ = builder(queue, n, values[7:], np.int32(3))
    main = [[host[7 + i] * 3 + j for j in range(i % 4)] for i in range(n)]
    starts = np.concatenate([[0], np.cumsum([len(e) for e in main])])
    assert result["main"].count == starts[-1]
    np.testing.assert_array_equal(result["main"].starts.get(), starts)
    np.testing.assert_array_equal(result["main"].lists.get(), np.concatenate(main))
    np.testing.assert_array_equal(
        result["twin"].lists.get(), np.concatenate([[-j for j in range(i % 4)] for i in range(n)])
    )
    third = [list(range(i % 3)) if i % 2 == 0 else [] for i in range(n)]
    kept = [i for i in range(n) if third[i]]
    third_info = result["third"]
    assert third_info.num_nonempty_lists == len(kept)
    np.testing.assert_array_equal(third_info.nonempty_indices.get(), kept)
    np.testing.assert_array_equal(
        third_info.starts.get(), np.concatenate([[0], np.cumsum([len(third[i]) for i in kept])])
    )
    np.testing.assert_array_equal(third_info.lists.get(), np.concatenate([third[i] for i in kept]))
    if not ORIGINAL:  # PyOpenCL 2026.1.4 crashes (SIGSEGV) omitting a list whose empty lists it eliminates
        omitted, _ = builder(queue, n, values[7:], np.int32(3), omit_lists=["third"])
        assert set(omitted) == {"main", "twin"}
        np.testing.assert_array_equal(omitted["main"].lists.get(), np.concatenate(main))


def test_bad_sorts_and_builders_are_refused(queue):
    with pytest.raises(ValueError):  # an eliminated list that is not built
        ListOfListsBuilder(
            queue.context,
            [("a", np.int32)],
            "void generate(LIST_ARG_DECL USER_ARG_DECL index_type i) { APPEND_a(1); }",
            arg_decls=[],
            eliminate_empty_output_lists=["b"],
        )
    builder = ListOfListsBuilder(
        queue.context,
        [("a", np.int32)],
        "void generate(LIST_ARG_DECL USER_ARG_DECL index_type i) { APPEND_a(1); }",
        arg_decls=[],
    )
    with pytest.raises(ValueError):
        builder(queue, 10, omit_lists=["b"])
    with pytest.raises(TypeError):
        builder(queue, 10, no_such_keyword=1)
    if not ORIGINAL:  # PyOpenCL checks none of these (a build error, or garbage, follows)
        with pytest.raises(ValueError):  # a sorted argument that is not an argument
            RadixSort(queue.context, "__global uint *keys", "keys[i]", ["values"])
        x = cla.zeros(queue, 8, np.float32)
        with pytest.raises(ValueError):
            BitonicSort(queue.context)(x, idx=cla.zeros(queue, 7, np.int32))
        with pytest.raises(ValueError):
            RadixSort(queue.context, "__global uint *keys", "keys[i]", ["keys"], bits_at_a_time=9)


def test_bad_scans_are_refused(queue):
    with pytest.raises(ValueError):
        GenericScanKernel(queue.context, np.int32, "__global int *x", "x[i]", "a+b", None, "x[i] = item;")
    with pytest.raises(TypeError):
        GenericScanKernel(queue.context, np.int16, "__global short *x", "x[i]", "a+b", "0", "x[i] = item;")
    knl = InclusiveScanKernel(queue.context, np.int32, "a+b", "0")
    with pytest.raises(ValueError):
        knl(cla.zeros(queue, 10, np.int32), cla.zeros(queue, 11, np.int32))
    generic = GenericScanKernel(queue.context, np.int32, "__global int *x", "x[i]", "a+b", "0", "x[i] = item;")
    with pytest.raises(TypeError):
        generic(cla.zeros(queue, 10, np.int32), cla.zeros(queue, 10, np.int32))
