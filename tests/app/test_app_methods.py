"""The Methods page shows docs/methods.md, and that document holds the one reference list.

The text is written once, in ``docs/methods.md``; the wheel ships only the ``engine`` and
``app`` packages, so the page reads the copy in ``app/components/methods/methods.md``, which
must be the same bytes. Every work a docstring's References section cites (first author and
year) must be in the document's reference list, so the code and the page cannot cite
different lists.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from apptest_support import app, no_exception

from app.components.methods import methods_markdown, page_markdown, references, sections
from engine.app_support import MIN_PAIRED_OVERLAP

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "methods.md"
PACKAGED = ROOT / "app" / "components" / "methods" / "methods.md"

#: A year in brackets, as the docstrings cite: "Holm (1979)", "Newcombe, R. G. (1998a)".
_YEAR = re.compile(r"\((\d{4})[ab]?\)")
#: Where a citation starts within a References section: its beginning, after "; " or "), ",
#: after a sentence's full stop (not an initial's, not "et al."'s), or after a URL.
_START = re.compile(r"(?:^|;\s+|\),\s+|(?<=[a-z0-9)\]*`\"”])(?<!\bal)\.\s+|https?://\S+\s+)")
#: The first author's surname at a citation's start ("Al Mohamad", "Šidák", "Demšar").
_SURNAME = re.compile(r"\s*([A-ZŠ][^\W\d_]+(?: [A-Z][^\W\d_]+(?=[ ,&(]))?)")


def test_the_packaged_text_is_docs_methods() -> None:
    assert PACKAGED.read_bytes() == DOC.read_bytes(), (
        "docs/methods.md is the Methods page's text: after editing it, "
        "cp docs/methods.md app/components/methods/methods.md")
    assert methods_markdown() == DOC.read_text(encoding="utf-8")


@pytest.mark.slow
def test_the_page_shows_the_documents_text(db: Path) -> None:
    at = app("views/methods.py")
    no_exception(at)
    assert [t.value for t in at.title] == ["Methods"]
    shown = "\n".join(m.value for m in at.markdown)
    assert shown.strip() == page_markdown().strip()
    # the document after its title line, so every section and reference is on the page
    body = DOC.read_text(encoding="utf-8").split("\n", 1)[1].strip()
    assert shown.strip() == body
    for head in sections():
        assert f"## {head}" in shown, head


def test_the_minimum_overlap_written_is_the_engines() -> None:
    # the document states the number, so it must be the engine's constant
    text = " ".join(methods_markdown().split())
    assert f"Minimum overlap for pairing.** {MIN_PAIRED_OVERLAP} shared examples" in text
    assert f"fewer than {MIN_PAIRED_OVERLAP} examples is tested unpaired" in text


def test_one_reference_list_sorted_with_authors_and_years() -> None:
    text = methods_markdown()
    assert len(re.findall(r"^## References$", text, flags=re.MULTILINE)) == 1
    entries = references()
    assert len(entries) >= 50
    assert all(re.search(r"\(\d{4}[ab]?\)", e) or "package" in e for e in entries), entries
    firsts = [e.split(",")[0].replace("Š", "S") for e in entries]
    assert firsts == sorted(firsts)
    # the rank sets' paper and the A/B post with its author, both cited by the code
    assert any(e.startswith("Mogstad, M., Romano, J. P., Shaikh, A. M. & Wilhelm, D. (2024)")
               and "Review of Economic Studies* 91(1), 476–518" in e for e in entries)
    assert any(e.startswith("Lumiste, M. (2023). Why you should A/B test your LLM evals")
               for e in entries)


def _docstring_references() -> Iterator[tuple[str, str]]:
    """(file, the References section's text) for every docstring in engine/ and app/."""
    for path in sorted([*(ROOT / "engine").rglob("*.py"), *(ROOT / "app").rglob("*.py")]):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            doc = ast.get_docstring(node) or ""
            parts = re.split(r"^References\n-+$", doc, flags=re.MULTILINE)
            if len(parts) == 2:  # up to the next numpydoc heading
                section = re.split(r"\n\S[^\n]*\n-{3,}\n", parts[1])[0]
                yield str(path.relative_to(ROOT)), " ".join(section.split())


def _citations(section: str) -> Iterator[tuple[str, str]]:
    """(first author's surname, year) of each citation in a References section."""
    for year in _YEAR.finditer(section):
        before = section[:year.start()]
        starts = [m.end() for m in _START.finditer(before)]
        name = _SURNAME.match(before[starts[-1] if starts else 0:])
        assert name, (section, year.group(0))
        yield name.group(1), year.group(1)


@pytest.mark.slow
def test_every_work_a_docstring_cites_is_in_the_reference_list() -> None:
    entries = references()
    cited = {(where, *c) for where, section in _docstring_references() for c in _citations(section)}
    # the works behind the rank sets, the corrections and the A/B gate are among those found
    names = {name for _, name, _ in cited}
    assert {"Mogstad", "Holm", "Šidák", "Lumiste", "Tango", "Wilson", "Al Mohamad"} <= names
    missing = sorted((where, name, year) for where, name, year in cited
                     if not any(e.startswith(name) and f"({year}" in e for e in entries))
    assert not missing, missing
