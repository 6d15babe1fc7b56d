"""The app's favicon, drawn locally (a material-icon favicon would be fetched from a font CDN)."""

from __future__ import annotations

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
