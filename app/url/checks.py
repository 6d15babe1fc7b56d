"""A parsed view checked against the data a page shows: its systems, columns, slices, settings.

Each check returns the view with what does not exist dropped (the page's default then) and
one message per value dropped.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from app.url.choices import MAX_TEXT
from app.url.text import quoted
from app.url.view import View
from engine.app_support import md_isolated


def planned_difference(view: View) -> tuple[float | None, list[str]]:
    """The difference ``pdiff`` the power planner aims at (None: the smallest detectable one),
    and a message when the URL's value is not a positive number (A/B compare and Plan pages)."""
    if not view.pdiff:
        return None, []
    try:
        difference = float(view.pdiff)
    except ValueError:
        difference = math.nan
    if math.isfinite(difference) and difference > 0:
        return difference, []
    return None, [f"URL parameter `pdiff`: {quoted(view.pdiff)} is not a positive number; "
                  "planning for the smallest detectable difference."]



def check_pair(view: View, systems: Sequence[str]) -> tuple[View, list[str]]:
    """Validate the selected pair against the systems of the current matrix."""
    problems = []
    a, b = view.a, view.b
    for name, value in (("a", a), ("b", b)):
        if value and value not in systems:
            problems.append(f"URL parameter `{name}`={quoted(value)} is not a system of "
                            f"{md_isolated(view.benchmark)}; using the default pair.")
    if a not in systems or b not in systems or a == b:
        if a == b and a:
            problems.append("URL parameters `a` and `b` name the same system; using the default pair.")
        a, b = (systems[0], systems[1]) if len(systems) > 1 else ("", "")
    return replace(view, a=a, b=b), problems


def check_choices(view: View, name: str, allowed: Sequence[str]) -> tuple[View, list[str]]:
    """Drop values of list parameter ``name`` (``cols``/``fval``) or of a text one not in ``allowed``."""
    current = getattr(view, name)
    if isinstance(current, tuple):
        kept = tuple(v for v in current if v in allowed)
        bad = [v for v in current if v not in allowed]
        if not bad:
            return view, []
        changes: dict[str, Any] = {name: kept}
        return replace(view, **changes), [
            f"URL parameter `{name}` has unknown value(s) {', '.join(map(quoted, bad))}; "
            "ignored."]
    if not current or current in allowed:
        return view, []
    cleared: dict[str, Any] = {name: ""}
    return replace(view, **cleared), [f"URL parameter `{name}`={quoted(current)} is unknown; "
                                      "ignored."]


def check_slice(view: View, slices: Mapping[str, Sequence[str]]) -> tuple[View, list[str]]:
    """Validate ``scol``/``sval`` against the benchmark's per-example columns and their slices.

    Parameters
    ----------
    view : View
        The parsed view (:func:`parse_view` already dropped a ``sval`` without ``scol``).
    slices : mapping
        Each per-example column that splits the benchmark → its slice names, as
        :func:`engine.slice_labels` writes them (quantile bins for a numeric column).

    Returns
    -------
    view, problems
        The view with an unknown column or slice dropped (all examples are shown then), and
        one message per dropped value naming what exists.

    Examples
    --------
    >>> view, problems = check_slice(View(benchmark="b", scol="lang", sval="go"),
    ...                              {"lang": ["python", "rust"]})
    >>> view.sval, len(problems)
    ('', 1)
    """
    if not view.scol:
        return view, []
    if view.scol not in slices:
        if slices:
            known = f"its per-example columns are {', '.join(map(quoted, slices))}"
        else:
            known = "it has no per-example columns (such as a category, a language or a difficulty)"
        return replace(view, scol="", sval=""), [
            f"URL parameter `scol`={quoted(view.scol)} is not a per-example column of "
            f"{md_isolated(view.benchmark)}: {known}. Showing all examples."]
    if view.sval and view.sval not in slices[view.scol]:
        names = list(slices[view.scol])
        shown = ", ".join(map(quoted, names[:12])) + (", …" if len(names) > 12 else "")
        return replace(view, sval=""), [
            f"URL parameter `sval`={quoted(view.sval)} is not a slice of "
            f"{quoted(view.scol)}; its slices are {shown}. "
            "Showing all examples."]
    return view, []


# ------------------------------------------------------------ Conditions and Examples pages


def held(view: View) -> tuple[str, ...] | None:
    """``hold`` as the engine takes it: None for its default (every other setting held
    fixed), () for nothing held (``?hold=`` in the URL), else the settings held fixed."""
    return tuple(v for v in view.hold if v) if view.hold else None


def _names(values: Sequence[str]) -> str:
    return ", ".join(map(quoted, values))


def check_conditions(view: View, factors: Sequence[str], settings: Sequence[str] | None = None
                     ) -> tuple[View, list[str]]:
    """Validate ``factor`` and ``hold`` against the benchmark's system settings.

    Parameters
    ----------
    view : View
        The parsed view.
    factors : sequence of str
        Settings that can be compared (system metadata with at least two levels); the
        first is the default factor.
    settings : sequence of str, optional
        Every system metadata column (what ``hold`` may name); default ``factors``.

    Returns
    -------
    view, problems
        The view with a valid ``factor`` ("" when the systems have no setting) and ``hold``
        (:func:`held`: the default, or only other settings of these systems), and one
        message per value dropped.

    Examples
    --------
    >>> view, problems = check_conditions(View(factor="template", hold=("family",)),
    ...                                   ["template", "family", "temperature"])
    >>> view.factor, held(view), problems
    ('template', ('family',), [])
    >>> check_conditions(View(factor="colour"), ["template"])[0].factor
    'template'
    """
    problems: list[str] = []
    settings = list(factors if settings is None else settings)
    factor = view.factor
    if factor and factor not in factors:
        if factors:
            problems.append(f"URL parameter `factor`={quoted(factor)} is not a setting of these "
                            f"systems; they have {_names(factors)}. Showing {quoted(factors[0])}.")
        else:
            problems.append(f"URL parameter `factor`={quoted(factor)}: these systems have no "
                            "settings to compare; ignored.")
        factor = ""
    factor = factor or (factors[0] if factors else "")
    if not view.hold or not factor:
        return replace(view, factor=factor, hold=()), problems
    values = [v for v in view.hold if v]
    bad = [v for v in values if v not in settings or v == factor or len(v) > MAX_TEXT]
    if bad:
        others = [s for s in settings if s != factor]
        problems.append(f"URL parameter `hold` has {_names(bad)}, not another setting of these "
                        f"systems ({_names(others) or 'there is none'}); ignored.")
    kept = tuple(dict.fromkeys(v for v in values if v not in bad))
    return replace(view, factor=factor, hold=kept or ("",)), problems


def check_example(view: View, examples: Sequence[str], default: str) -> tuple[View, list[str]]:
    """Validate ``ex`` (the example shown in detail) against the benchmark's examples.

    Returns the view showing ``ex``, or ``default`` when ``ex`` is absent or unknown, and
    one message when it is unknown.

    Examples
    --------
    >>> view, problems = check_example(View(ex="HumanEval/3"), ["HumanEval/3", "HumanEval/4"],
    ...                                "HumanEval/4")
    >>> view.ex, problems
    ('HumanEval/3', [])
    """
    if not view.ex:
        return replace(view, ex=default), []
    if view.ex in set(examples):
        return view, []
    shown = f"showing {quoted(default)}." if default else "ignored."
    return replace(view, ex=default), [
        f"URL parameter `ex`={quoted(view.ex)} is not an example of this benchmark; {shown}"]

