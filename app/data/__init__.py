"""The app's data layer: the only place the app caches anything.

- :mod:`app.data.store` — the results store, the token that names its current data, and
  its rows as read;
- :mod:`app.data.slices` — the data key of a slice of a benchmark, and the slices a
  benchmark offers;
- :mod:`app.data.query` — :class:`~app.data.query.Query`, the one question a page asks of a
  benchmark (data key, metric, test options, cluster column): the key of the results a
  page's table and charts share, so both are drawn from one result;
- :mod:`app.data.results` — the engine's results of one benchmark;
- :mod:`app.data.overall` — the engine's results across benchmarks;
- :mod:`app.data.figures` — the charts of those results.

Every cached function takes a data key first: the store's token (its identity plus its
``data_version()``, read on every run, so an upload in any session or replica makes
every page compute again) or a slice's key, or a :class:`~app.data.query.Query` holding it.
Other arguments are hashable (tuples, the engine's frozen :class:`engine.TestOptions`).
Results are shared read-only objects (``st.cache_resource``: no copies, no pickling):
callers copy before changing a frame.
The layer draws on the engine and on ``app/charts``, never on the pages' components.
"""
