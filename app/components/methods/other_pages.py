"""Methods of the Mechanisms, Slices, Conditions, Distributions and Examples pages.

Markdown, one constant per section (joined in order by :data:`app.components.methods.SECTIONS`).
"""

MECHANISMS = r"""
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
"""

SLICES_CONDITIONS = r"""
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
"""

DISTRIBUTIONS = r"""
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
"""

HEALTH = r"""
### Benchmark health (Examples page)
- **Smallest significant gap / largest gap not significant** (`p5_min` / `p5_max` in
  eval-arena): the smallest gap between two systems that is significant, and the largest that
  is not — how far apart systems must be on this benchmark before you believe it.
- **Suspect examples**: examples that *worse* systems solve more often than better ones
  (Kendall's tau < 0, shown as *agreement*) — often a wrong label or a broken test.
- **Solved by none / by exactly one**, a difficulty histogram, and the minimum detectable
  difference at 80 % power.
"""
