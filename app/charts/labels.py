"""Where a chart's point labels go so that no two overlap.

Each label is tried right of its point, then left of it, first at the point's height and
then a step further up or down at a time; the first place where its box meets no label
already placed and no other point is taken (points in order of importance: best system
first). A label that finds no place near its point goes into a free row under the plot,
joined to its point by a thin line, so every point keeps a label and none overlap.

Text widths are estimated (no font metrics on the server): :data:`EM_PER_CHAR` of the font
size per character, wide enough for Source Sans Pro's widest common letters.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

#: Estimated width of one character in ems (Source Sans Pro averages about 0.5 em; 0.6
#: covers names heavy in capitals and digits).
EM_PER_CHAR = 0.6
#: Label height in ems, and the gap kept between a point and its label (pixels).
LINE_EMS = 1.25
GAP = 3.0
#: How many vertical steps (one label height each) a label may move from its point.
MAX_STEPS = 6


@dataclass(frozen=True)
class Box:
    """An axis-aligned rectangle in the chart's pixel coordinates (y grows downwards)."""

    x0: float
    y0: float
    x1: float
    y1: float

    def meets(self, other: Box) -> bool:
        """True when the two rectangles share more than an edge."""
        return (self.x0 < other.x1 and other.x0 < self.x1
                and self.y0 < other.y1 and other.y0 < self.y1)


@dataclass(frozen=True)
class Label:
    """A placed label: its text's anchor point, SVG ``text-anchor`` and its box; ``moved``
    when it is away from its point (drawn with a line to it)."""

    x: float
    y: float
    anchor: str
    box: Box
    moved: bool


def text_width(text: str, size: float) -> float:
    """Estimated width in pixels of ``text`` at font size ``size``."""
    return len(text) * size * EM_PER_CHAR


def _box(x: float, y: float, width: float, height: float, anchor: str) -> Box:
    x0 = x if anchor == "start" else x - width
    return Box(x0, y - height / 2, x0 + width, y + height / 2)


def place_labels(points: Sequence[tuple[float, float, float]], texts: Sequence[str],
                 sizes: Sequence[float], *, left: float, right: float, top: float,
                 bottom: float) -> list[Label]:
    """One label per point, in the order given (most important first), none overlapping.

    Parameters
    ----------
    points : sequence of (x, y, radius)
        The points' centres and radii in pixels.
    texts, sizes : sequences
        Each point's label and font size.
    left, right, top : float
        The room for labels (pixels).
    bottom : float
        Where the plot ends: labels with no place near their point go in rows below it.

    Returns
    -------
    list of Label
        In the order of ``points``.

    Examples
    --------
    >>> a, b = place_labels([(10, 50, 4), (12, 51, 4)], ["first", "second"], [12, 12],
    ...                     left=0, right=400, top=0, bottom=100)
    >>> a.box.meets(b.box)
    False
    """
    discs = [Box(x - r, y - r, x + r, y + r) for x, y, r in points]
    placed: list[Label] = []
    overflow = bottom
    for i, ((x, y, r), text, size) in enumerate(zip(points, texts, sizes, strict=True)):
        width, height = text_width(text, size), size * LINE_EMS
        others = [d for j, d in enumerate(discs) if j != i]
        label = _near(x, y, r, width, height, placed, others, (left, right, top, bottom))
        if label is None:  # a free row under the plot, below every earlier overflow
            anchor = "start" if x + width <= right else "end"
            middle = overflow + height / 2
            label = Label(x, middle, anchor, _box(x, middle, width, height, anchor), True)
            overflow += height
        placed.append(label)
    return placed


def _near(x: float, y: float, r: float, width: float, height: float, placed: list[Label],
          discs: list[Box], room: tuple[float, float, float, float]) -> Label | None:
    """The first free place near the point (right, then left; its height, then steps away)
    inside ``room`` (left, right, top, bottom)."""
    left, right, top, bottom = room
    for step in range(MAX_STEPS + 1):
        for dy in ((0.0,) if step == 0 else (-step * height, step * height)):
            for anchor, lx in (("start", x + r + GAP), ("end", x - r - GAP)):
                box = _box(lx, y + dy, width, height, anchor)
                if box.x0 < left or box.x1 > right or box.y0 < top or box.y1 > bottom:
                    continue
                if any(box.meets(p.box) for p in placed) or any(box.meets(d) for d in discs):
                    continue
                return Label(lx, y + dy, anchor, box, step > 0)
    return None
