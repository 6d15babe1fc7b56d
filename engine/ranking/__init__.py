"""Ranking: in what order do the systems come, and how sure is that order?

Win rates, Bradley–Terry strength and the Elo scale (``_bradley_terry``) with their
bootstrap (``_bt_bootstrap``), sequential Elo and TrueSkill (``_sequential``), one Elo
update from given ratings (``_elo``), the
aggregation mechanisms compared (``_mechanisms``), groups of systems that cannot be told
apart (``_groups``: compact letters in ``_letters``, clique listing in ``_cliques``),
simultaneous rank intervals (``_rank_intervals``) and rank confidence sets (``_rank_sets``
from estimates and a covariance, by the max-t stepdown of ``_max_t``; ``_mean_covariance``
from a score matrix), and the one rank-with-ties of every table (``_ties``:
:func:`~engine.ranking._ties.competition_ranks`). The workflow's names
are exported by :mod:`engine`, the result types by :mod:`engine.results`; anything else
is imported from the module that defines it.
"""
