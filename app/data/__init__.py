"""The app's data layer: the only place the app caches anything.

- :mod:`app.data.store` — the results store, the token that names its current data, and
  its rows as read;
- :mod:`app.data.slices` — the data key of a slice of a benchmark, and the slices a
  benchmark offers;
- :mod:`app.data.query` — :class:`~app.data.query.Query`, the one question a page asks of a
  benchmark (data key, metric, test options, cluster column, and the page's own parts: the
  pair compared, the example, the split, the setting, the power plan, the human metric,
  the champion), built once from the URL (``Query.of``); the Overall page's
  :class:`~app.data.query.AcrossQuery` and a battle list's
  :class:`~app.data.query.ArenaQuery`: the key of the results a page's table and charts
  share, so both are drawn from one result;
- :mod:`app.data.results` — the engine's results of one benchmark;
- :mod:`app.data.overall` — the engine's results across benchmarks;
- :mod:`app.data.figures` — the charts of those results.

Every cached answer takes the page's query (a result that reads only some of its parts is
cached under a query holding only those, ``Query.narrowed``); what feeds the answers (the
store's rows, the matrix) and what a page offers to choose from (benchmarks, cluster
columns, slices, settings) take a data key first: the store's token (its identity plus its
``data_version()``, read on every run, so an upload in any session or replica makes every
page compute again) or a slice's key. Other arguments are hashable (tuples, the engine's
frozen :class:`engine.TestOptions`, the frozen queries).
Results are shared read-only objects (``st.cache_resource``: no copies, no pickling):
callers copy before changing a frame.
The layer draws on the engine and on ``app/charts``, never on the pages' components.
"""
