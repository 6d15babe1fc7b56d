"""Which files uploaded one by one are the parts of one harness output.

A browser upload carries file names, not folders: an lm-eval run's ``samples_*.jsonl``
arrive beside the ``results_*.json`` that names their model, a lighteval run's
``details_*.parquet`` beside its ``results_*.json``, a HELM run's
``per_instance_stats.json`` beside its ``run_spec.json``. Read one by one, each part lacks
what the other holds (the model's name, the task's settings); read together (one zip of
them, :func:`engine.harness.read_harness`), they are the output the harness wrote. Inspect
``.eval`` logs are whole, but only read together do a retry supersede the log it retried
and two seeds of one setting become two runs of one system. The Upload page groups such
files by default (:func:`belong_together`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["belong_together"]

#: per-example parts that need a companion file to be read whole
_PARTS = re.compile(r"^(samples_.+\.jsonl(\.gz)?|details_.+\.parquet|per_instance_stats\.json|"
                    r".+\.eval)$")
#: what a harness writes beside them (names from engine/harness/_detect.py's companions)
_BESIDE = re.compile(r"^(results(_.*)?\.json|run_spec\.json|stats\.json|instances\.json|"
                     r"display_predictions\.json|display_requests\.json|"
                     r"scenario(_state)?\.json|costs\.json)(\.gz)?$")


def belong_together(names: Sequence[str]) -> bool:
    """True when ``names`` (file names, without folders) look like the parts of one harness
    output: at least two files, at least one a per-example part (lm-eval samples, lighteval
    details, HELM per-instance stats, an Inspect ``.eval`` log), every one such a part or a
    file the harness writes beside them, and no name twice (two HELM runs' files share their
    names: they need their folders, a zip).

    >>> belong_together(["results_2026-01-01.json", "samples_arith_2026-01-01.jsonl"])
    True
    >>> belong_together(["a.csv", "b.csv"]), belong_together(["x.eval", "y.eval"])
    (False, True)
    """
    base = [n.replace("\\", "/").rsplit("/", 1)[-1] for n in names]
    if len(base) < 2 or len(set(base)) < len(base):
        return False
    return any(_PARTS.match(n) for n in base) and all(
        _PARTS.match(n) or _BESIDE.match(n) for n in base)
