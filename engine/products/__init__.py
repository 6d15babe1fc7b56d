"""Products: the answer each page shows, built from :mod:`engine.stats` and :mod:`engine.ranking`.

The leaderboard (``_leaderboard``), the overall leaderboard across benchmarks and its
per-benchmark parts (``_overall``, ``_overall_parts``, ``_overall_pairs``, ``_overall_score``,
``_overall_judge``; built on :mod:`engine.across`), benchmark health (``_health``), slices by
an example attribute (``_slices``), condition-and-compare of a system setting (``_condition``)
and one example's drill-down (``_drilldown``). The workflow's names
are exported by :mod:`engine`, the result types by :mod:`engine.results`; anything else
is imported from the module that defines it.
"""
