"""Data in: how a result file becomes the canonical long table.

The limits on one upload and the cheap scans that enforce them (``_limits``), the bytes
before parsing (``_bytes``: reading, inflation, encoding, format detection), the parsers
(``_parse``), the checks on a parsed frame (``_checks``), the format dispatcher
(``_formats``), the readers that shape the canonical table (``_readers``) and the
memory-capped child parser (``_worker``). The workflow's names
are exported by :mod:`engine`, the result types by :mod:`engine.results`; anything else
is imported from the module that defines it.
"""
