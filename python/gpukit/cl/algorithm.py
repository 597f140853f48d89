"""PyOpenCL's scan-based algorithms: ``gpukit.cl.algorithm`` (``pyopencl.algorithm`` through
``gpukit.pyopencl_compat``)::

    big, count, _ = copy_if(x, "ary[i] > threshold", [("threshold", np.float32(0.5))])
    big.get()[:count.get()]                       # the elements above 0.5, in order
    (keys,), _ = RadixSort(ctx, "uint *keys", "keys[i]", ["keys"])(keys)

Each is one generic scan (gpukit.cl.scan) of OpenCL C built from the caller's text, kept per
distinct text and dtypes so that repeated calls build nothing. RadixSort is a stable
least-significant-digit-first radix sort, one scan per ``bits_at_a_time`` key bits.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from gpukit import cl
from gpukit.cl.array import _NO_QUEUE, Array, empty, zeros
from gpukit.cl.elementwise import _parse_arguments
from gpukit.cl.scan import GenericScanKernel
from gpukit.cl.tools import ScalarArg, VectorArg, dtype_to_ctype

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence
    from typing import SupportsIndex, TypeAlias

    import numpy.typing as npt

    from gpukit._gpukit.cl import Buffer, CommandQueue, Context, Device, Event, SVMPointer
    from gpukit.cl.array import _Allocator, _Int, _Scalar, _WaitList
    from gpukit.cl.elementwise import _Arguments, _Options

    #: PyOpenCL's extra_args: (name, value) pairs, each value an Array or a numpy scalar.
    _ExtraArgs: TypeAlias = Iterable[tuple[str, Array | np.generic[Any]]] | None

__all__ = [
    "BuiltList",
    "KeyValueSorter",
    "ListOfListsBuilder",
    "RadixSort",
    "copy_if",
    "partition",
    "remove_if",
    "unique",
]


def _extra_args(
    extra_args: _ExtraArgs,
) -> tuple[tuple[str, ...], tuple[Array | np.generic[Any], ...], list[Event]]:
    """(declarations, values, events) of PyOpenCL's extra_args: (name, Array or numpy scalar)."""
    declarations: list[str] = []
    values: list[Array | np.generic[Any]] = []
    events: list[Event] = []
    for name, value in extra_args or []:
        if isinstance(value, Array):
            declarations.append(f"__global {dtype_to_ctype(value.dtype)} *{name}")
            values.append(value)
            events.extend(value.events)
        elif isinstance(value, np.generic):
            declarations.append(f"{dtype_to_ctype(value.dtype)} {name}")
            values.append(value)
        else:
            raise RuntimeError(f"argument '{name}' not understood")
    return tuple(declarations), tuple(values), events


def _counting_scan(
    context: Context,
    arguments: str,
    input_expr: str,
    output_statement: str,
    count_dtype: np.dtype[Any],
    preamble: str,
    fetches: Iterable[tuple[str, str, int]] = (),
) -> GenericScanKernel:
    """A scan counting where input_expr holds (an item_t/scan_t kernel of PyOpenCL's templates);
    made again on each call, it finds the programs built before (scan.py keeps the specs)."""
    return GenericScanKernel(
        context,
        count_dtype,
        arguments,
        input_expr,
        "a+b",
        "0",
        output_statement,
        input_fetch_exprs=list(fetches),
        preamble=preamble,
    )


def _count_dtype(ary: Array) -> np.dtype[Any]:
    return np.dtype(np.uint64 if ary.size > np.iinfo(np.uint32).max else np.uint32)


def _run_counting(
    ary: Array,
    arrays: Sequence[Array],
    extra_args: _ExtraArgs,
    wait_for: _WaitList,
    queue: CommandQueue | None,
    arguments: str,
    input_expr: str,
    output_statement: str,
    preamble: str,
    fetches: Iterable[tuple[str, str, int]] = (),
) -> tuple[Array, Event]:
    """Builds (or finds) the scan and runs it over ary, the result arrays and the extra args;
    returns (count, event)."""
    declarations, values, events = _extra_args(extra_args)
    count_dtype = _count_dtype(ary)
    item, scan = dtype_to_ctype(ary.dtype), dtype_to_ctype(count_dtype)
    signature = ", ".join([arguments.format(item_t=item, scan_t=scan), *declarations])
    knl = _counting_scan(ary.context, signature, input_expr, output_statement, count_dtype, preamble, fetches)
    if ary.queue is None:
        raise ValueError(_NO_QUEUE)
    count = empty(ary.queue, (), count_dtype, allocator=ary.allocator)
    if ary.size == 0:
        count.fill(0)
    evt = knl(ary, *arrays, count, *values, queue=queue, wait_for=[*(wait_for or []), *events])
    return count, evt


def copy_if(
    ary: Array,
    predicate: str,
    extra_args: _ExtraArgs = None,
    preamble: str = "",
    queue: CommandQueue | None = None,
    wait_for: _WaitList = None,
) -> tuple[Array, Array, Event]:
    """(out, count, event): the elements of ary where the C expression `predicate` (of ary[i])
    holds, in order, in the first count.get() elements of out (as long as ary)."""
    out = ary._new_like_me()
    count, evt = _run_counting(
        ary,
        [out],
        extra_args,
        wait_for,
        queue,
        "__global {item_t} *ary, __global {item_t} *out, __global {scan_t} *count",
        f"({predicate}) ? 1 : 0",
        "if (prev_item != item) out[item-1] = ary[i];\nif (i+1 == N) *count = item;",
        preamble,
    )
    return out, count, evt


def remove_if(
    ary: Array,
    predicate: str,
    extra_args: _ExtraArgs = None,
    preamble: str = "",
    queue: CommandQueue | None = None,
    wait_for: _WaitList = None,
) -> tuple[Array, Array, Event]:
    """copy_if of the elements where `predicate` does not hold."""
    return copy_if(ary, f"!({predicate})", extra_args=extra_args, preamble=preamble, queue=queue, wait_for=wait_for)


def partition(
    ary: Array,
    predicate: str,
    extra_args: _ExtraArgs = None,
    preamble: str = "",
    queue: CommandQueue | None = None,
    wait_for: _WaitList = None,
) -> tuple[Array, Array, Array, Event]:
    """(out_true, out_false, count_true, event): the elements where `predicate` holds, then
    (in out_false) the others, each in order."""
    out_true, out_false = ary._new_like_me(), ary._new_like_me()
    count, evt = _run_counting(
        ary,
        [out_true, out_false],
        extra_args,
        wait_for,
        queue,
        "__global {item_t} *ary, __global {item_t} *out_true, __global {item_t} *out_false, "
        "__global {scan_t} *count_true",
        f"({predicate}) ? 1 : 0",
        "if (prev_item != item) out_true[item-1] = ary[i];\nelse out_false[i-item] = ary[i];\n"
        "if (i+1 == N) *count_true = item;",
        preamble,
    )
    return out_true, out_false, count, evt


def unique(
    ary: Array,
    is_equal_expr: str = "a == b",
    extra_args: _ExtraArgs = None,
    preamble: str = "",
    queue: CommandQueue | None = None,
    wait_for: _WaitList = None,
) -> tuple[Array, Array, Event]:
    """(out, count, event): the elements that differ from their predecessor by the C
    expression `is_equal_expr` of a and b (uniq; usually of a sorted array)."""
    out = ary._new_like_me()
    count, evt = _run_counting(
        ary,
        [out],
        extra_args,
        wait_for,
        queue,
        "__global {item_t} *ary, __global {item_t} *out, __global {scan_t} *count_unique",
        "(i == 0) || (IS_EQUAL_EXPR(ary_im1, ary_i) ? 0 : 1)",
        "if (prev_item != item) out[item-1] = ary[i];\nif (i+1 == N) *count_unique = item;",
        f"#define IS_EQUAL_EXPR(a, b) ({is_equal_expr})\n{preamble}",
        (("ary_im1", "ary", -1), ("ary_i", "ary", 0)),
    )
    return out, count, evt


class RadixSort:
    """RadixSort(context, arguments, key_expr, sort_arg_names, bits_at_a_time=2,
    index_dtype=np.int32, key_dtype=np.uint32, scan_kernel=GenericScanKernel, options=None):
    sorts the arrays named in sort_arg_names by the unsigned key `key_expr` (of i and the
    arguments), stably, `bits_at_a_time` key bits (1 to 4) per scan."""

    index_dtype: np.dtype[Any]
    key_dtype: np.dtype[Any]

    def __init__(
        self,
        context: Context,
        arguments: _Arguments,
        key_expr: str,
        sort_arg_names: Iterable[str],
        bits_at_a_time: SupportsIndex = 2,
        index_dtype: npt.DTypeLike = np.int32,
        key_dtype: npt.DTypeLike = np.uint32,
        scan_kernel: type[GenericScanKernel] = GenericScanKernel,
        options: _Options = None,
    ) -> None:
        self.context = context
        self.arguments = _parse_arguments(arguments, "RadixSort")
        self.sort_arg_names = list(sort_arg_names)
        names = [name for name, _, _ in self.arguments]
        for name in self.sort_arg_names:
            if name not in names:
                raise ValueError(f"RadixSort: sort_arg_names names '{name}', which is not an argument")
        self.bits = int(bits_at_a_time)
        if not 1 <= self.bits <= 4:
            raise ValueError(f"RadixSort: bits_at_a_time must be 1 to 4 (gpukit.cl), got {bits_at_a_time}")
        self.index_dtype = np.dtype(index_dtype)
        if self.index_dtype not in (np.dtype(np.int32), np.dtype(np.int64)):
            raise TypeError(f"RadixSort: index_dtype must be int32 or int64, got {self.index_dtype}")
        self.key_dtype = np.dtype(key_dtype)
        if self.key_dtype.kind != "u":
            raise TypeError(f"RadixSort: key_dtype must be an unsigned integer type, got {self.key_dtype}")
        self.first_array_arg_idx = next(k for k, (_, _, kind) in enumerate(self.arguments) if kind != "scalar")
        sorted_params = [(name, t) for name, t, _ in self.arguments if name in self.sort_arg_names]
        declarations = [
            f"__global {dtype_to_ctype(t)} *{name}" if kind != "scalar" else f"{dtype_to_ctype(t)} {name}"
            for name, t, kind in self.arguments
        ]
        declarations += [f"__global {dtype_to_ctype(t)} *gk_sorted_{name}" for name, t in sorted_params]
        declarations.append("int gk_bit")
        # The scan counts, per digit value (bucket), the elements with that digit up to i: its
        # values are OpenCL vectors of 2**bits counts, added component-wise. Element i moves to
        # (the elements of lower digits) + (those of its digit up to i) - 1: a stable pass.
        from gpukit.cl import cltypes

        index = dtype_to_ctype(self.index_dtype)
        buckets = 2**self.bits
        counts = getattr(cltypes, f"{index}{buckets}")
        digit = f"(int)((((gk_key_t)({key_expr})) >> gk_bit) & {buckets - 1})"
        moves = "".join(f"    gk_sorted_{name}[gk_dst] = {name}[i];\n" for name, _ in sorted_params)
        preamble = (
            f"typedef {dtype_to_ctype(self.key_dtype)} gk_key_t;\n"
            f"typedef {index}{buckets} gk_counts_t;\n"
            f"gk_counts_t gk_one_of(int d) {{ gk_counts_t v = ({index}{buckets})(0); "
            f"(({index}*)&v)[d] = 1; return v; }}\n"
        )
        output = (
            f"{{\n    const int gk_d = {digit};\n"
            f"    const {index}* gk_upto = (const {index}*)&item;\n"
            f"    const {index}* gk_all = (const {index}*)&last_item;\n"
            "    long gk_dst = (long)gk_upto[gk_d] - 1;\n"
            "    for (int gk_k = 0; gk_k < gk_d; ++gk_k) gk_dst += gk_all[gk_k];\n"
            f"{moves}}}"
        )
        self._scan = scan_kernel(
            context,
            counts,
            ", ".join(declarations),
            f"gk_one_of({digit})",
            "a+b",
            f"({index}{buckets})(0)",
            output,
            options=options,
            preamble=preamble,
        )

    def __call__(
        self,
        *args: Array | _Scalar,
        queue: CommandQueue | None = None,
        allocator: _Allocator | None = None,
        key_bits: SupportsIndex | None = None,
        wait_for: _WaitList = None,
        **kwargs: object,
    ) -> tuple[tuple[Array, ...], Event | None]:
        if kwargs:
            raise TypeError(f"invalid keyword arguments: {set(kwargs)}")
        if len(args) != len(self.arguments):
            raise TypeError(f"expected {len(self.arguments)} arguments, got {len(args)}")
        key_bits = self.key_dtype.itemsize * 8 if key_bits is None else int(key_bits)
        if not 0 <= key_bits <= self.key_dtype.itemsize * 8:
            raise ValueError(f"key_bits must be in [0, {self.key_dtype.itemsize * 8}], got {key_bits}")
        first_array = args[self.first_array_arg_idx]
        if not isinstance(first_array, Array):
            raise TypeError(
                f"the argument {self.arguments[self.first_array_arg_idx][0]} must be an Array, "
                f"got {type(first_array).__name__}"
            )
        queue = queue or first_array.queue
        if queue is None:
            raise ValueError(_NO_QUEUE)
        allocator = allocator or first_array.allocator
        n = first_array.size
        current = list(args)
        evt = None
        for bit in range(0, key_bits, self.bits):
            sorted_arrays = [
                empty(queue, n, t, allocator=allocator) for name, t, _ in self.arguments if name in self.sort_arg_names
            ]
            evt = self._scan(
                *current, *sorted_arrays, np.int32(bit), queue=queue, allocator=allocator, wait_for=wait_for
            )
            wait_for = [evt]
            replacements = iter(sorted_arrays)
            current = [
                next(replacements) if name in self.sort_arg_names else arg
                for (name, _, _), arg in zip(self.arguments, current)
            ]
        # (the sorted arguments are Arrays: the scan takes no other)
        by_name = {name: arg for (name, _, _), arg in zip(self.arguments, current) if isinstance(arg, Array)}
        return tuple(by_name[name] for name in self.sort_arg_names), evt


class KeyValueSorter:
    """KeyValueSorter(context): ``kvs(queue, keys, values, nkeys, starts_dtype, allocator=None,
    wait_for=None)`` returns (starts, lists, event): lists holds values ordered by their keys
    (each below nkeys), and the values of key k are lists[starts[k]:starts[k + 1]]."""

    def __init__(self, context: Context) -> None:
        self.context = context
        # (key, value, starts dtype) -> the three kernels
        self._made: dict[
            tuple[np.dtype[Any], np.dtype[Any], np.dtype[Any]], tuple[RadixSort, GenericScanKernel, GenericScanKernel]
        ] = {}

    def _kernels(
        self, key_dtype: np.dtype[Any], value_dtype: np.dtype[Any], starts_dtype: np.dtype[Any]
    ) -> tuple[RadixSort, GenericScanKernel, GenericScanKernel]:
        found = self._made.get((key_dtype, value_dtype, starts_dtype))
        if found is None:
            found = self._made[key_dtype, value_dtype, starts_dtype] = self._make(key_dtype, value_dtype, starts_dtype)
        return found

    def _make(
        self, key_dtype: np.dtype[Any], value_dtype: np.dtype[Any], starts_dtype: np.dtype[Any]
    ) -> tuple[RadixSort, GenericScanKernel, GenericScanKernel]:
        by_key = RadixSort(
            self.context,
            [VectorArg(value_dtype, "values"), VectorArg(key_dtype, "keys")],
            key_expr="keys[i]",
            sort_arg_names=["values", "keys"],
        )
        # Where each key's run starts (the keys are sorted); keys with no values keep the
        # fill, and the scan below gives them the start of the next key that has some.
        key_t, starts_t = dtype_to_ctype(key_dtype), dtype_to_ctype(starts_dtype)
        start_finder = GenericScanKernel(
            self.context,
            starts_dtype,
            f"__global {key_t} *keys, __global {starts_t} *starts",
            "0",
            "a+b",
            "0",
            "if (i == 0 || keys[i] != keys[i-1]) starts[keys[i]] = i;",
        )
        largest = np.iinfo(starts_dtype).max
        suffix = "UL" if starts_dtype.kind == "u" else "L"
        backwards_min = GenericScanKernel(
            self.context,
            starts_dtype,
            [VectorArg(starts_dtype, "starts"), ScalarArg(key_dtype, "nkeys")],
            "starts[nkeys-i]",
            "min(a, b)",
            f"(({starts_t}){largest}{suffix})",
            "starts[nkeys-i] = item;",
        )
        return by_key, start_finder, backwards_min

    def __call__(
        self,
        queue: CommandQueue,
        keys: Array,
        values: Array,
        nkeys: _Int,
        starts_dtype: npt.DTypeLike,
        allocator: _Allocator | None = None,
        wait_for: _WaitList = None,
    ) -> tuple[Array, Array, Event]:
        allocator = allocator or values.allocator
        starts_dtype = np.dtype(starts_dtype)
        by_key, start_finder, backwards_min = self._kernels(keys.dtype, values.dtype, starts_dtype)
        (lists, sorted_keys), evt = by_key(values, keys, queue=queue, allocator=allocator, wait_for=wait_for)
        starts = empty(queue, nkeys + 1, starts_dtype, allocator=allocator)
        starts.fill(lists.size)
        if sorted_keys.size:
            start_finder(sorted_keys, starts, queue=queue)
        evt = backwards_min(starts, keys.dtype.type(nkeys), queue=queue)
        return starts, lists, evt


class BuiltList:
    """One list of ListOfListsBuilder's result: ``count`` entries in ``lists``, object k's
    entries at ``lists[starts[k]:starts[k + 1]]``; with empty lists eliminated, ``starts``
    covers the ``num_nonempty_lists`` objects of ``nonempty_indices`` only, and
    ``compressed_indices[k]`` counts the non-empty lists of the objects before k."""

    def __init__(
        self,
        count: int | None = None,
        starts: Array | None = None,
        lists: Array | None = None,
        num_nonempty_lists: int | None = None,
        nonempty_indices: Array | None = None,
        compressed_indices: Array | None = None,
    ) -> None:
        self.count = count
        self.starts = starts
        self.lists = lists
        self.num_nonempty_lists = num_nonempty_lists
        self.nonempty_indices = nonempty_indices
        self.compressed_indices = compressed_indices


class ListOfListsBuilder:
    """ListOfListsBuilder(context, list_names_and_dtypes, generate_template, arg_decls,
    count_sharing=None, devices=None, name_prefix="plb_build_list", options=None, preamble="",
    debug=False, complex_kernel=False, eliminate_empty_output_lists=False).

    ``generate(LIST_ARG_DECL USER_ARG_DECL index_type i)`` (OpenCL C of the caller's, calling
    ``APPEND_<name>(value)``) runs for every object i twice: once per list to count its entries
    (a generic scan turns the counts into starts), then once to write them."""

    def __init__(
        self,
        context: Context,
        list_names_and_dtypes: Iterable[tuple[str, npt.DTypeLike]],
        generate_template: str,
        arg_decls: _Arguments,
        count_sharing: Mapping[str, str] | None = None,
        devices: Sequence[Device] | None = None,
        name_prefix: str = "plb_build_list",
        options: _Options = None,
        preamble: str = "",
        debug: bool = False,
        complex_kernel: bool = False,
        eliminate_empty_output_lists: bool | Iterable[str] = False,
    ) -> None:
        if devices is not None and list(devices) != list(context.devices):
            raise NotImplementedError(
                "ListOfListsBuilder: devices= other than the context's is not supported by gpukit.cl yet"
            )
        self.context = context
        self.list_names_and_dtypes = tuple((name, np.dtype(dtype)) for name, dtype in list_names_and_dtypes)
        self.generate_template = generate_template
        self.arg_decls = _parse_arguments(arg_decls, "ListOfListsBuilder", arrays_needed=False)
        self.count_sharing = dict(count_sharing or {})
        self.name_prefix = name_prefix
        self.options = options
        self.preamble = preamble
        self.debug = debug  # PyOpenCL's one-work-item run: the results are the same
        self.complex_kernel = complex_kernel  # PyOpenCL's hint against CPU vectorization
        names = [name for name, _ in self.list_names_and_dtypes]
        if eliminate_empty_output_lists is True:
            eliminate_empty_output_lists = names
        self.eliminate_empty_output_lists = tuple(eliminate_empty_output_lists or ())
        for name in self.eliminate_empty_output_lists:
            if name not in names:
                raise ValueError(f"invalid list name '{name}' in eliminate_empty_output_lists")
        for child, mother in self.count_sharing.items():
            if child not in names or mother not in names:
                raise ValueError(f"count_sharing names lists that are not built: {child!r}, {mother!r}")
        # (index dtype, omitted lists) -> (count scans, write scan, compress scan)
        self._kernels: dict[
            tuple[np.dtype[Any], tuple[str, ...]],
            tuple[dict[str, GenericScanKernel], GenericScanKernel, GenericScanKernel],
        ] = {}

    def _user(self) -> tuple[str, str]:
        """USER_ARG_DECL and USER_ARGS."""
        decl = "".join(
            f"__global {dtype_to_ctype(t)} *{name}, " if kind != "scalar" else f"{dtype_to_ctype(t)} {name}, "
            for name, t, kind in self.arg_decls
        )
        return decl, "".join(f"{name}, " for name, _, _ in self.arg_decls)

    def _make(
        self, index_dtype: np.dtype[Any], omitted: tuple[str, ...]
    ) -> tuple[dict[str, GenericScanKernel], GenericScanKernel, GenericScanKernel]:
        index = dtype_to_ctype(index_dtype)
        user_decl, user_args = self._user()
        counted = [
            name for name, _ in self.list_names_and_dtypes if name not in self.count_sharing and name not in omitted
        ]
        common = f"typedef {index} index_type;\n#define USER_ARG_DECL {user_decl}\n#define USER_ARGS {user_args}\n"
        user_params = ", ".join(
            f"__global {dtype_to_ctype(t)} *{name}" if kind != "scalar" else f"{dtype_to_ctype(t)} {name}"
            for name, t, kind in self.arg_decls
        )
        # Counting: every APPEND adds one to its list's counter; one scan per counted list
        # turns the counts into starts (starts[N] the total).
        counting = (
            common
            + "#define LIST_ARG_DECL "
            + "".join(f"index_type *plb_count_{name}, " for name, _ in self.list_names_and_dtypes)
            + "\n"
            + "".join(f"#define APPEND_{name}(value) (++*plb_count_{name})\n" for name, _ in self.list_names_and_dtypes)
            + self.preamble
            + "\n"
            + self.generate_template
            + "\n"
        )
        count_scans: dict[str, GenericScanKernel] = {}
        for name in counted:
            counters = "".join(f"index_type plb_c_{other} = 0; " for other, _ in self.list_names_and_dtypes)
            pointers = "".join(f"&plb_c_{other}, " for other, _ in self.list_names_and_dtypes)
            helper = (
                f"index_type plb_count_of_{name}(USER_ARG_DECL index_type i) {{ {counters}"
                f"generate({pointers}USER_ARGS i); return plb_c_{name}; }}\n"
            )
            count_scans[name] = GenericScanKernel(
                self.context,
                index_dtype,
                ", ".join(filter(None, [f"__global {index} *plb_starts", user_params])),
                f"plb_count_of_{name}({user_args}i)",
                "a+b",
                "0",
                "plb_starts[i] = prev_item; if (i + 1 == N) plb_starts[N] = item;",
                name_prefix=f"{self.name_prefix}_count",
                options=self.options,
                preamble=counting + helper,
            )
        # Writing: every APPEND stores at its list's next position, from the object's start.
        writing = (
            common
            + "#define LIST_ARG_DECL "
            + "".join(
                f"__global {dtype_to_ctype(t)} *plb_out_{name}, index_type *plb_pos_{name}, "
                for name, t in self.list_names_and_dtypes
            )
            + "\n"
            + "".join(
                f"#define APPEND_{name}(value) (plb_out_{name}[(*plb_pos_{name})++] = (value))\n"
                if name not in omitted
                else f"#define APPEND_{name}(value) ((void)0)\n"
                for name, _ in self.list_names_and_dtypes
            )
            + self.preamble
            + "\n"
            + self.generate_template
            + "\n"
        )
        built = [(name, t) for name, t in self.list_names_and_dtypes if name not in omitted]
        write_params = [f"__global {index} *plb_first"]
        for name, t in built:
            write_params += [f"__global {index} *plb_starts_{name}", f"__global {dtype_to_ctype(t)} *plb_lists_{name}"]
        positions = "".join(
            f"index_type plb_p_{name} = {f'plb_starts_{name}[i]' if name not in omitted else '0'}; "
            for name, _ in self.list_names_and_dtypes
        )
        outs = "".join(
            f"{f'plb_lists_{name}' if name not in omitted else '0'}, &plb_p_{name}, "
            for name, _ in self.list_names_and_dtypes
        )
        write_scan = GenericScanKernel(
            self.context,
            index_dtype,
            ", ".join(filter(None, [", ".join(write_params), user_params])),
            "0",
            "a+b",
            "0",
            f"{{ {positions}generate({outs}{user_args}i); }}",
            name_prefix=f"{self.name_prefix}_write",
            options=self.options,
            preamble=writing,
        )
        # Empty lists eliminated: the non-empty objects counted, their starts gathered.
        compress = GenericScanKernel(
            self.context,
            index_dtype,
            f"__global {index} *starts, __global {index} *nonempty, __global {index} *compressed, "
            f"__global {index} *kept_starts, __global {index} *count",
            "starts[i + 1] > starts[i] ? 1 : 0",
            "a+b",
            "0",
            "compressed[i] = prev_item; if (item != prev_item) { nonempty[prev_item] = i; "
            "kept_starts[prev_item] = starts[i]; } if (i + 1 == N) { compressed[N] = item; *count = item; "
            "kept_starts[item] = starts[N]; }",
            name_prefix=f"{self.name_prefix}_compress",
        )
        return count_scans, write_scan, compress

    def __call__(
        self,
        queue: CommandQueue,
        n_objects: int,
        *args: Array | Buffer | SVMPointer | _Scalar,
        allocator: _Allocator | None = None,
        omit_lists: Iterable[str] | None = None,
        wait_for: _WaitList = None,
        **kwargs: object,
    ) -> tuple[dict[str, BuiltList], Event]:
        if kwargs:
            raise TypeError(f"invalid keyword arguments: {set(kwargs)}")
        if len(args) != len(self.arg_decls):
            raise TypeError(f"expected {len(self.arg_decls)} arguments, got {len(args)}")
        omitted = tuple(omit_lists or ())
        names = [name for name, _ in self.list_names_and_dtypes]
        for name in omitted:
            if name not in names:
                raise ValueError(f"invalid list name '{name}' in omit_lists")
        index_dtype = np.dtype(np.int64 if n_objects >= np.iinfo(np.int32).max else np.int32)
        kernels = self._kernels.get((index_dtype, omitted))
        if kernels is None:
            kernels = self._kernels[index_dtype, omitted] = self._make(index_dtype, omitted)
        count_scans, write_scan, compress = kernels
        user: list[Array | _Scalar] = []
        for (name, dtype, kind), value in zip(self.arg_decls, args):
            if kind != "scalar":
                if not isinstance(value, Array):  # a Buffer: its elements from the start
                    if not isinstance(value, (cl.Buffer, cl.SVMPointer)):
                        raise TypeError(f"argument {name} must be an Array or a Buffer, got {type(value).__name__}")
                    value = Array(queue, (value.size // dtype.itemsize,), dtype, data=value)
                elif value.ndim != 1:
                    raise ValueError(f"argument {name} is a multidimensional array")
            elif isinstance(value, (cl.Buffer, cl.SVMPointer)):
                raise TypeError(f"argument {name} is a scalar, got {type(value).__name__}")
            user.append(value)
        if wait_for:
            cl.enqueue_barrier(queue, wait_for=list(wait_for))
        # Each list's count and starts (as its BuiltList has them, here for the type checker).
        result: dict[str, BuiltList] = {}
        counts: dict[str, int] = {}
        starts_of: dict[str, Array] = {}
        for name, scan in count_scans.items():
            starts = empty(queue, n_objects + 1, index_dtype, allocator=allocator)
            starts.fill(0)
            scan(starts, *user, queue=queue, size=n_objects)
            counts[name], starts_of[name] = int(starts[n_objects:].get()[0]), starts
            result[name] = BuiltList(count=counts[name], starts=starts)
        for child, mother in self.count_sharing.items():
            if child not in omitted:
                counts[child], starts_of[child] = counts[mother], starts_of[mother]
                result[child] = BuiltList(count=counts[child], starts=starts_of[child])
        write_args = [empty(queue, max(n_objects, 1), index_dtype, allocator=allocator)]
        for name, dtype in self.list_names_and_dtypes:
            if name in omitted:
                continue
            record, count = result[name], counts[name]
            lists = empty(queue, max(count, 1), dtype, allocator=allocator)[:count]
            record.lists = lists
            write_args += [starts_of[name], lists if count else empty(queue, 1, dtype)]
        evt = write_scan(*write_args, *user, queue=queue, size=n_objects)
        for name in self.eliminate_empty_output_lists:
            if name in omitted:
                continue
            record = result[name]
            nonempty = empty(queue, max(n_objects, 1), index_dtype, allocator=allocator)
            compressed = empty(queue, n_objects + 1, index_dtype, allocator=allocator)
            kept = empty(queue, n_objects + 1, index_dtype, allocator=allocator)
            count_array = zeros(queue, 1, index_dtype, allocator=allocator)
            kept.fill(0)
            compressed.fill(0)
            evt = compress(starts_of[name], nonempty, compressed, kept, count_array, queue=queue, size=n_objects)
            record.num_nonempty_lists = int(count_array.get()[0])
            record.starts = starts_of[name] = kept[: record.num_nonempty_lists + 1]
            record.nonempty_indices = nonempty[: record.num_nonempty_lists]
            record.compressed_indices = compressed
        return result, evt
