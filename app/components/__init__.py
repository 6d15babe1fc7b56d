"""Page sections: each draws one part of a page (widgets, tables, charts) from cached results.

Pages in ``app/views/`` stay thin (read the URL view → widgets → cached engine
call → one of these); pure helpers (no Streamlit) are in ``app/`` and ``app/charts/``.
"""
