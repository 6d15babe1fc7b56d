"""AppTests of the navigation (issue #27): sections by job, links drawn whatever way a page
ends, old addresses kept.

The real-browser counterpart (direct links and reloads in chromium) is
``tests/e2e/test_e2e_navigation.py``.
"""

from __future__ import annotations

import re
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


@pytest.mark.slow
def test_the_sidebar_groups_pages_by_job(db: Path) -> None:
    at = app()
    no_exception(at)
    drawn = _sidebar(at)
    # a page another engineer adds (e.g. Watch) may join a section; these stay in order
    for section, titles in SECTIONS.items():
        assert [t for t in drawn[section] if t in titles] == titles, section
    titles = [t for links in drawn.values() for t in links]
    assert "Overview" not in titles and "Plan" not in titles, "one name per question"


@pytest.mark.slow
def test_the_readme_lists_the_sidebar_as_drawn(db: Path) -> None:
    """The README and the page tour match the pages: the sentence on the sidebar (in both)
    names every section with its pages in the order drawn, each page has its line in the
    README's page list (in the sidebar's order, no other page) and its section in
    docs/app.md."""
    drawn = _sidebar(app())
    root = Path(__file__).resolve().parents[2]
    readme = (root / "README.md").read_text(encoding="utf-8")
    tour = (root / "docs" / "app.md").read_text(encoding="utf-8")
    titles = [title for links in drawn.values() for title in links]
    for name, text in (("README.md", readme), ("docs/app.md", tour)):
        marker = "The sidebar groups the pages by job:" if name == "README.md" \
            else "**The sidebar** groups the pages by job:"
        after = " ".join(text.split(marker, 1)[1].split())
        sentence = re.split(r";|\. ", after, maxsplit=1)[0]
        for section, links in drawn.items():
            assert f"*{section}* ({', '.join(links)})" in sentence, (name, section, sentence)
    listed = re.findall(r"^- \*\*(.+?)\*\* — ", readme, flags=re.M)
    assert listed == titles, f"README's page list {listed} is not the sidebar's {titles}"
    headings = re.findall(r"^## (.+)$", tour, flags=re.M)
    for title in titles:
        assert title in headings, f"docs/app.md has no section for the {title} page"


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


@pytest.mark.slow
def test_plan_is_linked_from_a_b_compare(db: Path) -> None:
    at = app("views/compare.py", benchmark="humaneval")
    no_exception(at)
    assert "plan" in [p.proto.page for p in at.main.get("page_link")]
