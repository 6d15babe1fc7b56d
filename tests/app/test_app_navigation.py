"""AppTests of the navigation (issue #27): sections by job, links drawn whatever way a page
ends, old addresses kept.

The real-browser counterpart (direct links and reloads in chromium) is
``tests/e2e/test_e2e_navigation.py``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from apptest_support import app, no_exception

#: The sidebar as issue #27 asks for it: section -> page titles, in order.
SECTIONS = {
    "Leaderboards": ["Overall", "Leaderboard", "Benchmarks"],
    "Compare": ["Pairwise", "A/B compare"],
    "Diagnose": ["Examples", "Distributions", "Mechanisms", "Slices", "Conditions"],
    "Data": ["Upload"],
    "Help": ["Methods"],
}
PAGES = ["views/overall.py", "views/leaderboard.py", "views/benchmarks.py", "views/pairwise.py",
         "views/compare.py", "views/plan.py", "views/examples.py", "views/distributions.py",
         "views/mechanisms.py", "views/slices.py", "views/conditions.py", "views/upload.py",
         "views/methods.py"]


def _sidebar(at: Any) -> dict[str, list[str]]:
    """The sidebar's sections and their links, in the order drawn."""
    out: dict[str, list[str]] = {}
    current = ""
    for element in at.sidebar:
        for node in _walk(element):
            kind = getattr(node, "type", "")
            if kind == "caption" and node.value.startswith("**"):
                current = node.value.strip("*")
                out[current] = []
            elif kind == "page_link" and current:
                out[current].append(node.proto.label)
    return out


def _walk(node: Any) -> list[Any]:
    children = getattr(node, "children", None)
    if not children:
        return [node]
    return [leaf for child in children.values() for leaf in _walk(child)]


def test_the_sidebar_groups_pages_by_job(db: Path) -> None:
    at = app()
    no_exception(at)
    drawn = _sidebar(at)
    # a page another engineer adds (e.g. Watch) may join a section; these stay in order
    for section, titles in SECTIONS.items():
        assert [t for t in drawn[section] if t in titles] == titles, section
    titles = [t for links in drawn.values() for t in links]
    assert "Overview" not in titles and "Plan" not in titles, "one name per question"


def test_the_readme_lists_the_sidebar_as_drawn(db: Path) -> None:
    """Item 6, "README matches the pages": its sentence on the sidebar names every section
    with its pages in the order drawn, and each page has its entry in "What the app shows"."""
    drawn = _sidebar(app())
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    sentence = " ".join(readme.split("The sidebar groups the pages by job:", 1)[1]
                        .split(";", 1)[0].split())
    for section, titles in drawn.items():
        assert f"*{section}* ({', '.join(titles)})" in sentence, (section, sentence)
        for title in titles:
            assert f"\n- **{title}**" in readme, f"README has no entry for the {title} page"


@pytest.mark.parametrize("page", PAGES)
@pytest.mark.slow
def test_every_page_shows_the_whole_navigation(db: Path, page: str) -> None:
    # a fresh session opened on the page (a shared link, a reload), on data without metadata:
    # Slices and Conditions stop early, and the links must still be there
    at = app(page, benchmark="humaneval")
    no_exception(at)
    drawn = _sidebar(at)
    assert list(drawn)[:5] == list(SECTIONS), drawn
    assert sum(len(v) for v in drawn.values()) >= 12


def test_plan_is_linked_from_a_b_compare(db: Path) -> None:
    at = app("views/compare.py", benchmark="humaneval")
    no_exception(at)
    assert "plan" in [p.proto.page for p in at.main.get("page_link")]
