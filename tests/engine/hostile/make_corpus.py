"""Hostile and huge uploads (issue #17): small files committed here, big ones built at test time.

Run ``python tests/engine/hostile/make_corpus.py`` to rewrite the small files and
``cases.json``. The big cases (gzip bombs, a million systems, ten thousand metrics,
rows past the default limit) are never committed: :data:`GENERATED` builds each in a
fraction of a second (a bomb repeats one compressed block, see :func:`gzip_repeat`).

``cases.json`` maps a file name to ``expect`` (a fragment of the rejection message;
absent for files that must load), ``column`` (the column the problem names) and
``generated`` (built by :data:`GENERATED`, not on disk).
"""

from __future__ import annotations

import io
import json
import struct
import zlib
from collections.abc import Callable
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

HERE = Path(__file__).resolve().parent
HEADER = b"benchmark,system,example_id,metric,value\n"
MiB = 1 << 20


def gzip_repeat(block: bytes, times: int, head: bytes = b"") -> bytes:
    """One gzip member holding ``head + block * times``, compressed in O(len(block)) time.

    After a full flush deflate starts afresh, so the compressed form of ``block`` is
    the same every time and can be repeated; the trailer has the true CRC and size.
    """
    deflate = zlib.compressobj(9, zlib.DEFLATED, -15)
    first = deflate.compress(head) + deflate.flush(zlib.Z_FULL_FLUSH)
    again = deflate.compress(block) + deflate.flush(zlib.Z_FULL_FLUSH)
    if again != deflate.compress(block) + deflate.flush(zlib.Z_FULL_FLUSH):
        raise RuntimeError("deflate output after a full flush is not repeatable here")
    last = deflate.flush(zlib.Z_FINISH)
    crc = zlib.crc32(head)
    for _ in range(times):
        crc = zlib.crc32(block, crc)
    size = len(head) + len(block) * times
    header = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff"
    return header + first + again * times + last + struct.pack("<II", crc, size & 0xFFFFFFFF)


def _rows(lines: list[str]) -> bytes:
    return HEADER + "".join(line + "\n" for line in lines).encode()


def _parquet(table: pa.Table) -> bytes:
    sink = io.BytesIO()
    pq.write_table(table, sink)
    return sink.getvalue()


def _long_table(**columns: pa.Array) -> pa.Table:
    base = {"benchmark": pa.array(["b", "b"]), "system": pa.array(["A", "B"]),
            "example_id": pa.array(["e1", "e1"]), "metric": pa.array(["acc", "acc"]),
            "value": pa.array([1.0, 0.0])}
    base.update(columns)
    return pa.table(base)


def _nested(depth: int) -> str:
    """A JSON value whose brackets nest ``depth`` levels."""
    return "[" * depth + "1" + "]" * depth


# --------------------------------------------------------------------------- small files


def deep_array() -> bytes:
    return ('[{"system": "A", "example_id": "e1", "metric": "m", "value": 1, "x": '
            + _nested(99) + "}]").encode()


def deep_record() -> bytes:
    good = '{"system": "A", "example_id": "e1", "metric": "m", "value": 1}'
    deep = '{"system": "B", "example_id": "e1", "metric": "m", "value": ' + _nested(99) + "}"
    return f"{good}\n{deep}\n".encode()


def depth_at_limit() -> bytes:
    """Records nested exactly 64 deep (the object is level 1): they load."""
    lines = [json.dumps({"system": s, "example_id": "e1", "metric": "m", "value": v,
                         "trace": json.loads(_nested(63))}) for s, v in (("A", 1), ("B", 0))]
    return ("\n".join(lines) + "\n").encode()


def brackets_in_strings() -> bytes:
    """Brackets and escaped quotes inside strings are text, not nesting: it loads."""
    lines = [json.dumps({"system": s, "example_id": "e1", "metric": "m", "value": v,
                         "prompt": '"[[[[' * 300 + "\\" * 3}) for s, v in (("A", 1), ("B", 0))]
    return ("\n".join(lines) + "\n").encode()


def iso_date_keys() -> bytes:
    """Example ids that look like dates stay text (pyarrow would infer timestamps)."""
    lines = [json.dumps({"system": s, "example_id": d, "metric": "m", "value": v})
             for s in ("A", "B") for d, v in (("2024-01-01", 1), ("2024-01-02", 0))]
    return ("\n".join(lines) + "\n").encode()


def two_members() -> bytes:
    """`cat a.gz b.gz`: both members are read."""
    first = zlib.compress(_rows(["b,A,e1,m,1", "b,A,e2,m,0"]), wbits=31)
    second = zlib.compress(b"b,B,e1,m,0\nb,B,e2,m,1\n", wbits=31)
    return first + second


def trailing_garbage() -> bytes:
    return zlib.compress(_rows(["b,A,e1,m,1", "b,B,e1,m,0"]), wbits=31) + b"GARBAGE"


def timestamp_value() -> bytes:
    return _parquet(_long_table(value=pa.array([1_700_000_000, 1_700_000_001],
                                               pa.timestamp("s"))))


def timestamp_value_csv() -> bytes:
    return _rows(["b,A,e1,m,2024-01-01T00:00:00", "b,B,e1,m,2024-01-02T00:00:00"])


def string_value() -> bytes:
    return _parquet(_long_table(value=pa.array(["0.5", "1"], pa.string())))


def struct_value() -> bytes:
    return _parquet(_long_table(value=pa.array([{"score": 1.0}, {"score": 0.0}])))


def date_key() -> bytes:
    return _parquet(_long_table(example_id=pa.array([19_000, 19_000], pa.date32())))


def list_system() -> bytes:
    return _parquet(_long_table(system=pa.array([["A"], ["B"]])))


def map_metric() -> bytes:
    return _parquet(_long_table(metric=pa.array([[("acc", 1)], [("acc", 1)]],
                                                pa.map_(pa.string(), pa.int64()))))


def struct_metadata() -> bytes:
    """A struct column that is neither key nor score is metadata, kept as JSON text."""
    return _parquet(_long_table(config=pa.array([{"t": 0.2, "k": [1, 2]}, {"t": 0.7, "k": []}])))


def dictionary_bomb() -> bytes:
    """A Parquet bomb (issue #33): 8 KB on disk, 3 GiB of text decoded. Every row of the
    ``output`` column points at the one entry of its dictionary, a 1 MiB string; written
    without the Arrow schema, so a reader decodes it as plain text, not as a dictionary."""
    n = 3000
    output = pa.DictionaryArray.from_arrays(pa.array([0] * n, pa.int32()),
                                            pa.array(["x" * MiB]))
    table = pa.table({"benchmark": ["b"] * n, "system": ["A", "B"] * (n // 2),
                      "example_id": [f"e{i // 2}" for i in range(n)], "metric": ["m"] * n,
                      "value": [1.0] * n, "output": output})
    sink = io.BytesIO()
    pq.write_table(table, sink, compression="zstd", store_schema=False)
    return sink.getvalue()


# ----------------------------------------------- small logs that cost gigabytes to parse
# (the redesign's "one ingest": each is refused by the memory-capped child, naming the member)

ZSTD = 93
INSPECT_HEADER = (b'{"version": 2, "status": "success", "eval": {"task": "t", "model": "m/x", '
                  b'"dataset": {"name": "d"}, "config": {}}, "plan": {"steps": []}, '
                  b'"results": {"scores": []}}')


def raw_zip(members: list[tuple[str, int, bytes, int, int]]) -> bytes:
    """A zip of (name, method, compressed bytes, size, crc) members, written by hand
    (Python's zipfile cannot write Zstandard, method 93)."""
    out, central = io.BytesIO(), io.BytesIO()
    for name, method, raw, size, crc in members:
        offset = out.tell()
        encoded = name.encode()
        out.write(struct.pack("<4s5H3L2H", b"PK\x03\x04", 20, 0, method, 0, 0, crc, len(raw),
                              size, len(encoded), 0) + encoded + raw)
        central.write(struct.pack("<4s6H3L5H2L", b"PK\x01\x02", 20, 20, 0, method, 0, 0, crc,
                                  len(raw), size, len(encoded), 0, 0, 0, 0, 0, offset) + encoded)
    start = out.tell()
    out.write(central.getvalue())
    out.write(struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, len(members), len(members),
                          len(central.getvalue()), start, 0))
    return out.getvalue()


def zstd_bomb_eval(blocks: int = 480) -> bytes:
    """An Inspect ``.eval`` (a zip) whose ``samples/1_epoch_1.json`` is Zstandard and inflates
    to ``blocks`` MiB of ``{},`` (valid JSON: one tiny object every 3 bytes), within the
    size limit; ~40 KB on disk. The member is written as one Zstandard frame per MiB, the
    same frame repeated (a decoder reads across frames), so it is built in milliseconds."""
    import zstandard

    head, tail = b'{"id": 1, "epoch": 1, "scores": {}, "x": [', b'{}]}'
    block = b"{}," * (MiB // 3)
    zstd = zstandard.ZstdCompressor(level=3)
    raw = zstd.compress(head) + zstd.compress(block) * blocks + zstd.compress(tail)
    crc = zlib.crc32(head)
    for _ in range(blocks):
        crc = zlib.crc32(block, crc)
    crc = zlib.crc32(tail, crc)
    size = len(head) + len(block) * blocks + len(tail)
    return raw_zip([("header.json", ZSTD, zstd.compress(INSPECT_HEADER), len(INSPECT_HEADER),
                     zlib.crc32(INSPECT_HEADER)), ("samples/1_epoch_1.json", ZSTD, raw, size, crc)])


def tiny_objects_json_gz(megabytes: int = 128) -> bytes:
    """A JSON array of ``megabytes`` MB of tiny objects (``{"a":1},``), gzipped (~130 KB)."""
    unit = b'{"a":1},'
    block = unit * (1_000_000 // len(unit))
    body = gzip_repeat(block, megabytes, head=b"[")
    # gzip members concatenate: the last one closes the array
    return body + zlib.compress(b'{"a":1}]', wbits=31)


def parquet_bomb_zip() -> bytes:
    """A zip holding one Parquet file whose dictionary decodes to 3 GiB of text."""
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("results.parquet", dictionary_bomb())
    return buffer.getvalue()


def benchmarks_over() -> bytes:
    return _rows([f"b{i},{s},e1,m,{v}" for i in range(501) for s, v in (("A", 1), ("B", 0))])


SMALL: dict[str, Callable[[], bytes]] = {
    "deep_array.json": deep_array,
    "deep_record.jsonl": deep_record,
    "depth_at_limit.jsonl": depth_at_limit,
    "brackets_in_strings.jsonl": brackets_in_strings,
    "iso_date_keys.jsonl": iso_date_keys,
    "two_members.csv.gz": two_members,
    "trailing_garbage.csv.gz": trailing_garbage,
    "timestamp_value.parquet": timestamp_value,
    "timestamp_value.csv": timestamp_value_csv,
    "string_value.parquet": string_value,
    "struct_value.parquet": struct_value,
    "date_key.parquet": date_key,
    "list_system.parquet": list_system,
    "map_metric.parquet": map_metric,
    "struct_metadata.parquet": struct_metadata,
    "benchmarks_over.csv": benchmarks_over,
    "dictionary_bomb.parquet": dictionary_bomb,
}


# --------------------------------------------------------------------------- built at test time


def deep_20000() -> bytes:
    """The crash of issue #17: one JSONL record nested 20,000 levels (pyarrow segfaults)."""
    return ('{"a":' * 20_000 + "1" + "}" * 20_000 + "\n").encode()


def bomb_single() -> bytes:
    """One member inflating to 600 MiB of spaces (about 0.6 MB compressed)."""
    return gzip_repeat(b" " * MiB, 600, head=HEADER)


def bomb_multi() -> bytes:
    """A small valid first member, then 9 members of 64 MiB each: the cap covers them all."""
    return zlib.compress(_rows(["b,A,e1,m,1"]), wbits=31) + gzip_repeat(b" " * MiB, 64) * 9


def rows_over() -> bytes:
    """5,000,001 short rows (50 MB inflated, 0.05 MB compressed): one past the default."""
    line = b"b,A,e1,m,1\n"
    per_block = MiB // len(line)
    full, rest = divmod(5_000_001, per_block)
    return gzip_repeat(line * per_block, full, head=HEADER + line * rest)


def systems_1m() -> bytes:
    return HEADER + "".join(f"b,s{i},e1,m,1\n" for i in range(1_000_000)).encode()


def metrics_10k_wide() -> bytes:
    names = ",".join(f"m{i}" for i in range(10_000))
    row = ",".join("1" for _ in range(10_000))
    return f"benchmark,system,example_id,{names}\nb,A,e1,{row}\nb,B,e1,{row}\n".encode()


def metrics_10k_long() -> bytes:
    return _rows([f"b,{s},e1,m{i},1" for i in range(10_000) for s in ("A", "B")])


GENERATED: dict[str, Callable[[], bytes]] = {
    "deep_20000.jsonl": deep_20000,
    "bomb_single.csv.gz": bomb_single,
    "bomb_multi.csv.gz": bomb_multi,
    "rows_over.csv.gz": rows_over,
    "systems_1m.csv": systems_1m,
    "metrics_10k_wide.csv": metrics_10k_wide,
    "metrics_10k_long.csv": metrics_10k_long,
}

CASES: dict[str, dict[str, object]] = {
    "deep_array.json": {"expect": "a JSON document nests brackets more than 64 levels deep"},
    "deep_record.jsonl": {"expect": "a JSON Lines record nests brackets more than 64 levels"},
    "deep_20000.jsonl": {"expect": "a JSON Lines record nests brackets more than 64 levels"},
    "depth_at_limit.jsonl": {},
    "brackets_in_strings.jsonl": {},
    "iso_date_keys.jsonl": {},
    "two_members.csv.gz": {},
    "struct_metadata.parquet": {},
    "trailing_garbage.csv.gz": {"expect": "unexpected data after the end of the gzip stream"},
    "timestamp_value.parquet": {"expect": "the score column has the type timestamp",
                                "column": "value"},
    "timestamp_value.csv": {"expect": "the score column holds dates or times",
                            "column": "value"},
    "string_value.parquet": {"expect": "the score column has the type string", "column": "value"},
    "struct_value.parquet": {"expect": "the score column has the type struct", "column": "value"},
    "date_key.parquet": {"expect": "the key column has the type date32", "column": "example_id"},
    "list_system.parquet": {"expect": "the key column has the type list", "column": "system"},
    "map_metric.parquet": {"expect": "the key column has the type map", "column": "metric"},
    "benchmarks_over.csv": {"expect": "the file has 501 benchmarks (the limit per upload is 500)",
                            "column": "benchmark"},
    "dictionary_bomb.parquet": {"expect": "the Parquet file is too large to decode: its text "
                                "columns expand from their dictionaries to more than"},
    "bomb_single.csv.gz": {"expect": "the file grows past the size limit once decompressed ("},
    "bomb_multi.csv.gz": {"expect": "grows past the size limit in gzip member 9"},
    "rows_over.csv.gz": {"expect": "more than 5,000,000 rows"},
    "systems_1m.csv": {"expect": "the file has 1,000,000 systems", "column": "system"},
    "metrics_10k_wide.csv": {"expect": "the file has 10,000 metrics (metric columns)"},
    "metrics_10k_long.csv": {"expect": "the file has 10,000 metrics (the limit", "column": "metric"},
}
for _name in GENERATED:
    CASES[_name]["generated"] = True


def build(name: str) -> bytes:
    """The bytes of one case, small or generated."""
    return (SMALL | GENERATED)[name]()


def main() -> None:
    for name, make in SMALL.items():
        (HERE / name).write_bytes(make())
    (HERE / "cases.json").write_text(json.dumps(CASES, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
