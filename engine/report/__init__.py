"""Reports for a pull request or a stakeholder: one file, HTML or Markdown, opens offline.

The reports themselves (``_reports``), their inline SVG charts (``_svg``) and their text
and tables (``_text``). Public names are exported by :mod:`engine`.
"""
