"""Draw the web app's icons (static/icons/*.png) from the site icon, static/favicon.svg.

The favicon is a rounded green square with the white spade of the sprite; its one path is
made of straight lines and cubic curves (M, C, c, h, l, z), which this script flattens into
a polygon and paints with Pillow, four times larger than wanted, then scales down (smooth
edges). Three files: ``icon-192.png`` and ``icon-512.png`` (the favicon as it is: rounded
corners, transparent outside) and ``maskable-512.png`` (the green to every edge, the spade
inside the central safe circle that a launcher's mask never cuts).

Run it after changing the favicon, and commit the PNGs (the app does not need Pillow)::

    .venv/bin/pip install pillow && .venv/bin/python scripts/make_icons.py
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FAVICON = ROOT / "static" / "favicon.svg"
OUT = ROOT / "static" / "icons"
SCALE = 4  # supersampling
Point = tuple[float, float]


def favicon_parts(svg: str) -> tuple[str, float, str, str]:
    """(background colour, corner radius, glyph colour, glyph path) of the favicon."""
    rect = re.search(r'<rect[^>]*rx="([\d.]+)"[^>]*fill="(#[0-9a-fA-F]{3,6})"', svg)
    path = re.search(r'<path fill="(#[0-9a-fA-F]{3,6})" d="([^"]+)"', svg)
    if not rect or not path:
        raise SystemExit("static/favicon.svg: expected one <rect rx fill> and one <path fill d>")
    return rect.group(2), float(rect.group(1)), path.group(1), path.group(2)


def _cubic(p0: Point, p1: Point, p2: Point, p3: Point, steps: int = 24) -> list[Point]:
    out = []
    for i in range(1, steps + 1):
        t = i / steps
        u = 1 - t
        out.append(
            (
                u**3 * p0[0] + 3 * u * u * t * p1[0] + 3 * u * t * t * p2[0] + t**3 * p3[0],
                u**3 * p0[1] + 3 * u * u * t * p1[1] + 3 * u * t * t * p2[1] + t**3 * p3[1],
            )
        )
    return out


def flatten(d: str) -> list[Point]:
    """The points of an SVG path of M, L/l, H/h, V/v, C/c and Z (one closed outline)."""
    tokens = re.findall(r"[MLHVCZmlhvcz]|-?(?:\d+\.?\d*|\.\d+)", d)
    points: list[Point] = []
    cur: Point = (0.0, 0.0)
    command = ""
    i = 0

    def number() -> float:
        nonlocal i
        value = float(tokens[i])
        i += 1
        return value

    while i < len(tokens):
        if tokens[i].isalpha():
            command = tokens[i]
            i += 1
            if command in "Zz":
                continue
        relative = command.islower()
        ox, oy = cur if relative else (0.0, 0.0)
        kind = command.upper()
        if kind == "M" or kind == "L":
            cur = (ox + number(), oy + number())
            points.append(cur)
            if kind == "M":
                command = "l" if relative else "L"
        elif kind == "H":
            cur = ((cur[0] if relative else 0.0) + number(), cur[1])
            points.append(cur)
        elif kind == "V":
            cur = (cur[0], (cur[1] if relative else 0.0) + number())
            points.append(cur)
        elif kind == "C":
            p1 = (ox + number(), oy + number())
            p2 = (ox + number(), oy + number())
            p3 = (ox + number(), oy + number())
            points.extend(_cubic(cur, p1, p2, p3))
            cur = p3
        else:
            raise SystemExit(f"unsupported path command {command!r}")
    return points


def draw(size: int, *, maskable: bool) -> object:
    from PIL import Image, ImageDraw

    background, radius, ink, d = favicon_parts(FAVICON.read_text())
    big = size * SCALE
    image = Image.new("RGBA", (big, big), (0, 0, 0, 0))
    pen = ImageDraw.Draw(image)
    unit = big / 100  # the favicon's viewBox is 100 x 100
    if maskable:
        pen.rectangle((0, 0, big, big), fill=background)
        # The safe zone is the central circle of 80% of the width: the glyph (about 64% of
        # the favicon) is drawn at 80% of its size, centred.
        glyph, offset = 0.8 * unit, big * 0.1
    else:
        pen.rounded_rectangle((0, 0, big - 1, big - 1), radius=radius * unit, fill=background)
        glyph, offset = unit, 0.0
    outline = [(offset + x * glyph, offset + y * glyph) for x, y in flatten(d)]
    pen.polygon(outline, fill=ink)
    return image.resize((size, size), Image.Resampling.LANCZOS)


def main() -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    for name, size, maskable in (
        ("icon-192.png", 192, False),
        ("icon-512.png", 512, False),
        ("maskable-512.png", 512, True),
    ):
        image = draw(size, maskable=maskable)
        image.save(OUT / name, optimize=True)  # type: ignore[attr-defined]
        print(f"static/icons/{name}: {size}x{size}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
