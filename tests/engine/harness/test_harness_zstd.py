"""Zstandard zip members (method 93): Inspect's default ``.eval`` logs since inspect-ai 0.3.206.

Reference values: the real logs in tests/data/harness-logs-real/inspect/eval/ were written by
inspect-ai 0.3.285 itself (scripts/harness_logs.py); their members' method is read from the
zip directory by Python's own zipfile. The hostile archives are built here byte by byte
(APPNOTE 4.3.7/4.3.12/4.3.16 headers) around data compressed by the `zstandard` package.
"""

from __future__ import annotations

import io
import struct
import subprocess
import sys
import zipfile
import zlib
from pathlib import Path

import pytest
import zstandard

from engine._contract import DataContractError
from engine.harness import read_harness
from engine.io._limits import Limits
from engine.io._zip import ZSTD, inflate

REAL = Path(__file__).resolve().parents[2] / "data" / "harness-logs-real" / "inspect"


def build_zip(members: list[tuple[str, int, bytes, int, int]]) -> bytes:
    """A zip of (name, method, compressed bytes, declared size, crc) members."""
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


def zstd_member(name: str, body: bytes) -> tuple[str, int, bytes, int, int]:
    return name, ZSTD, zstandard.ZstdCompressor().compress(body), len(body), zlib.crc32(body)


def test_real_eval_logs_are_zstandard_and_read() -> None:
    logs = sorted((REAL / "eval").glob("*.eval"))
    assert len(logs) == 4
    for log in logs:  # the premise: the release writes method 93, which zipfile cannot read
        methods = {i.compress_type for i in zipfile.ZipFile(log).infolist()}
        assert methods == {ZSTD}
    result = read_harness(REAL / "eval")
    assert len(result.frame) == 4 * 6 * 2 * 2  # logs x samples x epochs x scorers


def test_a_damaged_zstandard_member_names_itself_and_the_cause() -> None:
    good = zstd_member("header.json", b'{"eval": {}}')
    raw = bytearray(zstandard.ZstdCompressor().compress(b'{"id": 1}' * 50))
    raw[len(raw) // 2] ^= 0xFF
    data = build_zip([good, ("samples/1_epoch_1.json", ZSTD, bytes(raw), 450, 0)])
    with pytest.raises(DataContractError) as err:
        read_harness(("bad.eval", data))
    text = str(err.value)
    assert "zip member samples/1_epoch_1.json cannot be read" in text
    assert "truncated" not in text and "incomplete" not in text


def test_an_unknown_compression_method_is_named_not_called_incomplete() -> None:
    data = build_zip([("header.json", 98, b"\x00" * 8, 8, 0)])  # PPMd
    with pytest.raises(DataContractError, match=r"header\.json is compressed with method 98 "
                       r"\(PPMd\), which sigboard cannot decompress"):
        read_harness(("ppmd.eval", data))


def test_a_member_larger_than_its_directory_entry_says_stops_there() -> None:
    body = b"\x00" * (1 << 20)
    name, method, raw, _, crc = zstd_member("samples/1_epoch_1.json", body)
    with pytest.raises(DataContractError, match=r"more than the 1,000 bytes its directory"):
        inflate(raw, method, name=name, label="liar.eval", declared=1000)


def test_a_zstandard_bomb_stops_at_the_size_limit() -> None:
    raw = zstandard.ZstdCompressor(level=3).compress(b"\x00" * (8 << 20))  # 8 MiB, ~300 bytes
    assert len(raw) < 2000
    with pytest.raises(DataContractError, match=r"zip member s\.json grows past the size limit"):
        inflate(raw, ZSTD, name="s.json", label="bomb.eval", limits=Limits(max_bytes=1 << 20))
    # one that says how big it is is refused before any inflation
    with pytest.raises(DataContractError, match=r"holds more than 512 MB once unpacked"):
        read_harness(("bomb.zip", build_zip([("a/b.json", ZSTD, raw, 0xF000_0000, 0)])))


def test_a_multi_frame_member_is_read_whole() -> None:
    frames = b"".join(zstandard.ZstdCompressor().compress(p) for p in (b'{"a": ', b"1}"))
    assert inflate(frames, ZSTD, name="x.json", label="x.eval") == b'{"a": 1}'


def test_one_unreadable_log_in_a_folder_is_skipped_and_named(tmp_path: Path) -> None:
    for log in (REAL / "json").glob("*.json"):
        (tmp_path / log.name).write_bytes(log.read_bytes())
    (tmp_path / "broken.eval").write_bytes(build_zip([("header.json", 98, b"\x00", 1, 0)]))
    result = read_harness(tmp_path)
    assert set(result.frame["benchmark"]) == {"capitals"}
    assert [label for label, _ in result.unreadable] == [f"{tmp_path.name}/broken.eval"]
    assert "Not read: " in result.report() and "method 98" in result.report()


@pytest.mark.slow
def test_peak_memory_of_a_refused_bomb_at_the_default_limit() -> None:
    # a member that says it holds the whole limit (512 MiB) and inflates to 1 GiB: read in a
    # child, whose peak resident memory is its own
    code = (
        "import sys, zstandard\n"
        "from engine._contract import DataContractError\n"
        "from engine.io._zip import inflate\n"
        "cctx = zstandard.ZstdCompressor(level=1).compressobj()\n"
        "zero = bytes(1 << 24)\n"
        "raw = b''.join(cctx.compress(zero) for _ in range(64)) + cctx.flush()\n"
        "try:\n"
        "    inflate(raw, 93, name='s.json', label='bomb.eval', declared=512 << 20)\n"
        "except DataContractError as exc:\n"
        "    print('refused', 'size limit' in str(exc))\n"
        # VmHWM: this process image's own peak; ru_maxrss also keeps the pre-exec peak of the
        # forked copy of the test worker (Linux carries it across exec)
        "print(int(next(line.split()[1] for line in open('/proc/self/status')\n"
        "                if line.startswith('VmHWM'))) // 1024)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parents[3]).stdout.split()
    assert out[:2] == ["refused", "True"]
    assert int(out[2]) < 700  # MiB: the limit, 512 MiB, plus the interpreter (README: ~650 MB)
