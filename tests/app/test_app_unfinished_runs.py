"""The Leaderboard says, as the upload's preview and the CLI's import do, that a system's
harness run did not finish, and how many of its planned sample-epochs never ran.

The data: the real interrupted Inspect logs of ``tests/data/harness-logs-real/inspect/
interrupted/`` (inspect-ai 0.3.285; provenance in that folder's README): ``sigtest/interrupt``
was cancelled (status ``cancelled``, epoch 1 of 2), ``sigtest/slow`` was killed (no
``header.json``). Reference counts: the import report of :func:`engine.ingest` on the same
folder (5 of 12 and 5 of 6 sample-epochs never ran; ``eval.dataset.sample_ids`` ×
``eval.config.epochs`` as tests/engine/harness/test_real_inspect_fixes.py checks them).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from apptest_support import app, no_exception

from engine.app_support import md_text
from engine.intake import ingest
from engine.store import open_store

ROOT = Path(__file__).resolve().parents[2]
INTERRUPTED = ROOT / "tests" / "data" / "harness-logs-real" / "inspect" / "interrupted"
PAGE = "views/leaderboard.py"


def _env(path: Path, mp: pytest.MonkeyPatch) -> None:
    for name in ("SIGBOARD_DB_URL", "SIGBOARD_UPLOAD_TOKEN", "SIGBOARD_UPLOAD_ALLOW"):
        mp.delenv(name, raising=False)
    mp.setenv("SIGBOARD_DB_PATH", str(path))


@pytest.fixture
def interrupted(tmp_path: Path) -> Iterator[Path]:
    """A store holding the interrupted logs as the CLI's import stores them."""
    path = tmp_path / "sigboard.db"
    got = ingest(str(INTERRUPTED))
    store = open_store(f"sqlite:///{path}")
    store.import_frame(got.frame, filename=got.label, content_hash=got.content_hash,
                       metrics=dict(got.specs.items()) or None)
    store.close()
    with pytest.MonkeyPatch.context() as mp:
        _env(path, mp)
        yield path


def _note(at: object) -> list[str]:
    return [w.value for w in at.warning if "did not finish" in w.value]  # type: ignore[attr-defined]


@pytest.mark.slow
def test_the_import_report_says_it_the_premise() -> None:
    report = ingest(str(INTERRUPTED)).report
    assert "was cancelled: 5 of 12 sample-epochs never ran" in report
    assert "did not finish (no header.json" in report and "5 of 6 sample-epochs never ran" in report


@pytest.mark.slow
def test_the_leaderboard_says_which_runs_did_not_finish(interrupted: Path) -> None:
    at = app(PAGE, benchmark="arith", metric="match")
    no_exception(at)
    notes = _note(at)
    assert len(notes) == 1, [w.value for w in at.warning]
    note = notes[0]
    assert "2 of these 2 systems' runs did not finish" in note
    assert (f"{md_text('sigtest/interrupt')}\u2069's run was cancelled: 5 of 12 planned "
            "sample-epochs never ran") in note
    assert (f"{md_text('sigtest/slow')}\u2069's run was killed before it finished: 5 of 6 "
            "planned sample-epochs never ran") in note
    assert "10 sample-epochs never ran in all" in note
    assert "none counted as 0" in note


@pytest.mark.slow
def test_a_complete_rerun_that_replaced_the_scores_clears_the_note(interrupted: Path) -> None:
    # the killed system's run done again in full (6 examples), replacing its stored scores
    store = open_store(f"sqlite:///{interrupted}")
    full = store.load_frame()
    full = full[(full["system"] == "sigtest/interrupt")].assign(system="sigtest/slow")
    store.import_frame(full.reset_index(drop=True), filename="slow-again.csv",
                       on_conflict="replace")
    store.close()
    at = app(PAGE, benchmark="arith", metric="match")
    no_exception(at)
    note = " ".join(_note(at))
    assert "One of these systems' runs did not finish" in note
    assert md_text("sigtest/slow") not in note and md_text("sigtest/interrupt") in note


def test_complete_logs_say_nothing_of_it(db: Path) -> None:
    at = app(PAGE)
    no_exception(at)
    assert not _note(at)


@pytest.mark.slow
def test_how_a_run_ended_is_not_a_setting_to_compare(interrupted: Path) -> None:
    from app.data.results import factor_columns

    meta = open_store(f"sqlite:///{interrupted}").system_metadata("arith")
    assert set(meta["run_status"]) == {"cancelled", "killed"}  # two levels: would be compared
    assert not {"run_status", "sample_epochs_planned",
                "sample_epochs_never_ran"} & set(factor_columns(meta)[1])
