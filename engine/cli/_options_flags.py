"""Flags whose defaults are :class:`engine.TestOptions`' own: a parser states none of its own.

Kept apart from :mod:`engine.cli._stats_common` (which imports the command line's data
loading) so that a command's parser costs only :mod:`engine._options` to build.
"""

from __future__ import annotations

import argparse

from .._options import TestOptions

__all__ = ["add_alpha"]


def add_alpha(p: argparse.ArgumentParser, *, meaning: str = "significance level") -> None:
    """``--alpha``, defaulting to :attr:`TestOptions.alpha`, with ``meaning`` in its help."""
    default = TestOptions().alpha
    p.add_argument("--alpha", type=float, default=default, help=f"{meaning} (default {default})")
