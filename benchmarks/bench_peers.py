"""sigboard against the tools a user would pick instead, interleaved in one run.

Each row computes one result with sigboard and with a peer (evalica, choix, pingouin,
autorank, scikit-posthocs, statsmodels' MixedLM; installed from requirements-bench.txt),
checks that the outputs agree, then times both, alternating, for ``--rounds`` rounds
with BLAS on one thread on both sides, and prints the median CPU times and the ratio
peer / sigboard (> 1: sigboard is faster). Every timed call starts from the same input
(integer-coded battles, a win matrix, or a scores matrix); a sigboard call includes
its validation. The first call of each side is a warm-up (imports, Numba's cache load)
and is not timed; ``--cold`` reports it too.

The peers go into their own venv, never the project's (requirements-bench.txt ships a
top-level ``tests`` package)::

    python3 -m venv /tmp/benchvenv
    /tmp/benchvenv/bin/pip install -r requirements-bench.txt -e .
    /tmp/benchvenv/bin/python benchmarks/bench_peers.py [--rounds 5] [--quick] [--only TEXT]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import statistics
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from _table import Table, cpu_call
from threadpoolctl import threadpool_limits  # type: ignore[import-untyped]


@dataclass
class Row:
    name: str
    ours: Callable[[], Any]
    peer_name: str
    peer: Callable[[], Any]
    check: Callable[[Any, Any], str]  # "" when equal, else what differs


# ------------------------------------------------------------------ data


def _battles(s: int, n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """n battles among s systems of Bradley–Terry strengths: a, b, score (1, 0.5, 0)."""
    rng = np.random.default_rng(seed)
    theta = rng.normal(0, 1, s)
    a = rng.integers(0, s, n)
    b = (a + rng.integers(1, s, n)) % s
    p = 1 / (1 + np.exp(theta[b] - theta[a]))
    u = rng.random(n)
    score = np.where(u < p * 0.9, 1.0, np.where(u > 1 - (1 - p) * 0.9, 0.0, 0.5))
    return a.astype(np.intp), b.astype(np.intp), score


def _win_matrix(a: np.ndarray, b: np.ndarray, score: np.ndarray, s: int) -> np.ndarray:
    """Credit matrix (ties as half a win each way) from battles."""
    flat = np.bincount(a * s + b, weights=score, minlength=s * s) + \
        np.bincount(b * s + a, weights=1.0 - score, minlength=s * s)
    return flat.reshape(s, s)


def _scores(s: int, e: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.normal(0, 0.3, (s, 1)) + rng.normal(0, 1, (1, e)) + rng.normal(0, 1, (s, e))


# ------------------------------------------------------------------ rows


def _centred_log(v: np.ndarray) -> np.ndarray:
    lg = np.log(np.asarray(v, dtype=float))
    return lg - lg.mean()


def _close(name: str, got: np.ndarray, want: np.ndarray, atol: float) -> str:
    gap = float(np.max(np.abs(np.asarray(got) - np.asarray(want))))
    return "" if gap <= atol else f"{name}: max difference {gap:.3g} > {atol:g}"


def _elo_rows(n: int) -> list[Row]:
    import evalica

    from engine.ranking._sequential import Battles, sequential_elo

    s = 100
    a, b, score = _battles(s, n)
    battles = Battles(a, b, score, s, "draw")
    order = np.arange(n)[None]
    outcome = {1.0: evalica.Winner.X, 0.0: evalica.Winner.Y, 0.5: evalica.Winner.Draw}
    winners = [outcome[v] for v in score.tolist()]  # evalica's input type, built untimed
    index = pd.Index(range(s))

    def ours() -> np.ndarray:
        return sequential_elo(battles, k=4.0, orders=order).rating

    def peer() -> np.ndarray:
        return evalica.elo(a, b, winners, index=index, k=4.0, initial=1000.0,
                           scale=400.0, base=10.0).scores.sort_index().to_numpy()

    return [Row(f"Elo, one order, {n:,} battles, {s} systems", ours, "evalica", peer,
                lambda o, p: _close("ratings", o, p, 1e-6))]


def _bt_rows(s: int, n: int, label: str = "") -> list[Row]:
    import choix
    import evalica

    from engine.ranking._bradley_terry import bradley_terry

    a, b, score = _battles(s, n, seed=s)
    wins = _win_matrix(a, b, score, s)
    total = wins + wins.T
    # evalica on the same counts: one weighted row per ordered pair with credit
    i, j = np.nonzero(wins)
    index = pd.Index(range(s))
    x_won = [evalica.Winner.X] * len(i)

    def ours() -> np.ndarray:
        return _centred_log(bradley_terry(wins, total).strength)

    def with_choix() -> np.ndarray:
        return choix.ilsr_pairwise_dense(wins, alpha=0.0, tol=1e-10)

    def with_evalica() -> np.ndarray:
        res = evalica.bradley_terry(i, j, x_won, index=index, weights=wins[i, j],
                                    tolerance=1e-10, limit=10_000)
        return _centred_log(res.scores.sort_index().to_numpy())

    name = f"Bradley–Terry, {s:,} systems, {n:,} battles{label}"
    return [Row(name, ours, "choix ILSR", with_choix,
                lambda o, p: _close("log-strengths", o, p - p.mean(), 1e-6)),
            Row(name, ours, "evalica", with_evalica,
                lambda o, p: _close("log-strengths", o, p, 1e-5))]


def _bootstrap_rows(s: int, e: int, resamples: int) -> list[Row]:
    import choix

    from engine.ranking._bt_bootstrap import _weighted_battles, bt_bootstrap

    x = _scores(s, e, seed=7)
    rng = np.random.default_rng(3)
    counts = rng.multinomial(e, np.full(e, 1.0 / e), size=resamples).astype(float)

    def ours() -> np.ndarray:
        res = bt_bootstrap(x, n_resamples=resamples, rng=np.random.default_rng(3))
        return np.vstack([res.elo_low, res.elo_high])

    def peer() -> np.ndarray:
        # the same resamples' battles (ties half a win each way), one choix fit each
        elo = np.empty((resamples, s))
        for r in range(resamples):
            wins, tied = _weighted_battles(x, counts[r:r + 1])
            theta = choix.ilsr_pairwise_dense(wins[0] + tied[0] / 2.0, alpha=0.0, tol=1e-10)
            elo[r] = 400.0 / np.log(10.0) * (theta - theta.mean()) + 1000.0
        return np.quantile(elo, [0.025, 0.975], axis=0)

    return [Row(f"BT bootstrap, {resamples} resamples, {s} × {e:,} numeric", ours,
                "choix loop", peer, lambda o, p: _close("Elo limits", o, p, 1e-4))]


def _pairwise_rows(s: int, e: int) -> list[Row]:
    import pingouin as pg

    from engine import ScoreMatrix, pairwise_tests

    x = _scores(s, e, seed=11)
    names = [f"s{i:03d}" for i in range(s)]
    long = pd.DataFrame({"system": np.repeat(names, e), "example": np.tile(np.arange(e), s),
                         "score": x.ravel()})

    def ours() -> np.ndarray:
        m = ScoreMatrix.from_array(x, systems=names)
        t = pairwise_tests(m, test="paired-t", correction="holm").table
        return t.sort_values(["system_a", "system_b"])["pvalue_adj"].to_numpy()

    def peer() -> np.ndarray:
        t = pg.pairwise_tests(data=long, dv="score", within="system", subject="example",
                              padjust="holm")
        return t.sort_values(["A", "B"])["p_corr"].to_numpy()

    return [Row(f"all-pairs paired t + Holm, {s} × {e:,}", ours, "pingouin", peer,
                lambda o, p: _close("adjusted p", o, p, 1e-9))]


def _friedman_rows(blocks: int, k: int) -> list[Row]:
    import scikit_posthocs as sp
    from autorank import autorank

    from engine import friedman

    table = pd.DataFrame(_scores(k, blocks, seed=5).T, columns=[f"s{i:02d}" for i in range(k)])

    def ours() -> tuple[float, np.ndarray]:
        res = friedman(table)
        return res.critical_difference, res.mean_ranks.reindex(table.columns).to_numpy()

    def with_autorank() -> tuple[float, np.ndarray]:
        with contextlib.redirect_stdout(io.StringIO()):  # it prints its tables
            res = autorank(table, alpha=0.05, force_mode="nonparametric", order="descending")
        return float(res.cd), res.rankdf["meanrank"].reindex(table.columns).to_numpy()

    def with_posthocs() -> np.ndarray:
        return sp.posthoc_nemenyi_friedman(table.to_numpy()).to_numpy()

    def same_ranks(o: tuple[float, np.ndarray], p: tuple[float, np.ndarray]) -> str:
        # autorank's q_alpha comes from a rounded studentized-range value: CD to 1e-4 relative
        return _close("critical difference", o[0], p[0], 1e-4 * o[0]) or \
            _close("mean ranks", np.sort(o[1]), np.sort(p[1]), 1e-9)

    def nemenyi_decisions(o: tuple[float, np.ndarray], p: np.ndarray) -> str:
        gaps = np.abs(o[1][:, None] - o[1][None, :])
        differ = (gaps > o[0]) != (p < 0.05)
        np.fill_diagonal(differ, False)
        return "" if not differ.any() else f"{int(differ.sum())} Nemenyi decisions differ"

    name = f"Friedman + Nemenyi, {blocks} blocks × {k} systems"
    return [Row(name, ours, "autorank", with_autorank, same_ranks),
            Row(name, ours, "scikit-posthocs", with_posthocs, nemenyi_decisions)]


def _ab_rows(examples: int, runs: int) -> list[Row]:
    """A/B with runs: sigboard's run-aware comparison (validation included) against
    statsmodels' MixedLM written by hand (random example intercept, REML) on the same
    long table: the MixedLM model row's estimate and standard error."""
    from statsmodels.regression.mixed_linear_model import MixedLM

    from engine import compare_ab, validate_long

    rng = np.random.default_rng(13)
    p = rng.beta(2, 2, examples)
    s, r, e = np.meshgrid(np.arange(2), np.arange(runs), np.arange(examples), indexing="ij")
    value = (rng.random(s.shape) < np.clip(p + 0.03 * s, 0, 1)).astype(float)
    long = pd.DataFrame({"benchmark": "b", "metric": "pass1",
                         "system": np.where(s.ravel() == 1, "candidate", "baseline"),
                         "example_id": [f"ex{j:05d}" for j in e.ravel()], "run": r.ravel(),
                         "value": value.ravel()})

    def ours() -> np.ndarray:
        res = compare_ab(validate_long(long), baseline="baseline", candidate="candidate")
        row = res.models.set_index("model").loc["mixedlm"]
        return np.array([row["estimate"], row["se"]])

    def peer() -> np.ndarray:
        exog = np.column_stack([np.ones(len(long)), (long["system"] == "candidate").to_numpy(float)])
        codes = pd.factorize(long["example_id"])[0]
        with contextlib.redirect_stderr(io.StringIO()):
            fit = MixedLM(long["value"].to_numpy(float), exog, groups=codes).fit(reml=True)
        return np.array([fit.fe_params[1], fit.bse_fe[1]])

    def same(o: np.ndarray, p: np.ndarray) -> str:
        # closed-form REML (balanced runs) against MixedLM's optimiser: 1e-4 relative
        return _close("estimate", o[:1], p[:1], 1e-9) or _close("SE", o[1:], p[1:], 1e-4 * o[1])

    return [Row(f"A/B with runs, 2 systems × {examples:,} × {runs} runs", ours,
                "MixedLM by hand", peer, same)]


# ------------------------------------------------------------------ run


def _measure(rows: list[Row], rounds: int, cold: bool) -> None:
    table = Table([("row", "<58"), ("peer", "<16"), ("sigboard s", ">11.4f"),
                   ("peer s", ">9.4f"), ("peer/sigboard", ">14")])
    table.header()
    for row in rows:
        try:
            first_ours, got = cpu_call(row.ours)
            first_peer, want = cpu_call(row.peer)
            problem = row.check(got, want)
        except Exception as exc:  # one broken peer must not hide the other rows
            problem = f"{type(exc).__name__}: {exc}"
        if problem:
            table.row(row.name, row.peer_name, f"OUTPUTS DIFFER: {problem}")
            continue
        ours_t, peer_t = [], []
        for r in range(rounds):  # alternate who goes first
            pair = [(ours_t, row.ours), (peer_t, row.peer)]
            for times, fn in pair if r % 2 == 0 else pair[::-1]:
                times.append(cpu_call(fn)[0])
        o, p = statistics.median(ours_t), statistics.median(peer_t)
        table.row(row.name, row.peer_name, o, p, f"{p / o:.2f}×")
        if cold:
            table.row("  (first call)", "", first_ours, first_peer)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="smaller inputs")
    parser.add_argument("--cold", action="store_true", help="also print the first calls")
    parser.add_argument("--only", default="", metavar="TEXT",
                        help="run only the rows whose name contains TEXT")
    args = parser.parse_args()
    q = args.quick
    rows = (_elo_rows(100_000 if q else 1_000_000)
            + _bt_rows(100, 100_000) + _bt_rows(1_000, 100_000 if q else 1_000_000)
            + _bt_rows(1_000, 100_000, " (sparse: ~18% of pairs met)")
            + _bootstrap_rows(20 if q else 50, 500 if q else 2_000, 200)
            + _pairwise_rows(10 if q else 30, 500 if q else 2_000)
            + _ab_rows(200 if q else 1_000, 5)
            + _friedman_rows(30, 10 if q else 20))
    rows = [r for r in rows if args.only.lower() in r.name.lower()]
    with threadpool_limits(limits=1, user_api="blas"):
        _measure(rows, args.rounds, args.cold)


if __name__ == "__main__":
    main()
