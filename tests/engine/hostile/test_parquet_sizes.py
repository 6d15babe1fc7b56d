"""Parquet sizes checked before decoding (issue #33): row groups, decoded values and text
expanded from dictionaries, each refused naming the file and the limit."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from engine._contract import DataContractError
from engine.harness import read_harness
from engine.io._formats import frame_from_bytes
from engine.io._limits import Limits, limits_in_force
from engine.io._parquet import check_parquet_sizes, open_parquet

HERE = Path(__file__).resolve().parent
BOMB = (HERE / "dictionary_bomb.parquet").read_bytes()


def _parquet(table: pa.Table, **options: object) -> bytes:
    sink = io.BytesIO()
    pq.write_table(table, sink, **options)  # type: ignore[arg-type]
    return sink.getvalue()


def _long(n: int, **extra: pa.Array) -> pa.Table:
    return pa.table({"benchmark": ["b"] * n, "system": ["A", "B"] * (n // 2),
                     "example_id": [f"e{i // 2}" for i in range(n)], "metric": ["m"] * n,
                     "value": [1.0] * n, **extra})


def test_the_dictionary_bomb_is_small_and_refused_before_decoding() -> None:
    assert len(BOMB) < 10_000
    meta = pq.ParquetFile(pa.BufferReader(BOMB)).metadata
    assert meta.row_group(0).total_byte_size < 2 << 20  # the footer alone looks harmless
    with pytest.raises(DataContractError) as info:
        frame_from_bytes(BOMB, "dictionary_bomb.parquet")
    message = str(info.value)
    assert message.startswith("dictionary_bomb.parquet")
    # 3,000 rows x 1 MiB = 3,145,728,000 bytes of text, plus the short key texts
    assert "expand from their dictionaries to more than 3,14" in message
    assert "the limit per upload is 512 MiB" in message and "SIGBOARD_MAX_BYTES" in message


def test_a_row_group_over_the_limit_is_refused_from_the_footer() -> None:
    data = _parquet(_long(2000, output=pa.array([f"text {i}" * 50 for i in range(2000)])),
                    row_group_size=1000, compression="zstd")
    limits = Limits(max_bytes=300_000)
    with pytest.raises(DataContractError, match=r"its row group 1 holds [\d,]+ bytes once "
                       r"decompressed \(the limit per upload is 300,000 bytes\)"):
        check_parquet_sizes(pq.ParquetFile(pa.BufferReader(data)), "groups.parquet", limits)


def test_values_that_run_length_decode_past_the_limit_are_refused() -> None:
    # one row holding a list of 400,000 zeros: a few KB on disk, 3.2 MB of int64 decoded
    zeros = pa.array([[0] * 400_000] + [[]], pa.list_(pa.int64()))
    data = _parquet(_long(2, trace=zeros), compression="zstd")
    assert len(data) < 20_000
    with pytest.raises(DataContractError, match="its values decode to more than"):
        check_parquet_sizes(pq.ParquetFile(pa.BufferReader(data)), "rle.parquet",
                            Limits(max_bytes=1 << 20))


def test_text_inside_structs_and_lists_counts_too() -> None:
    long = "y" * 10_000
    nested = pa.array([{"q": long, "tags": [long, long]} for _ in range(200)])
    data = _parquet(_long(200, doc=nested), compression="zstd", store_schema=False)
    limits = Limits(max_bytes=4 << 20)  # 200 x 30,000 = 6 MB of text
    with pytest.raises(DataContractError, match="expand from their dictionaries"):
        open_parquet(data, "nested.parquet", limits)
    open_parquet(data, "nested.parquet", Limits(max_bytes=8 << 20))  # under it: fine


def test_an_ordinary_file_passes_and_reads_the_same() -> None:
    data = _parquet(_long(1000, output=pa.array([f"answer {i % 7}" for i in range(1000)])))
    frame = frame_from_bytes(data, "ok.parquet")
    assert len(frame) == 1000 and frame["output"].iloc[3] == "answer 3"


def test_the_limits_in_force_apply() -> None:
    data = _parquet(_long(1000, output=pa.array(["z" * 1000] * 1000)))  # 1 MB of text
    with limits_in_force(Limits(max_bytes=500_000)), pytest.raises(DataContractError):
        frame_from_bytes(data, "ok.parquet")
    assert len(frame_from_bytes(data, "ok.parquet")) == 1000


def _lighteval_zip() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("details/m/2025-01-01T00-00-00/details_task_2025-01-01T00-00-00.parquet",
                         BOMB)
    return buffer.getvalue()


def test_a_lighteval_details_bomb_in_a_zip_is_refused() -> None:
    with pytest.raises(DataContractError, match="too large to decode"):
        read_harness(("lighteval.zip", _lighteval_zip()), format="lighteval")


@pytest.mark.parametrize("fmt", [None, "lighteval"])
def test_the_lighteval_path_checks_sizes_before_any_decode_on_one_thread(
        monkeypatch: pytest.MonkeyPatch, fmt: str | None) -> None:
    """The refusal comes from the metadata and the dictionaries alone: the table is never
    read, and the dictionary check starts no Arrow thread pool (whose teardown at exit
    can abort a process, apache/arrow#34314: the flaky "parser crashed (SIGABRT)")."""
    threads: list[object] = []
    original = pq.ParquetFile.read_row_group

    def read_row_group(self: pq.ParquetFile, *args: object, **kwargs: object) -> pa.Table:
        threads.append(kwargs.get("use_threads", True))
        return original(self, *args, **kwargs)  # type: ignore[arg-type]

    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("the Parquet file was decoded before its sizes were checked")

    monkeypatch.setattr(pq.ParquetFile, "read_row_group", read_row_group)
    monkeypatch.setattr(pq.ParquetFile, "read", never)
    monkeypatch.setattr(pq, "read_table", never)
    with pytest.raises(DataContractError, match="expand from their dictionaries"):
        read_harness(("lighteval.zip", _lighteval_zip()), format=fmt)
    assert threads == [False]
