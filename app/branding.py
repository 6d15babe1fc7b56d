"""The app's favicon and sidebar mark, drawn locally (nothing fetched from a font CDN)."""

from __future__ import annotations

import base64

from PIL import Image, ImageDraw


def favicon() -> Image.Image:
    """Three bars of a bar chart on the theme's blue, 64×64."""
    image = Image.new("RGBA", (64, 64), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    draw.rounded_rectangle((0, 0, 63, 63), radius=12, fill="#3b5b92")
    for left, top in ((10, 30), (26, 12), (42, 22)):
        draw.rectangle((left, top, left + 11, 52), fill="#ffffff")
    return image


FAVICON = favicon()


#: The favicon's bars as an SVG document (also the sidebar's mark).
MARK_SVG = (
    '<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64" viewBox="0 0 64 64">'
    '<rect width="64" height="64" rx="12" fill="#3b5b92"/>'
    + "".join(f'<rect x="{x}" y="{y}" width="11" height="{52 - y}" fill="#fff"/>'
              for x, y in ((10, 30), (26, 12), (42, 22)))
    + "</svg>"
)
#: The sidebar's brand line. An <img> with a data URI, because st.html's sanitiser keeps
#: HTML only (inline <svg> would be dropped); nothing is fetched.
BRAND_HTML = (
    '<div style="display:flex;align-items:center;gap:.5rem;font-size:1.35rem;font-weight:700;'
    'color:#1f2933;margin:.1rem 0 .25rem">'
    '<img alt="" width="26" height="26" src="data:image/svg+xml;base64,'
    + base64.b64encode(MARK_SVG.encode()).decode() + '">sigboard</div>'
)
