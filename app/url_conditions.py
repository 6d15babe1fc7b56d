"""The Conditions page's and the example drill-down's own URL parameters, parsed and validated.

``factor`` (the system setting whose levels are compared), ``hold`` (the settings
held fixed; absent: the engine's default, every other setting; one empty value:
nothing held) and ``ex`` (the example shown in detail on the Examples page).
Pure, like ``app/url.py``: no Streamlit here, every bad value becomes a friendly
message and a fallback, nothing raises.

Examples
--------
>>> choice, problems = parse_conditions({"factor": ["template"], "hold": ["family"]},
...                                     ["template", "family", "temperature"])
>>> choice.factor, choice.hold, problems
('template', ('family',), [])
>>> parse_conditions({"factor": ["colour"]}, ["template"])[0].factor
'template'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from app.url import MAX_TEXT, _quoted

#: The parameters of this module: what a link to each page carries besides ``app/url.py``'s.
CONDITIONS_PARAMS = ("factor", "hold")
EXAMPLE_PARAMS = ("ex",)


@dataclass(frozen=True)
class ConditionsChoice:
    """The Conditions page's choices: ``factor`` ("" when the systems have no setting) and
    ``hold`` (None: the engine's default; () holds nothing)."""

    factor: str = ""
    hold: tuple[str, ...] | None = None

    def params(self) -> dict[str, str | list[str]]:
        """Query parameters of this choice (``hold`` only when chosen; [""] holds nothing)."""
        out: dict[str, str | list[str]] = {"factor": self.factor} if self.factor else {}
        if self.hold is not None:
            out["hold"] = list(self.hold) or [""]
        return out


def _last(raw: Mapping[str, Sequence[str]], name: str) -> str | None:
    values = raw.get(name) or []
    return values[-1] if values else None


def _names(values: Sequence[str]) -> str:
    return ", ".join(map(_quoted, values))


def parse_conditions(raw: Mapping[str, Sequence[str]], factors: Sequence[str],
                     settings: Sequence[str] | None = None
                     ) -> tuple[ConditionsChoice, list[str]]:
    """Validate ``factor`` and ``hold`` against the benchmark's system settings.

    Parameters
    ----------
    raw : mapping
        Query parameters, each to all its values.
    factors : sequence of str
        Settings that can be compared (system metadata with at least two levels); the
        first is the default factor.
    settings : sequence of str, optional
        Every system metadata column (what ``hold`` may name); default ``factors``.

    Returns
    -------
    choice, problems
        A valid :class:`ConditionsChoice` and one message per value dropped.
    """
    problems: list[str] = []
    settings = list(factors if settings is None else settings)
    factor = _last(raw, "factor")
    if factor is not None and factor not in factors:
        if factors:
            problems.append(f"URL parameter `factor`={_quoted(factor)} is not a setting of these "
                            f"systems; they have {_names(factors)}. Showing {_quoted(factors[0])}.")
        else:
            problems.append(f"URL parameter `factor`={_quoted(factor)}: these systems have no "
                            "settings to compare; ignored.")
        factor = None
    factor = factor or (factors[0] if factors else "")
    if "hold" not in raw or not factor:
        return ConditionsChoice(factor, None), problems
    values = [v for v in raw.get("hold") or () if v]
    bad = [v for v in values if v not in settings or v == factor or len(v) > MAX_TEXT]
    if bad:
        others = [s for s in settings if s != factor]
        problems.append(f"URL parameter `hold` has {_names(bad)}, not another setting of these "
                        f"systems ({_names(others) or 'there is none'}); ignored.")
    hold = tuple(dict.fromkeys(v for v in values if v not in bad))
    return ConditionsChoice(factor, hold), problems


def parse_example(raw: Mapping[str, Sequence[str]], examples: Sequence[str], default: str
                  ) -> tuple[str, list[str]]:
    """Validate ``ex`` (the example shown in detail) against the benchmark's examples.

    Returns the example to show (``default`` when ``ex`` is absent or unknown) and one
    message when it is unknown.

    Examples
    --------
    >>> parse_example({"ex": ["HumanEval/3"]}, ["HumanEval/3", "HumanEval/4"], "HumanEval/4")
    ('HumanEval/3', [])
    """
    ex = _last(raw, "ex")
    if ex is None or ex == "":
        return default, []
    if ex in set(examples):
        return ex, []
    return default, [f"URL parameter `ex`={_quoted(ex)} is not an example of this benchmark; "
                     f"showing {_quoted(default)}." if default else
                     f"URL parameter `ex`={_quoted(ex)} is not an example of this benchmark; "
                     "ignored."]
