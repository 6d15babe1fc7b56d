"""Methods: watching as results arrive (confidence sequences) and LLM judges with human labels (PPI++).

Markdown, one constant per section (joined in order by :data:`app.components.methods.SECTIONS`).
"""

WATCHING = r"""
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
"""

JUDGES = r"""
### LLM judges with a few human labels (prediction-powered inference)
- **When.** A metric is an LLM judge's score (a *judge metric*) and some of its examples
  also carry a human label: a metric whose name starts with `human` on the same benchmark
  (a wide file's `human_…` column may be partly empty), or a link declared with
  `sigboard judge-link`. Then the Leaderboard, Pairwise, A/B compare, Overall and Plan pages
  show the judge's scores *corrected with the human labels* beside the judge's own figures,
  and the Judge + humans page has the details. The judge-only figures stay on the pages:
  they answer "what does the judge say", not "what would humans say". The corrected figures
  are the ones *used*: the Leaderboard ranks by them, the Overall ranking takes that
  benchmark's corrected means, intervals and pair tests (a note says so), and the A/B
  verdict — and `compare`'s exit code — is the corrected paired difference's (labelled
  "judge scores corrected with N human labels"), the judge-only and human-only differences
  beside it. One cached board per metric feeds every page and the CLI, so a pair's corrected
  difference and p-value are the same on Pairwise, A/B compare and in `compare`'s JSON.
- **The A/B gate refuses (exit 2)** where PPI++ cannot keep its promise: the labels are not
  a random sample by the data's own evidence (the checks below), fewer than 10 examples are
  labelled for both systems, the examples are clustered (PPI++ here treats them as
  independent; `--cluster -` / cluster "none" decides as if they were), or a margin or
  one-sided test is asked of labels weighted by inclusion probabilities. The verdict uses
  the pair's own p-value (one comparison), its multiplicity-adjusted value beside it; with
  `--margin` the non-inferiority test on the corrected difference. Calibration
  (`benchmarks/calibrate_ppi_gate.py`: two systems with equal human-label means, the judge
  +5 for one and −5 for the other, 400 examples, 20,000 replications): the gate's false
  alarms at 10 / 20 / 30 / 60 / 100 labels for both were 0.048 / 0.050 / 0.049 / 0.051 /
  0.048 (judge noise SD 8) and 0.049 / 0.053 / 0.051 / 0.050 / 0.052 (SD 20; Monte Carlo
  error ± 0.003); the judge's own paired t alarmed in 99.8–100 % of them.
- **What.** PPI++ (Angelopoulos, Bates, Fannjiang, Jordan & Zrnic 2023; Angelopoulos,
  Duchi & Zrnic 2023): the estimate of a system's mean human label is
  λ · (judge mean on the unlabelled examples) + (mean human label − λ · mean judge score on
  the labelled ones); the judge's bias cancels in the second term, so the estimate is
  unbiased whatever the bias, and λ (tuned per system to minimise the variance, clipped to
  [0, 1]) makes it never less precise than the labels alone in large samples. Intervals and
  p-values use t quantiles with labels − 2 df and the variance (its 1/n moments) times
  labels / (labels − 2): λ is fitted on the same labels, as a regression estimator's slope
  (ppi_py uses the normal; with 5 % labels that covered 0.936 and gave a pairwise FWER of
  0.067 in simulation; with labels − 1 df and no factor a pair's false alarms were 0.062–0.077
  at 10–20 labels and 0.054–0.060 at 30–60, now 0.046–0.053). Every
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
  example's influence; with m = (Σw²)² / Σw⁴ the effective number of labels (Satterthwaite;
  the labels with equal chances) the variance is multiplied by m / (m − 2) and the t
  quantile takes m − 2 df (λ is fitted on the labels). In simulation with chances that
  depend on the label (2,000 replications) the intervals covered 0.954–0.978; unweighted
  PPI++ 0.12–0.82; the gate's false alarms with chances up to 6× apart stayed within 0.05
  from 12 labels up (20,000 replications, `benchmarks/calibrate_ppi_gate.py`). The
  random-labels check is skipped there (unequal chances are the design).
- **Calibration** (`benchmarks/calibrate_ppi.py`: 6 systems × 1,000 examples, judge bias
  differing by system up to 5 points, 1,000 replications, labels on 5 / 10 / 20 % of the
  examples): PPI++ 95 % intervals covered the human-label mean 0.951 / 0.951 / 0.952, the
  judge-only ones 0.19; PPI++ widths were 0.53 / 0.55 / 0.61 of the human-only widths;
  pairwise family-wise error 0.040 / 0.034 / 0.035 (judge-only 1.000). The ppi_py README's
  galaxies example (1,000 labels, α = 0.1, seed 0) gives its interval (0.2322, 0.2626).
- **How many labels** (Plan and Judge + humans pages, `ppi-budget`): the labels each system
  needs for a target interval width, from the closed-form PPI++ variance with the observed
  judge–human correlation; the page checks it against simulated intervals at those labels
  (predicted / simulated width 0.98–1.00 in the calibration, within 10 % on the pages).
  With known inclusion probabilities the plan scales every declared probability by one
  factor (the design keeps its shape) and gives the expected label count, from the
  closed-form variance of the weighted estimator (the design enters through 1 / probability;
  Zrnic & Candès 2024): planned / simulated width 0.99–1.00 at 5–20 % expected labels.
- **Pairwise judges (battles).** A battle list whose `winner` is an LLM judge's verdict on
  every battle and whose `human_winner` column holds human verdicts (model_a, model_b, tie,
  both_bad) on a random subset, empty elsewhere: the Bradley–Terry ratings are the PPI++
  logistic regression of the human verdicts rectifying the judge's (Boyeau et al. 2024,
  "AutoEval done right"; λ tuned as ppi_py's `ppi_logistic_ci`, equal to it within 1e-6),
  on LMArena's scale with sandwich intervals, every pair's difference z-tested and
  corrected, and its win probability (`leaderboard BATTLES --judge winner --human
  human_winner`; on the Leaderboard page under the arena's own ratings once uploaded).
  Every model needs a human-labelled battle, and the verdicts are refused as for judge
  metrics when the data show they are not a random sample (a share labelled differing
  between pairs of models, or bunched at the start or end of the file). In
  simulation (6 models × 5,000 battles, the judge biased by up to 0.6 logits per model,
  500 replications, 5 / 10 / 20 % labelled) the intervals covered the human ratings
  0.951 / 0.946 / 0.947 (the human verdicts alone 0.954 / 0.950 / 0.951 with intervals
  1.18–1.25 times as wide; the judge's alone 0.27).
"""
