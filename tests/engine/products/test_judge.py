"""The judge leaderboard (#31): contract, refusals, product, planner, CLI and store link."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from engine import JudgeContractError, TestOptions, judge_board, read_results
from engine.app_support import budget_check, judge_pair_figures, label_budget, label_preview
from engine.cli import main
from engine.io._judge import check_random_labels, judge_pair
from engine.products._judge import predicted_width, simulate_ppi_width
from engine.stats._ppi import ppi_mean, ppi_means, ppi_pairs


def judge_frame(seed: int = 0, *, systems: int = 4, examples: int = 400, share: float = 0.15,
                bias: tuple[float, ...] = (5.0, 0.0, -3.0, 2.0)) -> pd.DataFrame:
    """Long table: judge_score on every example, human_score on a random share (per example);
    the judge's bias differs by system (up to 5 points on a 0-100 scale)."""
    rng = np.random.default_rng(seed)
    mu = np.linspace(60, 70, systems)
    h = mu[:, None] + rng.normal(0, 20, (systems, examples))
    j = h + np.asarray(bias[:systems])[:, None] + rng.normal(0, 8, (systems, examples))
    lab = np.broadcast_to(rng.random(examples) < share, (systems, examples))
    sys_ = np.repeat([f"s{i}" for i in range(systems)], examples)
    ex = np.tile([f"e{k}" for k in range(examples)], systems)
    wide = pd.DataFrame({"benchmark": "b", "system": sys_, "example_id": ex,
                         "judge_score": j.ravel(), "human_score": np.where(lab, h, np.nan).ravel()})
    return wide


def long_of(wide: pd.DataFrame) -> pd.DataFrame:
    out = wide.melt(id_vars=["benchmark", "system", "example_id"], var_name="metric",
                    value_name="value")
    return out.dropna(subset=["value"]).reset_index(drop=True)


def test_board_figures_equal_ppi_mean_on_each_system() -> None:
    frame = long_of(judge_frame())
    board = judge_board(frame, judge="judge_score", human="human_score",
                        options=TestOptions(alpha=0.1))
    wide = judge_frame()
    for row in board.table.itertuples():
        part = wide[wide["system"] == row.system]
        lab = part["human_score"].notna()
        ref = ppi_mean(part.loc[lab, "human_score"], part.loc[lab, "judge_score"],
                       part.loc[~lab, "judge_score"], alpha=0.1, small_sample=True)
        assert (row.ppi_mean, row.ppi_low, row.ppi_high) == pytest.approx(
            (ref.estimate, ref.low, ref.high), abs=1e-10)
        assert row.n_human == lab.sum()
        assert row.judge_mean == pytest.approx(part["judge_score"].mean())
        assert row.human_mean == pytest.approx(part.loc[lab, "human_score"].mean())
    assert list(board.table["ppi_mean"]) == sorted(board.table["ppi_mean"], reverse=True)
    assert board.agreement["bias_differs"] is True  # biases 5, 0, -3, 2 with ~60 labels each
    assert len(board.pairs.table) == 6 and board.calibration["n"].sum() == board.table["n_human"].sum()


def test_only_one_system_labelled_is_refused() -> None:
    wide = judge_frame()
    wide.loc[wide["system"] != "s0", "human_score"] = np.nan
    with pytest.raises(JudgeContractError, match="only 's0' has human labels"):
        judge_board(long_of(wide), judge="judge_score", human="human_score")


def test_labels_only_on_the_first_examples_are_refused() -> None:
    wide = judge_frame(share=1.0)
    first = wide["example_id"].str[1:].astype(int) < 60
    wide.loc[~first, "human_score"] = np.nan
    with pytest.raises(JudgeContractError, match="sit at the start of the data"):
        judge_board(long_of(wide), judge="judge_score", human="human_score")


def test_label_rate_differing_by_system_is_refused() -> None:
    wide = judge_frame(share=1.0)
    rng = np.random.default_rng(1)
    keep = np.where(wide["system"] == "s0", rng.random(len(wide)) < 0.5, rng.random(len(wide)) < 0.05)
    wide.loc[~keep, "human_score"] = np.nan
    with pytest.raises(JudgeContractError, match="share labelled differs between systems"):
        judge_board(long_of(wide), judge="judge_score", human="human_score")


@pytest.mark.slow
def test_random_labels_pass_the_checks_at_the_refusal_level() -> None:
    # 20 random labellings: refusals only at the 0.001 level by chance
    refused = 0
    for seed in range(20):
        pair = judge_pair(long_of(judge_frame(seed)), judge="judge_score", human="human_score")
        try:
            check_random_labels(pair)
        except JudgeContractError:
            refused += 1
    assert refused == 0


def test_unknown_metric_is_named() -> None:
    with pytest.raises(JudgeContractError, match="--human: no metric 'human'"):
        judge_board(long_of(judge_frame()), judge="judge_score", human="human")


def test_wide_file_reads_a_partial_human_column(tmp_path: Path) -> None:
    path = tmp_path / "judged.csv"
    judge_frame().to_csv(path, index=False)
    frame = read_results(path)
    wide = judge_frame()
    assert (frame["metric"] == "human_score").sum() == wide["human_score"].notna().sum()
    bad = tmp_path / "bad.csv"
    wide.assign(judge_score=wide["judge_score"].where(wide.index != 3)).to_csv(bad, index=False)
    with pytest.raises(Exception, match="judge_score.*value is missing"):
        read_results(bad)  # other metrics still may not have empty cells


def test_planner_width_within_10_percent_of_simulated() -> None:
    rng = np.random.default_rng(2)
    for n, total, rho, sd_j in ((40, 400, 0.9, 20.0), (60, 400, 0.8, 22.0), (100, 1000, 0.5, 15.0),
                                (200, 1000, 0.7, 5.0)):
        sim = simulate_ppi_width(n, total, sd_human=20.0, sd_judge=sd_j, rho=rho, reps=2000,
                                 rng=rng)
        pred = float(predicted_width(n, total, sd_human=20.0, sd_judge=sd_j, rho=rho))
        assert abs(pred / sim - 1) < 0.10


def test_budget_labels_reach_the_target_width() -> None:
    board = judge_board(long_of(judge_frame()), judge="judge_score", human="human_score")
    budget = label_budget(board, target_width=6.0)
    assert budget.table["reachable"].all()
    pair = budget.table.iloc[0]
    sd, rho = float(pair["sd_human"]), float(pair["rho"])
    assert rho > 0.8
    width = predicted_width(int(pair["labels_needed"]), int(pair["n_judge"]), sd_human=sd,
                            sd_judge=sd, rho=rho)
    assert width < 6.5  # about the target (the judge's SD differs a little from the human's)
    power = label_budget(board, delta=5.0)
    assert (power.table["labels_needed"] >= 2).all() and "hardest_pair" in power.table


def _cli_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    assert main(list(argv)) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.slow
def test_cli_leaderboard_judge_and_store_link(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "judged.csv"
    judge_frame().to_csv(path, index=False)
    out = _cli_json(capsys, "leaderboard", str(path), "--judge", "judge_score", "--human",
                    "human_score", "--format", "json")
    assert {"ppi_mean", "ppi_low", "ppi_high", "n_human", "judge_mean", "human_mean"} <= set(
        out["systems"][0])
    board = judge_board(read_results(path), judge="judge_score", human="human_score")
    assert [s["ppi_mean"] for s in out["systems"]] == pytest.approx(list(board.table["ppi_mean"]))
    url = f"sqlite:///{tmp_path / 'store.db'}"
    assert main(["import", str(path), "--db", url]) == 0
    assert main(["judge-link", url, "--benchmark", "b", "--judge", "judge_score",
                 "--human", "human_score"]) == 0
    capsys.readouterr()
    linked = _cli_json(capsys, "leaderboard", url, "--judge", "judge_score", "--format", "json")
    assert [s["ppi_mean"] for s in linked["systems"]] == pytest.approx(
        [s["ppi_mean"] for s in out["systems"]], abs=1e-12)
    assert [s["n_human"] for s in linked["systems"]] == [s["n_human"] for s in out["systems"]]
    budget = _cli_json(capsys, "ppi-budget", str(path), "--judge", "judge_score", "--human",
                       "human_score", "--width", "6", "--format", "json")
    assert len(budget["systems"]) == 4


def only_s0_labelled_csv(tmp_path: Path) -> Path:
    """A wide csv of judge_frame() where only s0 has human labels (refused, exit 2)."""
    wide = judge_frame()
    wide.loc[wide["system"] != "s0", "human_score"] = np.nan
    path = tmp_path / "one.csv"
    wide.to_csv(path, index=False)
    return path


@pytest.mark.slow
def test_cli_refusal_exits_2_with_one_line(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    path = only_s0_labelled_csv(tmp_path)
    assert main(["leaderboard", str(path), "--judge", "judge_score", "--human",
                 "human_score"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "only 's0' has human labels" in err[0]


@pytest.mark.slow
def test_calibration_coverage_and_pairwise_fwer() -> None:
    # judges biased by up to 5 points differently per system, 10% of examples labelled,
    # 500 replications (benchmarks/calibrate_ppi.py reports 5-20% at 1,000)
    rng = np.random.default_rng(31)
    reps, s, e = 500, 6, 1000
    bias = np.array([5.0, -5.0, 2.0, 0.0, -3.0, 4.0])
    means = np.linspace(55, 70, s)
    h = means[None, :, None] + 20 * rng.standard_normal((reps, s, e))
    j = h + bias[None, :, None] + 10 * rng.standard_normal((reps, s, e))
    h = np.where(np.broadcast_to(rng.random((reps, 1, e)) < 0.1, h.shape), h, np.nan)
    res = ppi_means(j.reshape(-1, e), h.reshape(-1, e), small_sample=True)
    truth = np.tile(means, reps)
    assert np.mean((res.low <= truth) & (truth <= res.high)) >= 0.94
    judge_se = j.std(2, ddof=1).ravel() / np.sqrt(e)
    assert np.mean(np.abs(j.mean(2).ravel() - truth) <= 1.96 * judge_se) < 0.5
    null = h - means[None, :, None] + 62.0  # equal human-label means, unequal judge biases
    jn = j - means[None, :, None] + 62.0
    names = tuple(f"s{i}" for i in range(s))
    fwer = np.mean([ppi_pairs(jn[k], null[k], names, small_sample=True).table["significant"].any()
                    for k in range(reps)])
    assert fwer <= 0.05 + 2 * np.sqrt(0.05 * 0.95 / reps)  # within Monte Carlo error


# --------------------------------------------------------------------------- one pair (#31 item 3)


def test_pair_figures_are_the_boards_row_in_either_order() -> None:
    board = judge_board(long_of(judge_frame(2)), judge="judge_score", human="human_score")
    forward = board.pairs.table.iloc[0]
    a, b = forward["system_a"], forward["system_b"]
    ab, ba = judge_pair_figures(board, a, b), judge_pair_figures(board, b, a)
    assert (ab.estimate, ab.low, ab.high, ab.pvalue) == (
        forward["estimate"], forward["low"], forward["high"], forward["pvalue"])
    assert (ba.estimate, ba.low, ba.high) == (-ab.estimate, -ab.high, -ab.low)
    assert (ba.pvalue, ba.p_adjusted, ba.n_both) == (ab.pvalue, ab.p_adjusted, ab.n_both)
    assert ba.judge_estimate == pytest.approx(-ab.judge_estimate)


def test_judge_only_and_human_only_are_paired_t_intervals() -> None:
    wide = judge_frame(3)
    board = judge_board(long_of(wide), judge="judge_score", human="human_score",
                        options=TestOptions(alpha=0.1))
    f = judge_pair_figures(board, "s0", "s2")
    s0, s2 = (wide[wide["system"] == s].set_index("example_id") for s in ("s0", "s2"))
    d_judge = (s0["judge_score"] - s2["judge_score"]).to_numpy()
    d_human = (s0["human_score"] - s2["human_score"]).dropna().to_numpy()
    for d, (est, low, high) in ((d_judge, (f.judge_estimate, f.judge_low, f.judge_high)),
                                (d_human, (f.human_estimate, f.human_low, f.human_high))):
        ci = stats.ttest_1samp(d, 0.0).confidence_interval(0.9)  # scipy's paired t interval
        assert (est, low, high) == pytest.approx((d.mean(), ci.low, ci.high), rel=1e-12)
    assert (f.n_judge, f.n_both) == (d_judge.size, d_human.size)
    # the PPI++ difference is ppi_mean of the paired differences (labelled for both)
    lab = (s0["human_score"].notna() & s2["human_score"].notna()).to_numpy()
    ref = ppi_mean(d_human, d_judge[lab], d_judge[~lab], alpha=0.1, small_sample=True)
    assert (f.estimate, f.low, f.high) == pytest.approx((ref.estimate, ref.low, ref.high),
                                                        abs=1e-10)
    se_human = np.std(d_human) / np.sqrt(d_human.size)
    assert f.effective_n == pytest.approx(d_human.size * (se_human / ref.se) ** 2)


def test_unknown_or_equal_systems_are_named() -> None:
    board = judge_board(long_of(judge_frame()), judge="judge_score", human="human_score")
    with pytest.raises(ValueError, match="'zz' is not a system"):
        judge_pair_figures(board, "s0", "zz")
    with pytest.raises(ValueError, match="must differ"):
        judge_pair_figures(board, "s0", "s0")


# --------------------------------------------------------------------------- upload preview (#31 item 2)


def test_label_preview_counts_labels_per_system_and_passes_random_labels() -> None:
    wide = judge_frame(4)
    preview = label_preview(long_of(wide))
    assert preview.verdicts == (("b", "judge_score", "human_score", None),)
    expected = wide.groupby("system")["human_score"].count()
    assert dict(zip(preview.counts["system"], preview.counts["labelled"], strict=True)) == \
        expected.to_dict()
    assert (preview.counts["judged"] == 400).all()
    assert label_preview(long_of(wide.drop(columns="human_score"))).verdicts == ()


def test_label_preview_refuses_labels_on_the_first_examples_with_the_reason() -> None:
    wide = judge_frame(5)
    first = wide["example_id"].str[1:].astype(int) < 60
    wide["human_score"] = wide["human_score"].where(first, np.nan).fillna(
        wide["judge_score"].where(first))
    [(_, _, _, reason)] = label_preview(long_of(wide)).verdicts
    assert reason is not None and "start of the data" in reason and "Fix:" in reason


def test_label_preview_follows_a_declared_link() -> None:
    wide = judge_frame(6).rename(columns={"human_score": "rater"})
    long = long_of(wide)
    assert label_preview(long).verdicts == ()
    preview = label_preview(long, links={("b", "judge_score"): "rater"})
    assert preview.verdicts == (("b", "judge_score", "rater", None),)


def test_budget_check_predicted_width_within_10_percent_of_simulated() -> None:
    # #31 acceptance: the planner's predicted width within 10% of the simulated width
    board = judge_board(long_of(judge_frame(7)), judge="judge_score", human="human_score")
    plan = label_budget(board, target_width=8.0)
    check = budget_check(plan, reps=500, seed=1)
    assert list(check["system"]) == list(plan.table["system"])
    assert check["labels_needed"].tolist() == plan.table["labels_needed"].tolist()
    assert ((check["ratio"] - 1).abs() < 0.1).all(), check
    with pytest.raises(ValueError, match="target width"):
        budget_check(label_budget(board, delta=5.0))
