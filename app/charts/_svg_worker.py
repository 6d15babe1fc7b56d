"""Vega-Lite → SVG in a long-lived child process: ``python -m app.charts._svg_worker``.

vl-convert holds the Python interpreter lock while it draws (measured: another
thread of the same process got 6% of its usual progress), so drawing inside the
server would stall every session's traffic for the 0.15–0.3 s a large graph
takes. Protocol: one JSON spec per line on stdin; per spec, the SVG's length in
bytes on one line, then the SVG (UTF-8). It imports only vl-convert.
"""

from __future__ import annotations

import json
import re
import sys
from typing import Any

import vl_convert

_LONG_DECIMALS = re.compile(r"(\d\.\d{2})\d+")
_ATTRIBUTE = re.compile(r'="([^"]*)"')
_HIDDEN = ' aria-hidden="true"'


def render_svg(spec: dict[str, Any]) -> str:
    """The spec as SVG; numbers in attributes cut to two decimals, no per-mark ARIA.

    A hundredth of a pixel is kept, and the image as a whole has its alt text: a
    graph with 1,200 edges shrinks by about 40% (it is sent on every run). Label
    text is never touched.
    """
    # data is inline: no base URL is allowed, so rendering can never reach the network
    svg = str(vl_convert.vegalite_to_svg(spec, allowed_base_urls=[]))
    return _ATTRIBUTE.sub(_shorten, svg.replace(_HIDDEN, ""))


def _shorten(attribute: re.Match[str]) -> str:
    return '="' + _LONG_DECIMALS.sub(r"\1", attribute.group(1)) + '"'


def main() -> None:
    out = sys.stdout.buffer
    for line in sys.stdin.buffer:
        body = render_svg(json.loads(line)).encode()
        out.write(b"%d\n" % len(body) + body)
        out.flush()


if __name__ == "__main__":
    main()
