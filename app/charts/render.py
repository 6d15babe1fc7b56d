"""Altair charts rendered to SVG on the server (vl-convert), for views that must load light.

An SVG image needs no JavaScript in the browser: no Vega bundle to fetch and
compile, no chart data to marshal on every run. The leaderboard's default
significance graph is drawn this way so that it never holds up the ranked table
above it. vl-convert bundles Vega itself and fetches nothing at run time.
"""

from __future__ import annotations

import altair as alt
import vl_convert


def chart_svg(chart: alt.TopLevelMixin, *, width: int) -> str:
    """``chart`` drawn ``width`` pixels wide as a standalone SVG document (with a viewBox)."""
    with alt.data_transformers.enable("default", max_rows=None):
        spec = chart.properties(width=width).to_dict()
    # data is inline: no base URL is allowed, so rendering can never reach the network
    return str(vl_convert.vegalite_to_svg(spec, allowed_base_urls=[]))
