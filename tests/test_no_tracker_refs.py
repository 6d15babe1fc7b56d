"""The code explains itself without the issue tracker: no ``#27 item 3`` / ``(issue #19)`` tags.

A tag tells a reader without the tracker nothing; the reason it stood for goes in the
comment or docstring instead (commit messages keep the numbers). Checked over every
Python file of the engine, the app, the scripts and the benchmarks.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = ("engine", "app", "scripts", "benchmarks")
#: "#" and two digits ("#26", "(#31 item 5)"), or "issue #N" / "issues #N" of any length; an
#: HTML character reference ("&#36;") is not a tag, and "#1f77b4" (a colour) or a comment's
#: "# 27 systems" do not match.
TAG = re.compile(r"(?<!&)#[1-9]\d\b|\bissues? #\d+", re.IGNORECASE)


def _tags() -> list[str]:
    found = []
    for folder in FOLDERS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if TAG.search(line):
                    found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    return found


def test_no_tracker_numbers_in_the_code() -> None:
    tags = _tags()
    assert not tags, f"{len(tags)} tracker reference(s), give the reason instead:\n" + "\n".join(tags)


def test_the_pattern_finds_tags_and_spares_colours_and_entities() -> None:
    """Reference: the forms the tags took in this code base, and the look-alikes it holds."""
    for tag in ("(issue #26 item 1)", "#27 item 3", "(#31)", "issue #9", "Issues #5"):
        assert TAG.search(tag), tag
    for fine in ('"#1f77b4"', "# 27 systems", "&#36;", "the #1 system", "UAX #9", "#d62728"):
        assert not TAG.search(fine), fine
