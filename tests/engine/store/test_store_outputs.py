"""Per-observation text in the results store (issue #18 item 5): each system's output.

An upload's ``output`` column (text that varies per system and example) is stored per
(benchmark, system, example, run, column) and read back for one example; it follows its
score row through replace, delete, restore and purge. Reference values are built in the
tests (small frames whose content is known by construction). ``store_url`` runs SQLite
and PostgreSQL.
"""

from __future__ import annotations

from datetime import timedelta

import pandas as pd
import pytest
from sqlalchemy import inspect, text
from store_support import grid

from engine.store import _outputs as so
from engine.store import _schema as S
from engine.store._store import _ENGINES, open_store

SCRIPT = "<script>alert(1)</script>"


def _with_output(df: pd.DataFrame, tag: str) -> pd.DataFrame:
    """``df`` with an ``output`` column ``"{tag} {system} {example_id} r{run}"``."""
    run = df["run"].astype(str) if "run" in df.columns else "0"
    return df.assign(output=tag + " " + df["system"] + " " + df["example_id"] + " r" + run)


def _outputs(store, example: str = "ex1") -> dict[tuple[str, int], str]:  # type: ignore[no-untyped-def]
    out = store.example_outputs("b", example)
    assert list(out.columns) == ["system", "run", "name", "value"]
    assert set(out["name"]) <= {"output"}
    return {(s, int(r)): v for s, r, v in zip(out["system"], out["run"], out["value"],
                                              strict=True)}


@pytest.mark.slow
def test_outputs_are_stored_per_observation_and_read_per_example(store_url: str) -> None:
    store = open_store(store_url)
    df = _with_output(grid(["A", "B"], 3), "v1").assign(
        tokens=range(6), prompt=lambda d: "prompt " + d["example_id"])
    df.loc[(df["system"] == "B") & (df["example_id"] == "ex2"), "output"] = SCRIPT + "\x00"
    df.loc[(df["system"] == "A") & (df["example_id"] == "ex2"), "output"] = None
    store.import_frame(df, filename="one.csv")
    assert _outputs(store) == {("A", 0): "v1 A ex1 r0", ("B", 0): "v1 B ex1 r0"}
    assert _outputs(store, "ex2") == {("B", 0): SCRIPT + "\ufffd"}  # NUL cannot be stored
    assert store.example_outputs("b", "nope").empty and store.example_outputs("x", "ex1").empty
    # per-example text stays example metadata; numeric per-row columns are not text
    assert list(store.example_metadata("b").columns) == ["example_id", "prompt"]
    assert "tokens" not in set(store.example_outputs("b", "ex0")["name"])
    assert store.load_frame().shape == (6, 6)  # the scores are unchanged


@pytest.mark.slow
def test_long_text_is_cut_with_a_note(store_url: str) -> None:
    store = open_store(store_url)
    long = "é" * (so.MAX_CHARS + 5)
    store.import_frame(grid(["A"], 2).assign(output=[long, "short"]), filename="one.csv")
    value = _outputs(store, "ex0")[("A", 0)]
    assert value.startswith("é" * so.MAX_CHARS) and value[so.MAX_CHARS:].startswith("\n… [cut")
    assert f"{so.MAX_CHARS + 5:,} characters uploaded" in value


@pytest.mark.slow
def test_one_system_upload_keeps_its_output_per_observation(store_url: str) -> None:
    """With one system, ``output`` is constant within each example; it is still an output."""
    store = open_store(store_url)
    store.import_frame(_with_output(grid(["A"], 3), "a"), filename="a.csv")
    store.import_frame(_with_output(grid(["B"], 3), "b"), filename="b.csv")
    assert _outputs(store) == {("A", 0): "a A ex1 r0", ("B", 0): "b B ex1 r0"}
    assert store.example_metadata("b").columns.tolist() == ["example_id"]


@pytest.mark.slow
def test_several_metrics_and_runs(store_url: str) -> None:
    store = open_store(store_url)
    both = pd.concat([grid(["A"], 2), grid(["A"], 2, metric="f1", binary=False)])
    runs = pd.concat([both.assign(run=0), both.assign(run=1)], ignore_index=True)
    store.import_frame(_with_output(runs, "x"), filename="runs.csv")
    assert _outputs(store) == {("A", 0): "x A ex1 r0", ("A", 1): "x A ex1 r1"}
    more = _with_output(grid(["A"], 2), "later")
    store.import_frame(more, filename="more.csv", on_conflict="add-run")
    assert _outputs(store)[("A", 2)] == "later A ex1 r0"  # the run it was stored as


@pytest.mark.slow
def test_delete_restore_and_purge_take_the_outputs_along(store_url: str) -> None:
    store = open_store(store_url)
    store.import_frame(_with_output(grid(["A", "B"], 3), "v1"), filename="one.csv")
    store.import_frame(_with_output(grid(["C"], 3), "c"), filename="two.csv")
    store.delete_upload(1)
    assert _outputs(store) == {("C", 0): "c C ex1 r0"}
    store.restore_upload(1)
    assert _outputs(store) == {("A", 0): "v1 A ex1 r0", ("B", 0): "v1 B ex1 r0",
                               ("C", 0): "c C ex1 r0"}
    store.delete_upload(1)
    assert store.purge_deleted(older_than=timedelta(0)) == [1]
    with store.engine.connect() as conn:
        left = conn.execute(text("SELECT DISTINCT upload_id FROM outputs")).scalars().all()
    assert left == [2]


@pytest.mark.slow
def test_a_replaced_row_takes_its_output_along(store_url: str) -> None:
    store = open_store(store_url)
    store.import_frame(_with_output(grid(["A", "B"], 3), "v1"), filename="one.csv")
    # B again, on two of the three examples: B's old rows are all superseded
    new = _with_output(grid(["B"], 2, seed=4), "v2")
    store.import_frame(new, filename="two.csv", on_conflict="replace")
    assert _outputs(store) == {("A", 0): "v1 A ex1 r0", ("B", 0): "v2 B ex1 r0"}
    assert _outputs(store, "ex2") == {("A", 0): "v1 A ex2 r0"}  # B's ex2 was replaced
    store.delete_upload(2)
    assert _outputs(store, "ex2") == {("A", 0): "v1 A ex2 r0", ("B", 0): "v1 B ex2 r0"}
    store.restore_upload(2)
    assert _outputs(store) == {("A", 0): "v1 A ex1 r0", ("B", 0): "v2 B ex1 r0"}
    assert _outputs(store, "ex2") == {("A", 0): "v1 A ex2 r0"}


@pytest.mark.slow
def test_a_version_3_store_gains_the_outputs_table(store_url: str) -> None:
    """A store at schema version 3 (no ``outputs`` table) upgrades in place, data kept."""
    store = open_store(store_url)
    store.import_frame(grid(["A", "B"], 3).assign(size=["7b"] * 3 + ["9b"] * 3),
                       filename="one.csv")
    with store.engine.begin() as conn:  # turn it back into a version-3 store
        conn.execute(text("DROP TABLE outputs"))
        conn.execute(text("UPDATE sigboard_meta SET value = 3 WHERE key = 'schema_version'"))
    store.close()
    _ENGINES.pop(store_url, None)
    upgraded = open_store(store_url)
    assert upgraded.schema_version == S.SCHEMA_VERSION == 5
    assert "outputs" in inspect(upgraded.engine).get_table_names()
    assert len(upgraded.load_frame()) == 6
    assert upgraded.system_metadata("b").set_index("system")["size"].to_dict() == \
        {"A": "7b", "B": "9b"}
    assert upgraded.example_outputs("b", "ex1").empty  # nothing to backfill
    upgraded.import_frame(_with_output(grid(["C"], 3), "c"), filename="two.csv")
    assert _outputs(upgraded) == {("C", 0): "c C ex1 r0"}


@pytest.mark.parametrize("value", [None, float("nan"), "", "   "])
def test_empty_cells_are_not_stored(value: object) -> None:
    assert so.clip(value) is None


def test_text_the_databases_cannot_hold_is_replaced_not_refused() -> None:
    assert so.clip("a\ud800b") == "a\ufffdb" and so.clip("nul\x00") == "nul\ufffd"
    assert so.clip("\U0001F600 ok") == "\U0001F600 ok"
    assert so.clip({"k": ["<b>"]}) == '{"k": ["<b>"]}'  # nested JSON as JSON text
