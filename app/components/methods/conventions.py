"""Methods: the conventions where textbooks differ, and the correction for many comparisons.

Markdown, one constant per section (joined in order by :data:`app.components.methods.SECTIONS`).
"""

CONVENTIONS = r"""
### Conventions
Where textbooks differ, this is what sigboard does:

- **Degrees of freedom.** Paired t: n − 1, n the examples the pair shares. Welch's t: the
  Welch–Satterthwaite approximation (not n_a + n_b − 2).
- **Welch vs Student.** Unpaired numeric scores use Welch's t (unequal variances allowed);
  Student's pooled-variance t is never used.
- **Pooled vs unpooled z.** The two-proportion z-*test* uses the pooled proportion in its
  standard error (as `statsmodels.proportions_ztest`); the *interval* of the difference is
  Newcombe's hybrid score interval (method 10), not the Wald interval.
- **Intervals of a difference.** Paired numbers: t interval of the mean difference; paired 0/1:
  Tango's score interval, made to agree with the McNemar test beside it — where the test
  says "not significant" the end nearer 0 moves to 0 — so the interval excludes 0 exactly when
  the raw p < alpha (HumanEval+: 0 of 1,176 pairs disagree, MBPP+: 0 of 1,711; Tango's alone
  disagreed on 24 and 14); coverage in calibration 0.953–0.998. Unpaired numbers: Welch's
  interval (bootstrap-t for skewed samples, above); unpaired 0/1: Newcombe's hybrid score
  interval; clustered: the CR2 t interval.
- **Mid-p McNemar** (`--test mcnemar-midp`): half the probability of the observed split
  counted, less conservative than exact McNemar (Fagerland, Lydersen & Laake 2013). In
  calibration (300 data sets, Holm–Šídák) false alarms 0.020 (exact 0.007) on 164 examples,
  0.033 (0.020) with 15% missing at random, 0.010 (0.003) on 25 examples; power 0.635 (exact
  0.584). With a system's failures dropped it does not hold alpha (0.447; exact 0.457 — the
  bias of the dropped failures, which the missing-score warning covers). It stays an option,
  not the default: the rule is that it must hold alpha in every calibration scenario.
- **Wilson vs Wald.** The interval of a system's 0/1 mean is Wilson's score interval (never
  below 0 or above 1); numeric means get t intervals.
- **Ties in battles.** In the win rate a tie (both systems equal on an example) is left out:
  the win rate is the share of *decisive* battles won. In Bradley–Terry (and Elo) a tie counts
  as half a win for each side.
- **Minimum overlap for pairing.** MIN_OVERLAP shared examples (`engine.MIN_PAIRED_OVERLAP`).
- **Partial overlap.** When systems scored different subsets of examples, a system's mean is
  the *adjusted* mean of an additive system + example model (a system that only met the easy
  examples is not flattered), with a t interval from its difficulty-adjusted scores — only for
  systems that miss examples (labelled so): a system that scored every example keeps the
  interval of its own mean, whatever the others lack (coverage 0.947 when another
  system skips the hardest 20%); the rank
  range is widened to hold the rank, and missing scores that track difficulty are flagged.
- **Effect-size criterion.** "Significant when effect size ≥ 0.2 / 0.5 / 0.8" applies *on top
  of* adjusted p < alpha, never instead of it, on the effect size Cohen's conventions are
  defined for: Cohen's h for 0/1 scores, d_av (mean difference over the average of the two
  standard deviations; Cumming 2012) for paired numbers, Cohen's d (pooled SD) for unpaired
  numbers.
- **Constant differences.** When every per-example difference is the same non-zero number the
  t statistic is infinite; its p-value is the exact sign-flip (randomisation) p, 2^(1 − n)
  two-sided and 2^(−n) one-sided, never 0.
- **Permutation test.** Reports p-values only: no effect size is shown for it.
"""

MANY_COMPARISONS = r"""
### Many comparisons at once
Comparing 20 systems means 190 pairs: at alpha = 0.05, about 10 would look significant by
chance alone. P-values are therefore **adjusted for multiplicity** — by default with the
**Holm–Šídák** step-down procedure, which keeps the chance of *any* false alarm below alpha.
Holm, Bonferroni (both stricter), Benjamini–Hochberg (controls the share of false discoveries
instead) and none are available.

**Comparison sets.** *All pairs* is the default. *First vs rest* and *successive pairs* — and
one-sided alternatives — are only valid when the order of systems (their upload order) was
fixed **before** looking at the results, for example by model size.

**Significant** means adjusted p < alpha; an effect-size criterion *additionally* asks for an
effect size of at least 0.2 (small), 0.5 (medium) or 0.8 (large) (Cohen 1988; Sawilowsky
2009) — both must hold. Effect sizes say how *big* a
difference is, which a p-value does not: with many examples tiny differences become significant.
"""
