"""Methods: how to read the results (groups, rank ranges, charts) and the Overall page.

Markdown, one constant per section (joined in order by :data:`app.components.methods.SECTIONS`).
"""

READING = r"""
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
- **P-value plot** (PWPP, Pairwise page). Each pair is a segment at its adjusted p-value;
  the axis gives the region below alpha as much room as the rest, so significant pairs stand
  out on the left.
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
"""

OVERALL = r"""
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
"""
