"""A zip member or gzip file the capped child cannot hold is refused before it is inflated
(engine/io/_limits.py InflateRoom): from the size its directory entry declares, or from a
lower bound counted while inflating (the bytes, and for JSON one empty dict per ``{`` and
one empty list per ``[``). Text that is not JSON keeps its size-limit message. Outside the
child (no room noted) nothing changes.

The per-object sizes are CPython's own: ``sys.getsizeof({})`` and ``sys.getsizeof([])``.
"""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
import textwrap
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest
import zstandard

from engine import DataContractError, Limits
from engine.io import _limits
from engine.io._bytes import decompress
from engine.io._fork import FRESH_SPACE
from engine.io._zip import ZSTD, inflate

ROOT = Path(__file__).resolve().parents[3]
MiB = 1 << 20


@pytest.fixture
def room() -> Iterator[None]:
    """This process noted as a capped child with 16 MiB of room, for one test."""
    _limits.set_parse_room(16 * MiB)
    try:
        yield
    finally:
        _limits._PARSE_ROOM.clear()


def _zstd(body: bytes) -> bytes:
    return zstandard.ZstdCompressor(level=3).compress(body)


def test_the_object_sizes_are_cpythons() -> None:
    assert (sys.getsizeof({}), sys.getsizeof([])) == (_limits._OBJECT_BYTES, _limits._ARRAY_BYTES)


def test_outside_the_child_nothing_is_refused() -> None:
    body = b"[" + b"{}," * (4 * MiB) + b"{}]"  # 12 MiB, 4 Mi objects: ~270 MiB parsed
    assert not _limits._PARSE_ROOM
    assert inflate(_zstd(body), ZSTD, name="samples/1.json", label="x.eval") == body


def test_json_of_tiny_objects_is_refused_while_inflating(room: None) -> None:
    # 64 bytes of dicts for every 3 bytes inflated: past 16 MiB after ~0.7 MiB of text
    body = b"[" + b"{}," * (4 * MiB) + b"{}]"
    with pytest.raises(MemoryError, match="inflated so far"):
        inflate(_zstd(body), ZSTD, name="samples/1_epoch_1.json", label="x.eval")


def test_a_declared_size_that_cannot_fit_is_refused_before_inflating(room: None) -> None:
    # twice the declared 9 MiB (the buffer and the bytes returned) is past the 16 MiB room;
    # the compressed bytes are not even valid: nothing was inflated
    with pytest.raises(MemoryError, match="its directory entry states"):
        inflate(b"not zstandard", ZSTD, name="data.csv", label="x.zip", declared=9 * MiB)


def test_text_that_is_not_json_keeps_its_size_limit_message(room: None) -> None:
    spaces = b" " * (8 * MiB)
    with pytest.raises(DataContractError, match="grows past the size limit"):
        inflate(_zstd(spaces), ZSTD, name="r.csv", label="x.zip",
                limits=Limits(max_bytes=4 * MiB))
    with pytest.raises(DataContractError, match="grows past the size limit"):
        decompress(gzip.compress(spaces), "r.csv.gz", Limits(max_bytes=4 * MiB))


def test_json_text_within_the_room_is_read(room: None) -> None:
    body = json.dumps({"rows": [{"id": i, "v": "x" * 40} for i in range(2000)]}).encode()
    assert inflate(_zstd(body), ZSTD, name="samples/1.json", label="x.eval") == body
    assert decompress(gzip.compress(body), "log.json.gz") == body


def test_gzipped_json_of_tiny_objects_is_refused_while_inflating(room: None) -> None:
    body = b"[" + b'{"a":1},' * (2 * MiB) + b'{"a":1}]'  # 8 bytes of text, 64 of dict each
    with pytest.raises(MemoryError, match="inflated so far"):
        decompress(zlib.compress(body, wbits=31), "tiny.json.gz")


@pytest.mark.slow
def test_the_child_notes_its_cap_less_a_fresh_interpreters_space() -> None:
    # the rule: the room is the cap (Limits.max_parse_memory) less FRESH_SPACE, in a fresh
    # interpreter as in a fork (whose cap adds what it inherited, not its room)
    code = textwrap.dedent("""
        from engine.io._worker import cap_memory
        from engine.io import _limits
        cap_memory(768 << 20)
        print(_limits._PARSE_ROOM[0])
    """)
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=120, check=False,
                          env={"PATH": "/usr/bin:/bin", "NUMBA_DISABLE_JIT": "1"})
    assert done.returncode == 0, done.stderr
    assert int(done.stdout.split()[0]) == (768 << 20) - FRESH_SPACE


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS as on Linux")
def test_the_zstd_bomb_is_refused_in_the_child_naming_the_member() -> None:
    # 480 MiB declared: twice that is past the room of the default 1 GiB cap, so the child
    # refuses it before inflating a byte, with the message a failed allocation gives
    import importlib.util

    from engine import ingest

    spec = importlib.util.spec_from_file_location(
        "hostile_corpus_room", ROOT / "tests" / "engine" / "hostile" / "make_corpus.py")
    assert spec is not None and spec.loader is not None
    corpus = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(corpus)
    with pytest.raises(DataContractError) as info:
        ingest(("zstd_bomb.eval", corpus.zstd_bomb_eval()))
    assert str(info.value) == (
        "zstd_bomb.eval: reading zip member samples/1_epoch_1.json does not fit in the memory "
        "limit of 1,024 MiB. Fix: split the upload into smaller ones, or raise "
        "SIGBOARD_MAX_PARSE_MEMORY on the server")
