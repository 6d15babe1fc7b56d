"""Methods, first sections: why every comparison is a test, and which test runs when.

Markdown, one constant per section (joined in order by :data:`app.components.methods.SECTIONS`).
"""

INTRO = r"""
sigboard compares systems **example by example**. An average hides noise: on a 164-example
benchmark a 5-point gap is often luck. So every comparison below is a statistical test, and the
leaderboard only separates systems whose difference is unlikely to be chance.
"""

WHICH_TEST = r"""
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
"""
