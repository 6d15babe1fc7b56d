"""Methods: which test runs when, and why, in plain words, with the conventions and references."""

from __future__ import annotations

import streamlit as st

from engine import MIN_PAIRED_OVERLAP

st.title("Methods")
st.markdown(r"""
sigboard compares systems **example by example**. An average hides noise: on a 164-example
benchmark a 5-point gap is often luck. So every comparison below is a statistical test, and the
leaderboard only separates systems whose difference is unlikely to be chance.

### Which test runs when
The test follows from two facts about the data (Ackerman et al. 2025, Table 1), with the
exceptions below the table:

| systems scored on… | scores | test | effect size |
|---|---|---|---|
| same examples (**paired**) | 0/1 | exact **McNemar** (split examples only) | paired Cohen's d (`paired_d`) |
| same examples (**paired**) | numbers | **paired t-test** on per-example differences | d_z (`paired_d`) |
| different examples | 0/1 | **two-proportion z-test** | Cohen's h |
| different examples | numbers | **Welch's t-test** (unequal variances allowed) | Cohen's d |

d_z is the mean of the per-example differences divided by their standard deviation; Cohen's d
divides the difference of means by the pooled standard deviation.

*Why paired when possible?* Two systems answering the same questions share the questions'
difficulty. Comparing them question by question removes that shared noise, so a paired test
finds real differences with far fewer examples.

*Very large tables.* When every system scored every example and systems² × examples reaches
10¹⁰ (e.g. 1,000 systems × 10,000 examples), the paired t's sums of cross-products are
formed in single precision (half the time), and every pair whose two systems are close (the
variance of their differences under 1/8 of the sum of their variances) is recomputed in
double precision. Proven bound: each p-value within 5·10⁻⁴ of the double-precision one;
measured at 1,000 × 100,000, within 2·10⁻⁷ (the groups and the table the same).

*Partial overlap.* When some systems miss some examples, each pair is paired on the examples
*it* shares, and the page says how many each pair used (n per pair). A pair sharing fewer than
MIN_OVERLAP examples is tested unpaired, on each system's own examples. You can switch every
pair to unpaired tests (setting **Pairing**).

*Repeated runs.* Runs are kept. Each pair is tested on per-example means with the run-to-run
(seed) variance added: that variance is estimated once, pooled over **every system with
repeated runs** (the page names them), and every pair and every mean interval pays it —
single-run systems too, whose one run carries a whole seed's shift. Satterthwaite degrees of
freedom. When the pooled estimate is 0 this is exactly the paired t on per-example means.
A/B compare pools it the same way, so two single-run systems pay the seed variance the
others' runs show (the page and the JSON `seed_variance_from` name the systems it comes from).
Calibrated (10 equal systems with 1–5 runs each, seeds shifting whole sweeps, 300 data sets):
family-wise false alarms 0.020 (numbers) and 0.023 (0/1), mean-interval coverage
0.956; A/B compare of two single-run systems 0.050 / 0.040 — pooling over the two
systems of a pair only gave 0.273 / 0.227 (leaderboard), 0.283 / 0.227 (compare) and
coverage 0.87–0.88.

*Clustered examples.* Several questions per passage, checks per task, turns per dialogue: give
the cluster column (`--cluster COL` on leaderboard, pairwise, compare, overall and health, whose
default on a store is the declared column, `-` for none; on the Leaderboard, Pairwise, A/B
compare, Mechanisms and Distributions pages, *Group examples by*, whose default is the column
declared for the benchmark on upload or by `import --cluster COL`) and every pair gets the
**cluster-robust paired t**
(CR2 with Bell–McCaffrey degrees of freedom, G − 1 for equal clusters) on the per-example
scores, 0/1 included (McNemar assumes independent examples); means, groups and rank ranges
follow, and the number of clusters and the **design effect** (clustered over independent
variance) are shown beside the intervals. Overall tests each benchmark that has the column
cluster-robustly; health's pair tests, standard errors and smallest detectable difference
become cluster-robust too. Rule: CR2 with Bell–McCaffrey df for any number of clusters ≥ 2 —
that df is the small-cluster correction. Calibrated (20 passages × 10 questions, 300 data sets,
system × passage SD 0 / 0.5 / 1.0): false alarms 0.043 / 0.023 / 0.053, difference coverage
0.952 / 0.952 / 0.946, mean coverage 0.950 / 0.962 / 0.946; ignoring the clusters gave 0.023 /
0.110 / 0.540. The standard error is Miller's (2024) eq. 4 with the CR2 weights; Miller's and
Inspect's `stderr(cluster=…)` conventions are reproduced in the tests (Inspect's on logs that
inspect-ai itself wrote). Mechanisms, grouped: the rank range is the clustered Leaderboard's,
the Tukey intervals use the clustered standard errors, and the sign test of who wins more
examples becomes the CR2 t of the win − loss signs (2 equal systems, system × passage SD 1,
2,000 data sets: 20 passages 0.052, 8 passages 0.065, a little above alpha with few
clusters; the per-example exact sign test 0.287; on 0/1 scores the signs are the differences,
so it is the Leaderboard's test). Distributions, grouped: each bootstrap resample draws whole
clusters (the same clusters for every system); its percentile mean intervals covered
0.935–0.939 (20 passages, 300 data sets each at SD 0 / 0.5 / 1.0).

*Skewed unpaired numbers.* Welch's t leans on each mean being near normal. When a side has
at least 10 scores and fails Cochran's rule (n > 25 · skewness²), the pair gets the
**symmetric bootstrap-t** test and interval instead (each sample resampled around its own
mean; the same resampled statistics give the p-value and the interval, so they agree).
Calibrated (10 systems on their own examples, centred lognormal, 300 data sets): equal
shapes (10–40 examples each) false alarms 0.007, coverage 0.969 (Welch 0.023, 0.955);
unequal shapes (σ 0.5–1.0, 30 each) 0.077 ± 0.030, coverage 0.948 (Welch 0.090, 0.941),
and in a second run of 300 data sets 0.093 ± 0.033, coverage 0.942 (Welch 0.103, 0.936) —
better than Welch but above alpha (a third run: 0.063 ± 0.028, Welch 0.070). No unpaired
test we know keeps alpha there, so the page **says so**: a bootstrap-t pair whose estimated
skewness of the difference of means, (k3_a/n_a² − k3_b/n_b²)/se³, is 0.25 or more, and
whose smaller side has at most 60 scores (with 50 a side the bootstrap-t still gave
0.070 ± 0.035; with 70 and 100 it held, 0.040 ± 0.027, 200 data sets each), gets a
warning ("No unpaired test can be trusted…"; also in the command line's JSON `warnings`).
It warned in 0.993 of the unequal-shape data sets, 1.000 of the equal-shape ones (the data
cannot tell the two apart on 10–40 scores) and 0.077 of normal ones with 10–40 scores (300
each; a rerun: 0.990, 1.000 and 0.127). The `compare` gate decides paired data only, so it
never decides such pairs (exit 2).
When Welch's t is chosen by hand (*Test* t; `--test t`), it stays, but the same pairs are
named in a note and get the same warning (Welch overshot more there: 0.103).

*Missing scores that are not missing at random.* When a system's missing examples are harder
(or easier) than its scored ones by the *other* systems' scores (Mann–Whitney, Holm over the
systems, 0.05), the output warns (on the Leaderboard page, JSON `warnings`), gives the
system's mean with its missing
scores counted as the worst vs the best score, and `compare` exits 2 (cannot decide) unless
`--allow-missing`. Calibrated (300 data sets): a system dropping each failure with
probability 0.5 on 164 examples is flagged in 0.958 of data sets (its tests are biased there:
false alarms 0.457, which is why the output warns rather than decides); with 15% missing at
random, a false warning in 0.055. A system that skips the hardest 20% of the examples: the
complete systems' intervals keep their coverage (0.947), the skipper's adjusted
interval covers its population mean in only 0.853 of data sets, and the output warns
about it in 1.000 of them — read a flagged system's mean with its bounds, not its interval.

*Tiny benchmarks.* A discrete test has a smallest possible p-value: exact McNemar on 10
examples cannot go below 0.00195, above the first Holm–Šídák threshold for 45 pairs (0.00114),
so no pair can ever be significant. The page and the JSON (`resolution`) say so, with the
examples needed and the difference 80% power would need.

You can also pick a **Wilcoxon signed-rank**, **sign** or **permutation** test (the permutation
test is seeded by the **Random seed** in the link, so its p-values reproduce; it reports no
effect size).

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

### Reading the results
- **Groups.** Draw a graph with an edge between every two systems that are *not* significantly
  different. Each maximal clique (everyone linked to everyone) is a group of systems that cannot
  be told apart; groups are letters in the leaderboard: systems sharing a letter tie.
- **Means and intervals** (first chart of the Leaderboard): each system's mean with its
  confidence interval, best first, with its rank range beside it.
- **Group column.** Short letter groups (up to three letters) are shown as letters; longer ones
  as "ties with 21": how many other systems it cannot be told apart from.
- **Rank range: a confidence set for the rank** (Mogstad, Romano, Shaikh & Wilhelm 2024,
  R package `csranks`). Every page shows one rank span per system: the ranks it could hold,
  from each system's mean and the full covariance of the means — estimated from the paired
  examples (the examples all systems share make their means correlated, which separates
  systems that independent intervals cannot), cluster-robust when clusters are given, with
  the seed variance of runs added. Every ordered pair is tested with the largest
  standardised difference over the pairs still open (a parametric bootstrap of 1,000 draws,
  then stepdown); a system's set runs from 1 + the systems shown better to the number of
  systems minus those shown worse. We show the **simultaneous** sets, not the marginal ones:
  a leaderboard is read as a whole (who is first, who is ahead of whom, which rows overlap),
  and simultaneous sets hold the true ranks of *all* systems together with probability at
  least 1 − alpha, while marginal sets hold each system's rank on its own and, read side by
  side for many systems, some of them miss (`sigboard ranks --kind marginal` gives them).
  Shaded rows and the headline's "the best system is one of {…}" are the **confidence set
  for the best** (τ = 1): it holds the truly best system with probability at least
  1 − alpha. On Overall the estimates are the overall scores, weighted sums of the
  benchmarks' means: within a benchmark the paired examples give the covariance between
  systems; the same example id in two benchmarks counts as one example (its scores are
  correlated); benchmarks with no example in common are taken as independent. JSON:
  `rank_set_low`, `rank_set_high`, `in_best_set` in `leaderboard` and `overall`.
- **Strength** is the Bradley–Terry strength (`bt_strength`); **Elo** puts it on the chess scale.
- **Rank range.** Best rank = 1 + the number of systems significantly better; worst rank = the
  number of systems not significantly worse.
- **Significance graph.** Height = mean; edges join non-significant pairs, thicker = less
  significant; the best system is in red. Top systems with no edges are clearly best.
- **PWPP.** Each pair is a segment at its adjusted p-value; the axis gives the region below
  alpha as much room as the rest, so significant pairs stand out on the left.
- **Win rate, Bradley–Terry, Elo.** Example-level battles: who scores better on each example.
  Win rate is the share of decisive battles won; Bradley–Terry fits strengths to all battles at
  once; Elo puts those strengths on the familiar chess-like scale. Their intervals are sandwich
  (cluster-robust over examples) rather than bootstrap: one pass after the fit instead of a
  refit per resample (10–40× the leaderboard's cost), within 12% of the bootstrap's widths.
- **Confidence intervals** of means are t intervals, Wilson intervals for 0/1 scores.
- **Across metrics** (Pairwise page). When a benchmark has several metrics, every pair of
  systems is tested on each of them with the same settings; the table shows a cell only where
  the pair differs significantly on that metric, red when the first system is better and blue
  when the second is. Rows come most significant first, by the harmonic mean of the pair's raw
  p-values over the metrics (Wilson 2019; with equal weights this orders the pairs exactly as
  Wilson's multiplicity-adjusted harmonic mean p-value would). A row with both colours means
  the metrics disagree about which system is better.

### The whole suite (Overall page)
- **Who is ranked.** Only the systems that ran every selected benchmark: a score over fewer
  benchmarks is not comparable. The others are listed below, unranked, by what they ran. The
  first visit selects the benchmarks whose complete block (systems that ran all of them ×
  benchmarks) is largest.
- **Score.** Every metric a 0–1 score: the weighted mean of the benchmarks' own scores, in
  percent. Otherwise each benchmark's mean minus the average ranked system's, over the SD of
  a system's scores there, averaged with the weights ("standardised score"). Each benchmark
  uses its primary metric; several metrics of one benchmark are first made one only when
  chosen (each metric on a common scale, turned so that higher is better, averaged per
  example: Ackerman et al. 2025, §6.1).
- **Better overall.** A pair's overall difference is the difference of the two scores — the
  weighted sum of its benchmark differences — tested as one figure: each benchmark enters
  with the standard error its own test implies (so one benchmark's Overall is its
  Leaderboard), benchmarks that share example ids with their correlation, and the p-values
  are adjusted over the pairs with the leaderboard's correction. A pair better on one
  benchmark and worse on another by as much has no overall order.
- **Differs by benchmark.** The harmonic mean p-value (Wilson 2019) of the pair's benchmark
  tests, adjusted for every pair and benchmark, says whether the pair differs on *some*
  benchmark, in either direction; a pair that does, without an overall direction, reads
  "differs by benchmark, no overall order".
- **Effect across benchmarks.** The benchmarks' effect sizes (Hedges' g) averaged with the
  score's weights, with an interval that includes their correlation, and I² — the share of
  the spread between benchmarks that is more than chance.
- **Groups and letters** then come from the overall verdicts exactly as on one benchmark;
  the rank range is the overall scores' rank confidence set (see *Reading the results*).

### Rankings by other rules (Mechanisms page)
- **Mean, median, Bradley–Terry, Elo, TrueSkill** rank the same example-level results by
  different rules; when they disagree about the winner or the top 3, the ranking depends on
  the rule as much as on the systems (Peyrard et al. 2021). Agreement between two rankings is
  Kendall's tau. Arena Elo replays the battles one by one (K-factor), in several random orders
  averaged, because the order changes the result: 10 on the page's first view (fewer, at
  least 2, past 5 million battle replays), 100 with "More battle orders"; TrueSkill 1 and 5.
- **Rank intervals.** The *rank range* on every page is the rank confidence set above. The
  Mechanisms page's *simultaneous rank intervals* (Al Mohamad, Goeman & van Zwet 2022; Tukey's
  method on each system's mean and standard error) answer a different question: they also
  hold for all systems together, but take the means as independent with equal variances, so
  they ignore the pairing. The bootstrap's rank intervals (Distributions page) hold for each
  system on its own, so they are narrower and may miss the true rank of some system.
- **Friedman test and critical difference** (Demšar 2006): across benchmarks, systems are
  ranked per benchmark; two systems whose mean ranks differ by more than the Nemenyi
  critical difference are different.

### Where a system is better (Slices and Conditions pages)
- **Slices.** The examples are split by one of their attributes (a numeric one into slices of
  about equal size); every slice gets its own means, intervals and pairwise tests, and the
  p-values of all slices and pairs are adjusted together, so testing many slices does not
  manufacture a difference. A pair "changes" when its verdict is not the same in every slice;
  a *reversal* is significant in opposite directions. "Not shown to differ" on a small slice
  is weak evidence.
- **Conditions** (Ackerman et al. 2025, §10). To ask whether a setting matters (prompt template,
  temperature), only systems that differ in that setting alone are compared, so the other
  settings cannot explain the difference; each matched pair is tested as on the Pairwise page
  and the p-values are adjusted together.

### Distributions (bootstrap)
- **Bootstrap means.** The examples are redrawn with replacement many times (1,000 by
  default) and every system's mean is recomputed on each redraw. With paired data one redraw
  is shared by all systems, as the paired tests share examples; otherwise each system's own
  examples are redrawn. The spread of the box is how much the mean would move on another
  sample of examples like these.
- **Bootstrap ranks.** On each redraw the systems are ranked by their means (1 = best, ties
  share the best rank). Boxes that do not overlap mean the order is stable; *P(first)* is the
  share of redraws in which a system ranks first. The rank interval is a percentile interval
  per system, not a simultaneous one: for a guarantee over all systems at once use the rank
  range of the leaderboard, which comes from the corrected pairwise tests.
- **Scores.** The per-example scores themselves; for 0/1 scores the box says little.

### Benchmark health (Examples page)
- **Smallest significant gap / largest gap not significant** (`p5_min` / `p5_max` in
  eval-arena): the smallest gap between two systems that is significant, and the largest that
  is not — how far apart systems must be on this benchmark before you believe it.
- **Suspect examples**: examples that *worse* systems solve more often than better ones
  (Kendall's tau < 0, shown as *agreement*) — often a wrong label or a broken test.
- **Solved by none / by exactly one**, a difficulty histogram, and the minimum detectable
  difference at 80 % power.

### Watching as results arrive (Watch page, `watch` command)
- **Why.** A p-value or interval on the other pages assumes the data were looked at once,
  at a size fixed in advance. Looked at after every upload and acted on when it first says
  "significant", a 5 % test declares differences between equal systems far more often: in
  simulation, checking after every batch of 10 examples up to 2,000, 41–50 % of the time.
- **Confidence sequences.** The Watch page compares the champion with each challenger by an
  interval for the difference that holds at every look at once, so it can be checked as often
  as you like and a verdict taken the moment it leaves 0. For scores in known bounds
  (0/1, or 0–1) it is the betting confidence sequence of Waudby-Smith & Ramdas (2024): the
  paired difference is mapped to [0, 1] and, for each candidate mean, a bettor with
  predictable plug-in bets (hedged both ways) grows wealth when the mean is wrong; means where
  wealth reached 1/alpha are excluded. For unbounded scores it is the normal-mixture boundary
  of Howard et al. (2021). Intervals are intersected over time, so they only narrow. The
  always-valid p-value is 1 / the largest wealth reached at 0. The price: more examples than a
  single fixed-n test needs for the same difference.
- **Arrival order.** An example arrives in the upload where both systems first have it
  (uploads in order, rows in file order), its runs averaged up to then; later runs do not
  revise it. With a cluster attribute a whole cluster is one observation.
- **Several challengers: e-BH.** Each sequence's current wealth at 0 is an e-value; e-BH
  (Wang & Ramdas 2022) combines them, keeping the false-discovery rate among the marked
  challengers at most alpha under any dependence (all share the champion's scores).
  *Caveat*: it holds for the marks at the moment you stop looking, not for everything ever
  marked across looks; it is more conservative than Benjamini–Hochberg (a mark needs
  e ≥ K/(alpha·k)); and an e-value can fall back after a high point, so a challenger whose own
  sequence excluded 0 (which it keeps) may not be marked.

### LLM judges with a few human labels (prediction-powered inference)
- **When.** A metric is an LLM judge's score (a *judge metric*) and some of its examples
  also carry a human label: a metric whose name starts with `human` on the same benchmark
  (a wide file's `human_…` column may be partly empty), or a link declared with
  `sigboard judge-link`. Then the Leaderboard, Pairwise, A/B compare, Overall and Plan pages
  show the judge's scores *corrected with the human labels* beside the judge's own figures,
  and the Judge + humans page has the details. The judge-only figures stay on the pages:
  they answer "what does the judge say", not "what would humans say". The Overall ranking
  and the A/B verdict (and `compare`'s exit code) are still the judge's own; the corrected
  figures sit beside them.
- **What.** PPI++ (Angelopoulos, Bates, Fannjiang, Jordan & Zrnic 2023; Angelopoulos,
  Duchi & Zrnic 2023): the estimate of a system's mean human label is
  λ · (judge mean on the unlabelled examples) + (mean human label − λ · mean judge score on
  the labelled ones); the judge's bias cancels in the second term, so the estimate is
  unbiased whatever the bias, and λ (tuned per system to minimise the variance, clipped to
  [0, 1]) makes it never less precise than the labels alone in large samples. Intervals and
  p-values use t quantiles with labels − 1 df (ppi_py uses the normal; with 5 % labels that
  covered 0.936 and gave a pairwise FWER of 0.067 in simulation, t 0.946 and 0.048). Every
  pair is the same estimator applied to the paired differences, and the pairs are corrected
  for multiplicity like every other test (the page's correction). *Effective labels*: how
  many human labels alone would give the same interval width.
- **Checks.** The labels must be a random sample. The method is refused, with the reason,
  when the data show otherwise (p < 0.001): a system with fewer than 2 labels or only one
  system labelled, a share labelled that differs between systems (chi-square), or labels
  bunched at the start or end of the file (Spearman of the label share on the example's
  position). The upload preview says how many labels each system has and whether they pass.
- **Known inclusion probabilities.** If examples were sent to humans with unequal, known
  chances (an `inclusion_probability` column, per example), each label is weighted by
  1 / its probability (inverse-probability-weighted PPI++, Zrnic & Candès 2024; the
  estimate equals ppi_py's weighted variant), the standard error comes from every judged
  example's influence, and the t quantile uses Satterthwaite's (Σw²)² / Σw⁴ − 1 df, which
  is labels − 1 with equal chances. In simulation with chances that depend on the label
  (2,000 replications) the intervals covered 0.938–0.950; unweighted PPI++ 0.12–0.81. The
  random-labels check is skipped there (unequal chances are the design).
- **Calibration** (`benchmarks/calibrate_ppi.py`: 6 systems × 1,000 examples, judge bias
  differing by system up to 5 points, 1,000 replications, labels on 5 / 10 / 20 % of the
  examples): PPI++ 95 % intervals covered the human-label mean 0.946 / 0.948 / 0.951, the
  judge-only ones 0.19; PPI++ widths were 0.52 / 0.54 / 0.61 of the human-only widths;
  pairwise family-wise error 0.048 / 0.036 / 0.039 (judge-only 1.000). The ppi_py README's
  galaxies example (1,000 labels, α = 0.1, seed 0) gives its interval (0.2322, 0.2626).
- **How many labels** (Plan and Judge + humans pages, `ppi-budget`): the labels each system
  needs for a target interval width, from the closed-form PPI++ variance with the observed
  judge–human correlation; the page checks it against simulated intervals at those labels
  (predicted / simulated width 0.98–1.00 in the calibration, within 10 % on the pages).

### References
- Ackerman, Farchi, Raz & Toledo (2025). Statistical multi-metric evaluation and
  visualization of LLM system predictive performance. arXiv:2501.18243 — tests (Table 1),
  comparison sets,
  Holm–Šídák, connected graph, cliques, heatmaps, PWPP.
- S. Holm (1979). A simple sequentially rejective multiple test procedure. *Scand. J. Statist.*
  6, 65–70; Z. Šidák (1967), *JASA* 62, 626–633.
- Q. McNemar (1947). Note on the sampling error of the difference between correlated
  proportions. *Psychometrika* 12, 153–157.
- B. L. Welch (1947). The generalization of "Student's" problem. *Biometrika* 34, 28–35.
- J. Cohen (1988). *Statistical Power Analysis for the Behavioral Sciences*, 2nd ed.
- S. Sawilowsky (2009). New effect size rules of thumb. *JMASM* 8(2), 597–599.
- Y. Benjamini, Y. Hochberg (1995). Controlling the false discovery rate. *JRSS B* 57, 289–300.
- E. B. Wilson (1927). Probable inference… *JASA* 22, 209–212.
- R. A. Bradley, M. E. Terry (1952). Rank analysis of incomplete block designs. *Biometrika* 39.
- M. Peyrard et al. (2021). Better than average: paired evaluation of NLP systems. *ACL*.
- R. V. Lenth (2024). emmeans: estimated marginal means (the `pwpp` plot). R package.
- S. I. Wang et al. (2024). Eval-Arena: noise and errors by leaderboard showdowns.
- D. Al Mohamad, J. Goeman, E. van Zwet (2022). Simultaneous confidence intervals for ranks.
- B. Efron, R. J. Tibshirani (1993). *An Introduction to the Bootstrap*. Chapman & Hall.
- D. J. Wilson (2019). The harmonic mean p-value for combining dependent tests. *PNAS* 116(4),
  1195–1200.
- J. Demšar (2006). Statistical comparisons of classifiers over multiple data sets. *JMLR* 7,
  1–30.
- M. Borenstein, L. V. Hedges, J. P. T. Higgins, H. R. Rothstein (2009). *Introduction to
  Meta-Analysis*. Wiley.
- J. W. Tukey (1977). *Exploratory Data Analysis* (boxplots). Addison-Wesley.
- T. Tango (1998). Equivalence test and confidence interval for the difference in proportions
  for the paired-sample design. *Stat. Med.* 17, 891–908.
- M. W. Fagerland, S. Lydersen, P. Laake (2013). The McNemar test for binary matched-pairs
  data: mid-p and asymptotic are better than exact conditional. *BMC Med. Res. Methodol.* 13:91.
- R. M. Bell, D. F. McCaffrey (2002). Bias reduction in standard errors for linear regression
  with multi-stage samples. *Survey Methodology* 28(2), 169–181.
- J. E. Pustejovsky, E. Tipton (2018). Small-sample methods for cluster-robust variance
  estimation and hypothesis testing in fixed effects models. *JBES* 36(4), 672–683.
- E. Miller (2024). Adding error bars to evals: a statistical approach to language model
  evaluations. arXiv:2411.00640.
- W. G. Cochran (1977). *Sampling Techniques*, 3rd ed., §2.15. Wiley.
- P. Hall (1988). Theoretical comparison of bootstrap confidence intervals. *Ann. Statist.*
  16, 927–953.
- I. Waudby-Smith, A. Ramdas (2024). Estimating means of bounded random variables by betting.
  *JRSS B* 86(1), 1–27.
- S. R. Howard, A. Ramdas, J. McAuliffe, J. Sekhon (2021). Time-uniform, nonparametric,
  nonasymptotic confidence sequences. *Annals of Statistics* 49(2), 1055–1080.
- R. Wang, A. Ramdas (2022). False discovery rate control with e-values. *JRSS B* 84(3),
  822–852.
- A. N. Angelopoulos, S. Bates, C. Fannjiang, M. I. Jordan, T. Zrnic (2023).
  Prediction-powered inference. *Science* 382(6671), 669–674.
- A. N. Angelopoulos, J. C. Duchi, T. Zrnic (2023). PPI++: Efficient prediction-powered
  inference. arXiv:2311.01453.
- T. Zrnic, E. J. Candès (2024). Active statistical inference. *ICML*.
- D. G. Horvitz, D. J. Thompson (1952). A generalization of sampling without replacement
  from a finite universe. *JASA* 47, 663–685.
- F. E. Satterthwaite (1946). An approximate distribution of estimates of variance
  components. *Biometrics Bulletin* 2(6), 110–114.
""".replace("MIN_OVERLAP", str(MIN_PAIRED_OVERLAP)))
