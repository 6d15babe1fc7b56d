"""What the statistics commands share: the matrix and test options the flags ask for,
clusters, informative-missingness warnings and report files."""

from __future__ import annotations

import argparse
import sys
from dataclasses import fields
from typing import TYPE_CHECKING

from .._options import ALL_TESTS, CORRECTIONS, CRITERIA, TestOptions
from ._common import Loaded, load_data

if TYPE_CHECKING:
    from .._matrix import ScoreMatrix
    from .._notes import Note
    from ..stats._clusters import ClusterDesign

__all__ = ["PAIRED", "SHOWN_CLIQUES", "add_test_options", "cluster_design", "matrix_of",
           "missing_warnings", "test_options", "write_report"]

PAIRED = {"auto": None, "yes": True, "no": False}

def matrix_of(args: argparse.Namespace, loaded: Loaded | None = None) -> ScoreMatrix:
    """The matrix DATA asks for; --lower-is-better overrides the declared direction."""
    loaded = loaded if loaded is not None else load_data(args.data)
    return loaded.matrix(args.benchmark, args.metric, lower_is_better=args.lower_is_better)


def test_options(args: argparse.Namespace) -> TestOptions:
    """The :class:`TestOptions` the flags ask for (validated there, once)."""
    given = {f.name: getattr(args, f.name) for f in fields(TestOptions) if hasattr(args, f.name)}
    if "paired" in given:
        given["paired"] = PAIRED[given["paired"]]
    return TestOptions(**given)


def add_test_options(p: argparse.ArgumentParser) -> None:
    # Defaults come from TestOptions: the parser states none of its own (argparse.SUPPRESS
    # leaves a flag that was not given out of the namespace).
    d = TestOptions()
    p.add_argument("--alpha", type=float, default=argparse.SUPPRESS,
                   help=f"significance level (default {d.alpha})")
    p.add_argument("--correction", choices=CORRECTIONS, default=argparse.SUPPRESS,
                   help=f"multiplicity correction (default {d.correction})")
    p.add_argument("--test", choices=ALL_TESTS, default=argparse.SUPPRESS,
                   help="default: auto, chosen from the data")
    p.add_argument("--criterion", choices=CRITERIA, default=argparse.SUPPRESS,
                   help="significant by adjusted p-value (default) or also by effect size "
                   "small/medium/large")
    p.add_argument("--paired", choices=list(PAIRED), default=argparse.SUPPRESS,
                   help="default auto")
    p.add_argument("--lower-is-better", action="store_true", help="metric direction")
    p.add_argument("--n-resamples", type=int, default=argparse.SUPPRESS,
                   help=f"permutation test resamples (default {d.n_resamples})")
    p.add_argument("--seed", type=int, default=argparse.SUPPRESS,
                   help=f"seed of random procedures (default {d.seed})")



#: cliques printed under the leaderboard table (JSON lists them all)
SHOWN_CLIQUES = 10


def write_report(path: str, text: str) -> None:
    """Write a report file (UTF-8); say where on stderr, so stdout stays the table or JSON."""
    with open(path, "w", encoding="utf-8") as out:
        out.write(text)
    print(f"report written to {path}", file=sys.stderr)


def cluster_design(args: argparse.Namespace, loaded: Loaded, matrix: ScoreMatrix
                    ) -> ClusterDesign | None:
    """--cluster COL, or the store's declared cluster column of the benchmark when DATA is a
    store and --cluster is not given (``--cluster -``: none): the cluster of each example of
    the matrix."""
    column = loaded.cluster_column(matrix.benchmark, getattr(args, "cluster", None))
    if column is None:
        return None
    from ..stats._clusters import ClusterDesign, cluster_codes

    frame = loaded.with_attribute(matrix.benchmark, column)
    part = frame[frame["metric"] == matrix.metric]
    return ClusterDesign.from_codes(cluster_codes(part, column, matrix.examples), column)


def missing_warnings(matrix: ScoreMatrix, systems: tuple[str, ...] | None = None) -> list[Note]:
    """Informative missingness: one warning per system whose missing examples are harder or
    easier than its scored ones by the other systems' scores."""
    from .._notes import Note
    from ..stats._missing import missing_checks

    return [Note("missing-not-at-random", c.warning())
            for c in missing_checks(matrix, systems=systems) if c.informative]

