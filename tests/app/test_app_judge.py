"""AppTests of the Judge + humans page (#31): a file with ``judge_score`` on every row and a
partly filled ``human_score`` uploaded on the Upload page, then the PPI++ leaderboard equal to
the engine's; labels on one system only are refused with the reason. Synthetic data: 4
systems x 400 examples, the judge biased by 5, 0, -3, 2 points, 15% of examples labelled."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from apptest_support import app, html_frame, no_exception
from pages_data_support import judged_wide as _wide

from engine import judge_board, open_store
from engine.app_support import judge_pair_figures, label_budget

PAGE = "views/judge.py"


def _upload(frame: pd.DataFrame, name: str) -> None:
    at = app("views/upload.py")
    at.file_uploader(key="upload_files").upload(name, frame.to_csv(index=False).encode(),
                                                "text/csv").run()
    no_exception(at)
    [b for b in at.get("form_submit_button") if "Commit" in b.proto.label][0].click().run()
    no_exception(at)
    assert any("stored as upload" in s.value for s in at.success)


@pytest.mark.slow
def test_upload_then_the_ppi_leaderboard_equals_the_engine(db: Path) -> None:
    _upload(_wide(), "judged.csv")
    at = app(PAGE, benchmark="judged", metric="judge_score")
    no_exception(at)
    assert at.title[0].value.startswith("Judge + humans")
    frame = open_store(f"sqlite:///{db}").load_frame("judged")
    ref = judge_board(frame, judge="judge_score", human="human_score", benchmark="judged")
    shown = at.dataframe[0].value  # the leaderboard comes first
    assert shown["system"].tolist() == ref.table["system"].tolist()
    np.testing.assert_allclose(shown["PPI mean"], ref.table["ppi_mean"], rtol=1e-12)
    np.testing.assert_allclose(shown["PPI low"], ref.table["ppi_low"], rtol=1e-12)
    assert shown["human labels"].tolist() == ref.table["n_human"].tolist()
    np.testing.assert_allclose(shown["judge only"], ref.table["judge_mean"], rtol=1e-12)
    assert any("bias differs between systems" in w.value for w in at.warning)
    assert len(at.dataframe) == 4  # leaderboard, pairs, bias, calibration
    assert len(html_frame(at, "label budget")) == 4  # the budget: static HTML since #31 item 5


@pytest.mark.slow
def test_labels_on_one_system_are_refused_with_the_reason(db: Path) -> None:
    wide = _wide(1)
    wide.loc[wide["system"] != "s0", "human_score"] = np.nan
    _upload(wide, "judged.csv")
    at = app(PAGE, benchmark="judged", metric="judge_score")
    no_exception(at)
    assert any("has human labels" in w.value and "s0" in w.value for w in at.warning)


def _stored_board(db: Path):
    frame = open_store(f"sqlite:///{db}").load_frame("judged")
    return judge_board(frame, judge="judge_score", human="human_score", benchmark="judged")


@pytest.mark.slow
def test_one_systems_corrected_interval_is_the_same_on_leaderboard_and_overall(db: Path) -> None:
    # #31 item 3: the Leaderboard and Overall use the PPI++ estimates of the engine's board
    _upload(_wide(), "judged.csv")
    ref = _stored_board(db).table.set_index("system")
    shown = []
    for page, params in (("views/leaderboard.py", {"metric": "judge_score"}),
                         ("views/overall.py", {"bench": "judged"})):
        at = app(page, benchmark="judged", **params)
        no_exception(at)
        shown.append(html_frame(at, "judge corrected").set_index("system"))
        assert any("corrected with" in m.value and "human labels" in m.value
                   for m in at.markdown), page
    assert shown[0].equals(shown[1])
    # the Overall ranking's own cell of the judge benchmark is the PPI++ estimate too (#31)
    overall_page = app("views/overall.py", benchmark="judged", bench="judged")
    body = "".join(h.proto.body for h in overall_page.get("html"))
    for system in ref.index:
        cell = (f'<td data-label="judged">{ref.loc[system, "ppi_mean"]:.3f}<small>['
                f'{ref.loc[system, "ppi_low"]:.3f}, {ref.loc[system, "ppi_high"]:.3f}]')
        assert cell in body, system
    assert any("judge scores corrected with" in m.value for m in (*overall_page.caption,
                                                                  *overall_page.markdown))
    pairs_tab = app("views/overall.py", benchmark="judged", bench="judged", otab="pairs")
    no_exception(pairs_tab)  # its per-benchmark cells read the PPI++ pair rows
    for system in ("s0", "s2"):
        row = shown[0].loc[system]
        assert (row["corrected"], row["low"], row["high"]) == tuple(
            f"{ref.loc[system, c]:.4g}" for c in ("ppi_mean", "ppi_low", "ppi_high"))
        assert int(row["human labels"]) == ref.loc[system, "n_human"]
        assert int(row["effective labels"]) == round(ref.loc[system, "effective_n"])
        assert row["judge only"].startswith(f"{ref.loc[system, 'judge_mean']:.4g} [")
        assert row["human only"].startswith(f"{ref.loc[system, 'human_mean']:.4g} [")
    at = app("views/leaderboard.py", benchmark="judged", metric="human_score")
    no_exception(at)
    assert not [h for h in at.get("html") if 'aria-label="judge corrected"' in h.proto.body]


@pytest.mark.slow
def test_one_pairs_corrected_difference_is_the_same_on_pairwise_and_compare(db: Path) -> None:
    _upload(_wide(), "judged.csv")
    ref = judge_pair_figures(_stored_board(db), "s1", "s0")
    pairwise = app("views/pairwise.py", benchmark="judged", metric="judge_score", a="s1", b="s0")
    no_exception(pairwise)
    compare = app("views/compare.py", benchmark="judged", metric="judge_score", cand="s1",
                  base="s0")
    no_exception(compare)
    tables = [html_frame(at, "judge corrected pair") for at in (pairwise, compare)]
    assert tables[0].equals(tables[1])
    ppi = tables[0].iloc[0]
    assert (ppi["difference"], ppi["low"], ppi["high"], ppi["p"], ppi["adjusted p"]) == (
        f"{ref.estimate:.4g}", f"{ref.low:.4g}", f"{ref.high:.4g}", f"{ref.pvalue:.4g}",
        f"{ref.p_adjusted:.4g}")
    assert tables[0]["source"].tolist() == ["judge corrected (PPI++)", "judge only", "human only"]
    assert any("corrected with" in i.value  # the verdict box: the PPI++ gate's (#31)
               for i in (*compare.info, *compare.success, *compare.error))


def _preview(frame: pd.DataFrame):
    at = app("views/upload.py")
    at.file_uploader(key="upload_files").upload("judged.csv", frame.to_csv(index=False).encode(),
                                                "text/csv").run()
    no_exception(at)
    return at


@pytest.mark.slow
def test_upload_preview_counts_labels_per_system_and_refuses_one_system(db: Path) -> None:
    wide = _wide(2)
    at = _preview(wide)
    counts = html_frame(at, "human labels")
    expected = wide.groupby("system")["human_score"].count()
    assert dict(zip(counts["system"], counts["human labels"].astype(int), strict=True)) == \
        expected.to_dict()
    assert any("look like a random sample" in c.value for c in at.caption)
    assert not any("will **not** be corrected" in w.value for w in at.warning)
    wide.loc[wide["system"] != "s1", "human_score"] = np.nan
    at = _preview(wide)
    refused = [w.value for w in at.warning if "will **not** be corrected" in w.value]
    assert len(refused) == 1 and "has human labels" in refused[0] and "s1" in refused[0]


@pytest.mark.slow
def test_plan_page_plans_the_human_labels_of_a_judge_metric(db: Path) -> None:
    _upload(_wide(), "judged.csv")
    at = app("views/plan.py", benchmark="judged", metric="judge_score")
    no_exception(at)
    assert any(h.value == "Human labels for the judge" for h in at.subheader)
    width = at.number_input(key="plan_judge_width").value
    ref = label_budget(_stored_board(db), target_width=width).table
    shown = html_frame(at, "label budget")
    assert shown["system"].tolist() == ref["system"].tolist()
    assert shown["labels_needed"].astype(int).tolist() == ref["labels_needed"].tolist()
    ratios = html_frame(at, "label budget check")["ratio"].astype(float)
    assert ((ratios - 1).abs() < 0.1).all()
    at = app("views/plan.py", benchmark="judged", metric="human_score")
    no_exception(at)
    assert not any(h.value == "Human labels for the judge" for h in at.subheader)


@pytest.mark.slow
def test_a_slice_corrects_the_judge_on_its_examples_only(db: Path) -> None:
    wide = _wide(3)
    wide["topic"] = np.where(wide["example_id"].str[1:].astype(int) % 2 == 0, "even", "odd")
    _upload(wide, "judged.csv")
    at = app("views/leaderboard.py", benchmark="judged", metric="judge_score", scol="topic",
             sval="even")
    no_exception(at)
    shown = html_frame(at, "judge corrected").set_index("system")
    part = wide[wide["topic"] == "even"].drop(columns="topic")
    long = part.melt(id_vars=["benchmark", "system", "example_id"], var_name="metric",
                     value_name="value").dropna(subset=["value"])
    ref = judge_board(long, judge="judge_score", human="human_score").table.set_index("system")
    assert shown["human labels"].astype(int).to_dict() == ref["n_human"].to_dict()
    assert shown.loc["s0", "corrected"] == f"{float(ref.loc['s0', 'ppi_mean']):.4g}"


@pytest.mark.slow
def test_plan_page_scales_the_declared_inclusion_probabilities(db: Path) -> None:
    # #31 item 5 with known inclusion probabilities: labels drawn with 0.3 on examples the
    # judge scores high on average, 0.08 elsewhere; the Plan page shows the engine's weighted
    # plan (the scale of the design, expected labels) and its simulation check
    rng = np.random.default_rng(5)
    s_, e = 4, 400
    h = np.linspace(60, 70, s_)[:, None] + rng.normal(0, 20, (s_, e))
    j = h + np.array([5.0, 0.0, -3.0, 2.0])[:, None] + rng.normal(0, 8, (s_, e))
    pi = np.where(j.mean(0) > 65, 0.3, 0.08)
    lab = np.broadcast_to(rng.random(e) < pi, (s_, e))
    wide = pd.DataFrame({"benchmark": "judged", "system": np.repeat([f"s{i}" for i in range(s_)], e),
                         "example_id": np.tile([f"e{k}" for k in range(e)], s_),
                         "judge_score": j.ravel(), "human_score": np.where(lab, h, np.nan).ravel(),
                         "inclusion_probability": np.tile(pi, s_)})
    long = wide.melt(id_vars=["benchmark", "system", "example_id", "inclusion_probability"],
                     value_vars=["judge_score", "human_score"], var_name="metric",
                     value_name="value").dropna(subset=["value"])
    _upload(long, "judged.csv")  # long: the wide upload stored no example metadata
    meta = open_store(f"sqlite:///{db}").example_metadata("judged")
    assert "inclusion_probability" in meta.columns
    at = app("views/plan.py", benchmark="judged", metric="judge_score")
    no_exception(at)
    assert any("declared inclusion probabilities" in c.value for c in at.caption)
    width = at.number_input(key="plan_judge_width").value
    inclusion = meta.set_index(meta["example_id"].astype(str))["inclusion_probability"]
    frame = open_store(f"sqlite:///{db}").load_frame("judged")
    board = judge_board(frame, judge="judge_score", human="human_score", benchmark="judged",
                        inclusion=inclusion)
    ref = label_budget(board, target_width=width).table
    shown = html_frame(at, "label budget")
    assert shown["labels_needed"].astype(int).tolist() == ref["labels_needed"].tolist()
    np.testing.assert_allclose(shown["scale"].astype(float), ref["scale"], rtol=1e-3)
    ratios = html_frame(at, "label budget check")["ratio"].astype(float)
    assert len(ratios) == 4 and ((ratios - 1).abs() < 0.1).all()


# --------------------------------------------------------------------------- the A/B gate (#31)


def _overturned(seed: int = 0) -> pd.DataFrame:
    """2 systems x 400 examples, 25% labelled: s1's human labels 6 points below s0's, the judge
    favouring s1 by 12 (the judge alone: s1 better; the humans: s1 worse)."""
    rng = np.random.default_rng(seed)
    e = 400
    h = np.array([60.0, 54.0])[:, None] + rng.normal(0, 20, (2, e))
    j = h + np.array([0.0, 12.0])[:, None] + rng.normal(0, 8, (2, e))
    lab = np.broadcast_to(rng.random(e) < 0.25, (2, e))
    return pd.DataFrame({"benchmark": "judged", "system": np.repeat(["s0", "s1"], e),
                         "example_id": np.tile([f"e{k}" for k in range(e)], 2),
                         "judge_score": j.ravel(), "human_score": np.where(lab, h, np.nan).ravel()})


@pytest.mark.slow
def test_compare_verdict_is_the_ppi_gates_and_equals_the_cli(
        db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from engine import judge_gate
    from engine.cli import main

    _upload(_overturned(), "judged.csv")
    board = _stored_board(db)
    gate = judge_gate(board, baseline="s0", candidate="s1", benchmark="judged",
                      judge="judge_score", human="human_score")
    assert gate.exit_code == 1 and gate.test is not None
    at = app("views/compare.py", benchmark="judged", metric="judge_score", cand="s1", base="s0")
    no_exception(at)
    verdict = [e.value for e in at.error if "corrected with" in e.value]
    assert len(verdict) == 1 and "candidate is significantly worse" in verdict[0]
    t = gate.test
    for number in (f"{t.estimate:+.4g}", f"{t.ci_low:+.4g}", f"{t.ci_high:+.4g}",
                   f"p = {t.pvalue:.3g}"):
        assert number in verdict[0], number
    assert any("Judge's own scores" in i.value and "significantly better" in i.value
               for i in at.info)  # the judge alone says the opposite, shown beside
    ppi = html_frame(at, "judge corrected pair").iloc[0]
    assert (ppi["difference"], ppi["p"]) == (f"{t.estimate:.4g}", f"{t.pvalue:.4g}")
    # the CI gate on the same store: the same figures and exit code 1
    capsys.readouterr()
    code = main(["compare", f"sqlite:///{db}", "--benchmark", "judged", "--metric",
                 "judge_score", "--baseline", "s0", "--candidate", "s1", "--format", "json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 1 and out["model"] == "ppi++"
    assert (out["difference"], out["ci_low"], out["ci_high"], out["pvalue"]) == (
        t.estimate, t.ci_low, t.ci_high, t.pvalue)


@pytest.mark.slow
def test_compare_page_says_the_gate_refuses_labels_on_one_system(db: Path) -> None:
    wide = _overturned(1)
    wide.loc[wide["system"] != "s0", "human_score"] = np.nan
    _upload(wide, "judged.csv")
    at = app("views/compare.py", benchmark="judged", metric="judge_score", cand="s1", base="s0")
    no_exception(at)
    refused = [w.value for w in at.warning if "would not decide" in w.value]
    assert len(refused) == 1 and "has human labels" in refused[0] and "s0" in refused[0]
