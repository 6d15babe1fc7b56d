"""The URL's vocabulary: the values each parameter may take, its tabs and its limits.

Pure constants (no Streamlit, no parsing), shared by the view (:mod:`app.url.view`), its
parser (:mod:`app.url.parse`) and the pages' widgets.
"""

from __future__ import annotations

#: ``paired`` in the URL ↔ the engine's flag (None: pair whenever the data allow).
PAIRED_FLAGS: dict[str, bool | None] = {"auto": None, "paired": True, "unpaired": False}
PAIRINGS = tuple(PAIRED_FLAGS)
#: Views of the leaderboard table, panels of the significance graph and of the all-pairs
#: section (URL values → tab labels).
TABLE_TABS = {"ranked": "Ranked", "grid": "Sort & select"}
#: The Leaderboard's table tab of a benchmark with repeated tries (runs of 0/1 scores): pass@k
#: and pass^k per system at the URL's ``k``, ranked by pass^k, with the k-curves.
RELIABILITY_TABS = {"reliability": "Reliability (repeated tries)"}
#: The largest ``k`` the URL takes (tries per task); 0: the page's default.
MAX_K = 1000
#: The Leaderboard's chart tabs (URL ``graph``), the rank/CI plot first.
GRAPH_TABS = {"ranks": "Means and intervals", "static": "Significance graph",
              "interactive": "Interactive graph", "groups": "Groups (cliques)"}
MATRIX_TABS = {"pvalues": "Adjusted p-values", "effects": "Effect sizes", "pwpp": "P-value plot",
               "metrics": "Across metrics", "table": "Table"}
DIST_TABS = {"means": "Bootstrap means", "ranks": "Bootstrap ranks", "values": "Scores"}
#: Systems past which the Leaderboard's table starts with the best ones (``rows=all``: all).
MANY_ROWS = 100
#: The Examples page's charts: the light histogram first, the every-score heatmap on demand.
EXAMPLE_TABS = {"difficulty": "Difficulty", "scores": "Every score"}
#: Leaderboard columns: URL key (the engine's column name; ``rank_range`` and ``ci`` join
#: rank_low/rank_high and ci_low/ci_high) → the label shown. Uploaded metadata columns
#: are their own key and label.
TABLE_COLUMNS = {"rank": "rank", "rank_range": "rank range", "group": "group", "mean": "mean",
                 "ci": "CI", "n": "n", "runs": "runs", "win_rate": "win rate",
                 "bt_strength": "strength (share)", "elo": "Elo"}
BOOT_CHOICES = (200, 1000, 2000, 5000, 10000)
#: Systems the significance graph and the pairwise heatmaps focus on (best first): every one
#: of them keeps a readable label. ``focus`` (chosen systems) overrides it.
TOP_CHOICES = (10, 20, 30, 40)
#: The benchmark a link without ``benchmark`` opens (the README's Python example), when stored.
DEFAULT_BENCHMARK = "humaneval"
ALPHA_RANGE = (0.001, 0.5)
SEED_MAX = 2**32 - 1
MAX_TEXT = 200
#: Plan page: examples or runs to plan for (0 = as observed), target powers, simulation sizes.
PLAN_SIZE = (0, 100_000)
POWER_CHOICES = (0.8, 0.9, 0.95)
SIM_CHOICES = (200, 500, 1000, 2000)
#: Quantile bins a numeric per-example column is cut into on the Slices page (engine default 4).
SLICE_BINS = (2, 3, 4, 5, 6, 8, 10)
#: The test options in the URL (the engine's :class:`engine.TestOptions` fields).
OPTION_PARAMS = ("test", "alternative", "compare", "correction", "alpha", "criterion",
                 "paired", "seed")
#: URL ``cluster`` value of "(no grouping)" chosen on a benchmark with a declared cluster column.
NO_CLUSTER = "-"
#: Tabs of the Overall page (URL values → labels).
OVERALL_TABS = {"systems": "Systems × benchmarks", "pairs": "Pairs × benchmarks"}
MAX_LIST = 100  # values kept of a repeated text parameter (bench, ometric, bw)
