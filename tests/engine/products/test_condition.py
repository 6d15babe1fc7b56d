"""Condition-and-compare of one system hyperparameter (engine/products/_condition.py;
Ackerman, Farchi, Raz & Toledo 2025, arXiv:2501.18243, §10.2)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from engine.products._condition import CONDITION_COLUMNS, condition_and_compare
from engine.stats._multitest import adjust_pvalues

TEMPLATES, TEMPERATURES, FAMILIES = ("A", "B"), (0.2, 0.7, 1.0), ("llama", "mistral", "qwen")


def _grid(seed: int, effect: float, n: int = 150, binary: bool = True) -> pd.DataFrame:
    """2 templates × 3 temperatures × 3 families = 18 systems; template B adds ``effect``.

    Examples share a difficulty, so matched systems are correlated (a paired design)."""
    rng = np.random.default_rng(seed)
    ease = rng.normal(0.0, 1.0, n)
    frames = []
    for t in TEMPLATES:
        for temp in TEMPERATURES:
            for fam in FAMILIES:
                base = 0.3 * FAMILIES.index(fam) - 0.4 * temp + (effect if t == "B" else 0.0)
                latent = base + ease + rng.normal(0.0, 1.0, n)
                value = (latent > 0) * 1.0 if binary else latent
                frames.append(pd.DataFrame({
                    "benchmark": "bench", "metric": "acc", "system": f"{fam}-{temp}-{t}",
                    "example_id": [f"e{i:03d}" for i in range(n)], "value": value,
                    "template": t, "temperature": temp, "family": fam}))
    return pd.concat(frames, ignore_index=True)


def test_planted_template_effect_is_found_in_every_matched_configuration() -> None:
    res = condition_and_compare(_grid(0, effect=0.8), factor="template")
    assert res.held == ("temperature", "family") and res.levels == ("A", "B")
    t = res.table
    assert list(t.columns) == ["temperature", "family", *CONDITION_COLUMNS]
    assert len(t) == 9  # one matched pair per (temperature, family)
    assert (t["system_a"].str.endswith("-A") & t["system_b"].str.endswith("-B")).all()
    assert (t["system_a"].str[:-2] == t["system_b"].str[:-2]).all()  # same held settings
    assert (t["difference"] > 0).sum() >= 8 and t["significant"].sum() >= 6
    assert res.summary()[0].startswith("template=B beats template=A in ")
    assert "of 9 matched configurations" in res.summary()[0]
    np.testing.assert_allclose(t["pvalue_adj"], adjust_pvalues(t["pvalue"], method="holm-sidak"))


def test_each_row_is_the_exact_mcnemar_test_of_its_two_systems() -> None:
    df = _grid(3, effect=0.3, n=80)
    res = condition_and_compare(df, factor="template", correction="none")
    wide = df.pivot(index="example_id", columns="system", values="value")
    for row in res.table.itertuples():
        a, b = wide[row.system_a].to_numpy(), wide[row.system_b].to_numpy()
        only_b, only_a = int(((b == 1) & (a == 0)).sum()), int(((a == 1) & (b == 0)).sum())
        # exact McNemar = two-sided binomial test on the discordant examples (scipy)
        ref = stats.binomtest(only_b, only_b + only_a, 0.5).pvalue if only_a + only_b else 1.0
        assert row.test == "mcnemar"
        assert row.pvalue == pytest.approx(ref, rel=1e-9)
        assert row.difference == pytest.approx(b.mean() - a.mean(), abs=1e-12)
        assert row.ci_low <= row.difference <= row.ci_high


def test_three_levels_give_three_pairs_of_levels_per_configuration() -> None:
    res = condition_and_compare(_grid(1, effect=0.0, binary=False), factor="temperature")
    assert res.levels == ("0.2", "0.7", "1.0")  # numeric order
    assert len(res.table) == 3 * 6  # (0.2, 0.7), (0.2, 1.0), (0.7, 1.0) × 6 configurations
    assert list(res.table["level_a"].unique()) == ["0.2", "0.7"]
    assert len(res.summary()) == 3
    # a higher temperature lowers the latent score by 0.4 per unit: 1.0 loses to 0.2
    worst = res.table[(res.table["level_a"] == "0.2") & (res.table["level_b"] == "1.0")]
    assert (worst["difference"] < 0).mean() >= 5 / 6


@pytest.mark.slow
def test_no_effect_false_alarm_rate_stays_at_alpha() -> None:
    # calibration by simulation: no template effect, 30 grids × 9 matched pairs (independent
    # systems, so independent tests). Raw tests: rate ≤ alpha + 3 SE; Holm–Šidák over each
    # grid: family-wise rate ≤ alpha + 3 SE.
    raw, family = [], []
    for rep in range(30):
        res = condition_and_compare(_grid(100 + rep, effect=0.0, n=60, binary=False),
                                    factor="template")
        raw.extend(res.table["pvalue"] < 0.05)
        family.append(bool(res.table["significant"].any()))
    assert np.mean(raw) <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / len(raw))
    assert np.mean(family) <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / len(family))


def test_ambiguous_groups_and_identifiers_are_named() -> None:
    df = _grid(2, effect=0.5, n=40)
    df["model_path"] = "/models/" + df["system"]  # one value per system: an identifier
    res = condition_and_compare(df, factor="template")
    assert len(res.table) == 9 and any("model_path" in n for n in res.notes)
    # holding only the family leaves 3 systems per level in each group: all ambiguous
    with pytest.raises(ValueError, match="no two systems differ only.*share every held setting"):
        condition_and_compare(df, factor="template", hold=["family"])
    partly = df[~((df["family"] == "qwen") & (df["temperature"] != 0.2))]
    res = condition_and_compare(partly, factor="template", hold=["family"])
    assert res.table["family"].tolist() == ["qwen"]  # the only unambiguous group
    assert sum("share every held setting" in n for n in res.notes) == 2


def test_bad_arguments_name_the_argument() -> None:
    df = _grid(2, effect=0.5, n=20)
    with pytest.raises(ValueError, match="factor: 'value' is not system metadata"):
        condition_and_compare(df, factor="value")
    with pytest.raises(ValueError, match="hold: \\['template'\\] must be system metadata other"):
        condition_and_compare(df, factor="template", hold=["template"])
    one_level = df[df["template"] == "A"]
    with pytest.raises(ValueError, match="factor: no two systems differ only in 'template'"):
        condition_and_compare(one_level, factor="template")


@pytest.mark.slow
@settings(max_examples=5)
@given(st.integers(0, 2**31 - 1))
def test_row_order_and_system_names_do_not_matter(seed: int) -> None:
    df = _grid(seed % 1000, effect=0.4, n=40)
    base = condition_and_compare(df, factor="template").table
    names = {s: f"sys{i:02d}" for i, s in enumerate(np.random.default_rng(seed).permutation(
        df["system"].unique()))}
    moved = df.assign(system=df["system"].map(names)).sample(frac=1.0, random_state=seed % 2**32)
    got = condition_and_compare(moved, factor="template").table
    expected = base.assign(system_a=base["system_a"].map(names),
                           system_b=base["system_b"].map(names))
    pd.testing.assert_frame_equal(got, expected, check_exact=False, rtol=1e-9)
