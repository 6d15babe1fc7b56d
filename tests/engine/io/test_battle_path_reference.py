"""The fast battle path reads exactly what the plain one read.

``validate_battles`` keeps Arrow text as Arrow (no round trip through a million Python
strings) and ``pair_counts`` maps each distinct verdict once; the references below are the
implementations they replaced (engine/io/_battles.py and engine/ranking/_arena.py as of
commit 7db017e, copied verbatim but for names), so every reference value here is what the
engine returned before the change: the same frame (dtypes included), the same problems,
the same counts to the last bit.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from engine._contract import DataContractError, Problem
from engine.io._battles import WINNERS, validate_battles
from engine.ranking._arena import pair_counts

_ALIASES = {"tie (bothbad)": "both_bad", "bothbad": "both_bad", "both bad": "both_bad"}


def _rows(mask):  # type: ignore[no-untyped-def]
    return tuple(int(i) + 1 for i in np.flatnonzero(np.asarray(mask)))


def _verdicts(column):  # type: ignore[no-untyped-def]
    return column.astype("string").str.strip().str.lower().replace(_ALIASES)


def _human(column, label, problems):  # type: ignore[no-untyped-def]
    text = _verdicts(column).fillna("")
    bad = ~(text.isin(list(WINNERS)) | (text == "")).to_numpy(dtype=bool)
    if bad.any():
        shown = ", ".join(repr(v) for v in pd.unique(column[bad])[:5])
        problems.append(Problem(label, rule=f"a human verdict must be one of "
                                f"{', '.join(WINNERS)} or empty; got {shown}",
                                column="human_winner", rows=_rows(bad),
                                fix="write the human verdict on the labelled battles and leave "
                                    "the others empty"))
    return text.astype(str).to_numpy()


def reference_validate(frame, *, label="<battles>"):  # type: ignore[no-untyped-def]  # noqa: C901
    """validate_battles as of 7db017e (the error for missing columns left out: unchanged)."""
    df = frame.rename(columns={c: str(c).strip().lower() for c in frame.columns})
    problems: list[Problem] = []
    out = pd.DataFrame(index=range(len(df)))
    for col in ("model_a", "model_b"):
        names = df[col].astype("string").str.strip()
        empty = names.isna() | (names == "")
        if empty.any():
            problems.append(Problem(label, rule="a model name is missing", column=col,
                                    rows=_rows(empty), fix="name both models of every battle"))
        out[col] = names.fillna("").astype(str).to_numpy()
    same = (out["model_a"] == out["model_b"]) & (out["model_a"] != "")
    if same.any():
        problems.append(Problem(label, rule="a model battles itself", column="model_b",
                                rows=_rows(same), fix="drop self-battles or fix the names"))
    winner = _verdicts(df["winner"])
    bad = ~winner.isin(list(WINNERS)).fillna(False).to_numpy(dtype=bool)
    if bad.any():
        shown = ", ".join(repr(v) for v in pd.unique(df["winner"][bad])[:5])
        problems.append(Problem(label, rule=f"winner must be one of {', '.join(WINNERS)} "
                                f"(or 'tie (bothbad)'); got {shown}", column="winner",
                                rows=_rows(bad), fix="write who won: model_a, model_b, tie or "
                                "both_bad"))
    out["winner"] = winner.fillna("").astype(str).to_numpy()
    weight = pd.to_numeric(df["weight"], errors="coerce") if "weight" in df.columns else \
        pd.Series(1.0, index=df.index)
    bad_w = ~(np.isfinite(weight.to_numpy(dtype=float)) & (weight.to_numpy(dtype=float) >= 0))
    if bad_w.any():
        problems.append(Problem(label, rule="weight must be a finite number ≥ 0",
                                column="weight", rows=_rows(bad_w),
                                fix="give each battle a weight ≥ 0, or drop the column"))
    out["weight"] = weight.to_numpy(dtype=float)
    for col in ("judge", "category"):
        if col in df.columns:
            out[col] = df[col].astype("string").fillna("").astype(str).to_numpy()
    if "human_winner" in df.columns:
        out["human_winner"] = _human(df["human_winner"], label, problems)
    if problems:
        raise DataContractError(problems)
    if not len(out):
        raise DataContractError([Problem(label, rule="the battle list has no rows",
                                         fix="add at least one battle")])
    return out


def reference_pair_counts(battles):  # type: ignore[no-untyped-def]
    """pair_counts as of 7db017e: (systems, wins, ties, wins_sq, ties_sq, n)."""
    codes, names = pd.factorize(pd.concat([battles["model_a"], battles["model_b"]],
                                          ignore_index=True), sort=False)
    n = len(battles)
    a, b, systems = codes[:n].astype(np.intp), codes[n:].astype(np.intp), tuple(map(str, names))
    s = len(systems)
    score = battles["winner"].map(WINNERS).to_numpy(dtype=float)
    w = battles["weight"].to_numpy(dtype=float) if "weight" in battles.columns \
        else np.ones(len(battles))

    def count(mask, first, second, weights):  # type: ignore[no-untyped-def]
        flat = np.bincount(first[mask] * s + second[mask], weights[mask], minlength=s * s)
        return flat.reshape(s, s)

    won_a, won_b, tied = score == 1.0, score == 0.0, score == 0.5
    wins = count(won_a, a, b, w) + count(won_b, b, a, w)
    wins_sq = count(won_a, a, b, w * w) + count(won_b, b, a, w * w)
    ties = count(tied, a, b, w)
    ties_sq = count(tied, a, b, w * w)
    return systems, wins, ties + ties.T, wins_sq, ties_sq + ties_sq.T, n


MODELS = ["gpt-4", " gpt-4", "claude ", "Llama-3", "llama-3", "mistral", "zephyr-7b"]
WORDS = ["model_a", "model_b", "tie", "both_bad", "Model_A", " tie ", "tie (bothbad)",
         "bothbad", "BOTH BAD"]


def _battles(rng: np.random.Generator, n: int, *, bad: bool, extras: bool,
             as_object: bool) -> pd.DataFrame:
    a = rng.choice(MODELS, n).astype(object)
    b = rng.choice(MODELS, n).astype(object)
    winner = rng.choice(WORDS + (["draw", "", None] if bad else []), n).astype(object)
    if bad:
        a[rng.random(n) < 0.05] = None
        b[rng.random(n) < 0.05] = ""
    else:
        b = np.where(np.char.lower(np.char.strip(a.astype(str))) ==
                     np.char.lower(np.char.strip(b.astype(str))), "other", b).astype(object)
    cols: dict[str, object] = {"Model_A": a, "model_b ": b, "winner": winner}
    if extras:
        cols["weight"] = rng.choice([0.5, 1.0, 2.0, 3.25] + ([-1.0, np.nan] if bad else []), n)
        cols["judge"] = rng.choice(["gpt-4-judge", "human", None], n)
        cols["category"] = rng.choice(["code", "math", None], n)
        cols["human_winner"] = rng.choice(["model_a", "", None, "Tie"] + (["?"] if bad else []),
                                          n)
    frame = pd.DataFrame(cols, index=rng.permutation(n) + 10)
    if as_object:
        frame = frame.astype(object)
    return frame


def _outcome(fn, frame):  # type: ignore[no-untyped-def]
    try:
        return fn(frame), None
    except DataContractError as exc:
        return None, exc.problems


@pytest.mark.parametrize("seed", range(12))
def test_validate_battles_reads_what_the_plain_reader_read(seed: int) -> None:
    rng = np.random.default_rng(seed)
    frame = _battles(rng, int(rng.integers(1, 3000)), bad=seed % 3 == 0, extras=seed % 2 == 0,
                     as_object=seed % 4 == 1)
    got, got_problems = _outcome(validate_battles, frame)
    want, want_problems = _outcome(reference_validate, frame)
    assert got_problems == want_problems
    if want is not None:
        pd.testing.assert_frame_equal(got, want, check_exact=True)
        assert list(got.dtypes) == list(want.dtypes)


@pytest.mark.parametrize("seed", range(8))
def test_pair_counts_are_the_plain_counts_bit_for_bit(seed: int) -> None:
    rng = np.random.default_rng(100 + seed)
    battles = validate_battles(_battles(rng, int(rng.integers(1, 20_000)), bad=False,
                                        extras=seed % 2 == 0, as_object=seed % 4 == 1))
    got = pair_counts(battles)
    systems, wins, ties, wins_sq, ties_sq, n = reference_pair_counts(battles)
    assert got.systems == systems and got.n_battles == n
    for mine, theirs in ((got.wins, wins), (got.ties, ties), (got.wins_sq, wins_sq),
                         (got.ties_sq, ties_sq)):
        assert mine.dtype == theirs.dtype and np.array_equal(mine, theirs)


def test_pair_counts_of_an_unchecked_verdict_count_nothing_for_it() -> None:
    # a frame that skipped validate_battles: an unknown word scored NaN (no win, no tie)
    frame = pd.DataFrame({"model_a": ["A", "B", "A"], "model_b": ["B", "A", "B"],
                          "winner": ["model_a", "draw", "tie"]})
    got = pair_counts(frame)
    _, wins, ties, *_ = reference_pair_counts(frame)
    assert np.array_equal(got.wins, wins) and np.array_equal(got.ties, ties)
