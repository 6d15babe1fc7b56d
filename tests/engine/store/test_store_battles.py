"""Battle lists in the store (issue #32, item 5): stored as uploads, read back per arena."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from sqlalchemy import inspect, text

from engine._contract import DataContractError
from engine.store import _schema as S
from engine.store._store import open_store

BATTLES = pd.DataFrame({"model_a": ["gpt-4", "claude", "gpt-4", "llama"],
                        "model_b": ["claude", "llama", "llama", "claude"],
                        "winner": ["model_a", "tie (bothbad)", "model_b", "tie"],
                        "judge": ["h1", "h2", "h1", "h3"]})


@pytest.mark.slow
def test_battles_round_trip_with_provenance_duplicates_and_delete(store_url: str) -> None:
    """Stored in the file's order with the canonical winners, read per arena; identical
    content stored once; a deleted upload's battles are hidden and come back on restore."""
    store = open_store(store_url)
    report = store.import_battles(BATTLES, arena="chat", filename="battles.csv",
                                  content=b"raw bytes", uploader="alice")
    assert report.upload_id is not None and report.rows == 4
    store.import_battles(BATTLES.iloc[:2], arena="code", filename="code.csv")
    got = store.load_battles("chat")
    assert got["winner"].tolist() == ["model_a", "both_bad", "model_b", "tie"]
    assert got["model_a"].tolist() == BATTLES["model_a"].tolist()
    assert got["judge"].tolist() == BATTLES["judge"].tolist()
    assert got["weight"].tolist() == [1.0] * 4
    assert "category" not in got.columns
    assert store.battle_arenas() == ["chat", "code"]
    again = store.import_battles(BATTLES, arena="chat", filename="again.csv", content=b"raw bytes")
    assert again.upload_id is None and again.duplicate_of == report.upload_id
    store.delete_upload(report.upload_id)
    assert store.load_battles("chat").empty and store.battle_arenas() == ["code"]
    store.restore_upload(report.upload_id)
    assert len(store.load_battles("chat")) == 4


def test_bad_battles_store_nothing(sqlite_url: str) -> None:
    """A battle list that fails validation leaves the store as it was."""
    store = open_store(sqlite_url)
    version = store.data_version()
    bad = BATTLES.assign(winner=["model_a", "nobody", "tie", "tie"])
    with pytest.raises(DataContractError, match="winner"):
        store.import_battles(bad, arena="chat", filename="bad.csv")
    assert store.data_version() == version and store.battle_arenas() == []


def test_an_older_store_gets_the_table_on_its_first_battle_upload(sqlite_url: str) -> None:
    """A store without the battles table (made by an earlier sigboard) reads no arenas and
    creates the table on the first battle upload; no schema version change."""
    store = open_store(sqlite_url)
    with store.engine.begin() as conn:
        conn.execute(text("DROP TABLE IF EXISTS battles"))
    version = store.schema_version
    assert store.battle_arenas() == [] and store.load_battles("chat").empty
    store.import_battles(BATTLES, arena="chat", filename="b.csv")
    with store.engine.connect() as conn:
        assert inspect(conn).has_table(S.battles.name)
    assert open_store(sqlite_url).schema_version == version
    assert len(store.load_battles("chat")) == 4


@pytest.mark.slow
def test_cli_import_stores_a_battle_list(tmp_path: Path, sqlite_url: str,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    """`sigboard import battles.csv` recognises a battle list (not a results table) and
    stores it as an arena named after the file, or --arena."""
    from engine.cli import main

    path = tmp_path / "chatbot-arena.csv"
    BATTLES.to_csv(path, index=False)
    assert main(["import", str(path), "--db", sqlite_url, "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["uploads"][0]["rows"] == 4
    other = tmp_path / "more.csv"
    BATTLES.iloc[:3].to_csv(other, index=False)
    assert main(["import", str(other), "--db", sqlite_url, "--arena", "chatbot-arena"]) == 0
    store = open_store(sqlite_url)
    assert store.battle_arenas() == ["chatbot-arena"]
    assert len(store.load_battles("chatbot-arena")) == 7


def test_human_verdicts_round_trip_and_an_older_table_gains_the_column(
        sqlite_url: str) -> None:
    """A judged battle list (#31) keeps its human verdicts ("" where none); a battles table
    made before them gains the column on the first upload that has one, and its older
    battles read back without verdicts."""
    store = open_store(sqlite_url)
    store.import_battles(BATTLES, arena="old", filename="old.csv")
    with store.engine.begin() as conn:  # the table as an earlier sigboard made it
        conn.execute(text("ALTER TABLE battles DROP COLUMN human_winner"))
    assert "human_winner" not in store.load_battles("old").columns
    judged = BATTLES.assign(human_winner=["model_b", "", "Tie (bothbad)", None])
    store.import_battles(judged, arena="judged", filename="judged.csv")
    got = store.load_battles("judged")
    assert got["human_winner"].tolist() == ["model_b", "", "both_bad", ""]
    assert "human_winner" not in store.load_battles("old").columns
    with pytest.raises(DataContractError, match="human verdict must be one of"):
        store.import_battles(BATTLES.assign(human_winner=["a", "", "", ""]), arena="x",
                             filename="bad.csv")
