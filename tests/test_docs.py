"""The README and docs/ cannot drift from the repository.

* every relative link of README.md and docs/*.md leads to a file that exists, and every
  ``#anchor`` to a heading of that file (GitHub's slugs);
* every ``sigboard …`` (or ``python -m engine …``) command in a code block parses: the
  command line's own parser accepts its options, without running it;
* docs/cli.md is what scripts/make_cli_docs.py writes from the parser today;
* the README stays a front door (at most 200 lines).
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import os
import re
import shlex
import unicodedata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^(```|~~~)([^\n]*)\n(.*?)^\1[ \t]*$", flags=re.S | re.M)
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HTML_LINK = re.compile(r"""<(?:a|img)\b[^>]*?\b(?:href|src)=["']([^"']+)["']""", flags=re.I)
HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t]*#*[ \t]*$", flags=re.M)
SHELL_OPERATORS = {"&&", "||", "|", ";", ">", ">>", "<", "&", "2>", "2>&1"}


def _rel(page: Path) -> str:
    return str(page.relative_to(ROOT))


def _prose(markdown: str) -> str:
    """The text outside fenced code blocks and inline code (links there are not links)."""
    text = FENCE.sub("", markdown)
    return re.sub(r"(`+)(?:(?!\1).)+?\1", "", text, flags=re.S)


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: its rendered text lower-cased, punctuation dropped
    (letters, digits, ``_``, ``-`` and spaces stay), each space a hyphen."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link: its text
    text = re.sub(r"<[^>]+>", "", text)  # inline HTML
    text = text.strip().lower()
    kept = "".join(ch for ch in text
                   if ch in " -_" or unicodedata.category(ch)[0] in {"L", "N"})
    return kept.replace(" ", "-")


def anchors(markdown: str) -> set[str]:
    """Every heading's anchor in ``markdown`` (a repeated slug gets -1, -2, … as on
    GitHub), plus explicit ``<a id="…">`` / ``<a name="…">`` anchors."""
    seen: dict[str, int] = {}
    out: set[str] = set()
    for _, text in HEADING.findall(FENCE.sub("", markdown)):
        base = slug(text)
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.add(base if n == 0 else f"{base}-{n}")
    out.update(re.findall(r"""<a\s+(?:id|name)=["']([^"']+)["']""", markdown))
    return out


def links(markdown: str) -> list[str]:
    prose = _prose(markdown)
    return LINK.findall(prose) + HTML_LINK.findall(prose)


@pytest.mark.parametrize("page", PAGES, ids=_rel)
def test_every_relative_link_resolves(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    broken = []
    for target in links(text):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, flags=re.I):  # https:, mailto:
            continue
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        if not file.exists():
            broken.append(f"{target}: no such file")
        elif anchor and file.suffix == ".md" \
                and anchor not in anchors(file.read_text(encoding="utf-8")):
            broken.append(f"{target}: no heading #{anchor} in {_rel(file)}")
    assert not broken, f"{_rel(page)}:\n" + "\n".join(broken)


def test_the_slugs_are_githubs() -> None:
    # GitHub's own anchors of these headings, read off rendered pages of this repository
    assert slug("Limits on every upload") == "limits-on-every-upload"
    assert slug("A/B compare") == "ab-compare"
    assert slug("Judge + humans") == "judge--humans"
    assert slug("`sigboard compare` exit codes") == "sigboard-compare-exit-codes"
    assert slug("Sign-in for teams") == "sign-in-for-teams"
    assert anchors("# A\n## A\n") == {"a", "a-1"}


def _command_lines(markdown: str) -> list[str]:
    """The lines of every fenced code block, continuation lines (``\\``) joined."""
    out = []
    for _, _, body in FENCE.findall(markdown):
        out += body.replace("\\\n", " ").splitlines()
    return out


def _is_sigboard(words: list[str]) -> int:
    """How many leading words name the command line (``sigboard``, ``.venv/bin/sigboard``,
    ``python -m engine``), 0 when these words are another command."""
    while words and re.fullmatch(r"[A-Z_][A-Z0-9_]*=\S*", words[0]):  # VAR=value prefix
        words = words[1:]
    if words and Path(words[0]).name == "sigboard":
        return 1
    if len(words) >= 3 and Path(words[0]).name.startswith("python") \
            and words[1:3] == ["-m", "engine"]:
        return 3
    return 0


def sigboard_commands(markdown: str) -> list[list[str]]:
    """The arguments of every ``sigboard`` command shown in a code block: shell operators
    (``&&``, ``||``, ``|``, ``>``) end a command, ``#`` starts a comment; a command with a
    placeholder (``<org>``, ``[OPTIONS]``, ``…``) is left out."""
    found = []
    for line in _command_lines(markdown):
        line = re.sub(r"^\s*\$\s+", "", line)  # a prompt
        if re.search(r"<[A-Za-z][^<>]*>|…", line):  # <org>, <your file>, …: a placeholder
            continue
        try:
            lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
            lexer.whitespace_split = True
            words = list(lexer)
        except ValueError:  # not shell (an unbalanced quote in prose-like text)
            continue
        command: list[str] = []
        for word in [*words, ";"]:
            if word in SHELL_OPERATORS:
                env = 0
                while env < len(command) and re.fullmatch(r"[A-Z_][A-Z0-9_]*=\S*",
                                                          command[env]):
                    env += 1
                skip = _is_sigboard(command[env:])
                if skip and not any(re.fullmatch(r"\[.*\]", w) for w in command):
                    found.append(command[env + skip:])
                command = []
            else:
                command.append(word)
    return found


def _parse(argv: list[str]) -> str:
    """'' when the command line accepts ``argv`` (``--help`` and ``--version`` included),
    else what it printed on refusing it."""
    from engine.cli._main import _parse as parse

    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            parse(argv)
        except SystemExit as exc:
            if exc.code not in (0, None):
                return err.getvalue().strip() or f"exit {exc.code}"
    return ""


@pytest.mark.parametrize("page", PAGES, ids=_rel)
def test_every_command_shown_parses(page: Path) -> None:
    bad = []
    for argv in sigboard_commands(page.read_text(encoding="utf-8")):
        problem = _parse(argv)
        if problem:
            bad.append(f"sigboard {shlex.join(argv)}\n    {problem.splitlines()[-1]}")
    assert not bad, f"{_rel(page)}:\n" + "\n".join(bad)


def test_the_command_finder_and_the_check() -> None:
    block = ("```bash\n.venv/bin/sigboard leaderboard x.csv --alpha 0.1 | head\n"
             "sigboard compare evals.jsonl --baseline main \\\n  --candidate \"$SHA\" || exit 1\n"
             "python -m engine export db > out.csv  # a comment\n"
             "pip install sigboard\nsigboard import <your file>\n```\n")
    assert sigboard_commands(block) == [
        ["leaderboard", "x.csv", "--alpha", "0.1"],
        ["compare", "evals.jsonl", "--baseline", "main", "--candidate", "$SHA"],
        ["export", "db"],
    ]
    assert _parse(["leaderboard", "x.csv", "--alpha", "0.1"]) == ""
    assert _parse(["compare", "--help"]) == ""
    assert "unrecognized arguments" in _parse(["leaderboard", "x.csv", "--no-such-option"])
    assert _parse(["no-such-command"]) != ""


def test_cli_reference_is_up_to_date() -> None:
    spec = importlib.util.spec_from_file_location("make_cli_docs",
                                                  ROOT / "scripts" / "make_cli_docs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    committed = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    assert module.render() == committed, (
        "docs/cli.md is out of date: run `.venv/bin/python scripts/make_cli_docs.py`")


def test_the_readme_is_a_front_door() -> None:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 200, f"README.md has {len(lines)} lines: move reference text to docs/"


def _block_after(markdown: str, opening: str) -> tuple[str, str]:
    """The body of the first code block opened by ``opening`` that a ``text`` block
    follows, and that block's body (what the README says that code prints)."""
    blocks = [(m.group(2).strip(), m.group(3)) for m in FENCE.finditer(markdown)]
    pairs = [(code, out) for (lang, code), (after, out) in zip(blocks, blocks[1:])
             if lang == opening and after == "text"]
    assert pairs, f"no {opening} block followed by its output"
    return pairs[0]


def test_the_readme_python_example_prints_what_it_shows(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    code, shown = _block_after((ROOT / "README.md").read_text(encoding="utf-8"), "python")
    monkeypatch.chdir(ROOT)  # its paths are the repository's
    exec(compile(code, "README.md", "exec"), {"__name__": "readme"})  # noqa: S102
    assert capsys.readouterr().out == shown


@pytest.mark.slow
def test_the_readme_cli_example_prints_what_it_shows() -> None:
    import subprocess
    import sys

    command, shown = _block_after((ROOT / "README.md").read_text(encoding="utf-8"), "bash")
    lines = [line for line in command.splitlines() if "sigboard " in line]
    assert len(lines) == 1, lines
    argv = shlex.split(lines[0])[1:]  # after .venv/bin/sigboard
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}  # the output has − and – in it
    out = subprocess.run([sys.executable, "-m", "engine", *argv], cwd=ROOT, env=env,
                         capture_output=True, encoding="utf-8", timeout=300, check=False)
    assert out.returncode == 0, out.stderr
    assert out.stdout == shown
