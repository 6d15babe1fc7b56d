"""The fast depth test of harness uploads never lets through what the exact scan
(:func:`engine.io._limits.nesting_depth`) would refuse, and says yes on plain JSON Lines."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.harness._walk import certainly_shallow
from engine.io._limits import nesting_depth

HOSTILE = Path(__file__).resolve().parent.parent / "hostile"
ALPHABET = b'[]{}"\\\n a:,'  # every byte the depth scan looks at, and a few it skips


@pytest.mark.slow
@settings(max_examples=400)
@given(st.binary(max_size=60).map(lambda b: bytes(ALPHABET[x % len(ALPHABET)] for x in b)),
       st.integers(0, 6))
def test_fast_yes_implies_the_exact_scan_agrees(data: bytes, limit: int) -> None:
    if certainly_shallow(data, limit):
        assert nesting_depth(data) <= limit


def test_the_hostile_corpus_is_never_waved_through() -> None:
    for path in sorted(HOSTILE.glob("*.json*")):
        data = path.read_bytes()
        if certainly_shallow(data, 64):
            assert nesting_depth(data) <= 64, path.name


def test_plain_json_lines_are_decided_fast() -> None:
    lines = [json.dumps({"doc_id": i, "doc": {"q": "a [ b } \\n", "c": [[1], [2]]},
                         "metrics": ["acc"], "acc": 1.0}) for i in range(50)]
    data = "\n".join(lines).encode()
    assert nesting_depth(data) == 4
    assert certainly_shallow(data, 4) and not certainly_shallow(data, 3)
    assert not certainly_shallow(b'{"a": "\\"["}', 5)  # an escaped quote: the exact scan decides
    assert not certainly_shallow(b'"abc\n[[[', 5)  # a string cut by a newline
    assert certainly_shallow(b"", 0)


_JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.text(alphabet='[]{}"\\ab\n'),
                     lambda inner: st.lists(inner, max_size=3)
                     | st.dictionaries(st.text(alphabet='[]{}"a'), inner, max_size=3), max_leaves=12)


@pytest.mark.slow
@settings(max_examples=200)
@given(st.lists(_JSON, min_size=1, max_size=4), st.integers(0, 5))
def test_on_json_lines_fast_and_exact_agree(records: list[object], limit: int) -> None:
    data = "\n".join(json.dumps(r) for r in records).encode()
    exact = nesting_depth(data) <= limit
    fast = certainly_shallow(data, limit)
    assert fast <= exact  # never a yes the exact scan would not give
    if b'\\"' not in data:
        assert fast == exact  # plain JSON Lines are decided fast
