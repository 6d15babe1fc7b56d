"""Ranking: in what order do the systems come, and how sure is that order?

Win rates, Bradley–Terry strength and the Elo scale (``_bradley_terry``) with their
bootstrap (``_bt_bootstrap``), sequential Elo and TrueSkill (``_sequential``), the
aggregation mechanisms compared (``_mechanisms``), groups of systems that cannot be told
apart (``_groups``) and simultaneous rank intervals (``_rank_intervals``). Public names are
exported by :mod:`engine`.
"""
