"""The Overall page's benchmark weights in the URL (``bw=name:weight``)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from app.url.text import inert
from app.url.view import format_value


def parse_weights(items: Sequence[str], names: Sequence[str]) -> tuple[dict[str, float], list[str]]:
    """``bw`` values ``name:weight`` → {name: weight} for known ``names``; a message per bad one.

    The weight follows the last colon (a name may hold colons); it must be a finite
    number ≥ 0. Unknown names and bad weights are left out (equal weight then).
    """
    weights: dict[str, float] = {}
    problems: list[str] = []
    for item in items:
        name, _, text = item.rpartition(":")
        try:
            weight = float(text)
        except ValueError:
            weight = math.nan
        if name not in names:
            problems.append(f"URL parameter `bw`: “{inert(name or item)}” is not a chosen "
                            "benchmark; ignored.")
        elif not math.isfinite(weight) or weight < 0:
            problems.append(f"URL parameter `bw`: the weight of “{inert(name)}” must be a "
                            f"number ≥ 0; got “{inert(text)}”; using 1.")
        else:
            weights[name] = weight
    return weights, problems


def format_weights(weights: Mapping[str, float]) -> tuple[str, ...]:
    """The ``bw`` values of ``weights`` (weights of 1 are the default and left out)."""
    return tuple(f"{name}:{format_value(float(w))}" for name, w in weights.items() if w != 1)
