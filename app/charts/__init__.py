"""Charts drawn from engine results: SVG written here, Vega-Lite dicts (:mod:`app.charts.vl`)
and the self-contained pyvis graph."""
