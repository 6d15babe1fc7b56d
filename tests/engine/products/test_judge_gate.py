"""The A/B gate on a judge metric with human labels (#31): ``compare``'s verdict, interval,
p-value and exit code from the PPI++ paired difference (the judge board's pair row, the one
Pairwise and ``leaderboard --judge`` show), refusals with exit 2, and its false-alarm rate
when the judge's bias differs by system but the human-label means are equal."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from test_judge import judge_frame, long_of, only_s0_labelled_csv

from engine import JudgeContractError, TestOptions, judge_board, judge_gate, read_results
from engine.app_support import judge_pair_figures
from engine.cli import main
from engine.products._judge_gate import MIN_GATE_LABELS
from engine.report._reports import compare_report
from engine.results import JudgeBoard


def _gate(frame: pd.DataFrame, base: str, cand: str, **kw: object):
    board = judge_board(frame, judge="judge_score", human="human_score")
    return board, judge_gate(board, baseline=base, candidate=cand, benchmark="b",
                             judge="judge_score", human="human_score", **kw)


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict]:
    code = main([*argv, "--format", "json"])
    return code, json.loads(capsys.readouterr().out)


def _biased_for_the_worse(seed: int = 0) -> pd.DataFrame:
    """s1's human labels 6 points below s0's (60 vs 54), but the judge favours s1 by 12: the
    judge alone says s1 is better, the humans say worse (400 examples, 25% labelled)."""
    return judge_frame(seed, systems=2, share=0.25, bias=(0.0, 12.0)).assign(
        human_score=lambda w: np.where(w["system"] == "s1", w["human_score"] - 16.0,
                                       w["human_score"]),
        judge_score=lambda w: np.where(w["system"] == "s1", w["judge_score"] - 16.0,
                                       w["judge_score"]))


def test_gate_is_the_boards_pair_row_oriented() -> None:
    board, gate = _gate(long_of(judge_frame()), "s1", "s0")
    ref = judge_pair_figures(board, "s0", "s1")
    assert gate.test is not None and gate.figures == ref
    assert (gate.test.estimate, gate.test.ci_low, gate.test.ci_high, gate.test.pvalue) == (
        ref.estimate, ref.low, ref.high, ref.pvalue)
    low = judge_gate(board, baseline="s1", candidate="s0", benchmark="b", judge="judge_score",
                     human="human_score", higher_is_better=False)
    assert low.test is not None
    assert (low.test.estimate, low.test.ci_low, low.test.ci_high) == (
        -ref.estimate, -ref.high, -ref.low)


def test_human_labels_overturn_a_biased_judges_verdict() -> None:
    frame = long_of(_biased_for_the_worse())
    _, gate = _gate(frame, "s0", "s1")
    assert gate.exit_code == 1 and gate.verdict == "candidate is significantly worse"
    assert gate.test is not None and gate.test.ci_high < 0
    assert gate.figures is not None and gate.figures.judge_estimate > 0  # the judge: better


def test_refusals_exit_2_with_the_reason() -> None:
    wide = judge_frame(share=1.0)
    first = wide["example_id"].str[1:].astype(int) < 60
    wide.loc[~first, "human_score"] = np.nan
    with pytest.raises(JudgeContractError) as err:
        judge_board(long_of(wide), judge="judge_score", human="human_score")
    refused = judge_gate(str(err.value), baseline="s0", candidate="s1", benchmark="b",
                         judge="judge_score", human="human_score")
    assert refused.exit_code == 2 and "at the start" in refused.refused and refused.test is None
    _, clustered = _gate(long_of(judge_frame()), "s0", "s1", cluster="topic")
    assert clustered.exit_code == 2 and "--cluster -" in clustered.refused


def test_fewer_labels_than_the_minimum_are_refused() -> None:
    wide = judge_frame(systems=2, share=1.0)
    keep = wide["example_id"].isin([f"e{k}" for k in range(0, 400, 45)])  # 9 spread labels
    wide.loc[~keep, "human_score"] = np.nan
    board = judge_board(long_of(wide), judge="judge_score", human="human_score")
    gate = judge_gate(board, baseline="s0", candidate="s1", benchmark="b",
                      judge="judge_score", human="human_score")
    assert gate.figures is not None and gate.figures.n_both == 9
    assert gate.exit_code == 2 and "only 9 example(s)" in gate.refused


def test_margin_decides_by_non_inferiority_on_the_ppi_difference() -> None:
    frame = long_of(_biased_for_the_worse())
    _, strict = _gate(frame, "s0", "s1", margin=1.0)
    _, loose = _gate(frame, "s0", "s1", margin=30.0)
    assert strict.exit_code == 1 and loose.exit_code == 0
    assert loose.noninferiority is not None and loose.noninferiority.df == (
        loose.figures.n_both - 2)  # type: ignore[union-attr]


@pytest.mark.slow
def test_cli_compare_uses_the_ppi_gate_and_agrees_with_leaderboard_and_pairwise(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "biased.csv"
    _biased_for_the_worse().to_csv(path, index=False)
    code, out = _run(capsys, "compare", str(path), "--metric", "judge_score",
                     "--baseline", "s0", "--candidate", "s1")
    assert code == 1 and out["exit_code"] == 1 and out["model"] == "ppi++"
    assert out["judge_own"]["verdict"] == "candidate is significantly better"  # judge alone
    assert out["judge_own"]["exit_code"] == 0
    gate = out["judge_gate"]
    assert gate["human_metric"] == "human_score" and gate["n_labels"] >= MIN_GATE_LABELS
    assert gate["effective_labels"] > gate["n_labels"]
    assert (out["difference"], out["pvalue"]) == (gate["difference"], gate["pvalue"])
    # the same pair on leaderboard --judge (the Pairwise page's board) and in the engine
    code, board = _run(capsys, "leaderboard", str(path), "--judge", "judge_score", "--human",
                       "human_score")
    row = next(p for p in board["pairs"] if {p["system_a"], p["system_b"]} == {"s0", "s1"})
    sign = 1.0 if row["system_a"] == "s1" else -1.0
    assert out["difference"] == sign * row["estimate"] and out["pvalue"] == row["pvalue"]
    ref = judge_pair_figures(judge_board(read_results(path), judge="judge_score",
                                         human="human_score"), "s1", "s0")
    assert (out["difference"], out["ci_low"], out["ci_high"], out["pvalue"]) == (
        ref.estimate, ref.low, ref.high, ref.pvalue)
    assert main(["compare", str(path), "--judge", "judge_score", "--baseline", "s0",
                 "--candidate", "s1"]) == 1
    text = capsys.readouterr().out
    assert "corrected with" in text and "PPI++" in text and "judge-only" in text
    report = tmp_path / "gate.md"
    assert main(["compare", str(path), "--judge", "judge_score", "--baseline", "s0",
                 "--candidate", "s1", "--report", str(report)]) == 1
    assert "Gate verdict" in report.read_text() and "human\\_score" in report.read_text()
    capsys.readouterr()
    code, own = _run(capsys, "compare", str(path), "--metric", "judge_score", "--human", "-",
                     "--baseline", "s0", "--candidate", "s1")
    assert code == 0 and "judge_gate" not in own and own["model"] != "ppi++"


@pytest.mark.slow
def test_cli_compare_refuses_with_exit_2(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    path = only_s0_labelled_csv(tmp_path)
    code, out = _run(capsys, "compare", str(path), "--metric", "judge_score",
                     "--baseline", "s0", "--candidate", "s1")
    assert code == 2 and out["exit_code"] == 2 and out["difference"] is None
    assert "only 's0' has human labels" in out["judge_gate"]["refused"]
    assert main(["compare", str(path), "--metric", "judge_score", "--baseline", "s0",
                 "--candidate", "s1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("cannot decide:")


@pytest.mark.slow
def test_cli_compare_follows_the_stores_judge_link(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    rows = long_of(_biased_for_the_worse())  # long: a partial metric needs no human_* name
    path = tmp_path / "linked.csv"
    rows.assign(metric=rows["metric"].replace({"human_score": "gold"})).to_csv(path, index=False)
    url = f"sqlite:///{tmp_path / 'store.db'}"
    assert main(["import", str(path), "--db", url]) == 0
    capsys.readouterr()
    code, unlinked = _run(capsys, "compare", url, "--metric", "judge_score",
                          "--baseline", "s0", "--candidate", "s1")
    assert code == 0 and "judge_gate" not in unlinked  # 'gold' is no human_* metric
    assert main(["judge-link", url, "--benchmark", "b", "--judge", "judge_score",
                 "--human", "gold"]) == 0
    capsys.readouterr()
    code, linked = _run(capsys, "compare", url, "--metric", "judge_score",
                        "--baseline", "s0", "--candidate", "s1")
    assert code == 1 and linked["judge_gate"]["human_metric"] == "gold"
    code, flagged = _run(capsys, "compare", str(path), "--judge", "judge_score", "--human",
                         "gold", "--baseline", "s0", "--candidate", "s1")
    assert code == 1 and flagged["difference"] == pytest.approx(linked["difference"], abs=1e-12)


@pytest.mark.slow
def test_gate_false_alarm_rate_within_alpha_when_only_the_judges_bias_differs() -> None:
    # equal human-label means, the judge biased +5 for one system and -5 for the other:
    # the judge-only paired t alarms almost always; the PPI++ gate at most alpha within
    # Monte Carlo error (500 replications; 300 examples, 8% labelled, ~24 labels per pair;
    # benchmarks/calibrate_ppi_gate.py runs 10-100 labels at 20,000 replications)
    rng = np.random.default_rng(2031)
    reps, e, alpha = 500, 300, 0.05
    options = TestOptions(alpha=alpha)
    alarms = judge_alarms = refused = 0
    for _ in range(reps):
        h = 60 + rng.normal(0, 20, (2, e))
        j = h + np.array([5.0, -5.0])[:, None] + rng.normal(0, 8, (2, e))
        lab = np.broadcast_to(rng.random(e) < 0.08, (2, e))
        wide = pd.DataFrame({"benchmark": "b", "system": np.repeat(["s0", "s1"], e),
                             "example_id": np.tile([f"e{k}" for k in range(e)], 2),
                             "judge_score": j.ravel(),
                             "human_score": np.where(lab, h, np.nan).ravel()})
        try:
            board: JudgeBoard | str = judge_board(long_of(wide), judge="judge_score",
                                                  human="human_score", options=options)
        except JudgeContractError as exc:  # random labels refused at p < 0.001 by chance
            board = str(exc)
        gate = judge_gate(board, baseline="s0", candidate="s1", benchmark="b",
                          judge="judge_score", human="human_score", options=options)
        refused += gate.exit_code == 2
        alarms += gate.test is not None and gate.test.pvalue < alpha
        f = gate.figures
        judge_alarms += f is not None and not f.judge_low <= 0 <= f.judge_high
    mc = 2 * np.sqrt(alpha * (1 - alpha) / reps)
    print(f"false alarms: PPI++ gate {alarms / reps:.3f}, judge only {judge_alarms / reps:.3f}, "
          f"refused {refused}")
    assert alarms / reps <= alpha + mc, alarms / reps
    assert judge_alarms / reps > 0.9 and refused <= 0.02 * reps


# --------------------------------------------------------------------------- Overall (#31)


@pytest.mark.slow
def test_overall_ranks_a_judge_benchmark_by_its_ppi_estimates(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from engine import overall

    frame = long_of(judge_frame(4))
    board = judge_board(frame, judge="judge_score", human="human_score")
    res = overall(frame, metrics=["judge_score"], judges={"b": board})
    cells = res.cells.set_index("system")
    ref = board.table.set_index("system")
    for s in ref.index:
        assert tuple(cells.loc[s, ["mean", "ci_low", "ci_high"]]) == tuple(
            ref.loc[s, ["ppi_mean", "ppi_low", "ppi_high"]])
    assert list(res.table["system"]) == list(board.table["system"])  # the Leaderboard's order
    assert any("corrected with" in n and "PPI++" in n for n in res.notes)
    # one benchmark: each overall pair's p-value is that benchmark's (the PPI++ pair's)
    pairs = board.pairs.table.set_index(["system_a", "system_b"])
    for row in res.pairs.itertuples():
        key = (row.system_a, row.system_b)
        p = pairs.loc[key, "pvalue"] if key in pairs.index else pairs.loc[key[::-1], "pvalue"]
        assert row.pvalue == pytest.approx(p, rel=1e-9)
    judge_only = overall(frame, metrics=["judge_score"])
    assert list(judge_only.table["system"]) != list(res.table["system"])  # the bias reorders
    path = tmp_path / "judged.csv"
    judge_frame(4).to_csv(path, index=False)
    code, out = _run(capsys, "overall", str(path), "--metrics", "judge_score")
    assert code == 0 and [s["system"] for s in out["systems"]] == list(board.table["system"])
    shown = {s["system"]: s["cells"]["b"]["mean"] for s in out["systems"]}
    assert shown == pytest.approx(dict(zip(ref.index, ref["ppi_mean"], strict=True)), abs=1e-12)
    assert any("PPI++" in n for n in out["notes"])


def test_report_with_gate_puts_the_verdict_under_the_title() -> None:
    from engine import compare_ab
    from engine.app_support import report_with_gate

    frame = long_of(_biased_for_the_worse())
    _, gate = _gate(frame, "s0", "s1")
    ab = compare_ab(frame, baseline="s0", candidate="s1", metric="judge_score")
    html = report_with_gate(compare_report(ab, fmt="html"), gate, "html")
    title_end = html.index("</h1>")
    assert html.index("Gate verdict", title_end) == title_end + len('</h1><p class="verdict none">')
    assert "candidate is significantly worse" in html
    md = report_with_gate(compare_report(ab, fmt="markdown"), gate, "markdown").splitlines()
    assert md[0].startswith("# A/B comparison") and md[2].startswith("**Gate verdict")
    assert report_with_gate("<h1>x</h1>", None, "html") == "<h1>x</h1>"


def test_judged_parts_pairs_are_the_boards_rows_for_the_pairs_tab() -> None:
    from engine.app_support import benchmark_part, judged_part

    frame = long_of(judge_frame(4))
    board = judge_board(frame, judge="judge_score", human="human_score")
    part = judged_part(benchmark_part(frame, "b", metrics=["judge_score"]), board)
    assert part.pairwise is not None
    rows = board.pairs.table.set_index(["system_a", "system_b"])
    for r in part.pairwise.table.itertuples():
        turn = 1.0 if (r.system_a, r.system_b) in rows.index else -1.0
        ref = rows.loc[(r.system_a, r.system_b) if turn > 0 else (r.system_b, r.system_a)]
        assert (r.test, r.pvalue, r.pvalue_adj, r.significant) == (
            "ppi++", ref["pvalue"], ref["p_adjusted"], ref["significant"])
        assert r.difference == turn * ref["estimate"] and r.n == ref["n_both"]
        assert r.a_better == (ref["significant"] and turn * ref["estimate"] > 0)
    tests = part.tests.set_index(["system_a", "system_b"])  # the combination's input agrees
    for r in part.pairwise.table.itertuples():
        key = (r.system_a, r.system_b)
        assert tests.loc[key if key in tests.index else key[::-1], "pvalue"] == r.pvalue


@pytest.mark.slow
def test_cli_pairwise_on_a_judge_metric_gives_the_ppi_rows_of_leaderboard_and_gate(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # #31: `pairwise --judge J` (or a human_* metric beside it) = leaderboard --judge's pairs
    # = the compare gate's difference and p-value; `--human -` keeps the judge's own tests
    path = tmp_path / "judged.csv"
    long_of(judge_frame(5, systems=3, share=0.2)).to_csv(path, index=False)
    _, board = _run(capsys, "leaderboard", str(path), "--judge", "judge_score", "--human",
                    "human_score")
    _, flagged = _run(capsys, "pairwise", str(path), "--judge", "judge_score", "--human",
                      "human_score")
    _, found = _run(capsys, "pairwise", str(path), "--metric", "judge_score")
    _, own = _run(capsys, "pairwise", str(path), "--metric", "judge_score", "--human", "-")
    assert flagged["test"] == "ppi++" and flagged["judge"]["human_metric"] == "human_score"
    assert flagged["pairs"] == found["pairs"]
    assert own["judge"] is None and own["test"] != "ppi++"
    assert [p["difference"] for p in own["pairs"]] != pytest.approx(
        [p["difference"] for p in flagged["pairs"]])
    rows = {(r["system_a"], r["system_b"]): r for r in board["pairs"]}
    for p in flagged["pairs"]:
        turn = 1.0 if (p["system_a"], p["system_b"]) in rows else -1.0
        ref = rows[(p["system_a"], p["system_b"]) if turn > 0 else (p["system_b"], p["system_a"])]
        assert (p["test"], p["pvalue"], p["pvalue_adj"], p["n"]) == (
            "ppi++", ref["pvalue"], ref["p_adjusted"], ref["n_both"])
        assert p["difference"] == pytest.approx(turn * ref["estimate"], abs=1e-12)
        assert (p["ci_low"], p["ci_high"]) == pytest.approx(
            sorted((turn * ref["low"], turn * ref["high"])), abs=1e-12)
        _, gate = _run(capsys, "compare", str(path), "--judge", "judge_score", "--human",
                       "human_score", "--baseline", p["system_b"], "--candidate", p["system_a"])
        assert gate["difference"] == pytest.approx(p["difference"], abs=1e-12)
        assert gate["judge_gate"]["pvalue"] == pytest.approx(p["pvalue"], abs=1e-12)

