"""Reports for a pull request or a stakeholder: one file, HTML or Markdown, opens offline.

The reports themselves (``_reports``), their inline SVG charts (``_svg``) and their text
and tables (``_text``). The workflow's names
are exported by :mod:`engine`, the result types by :mod:`engine.results`; anything else
is imported from the module that defines it.
"""
