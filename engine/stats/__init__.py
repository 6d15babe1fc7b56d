"""One benchmark's statistics: is one system better than another, and how sure are we?

All-pairs kernels over the systems × examples matrix (``_kernels``), the test plan and its
statistics (``_pairwise_plan``, ``_pairwise_stats``, ``_pairwise``), partial overlap
(``_overlap``), difference intervals (``_intervals``), multiplicity (``_multitest``),
repeated runs (``_runs``), the A/B comparison (``_ab``), power (``_power``), bootstrap
distributions (``_bootstrap``), boxplot statistics (``_describe``) and the additive fit
for incomplete systems (``_additive``). The workflow's names
are exported by :mod:`engine`, the result types by :mod:`engine.results`; anything else
is imported from the module that defines it.
"""
