"""The picture of a game as pixels: the SVG drawing of drawing.py, rasterised.

`render_picture(game)` is what the `rgb_array` render mode of the environments returns:
a uint8[height, width, 3] array of the very drawing the web page shows and `suburbia
render --png` writes (tile names, player labels and values, the market with prices,
goals; public information only, R10.1). Rasterising uses resvg (the `resvg-py` wheel,
no system library) with the system's fonts (DejaVu Sans on Debian, `fonts-dejavu-core`),
and Pillow to read the PNG back into an array. A 2-player table is 1508 x 900 pixels,
a 4-player one 1508 x 1640; one picture takes about 0.2-0.5 s on a 2-core machine.
"""

from __future__ import annotations

import io

import numpy as np

from .drawing import Layout, table_svg

FONT_FAMILY = "DejaVu Sans"


def svg_to_png(svg: str) -> bytes:
    """PNG bytes of an SVG document at its natural size (1 SVG unit = 1 pixel)."""
    import resvg_py
    return bytes(resvg_py.svg_to_bytes(svg_string=svg, font_family=FONT_FAMILY,
                                       sans_serif_family=FONT_FAMILY))


def png_to_rgb(png: bytes) -> np.ndarray:
    """uint8[height, width, 3] of PNG bytes (alpha dropped; the drawing is opaque)."""
    from PIL import Image
    with Image.open(io.BytesIO(png)) as image:
        return np.asarray(image.convert("RGB"), dtype=np.uint8).copy()


def render_picture(game) -> np.ndarray:
    """uint8[height, width, 3]: the `Game` as drawing.table_svg draws it for nobody in
    particular (no private goal): title, market, supply, stacks, public goals, then the
    boroughs two by two in seat order. The caller hands a game over (the environments
    hold one); this layer, below the facade, never builds one."""
    return png_to_rgb(svg_to_png(table_svg(game)))


def picture_layout(game) -> Layout:
    """Where `render_picture` puts each seat's panel and cells (Layout.cell_centre)."""
    return Layout(tuple(range(int(game.num_seats))))
