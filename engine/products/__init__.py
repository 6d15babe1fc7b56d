"""Products: the answer each page shows, built from :mod:`engine.stats` and :mod:`engine.ranking`.

The leaderboard (``_leaderboard``), benchmark health (``_health``), slices by an example
attribute (``_slices``), condition-and-compare of a system setting (``_condition``) and one
example's drill-down (``_drilldown``). Public names are exported by :mod:`engine`.
"""
