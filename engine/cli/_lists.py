"""List options: ``--benchmarks``, ``--metrics``, ``--weights``, ``--order``.

Names are separated by commas, but lm-eval metric names (``exact_match,strict-match``) and
HELM run-spec names (``mmlu:subject=anatomy,method=multiple_choice_joint``) hold commas
themselves. Such a name is given either by repeating the flag (each value is one name,
taken whole: ``--metrics exact_match,strict-match --metrics acc``) or by quoting it inside
one value as in CSV (``--metrics '"exact_match,strict-match",acc'``).
"""

from __future__ import annotations

import csv
from collections.abc import Sequence

__all__ = ["LIST_HELP", "floats", "names"]

#: Appended to the help of every list option.
LIST_HELP = ("; a name with a comma: repeat the flag once per name, or quote it "
             "('\"a,b\",c')")


def names(values: str | Sequence[str] | None, flag: str) -> list[str] | None:
    """The names given to a list option (None when it was not given).

    >>> names(["a,b"], "--m"), names(["a,b", "c"], "--m"), names(['"x,y",z'], "--m")
    (['a', 'b'], ['a,b', 'c'], ['x,y', 'z'])
    """
    if values is None:
        return None
    given = [values] if isinstance(values, str) else list(values)
    if len(given) == 1:
        try:
            parsed = next(csv.reader([given[0]], skipinitialspace=True), [])
        except csv.Error as exc:
            raise ValueError(f"{flag}: cannot read {given[0]!r} as a comma-separated list "
                             f"({exc}); quote a name that holds a comma") from None
        found = [n.strip() for n in parsed if n.strip()]
    else:
        found = [n.strip() for n in given if n.strip()]
    if not found:
        raise ValueError(f"{flag}: give at least one name, comma-separated; got {values!r}")
    return found


def floats(values: str | Sequence[str] | None, flag: str) -> list[float] | None:
    """Numbers given to a list option (``--weights 1,2`` or ``--weights 1 --weights 2``)."""
    given = [values] if isinstance(values, str) else values
    parts = None if given is None else [w for v in given for w in str(v).split(",")]
    found = names(parts if parts is None or len(parts) != 1 else parts[0], flag)
    if found is None:
        return None
    try:
        return [float(w) for w in found]
    except ValueError:
        raise ValueError(f"{flag}: must be numbers, comma-separated; got {values!r}") from None
