"""Pairing safety across uploads (#28 item 5): an upload whose content hash for an example id
differs from the one the store holds for other systems is not paired with them there.

The logs are lm-eval 0.4.13's own (tests/data/harness-logs-real/lm_eval/doc_hash): model-a
ran sig_arith on the first data, model-b on data whose doc 2 has other text, so their
``doc_hash`` for doc_id 2 differs (checked below from the files) and no other does.
"""

from __future__ import annotations

import json
import shutil
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import inspect, text

from engine import build_matrix
from engine.harness import read_harness
from engine.harness._pairing import HASH_COLUMNS, unpaired_note
from engine.products._leaderboard import leaderboard
from engine.store import UploadReport, open_store
from engine.store import _hashes as sx
from engine.store import _schema as S
from engine.store._store import _ENGINES

DOC_HASH = Path(__file__).resolve().parents[2] / "data" / "harness-logs-real" / "lm_eval" / "doc_hash"
METRIC = "exact_match,flexible-extract"


def _hashes(model: str) -> dict[str, str]:
    folder = DOC_HASH / f"sigtest__{model}"
    return {str(line["doc_id"]): line["doc_hash"] for path in folder.glob("samples_*.jsonl")
            for line in map(json.loads, path.read_text().splitlines())}


def _upload(store_url: str, model: str,
            system: str | None = None) -> tuple[sx.PairingCheck, UploadReport]:
    frame = read_harness(DOC_HASH / f"sigtest__{model}", system=system).frame
    store = open_store(store_url)
    preview = store.check_pairing(frame)
    return preview, store.import_frame(frame, filename=f"{model}-{system}")


def test_the_premise_only_doc_2_differs() -> None:
    a, b = _hashes("model-a"), _hashes("model-b")
    assert a.keys() == b.keys() and [d for d in a if a[d] != b[d]] == ["2"]
    assert sx.HASH_COLUMNS == HASH_COLUMNS  # the store and the readers trust the same columns


@pytest.mark.slow
def test_a_later_upload_on_other_data_is_not_paired_and_the_preview_says_so(store_url: str) -> None:
    preview, first = _upload(store_url, "model-a")
    assert preview.unpaired == 0 and first.unpaired == 0
    preview, second = _upload(store_url, "model-b")
    assert preview.unpaired == 1 and second.unpaired == 1
    assert preview.sentences[0].startswith(
        "sig_arith: 1 example id of this upload holds other content (doc_hash) than the stored "
        "systems (sigtest/model-a) and is not paired with them: 2")
    assert preview.sentences[0] in second.message
    df = open_store(store_url).load_frame()
    b = set(df.loc[df["system"] == "sigtest/model-b", "example_id"])
    assert b == {"0", "1", "3", "4", "5", f"2#{_hashes('model-b')['2'][:8]}"}
    assert "2" in set(df.loc[df["system"] == "sigtest/model-a", "example_id"])
    # the leaderboard says how many examples were kept apart
    matrix = build_matrix(df, benchmark="sig_arith", metric=METRIC)
    notes = leaderboard(matrix).notes
    assert any(n.startswith("1 example (2) holds other content for some systems") for n in notes)
    assert unpaired_note(matrix.examples) == [n for n in notes if "kept apart" in n]


@pytest.mark.slow
def test_the_same_data_pairs_and_a_deleted_upload_no_longer_counts(store_url: str) -> None:
    _upload(store_url, "model-a")
    preview, same = _upload(store_url, "model-a", system="other/model")  # same data, another name
    assert preview.unpaired == 0 and same.unpaired == 0
    store = open_store(store_url)
    for upload_id in store.uploads()["upload_id"]:
        store.delete_upload(int(upload_id))
    preview, later = _upload(store_url, "model-b")
    assert later.unpaired == 0
    assert "2" in set(open_store(store_url).load_frame()["example_id"])
    store.purge_deleted(older_than=timedelta(0))  # hashes go with them
    with store.engine.connect() as conn:
        kept = conn.execute(text("SELECT DISTINCT upload_id FROM example_hashes")).scalars().all()
    assert kept == [int(store.uploads()["upload_id"].iloc[0])]


@pytest.mark.slow
def test_uploads_without_hashes_store_none(store_url: str) -> None:
    store = open_store(store_url)
    frame = read_harness(DOC_HASH / "sigtest__model-a").frame.drop(columns="doc_hash")
    assert store.check_pairing(frame).unpaired == 0
    store.import_frame(frame, filename="a.csv")
    with store.engine.connect() as conn:
        assert conn.execute(text("SELECT COUNT(*) FROM example_hashes")).scalar() == 0


@pytest.mark.slow
def test_the_cli_import_prints_the_examples_kept_apart(tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    from engine.cli import main

    for model in ("model-a", "model-b"):
        shutil.copytree(DOC_HASH / f"sigtest__{model}", tmp_path / model / f"sigtest__{model}")
    url = f"sqlite:///{tmp_path / 'store.db'}"
    assert main(["import", str(tmp_path / "model-a"), "--db", url]) == 0
    capsys.readouterr()
    assert main(["import", str(tmp_path / "model-b"), "--db", url, "--format", "json"]) == 0
    out = capsys.readouterr()
    assert json.loads(out.out)["uploads"][0]["unpaired"] == 1
    assert "1 example id of this upload holds other content (doc_hash)" in out.err
    _ENGINES.pop(url, None)


def test_a_version_4_store_gains_the_hash_table(sqlite_url: str) -> None:
    store = open_store(sqlite_url)
    store.import_frame(read_harness(DOC_HASH / "sigtest__model-a").frame, filename="a")
    with store.engine.begin() as conn:  # turn it back into a version-4 store
        conn.execute(text("DROP TABLE example_hashes"))
        conn.execute(text("UPDATE sigboard_meta SET value = 4 WHERE key = 'schema_version'"))
    store.close()
    _ENGINES.pop(sqlite_url, None)
    upgraded = open_store(sqlite_url)
    assert upgraded.schema_version == S.SCHEMA_VERSION == 5
    assert "example_hashes" in inspect(upgraded.engine).get_table_names()
    # nothing is backfilled: the hashes count from the uploads made since
    report = upgraded.import_frame(read_harness(DOC_HASH / "sigtest__model-b").frame, filename="b")
    assert report.unpaired == 0
