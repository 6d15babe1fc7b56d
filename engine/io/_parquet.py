"""Parquet sizes checked before decoding: a few kilobytes of Parquet can decode to gigabytes.

Two shapes of Parquet bomb cost almost nothing on disk: a column of one repeated value
run-length encoded (a billion zeros in a few bytes), and a text column whose dictionary
holds one long string that every row points at (6.4 KB of file, 3 GiB of text once
decoded: ``tests/engine/hostile/dictionary_bomb.parquet``). :func:`check_parquet_sizes`
refuses both before the table is read:

1. from the footer metadata alone, every row group's pages once decompressed
   (``total_uncompressed_size`` of its column chunks, which includes the dictionary
   pages) and the file's total, and the values every leaf column decodes to
   (``num_values`` times the width of its physical type);
2. for text columns with a dictionary page, the bytes the rows expand to: the row group
   is read with those columns kept as dictionaries (the dictionary, bounded by step 1,
   plus four bytes of index per value), and the lengths of the dictionary entries are
   summed over the indices, row group by row group.

Every bound is :attr:`engine.io._limits.Limits.max_bytes`: a file is refused when it
would hold more decoded bytes than a CSV upload may.
"""

from __future__ import annotations

from typing import Any

from .._contract import DataContractError
from ._limits import Limits, active_limits, limit_error

__all__ = ["check_parquet_sizes", "open_parquet"]

#: Bytes one decoded value of each physical type takes in memory (text: its offset).
_WIDTH = {"BOOLEAN": 1, "INT32": 4, "INT64": 8, "INT96": 12, "FLOAT": 4, "DOUBLE": 8,
          "BYTE_ARRAY": 8}


def open_parquet(data: bytes, label: str, limits: Limits | None = None) -> Any:
    """A :class:`pyarrow.parquet.ParquetFile` over ``data`` whose sizes passed
    :func:`check_parquet_sizes` (pyarrow errors propagate to the caller)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    source = pq.ParquetFile(pa.BufferReader(data))
    check_parquet_sizes(source, label, limits, data=data)
    return source


def check_parquet_sizes(source: Any, label: str, limits: Limits | None = None, *,
                        data: bytes | None = None) -> None:
    """Refuse a Parquet file whose decoded size passes ``limits.max_bytes``.

    Parameters
    ----------
    source : pyarrow.parquet.ParquetFile
        The file, opened (only its footer has been read).
    label : str
        The upload's name, for the message.
    limits : Limits, optional
        Default :func:`engine.io._limits.active_limits`.
    data : bytes, optional
        The file's bytes, to read dictionary columns for step 2 (without them only the
        metadata checks run).

    Raises
    ------
    DataContractError
        Naming the file, the row group or column, the size and the limit.
    """
    limits = limits or active_limits()
    meta = source.metadata
    dictionary_leaves = _check_metadata(meta, label, limits)
    if data is not None and dictionary_leaves:
        _check_dictionaries(data, meta, dictionary_leaves, label, limits)


def _check_metadata(meta: Any, label: str, limits: Limits) -> set[str]:
    """Steps 1 (footer only); returns the text leaves that have a dictionary page."""
    total, decoded, dictionary_leaves = 0, 0, set()
    for i in range(meta.num_row_groups):
        group = meta.row_group(i)
        size = 0
        for j in range(group.num_columns):
            chunk = group.column(j)
            size += max(int(chunk.total_uncompressed_size), 0)
            width = _WIDTH.get(chunk.physical_type, 16)
            if chunk.physical_type == "FIXED_LEN_BYTE_ARRAY":
                width = max(int(meta.schema.column(j).length or 0), 1)
            decoded += max(int(chunk.num_values), 0) * width
            if chunk.has_dictionary_page and chunk.physical_type == "BYTE_ARRAY":
                dictionary_leaves.add(chunk.path_in_schema)
        if size > limits.max_bytes:
            raise _over(label, limits, f"its row group {i + 1} holds {size:,} bytes once "
                        "decompressed")
        total += size
        if total > limits.max_bytes:
            raise _over(label, limits, f"its pages hold more than {total:,} bytes once "
                        "decompressed")
        if decoded > limits.max_bytes:
            raise _over(label, limits, f"its values decode to more than {decoded:,} bytes "
                        f"(by row group {i + 1})")
    return dictionary_leaves


def _check_dictionaries(data: bytes, meta: Any, leaves: set[str], label: str,
                        limits: Limits) -> None:
    """Step 2: the text the dictionary columns expand to, one row group at a time."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    tops = sorted({leaf.split(".", 1)[0] for leaf in leaves})
    reader = pq.ParquetFile(pa.BufferReader(data), read_dictionary=sorted(leaves))
    expanded = 0
    for i in range(meta.num_row_groups):
        # on this thread: no Arrow thread pool is started for a file that may be refused
        # (its teardown can abort a process at exit, apache/arrow#34314)
        table = reader.read_row_group(i, columns=tops, use_threads=False)
        for column in table.columns:
            for chunk in column.chunks:
                expanded += _expanded_text(chunk)
        del table
        if expanded > limits.max_bytes:
            raise _over(label, limits, f"its text columns expand from their dictionaries to "
                        f"more than {expanded:,} bytes (by row group {i + 1})")


def _expanded_text(array: Any) -> int:
    """Bytes of text the dictionary arrays inside ``array`` stand for (0 for other data)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    kind = array.type
    if pa.types.is_dictionary(kind):
        if not (pa.types.is_string(kind.value_type) or pa.types.is_binary(kind.value_type)
                or pa.types.is_large_string(kind.value_type)
                or pa.types.is_large_binary(kind.value_type)):
            return 0
        lengths = pc.binary_length(array.dictionary).take(array.indices)
        return int(pc.sum(lengths).as_py() or 0)
    if pa.types.is_struct(kind):
        return sum(_expanded_text(array.field(k)) for k in range(kind.num_fields))
    if pa.types.is_map(kind):
        return _expanded_text(array.keys) + _expanded_text(array.items)
    if pa.types.is_list(kind) or pa.types.is_large_list(kind) or pa.types.is_fixed_size_list(kind):
        return _expanded_text(array.flatten())
    return 0


def _over(label: str, limits: Limits, what: str) -> DataContractError:
    return limit_error(label, "max_bytes", limits, f"the Parquet file is too large to decode: "
                       f"{what}")
