"""The plain-text shortcut of ``nesting_depth`` (engine/io/_limits.py ``_plain_depth``)
gives the block scan's depth exactly, or declines.

Reference: the block scan itself (``_PLAIN_UP_TO`` set to -1 turns the shortcut off), on
random byte strings over the alphabet that matters (brackets, quotes, backslashes,
newlines, a letter) and on JSON Lines of the shapes uploads have.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from engine import _jit
from engine.io import _limits


def _scan(data: bytes, monkeypatch: pytest.MonkeyPatch, *, plain: bool) -> int:
    monkeypatch.setattr(_limits, "_PLAIN_UP_TO", 16 << 20 if plain else -1)
    monkeypatch.setattr(_jit, "kernels_for", lambda _seconds: None)  # the numpy paths
    return _limits.nesting_depth(data)


@pytest.mark.parametrize("seed", range(40))
def test_random_text_has_the_block_scans_depth(seed: int,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(seed)
    alphabet = np.frombuffer(b'[]{}""\\\na,', np.uint8)
    weights = np.array([4, 3, 4, 3, 3, 3, 1, 1, 6, 2], float)
    if seed % 2:
        weights[6] = 0  # no backslash: the shortcut answers more often
    data = rng.choice(alphabet, int(rng.integers(0, 4000)), p=weights / weights.sum()).tobytes()
    assert _scan(data, monkeypatch, plain=True) == _scan(data, monkeypatch, plain=False)


@pytest.mark.parametrize("seed", range(10))
def test_json_lines_have_the_block_scans_depth(seed: int,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(100 + seed)

    def value(depth: int) -> object:
        kind = int(rng.integers(0, 5 if depth < 6 else 2))
        if kind == 0:
            return int(rng.integers(0, 9))
        if kind == 1:
            return "".join(rng.choice(list('ab[]{}"\\ '), int(rng.integers(0, 6))))
        if kind in (2, 3):
            return [value(depth + 1) for _ in range(int(rng.integers(0, 3)))]
        return {f"k{i}": value(depth + 1) for i in range(int(rng.integers(0, 3)))}

    data = "\n".join(json.dumps({"v": value(1)}) for _ in range(200)).encode()
    want = _scan(data, monkeypatch, plain=False)
    assert _scan(data, monkeypatch, plain=True) == want
    assert _limits._plain_depth(data) in (None, want)


def test_plain_records_are_answered_by_the_shortcut() -> None:
    data = b'{"system": "A", "example_id": "e1", "value": [1, {"x": "]]"}]}\n' * 3
    assert _limits._plain_depth(data) == 3
    assert _limits._plain_depth(b'{"a": "\\"["}') is None  # an escaped quote: declined
    assert _limits._plain_depth(b']][[') is None  # reflected at zero: declined
    assert _limits._plain_depth(b'"[\n[') is None  # a string ended by its newline: declined
