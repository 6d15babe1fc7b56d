"""Across benchmarks and metrics: what holds when one benchmark is not the whole story?

The statistics that combine benchmarks or metrics: the harmonic mean p-value (``_hmp``),
fixed-effect meta-analysis and standardised means (``_meta``), the aggregate metric of a
benchmark (``_aggregate``), a weighted combination of correlated differences (``_combine``),
a pair's tests combined and the pooling inputs the Overall product reads (``_pairs_across``),
the table across metrics (``_metrics_table``), the Friedman test (``_friedman``), coverage
and the default selection of benchmarks (``_coverage``), the leading systems of a large
store (``_bounded``) and the joint model of the whole results matrix that ranks systems
which skipped benchmarks (``_joint``; its cells and identifiability: ``_joint_cells``).
The Overall page's product built from them lives in :mod:`engine.products` (``_overall*``),
above this folder. The workflow's names are exported by :mod:`engine`, the result types by
:mod:`engine.results`; anything else is imported from the module that defines it.
"""
