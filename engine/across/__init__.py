"""Across benchmarks and metrics: what holds when one benchmark is not the whole story?

The harmonic mean p-value (``_hmp``), fixed-effect meta-analysis and standardised means
(``_meta``), the aggregate metric of a benchmark (``_aggregate``), the overall leaderboard
and its per-benchmark parts (``_overall``, ``_overall_parts``), a pair's tests combined
(``_pairs_across``), the table across metrics (``_metrics_table``) and the Friedman test
(``_friedman``). Public names are exported by :mod:`engine`.
"""
