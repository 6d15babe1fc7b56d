"""Calibration of PPI++ for judge metrics: coverage, widths, pairwise FWER, planner.

Simulated judges whose bias differs by system (up to 5 points on a 0-100 scale) score every
example; humans label a random 5-20% of the examples (the same examples for every system).
Per label share, over R replications (all systems and replications at once for the means):

* coverage of the human-label mean by the PPI++ 95% intervals (target >= 0.94), and by the
  judge-only intervals (which miss: the judge's bias is not the humans' mean);
* mean width of PPI++ against the human labels alone (lambda = 0);
* family-wise error of the PPI++ pairwise tests (holm-sidak) when every system has the same
  human-label mean (target <= 0.05), beside the judge-only paired z tests;
* the budget planner's predicted width (closed form) against the simulated mean width;
* with known inclusion probabilities (more labels where the judge is noisier, 5% expected on
  average), the weighted planner scaling that design to 5 / 10 / 20% expected labels: its
  width predicted from one observed sample at the 5% design, and from the whole population,
  against the mean width of the weighted PPI++ intervals at the scaled design;
* pairwise judge preferences (Boyeau et al. 2024): 6 models x 5,000 battles, the judge's
  verdict the human one 60% of the time and otherwise drawn from Bradley-Terry ratings biased
  by up to 0.6 logits per model, human verdicts on a random 5-20%: coverage of the human
  Bradley-Terry ratings by the PPI++ intervals (target >= 0.94), judge-only and human-only
  coverage, and PPI++ width against the human verdicts alone.

Run: ``.venv/bin/python benchmarks/calibrate_ppi.py [--reps 500] [--examples 1000]``.

Measured (1,000 replications, seed 31, 6 systems x 1,000 examples; share 0.05 / 0.10 / 0.20):
PPI++ coverage 0.951 / 0.951 / 0.952, judge-only 0.193 / 0.192 / 0.194; PPI++ width 0.53 /
0.55 / 0.61 of the human-only width; pairwise FWER 0.040 / 0.034 / 0.035 (judge-only 1.000);
planner width / simulated 0.978 / 0.991 / 1.000 (re-run after the board's t took labels - 2
df and the n / (n - 2) variance factor; before: coverage 0.946 / 0.948 / 0.951, width
0.52 / 0.54 / 0.61, FWER 0.048 / 0.036 / 0.039). With normal quantiles (ppi_py's) instead of t,
at 5% labels: coverage 0.936 and FWER 0.067 (1,500 replications) — hence t on the board.
Weighted planner and pairwise judge (`--reps 500`, seed 31, the whole script in one run):
the 5% design scaled to 5 / 10 / 20% (50.0 / 99.4 / 199.5 labels): planned-from-a-sample
width / simulated 1.004 / 0.991 / 0.990, from the whole population 1.029 / 1.011 / 1.004;
re-run after the weighted intervals and planner took m - 2 df and the m / (m - 2) variance
factor (m the effective labels; load ~1.5): 1.004 / 0.990 / 0.990 and 1.031 / 1.012 /
1.004 (the same 50.0 / 99.4 / 199.5 labels; this design's m is large, so the factor is small;
the sharper test of it: benchmarks/calibrate_ppi_gate.py --weighted-only).
Pairwise judge (6 models x 5,000 battles, 5 / 10 / 20% human verdicts): PPI++ coverage of
the human Bradley-Terry ratings 0.951 / 0.946 / 0.947, judge-only 0.271 / 0.268 / 0.273,
human-only 0.954 / 0.950 / 0.951; PPI++ width 0.80 / 0.82 / 0.85 of the human-only width.
"""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd
from scipy import stats
from scipy.special import expit

from engine.products._judge import predicted_width
from engine.products._judge_battles import POINTS, judge_battle_board
from engine.stats._ppi import ppi_means, ppi_pairs
from engine.stats._ppi_ipw import ppi_ipw_means
from engine.stats._ppi_ipw_plan import ipw_design, ipw_plan, population_design

SD_HUMAN, SD_NOISE = 20.0, 10.0
BIAS = np.array([5.0, -5.0, 2.0, 0.0, -3.0, 4.0])


def simulate(rng: np.random.Generator, reps: int, examples: int, share: float,
             means: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    s = len(means)
    h = means[None, :, None] + SD_HUMAN * rng.standard_normal((reps, s, examples))
    j = h + BIAS[None, :s, None] + SD_NOISE * rng.standard_normal((reps, s, examples))
    lab = np.broadcast_to((rng.random((reps, 1, examples)) < share), h.shape)
    return j, np.where(lab, h, np.nan)


def means_block(rng: np.random.Generator, reps: int, examples: int, share: float) -> dict:
    means = np.linspace(55, 70, len(BIAS))
    j, h = simulate(rng, reps, examples, share, means)
    r, s, e = j.shape
    ppi = ppi_means(j.reshape(r * s, e), h.reshape(r * s, e), alpha=0.05,
                    small_sample=True)  # as the judge leaderboard
    truth = np.tile(means, r)
    cover = (ppi.low <= truth) & (truth <= ppi.high)
    z = stats.norm.ppf(0.975)
    jm, jse = j.mean(2).ravel(), j.std(2, ddof=1).ravel() / np.sqrt(e)
    judge_cover = np.abs(jm - truth) <= z * jse
    hl = h.reshape(r * s, e)
    n = np.isfinite(hl).sum(1)
    human_width = 2 * z * np.nanstd(hl, axis=1) / np.sqrt(n)
    rho = SD_HUMAN / np.hypot(SD_HUMAN, SD_NOISE)
    pred = predicted_width(n, e, sd_human=SD_HUMAN, sd_judge=np.hypot(SD_HUMAN, SD_NOISE),
                           rho=rho)
    return {"coverage": cover.mean(), "judge_coverage": judge_cover.mean(),
            "ppi_width": np.mean(ppi.high - ppi.low), "human_width": human_width.mean(),
            "predicted_width": np.mean(pred), "n_human": n.mean()}


def fwer_block(rng: np.random.Generator, reps: int, examples: int, share: float) -> dict:
    means = np.full(len(BIAS), 62.0)  # the null: equal human-label means, unequal judge biases
    j, h = simulate(rng, reps, examples, share, means)
    names = tuple(f"s{i}" for i in range(len(BIAS)))
    any_ppi = np.zeros(reps, dtype=bool)
    any_judge = np.zeros(reps, dtype=bool)
    a, b = np.triu_indices(len(names), k=1)
    for k in range(reps):  # every pair of one replication from matrix products
        any_ppi[k] = ppi_pairs(j[k], h[k], names, small_sample=True).table[
            "significant"].any()
        d = j[k][a] - j[k][b]
        zs = d.mean(1) / (d.std(1, ddof=1) / np.sqrt(examples))
        p = 2 * stats.norm.sf(np.abs(zs))
        any_judge[k] = (p < 1 - (1 - 0.05) ** (1 / len(a))).any()  # Sidak over the pairs
    return {"fwer": any_ppi.mean(), "judge_fwer": any_judge.mean()}


def ipw_planner_block(rng: np.random.Generator, reps: int, examples: int, share: float,
                      base: float = 0.05) -> dict[str, float]:
    """Weighted planner: per replication a fresh population (judge noise differing by
    example, labels drawn with probability proportional to it), one observed labelling at
    the ``base`` design to plan from, and one labelling at the design scaled to ``share``."""
    noise = SD_NOISE * rng.uniform(0.3, 1.7, (reps, examples))
    y = 62.0 + SD_HUMAN * rng.standard_normal((reps, examples))
    f = y + BIAS[0] + noise * rng.standard_normal((reps, examples))
    pi = np.minimum(1.0, base * noise / noise.mean(1, keepdims=True))
    scale = share / base
    observed = rng.random(pi.shape) < pi
    planned = np.array([ipw_plan(ipw_design(f[k], np.where(observed[k], y[k], np.nan), pi[k]),
                                 scale)["width"] for k in range(reps)])
    exact = np.array([ipw_plan(population_design(f[k], y[k], pi[k]), scale)["width"]
                      for k in range(reps)])
    q = np.minimum(1.0, scale * pi)
    drawn = rng.random(q.shape) < q
    sim = ppi_ipw_means(f, np.where(drawn, y, np.nan), q, small_sample=True)
    width = float(np.nanmean(sim.high - sim.low))
    return {"labels": drawn.sum(1).mean(), "planned": planned.mean(), "exact": exact.mean(),
            "simulated": width}


BT_THETA = np.linspace(-1.0, 1.0, 6)
BT_BIAS = np.array([0.6, -0.6, 0.3, 0.0, -0.3, 0.5])


def simulate_battles(rng: np.random.Generator, battles: int, share: float,
                     agree: float = 0.6) -> pd.DataFrame:
    """Random pairs; human verdicts from Bradley-Terry BT_THETA; the judge's the human's with
    probability ``agree``, else from the ratings biased by BT_BIAS; a random ``share``
    labelled by humans (``judge_y``/``human_y`` as engine.io._battles_judged gives them)."""
    s = len(BT_THETA)
    a = rng.integers(0, s, battles)
    b = (a + rng.integers(1, s, battles)) % s
    human = rng.random(battles) < expit(BT_THETA[a] - BT_THETA[b])
    biased = rng.random(battles) < expit(BT_THETA[a] + BT_BIAS[a] - BT_THETA[b] - BT_BIAS[b])
    judge = np.where(rng.random(battles) < agree, human, biased)
    names = np.array([f"m{k}" for k in range(s)])
    labelled = rng.random(battles) < share
    return pd.DataFrame({"model_a": names[a], "model_b": names[b],
                         "judge_y": judge.astype(float),
                         "human_y": np.where(labelled, human.astype(float), np.nan)})


def bt_block(rng: np.random.Generator, reps: int, battles: int, share: float) -> dict[str, float]:
    truth = 1000.0 + POINTS * (BT_THETA - BT_THETA.mean())  # models m0..m5, sorted names
    cover = {"ppi": 0.0, "judge": 0.0, "human": 0.0}
    widths = {"ppi": 0.0, "human": 0.0}
    for _ in range(reps):
        t = judge_battle_board(simulate_battles(rng, battles, share)).table
        t = t.set_index("system").sort_index()
        for k in cover:
            low, high = t[f"{k}_low"].to_numpy(), t[f"{k}_high"].to_numpy()
            cover[k] += float(np.mean((low <= truth) & (truth <= high))) / reps
        for k in widths:
            widths[k] += float(np.mean(t[f"{k}_high"] - t[f"{k}_low"])) / reps
    return {**{f"cover_{k}": v for k, v in cover.items()},
            "width_ratio": widths["ppi"] / widths["human"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=500)
    parser.add_argument("--examples", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=31)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    print(f"{len(BIAS)} systems x {args.examples} examples, judge bias {BIAS.tolist()} points, "
          f"{args.reps} replications, alpha 0.05")
    print("share  n_human  cover_ppi  cover_judge  width_ppi  width_human  ratio  "
          "width_pred  pred/sim  fwer_ppi  fwer_judge")
    for share in (0.05, 0.10, 0.20):
        m = means_block(rng, args.reps, args.examples, share)
        f = fwer_block(rng, args.reps, args.examples, share)
        print(f"{share:5.2f}  {m['n_human']:7.1f}  {m['coverage']:9.3f}  "
              f"{m['judge_coverage']:11.3f}  {m['ppi_width']:9.2f}  {m['human_width']:11.2f}  "
              f"{m['ppi_width'] / m['human_width']:5.2f}  {m['predicted_width']:10.2f}  "
              f"{m['predicted_width'] / m['ppi_width']:8.3f}  {f['fwer']:8.3f}  "
              f"{f['judge_fwer']:10.3f}")
    print("\nknown inclusion probabilities (5% design scaled): share  labels  width_sim  "
          "planned/sim  exact/sim")
    for share in (0.05, 0.10, 0.20):
        w = ipw_planner_block(rng, args.reps, args.examples, share)
        print(f"{share:5.2f}  {w['labels']:6.1f}  {w['simulated']:9.3f}  "
              f"{w['planned'] / w['simulated']:11.3f}  {w['exact'] / w['simulated']:9.3f}")
    print("\npairwise judge, 6 models x 5,000 battles: share  cover_ppi  cover_judge  "
          "cover_human  width_ppi/human")
    for share in (0.05, 0.10, 0.20):
        bt = bt_block(rng, args.reps, 5000, share)
        print(f"{share:5.2f}  {bt['cover_ppi']:9.3f}  {bt['cover_judge']:11.3f}  "
              f"{bt['cover_human']:11.3f}  {bt['width_ratio']:15.2f}")


if __name__ == "__main__":
    main()
