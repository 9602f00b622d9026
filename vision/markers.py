"""The printable marker sheet: the four ArUco markers and the grid at true scale, with a scale bar.

One `Sheet` (shapes in millimetres, y down the page) is written three ways from the same shapes: SVG
(`width="...mm"`), PDF (points, 72 per inch) and a raster preview (for tests and a quick look), so
what is printed is what was checked. Marker placement comes from `vision.geometry`.

Print at 100 % ("actual size", no fit-to-page) and check the scale bar with a ruler.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from vision import geometry

PAGE_MARGIN_MM = 10.0
SCALE_BAR_MM = 100.0
BORDER = 0.95  # pitches of sheet around the grid (markers reach 0.7)

_UNITS_MM = {"mm": 1.0, "cm": 10.0, "in": 25.4, "": 1.0}


def parse_length_mm(text: str) -> float:
    """ "50mm", "5cm", "2in" or "50" (mm) -> millimetres; ValueError quoting the text otherwise."""
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*(mm|cm|in|)\s*", str(text))
    if not match:
        raise ValueError(f"length {text!r}: expected a number with mm, cm or in (e.g. 50mm)")
    value = float(match[1]) * _UNITS_MM[match[2]]
    if not 10.0 <= value <= 200.0:
        raise ValueError(f"length {text!r}: a square pitch of {value:g} mm is outside 10..200 mm")
    return value


@dataclass
class Rect:
    x: float
    y: float
    w: float
    h: float
    fill: tuple[int, int, int]  # RGB


@dataclass
class Line:
    x0: float
    y0: float
    x1: float
    y1: float
    width: float
    stroke: tuple[int, int, int]  # RGB


@dataclass
class Text:
    x: float
    y: float  # baseline
    size: float  # mm
    text: str


@dataclass
class Sheet:
    """Shapes on one page, millimetres, origin top-left, y down."""

    width: float
    height: float
    size: int
    pitch_mm: float
    origin: tuple[float, float]  # page position of the board-frame origin (the a1 grid corner)
    rects: list[Rect] = field(default_factory=list)
    lines: list[Line] = field(default_factory=list)
    texts: list[Text] = field(default_factory=list)

    def page_from_board(self, x: float, y: float) -> tuple[float, float]:
        """Board frame (pitches, y up) -> page (mm, y down)."""
        return self.origin[0] + x * self.pitch_mm, self.origin[1] - y * self.pitch_mm


def build_sheet(size: int, pitch_mm: float) -> Sheet:
    if not 3 <= size <= 8:
        raise ValueError(f"board size {size} is outside 3..8")
    p = pitch_mm
    board_mm = (size + 2 * BORDER) * p
    width = board_mm + 2 * PAGE_MARGIN_MM
    width = max(width, SCALE_BAR_MM + 2 * PAGE_MARGIN_MM + 10)
    footer = 28.0
    height = board_mm + 2 * PAGE_MARGIN_MM + footer
    origin = (
        PAGE_MARGIN_MM + (width - 2 * PAGE_MARGIN_MM - size * p) / 2,
        PAGE_MARGIN_MM + 8 + (BORDER + size) * p,
    )
    sheet = Sheet(width, height, size, p, origin)
    black, grey, light = (0, 0, 0), (150, 150, 150), (200, 200, 200)
    # grid: thin inner lines, a firmer outline
    for k in range(size + 1):
        edge = k in (0, size)
        w, colour = (0.5, black) if edge else (0.25, grey)
        x0, y0 = sheet.page_from_board(k, 0)
        x1, y1 = sheet.page_from_board(k, size)
        sheet.lines.append(Line(x0, y0, x1, y1, w, colour))
        x0, y0 = sheet.page_from_board(0, k)
        x1, y1 = sheet.page_from_board(size, k)
        sheet.lines.append(Line(x0, y0, x1, y1, w, colour))
    # markers: cell by cell, black cells only (the paper is the white)
    for marker_id, corners in geometry.all_marker_corners(size).items():
        mx0, my1 = corners[0]
        _draw_marker(sheet, marker_id, *sheet.page_from_board(mx0, my1), p)
        # cut guide around the quiet zone, and a label on the outer side
        pad = 0.06
        gx0, gy0 = sheet.page_from_board(mx0 - pad, my1 + pad)
        gx1, gy1 = sheet.page_from_board(corners[2][0] + pad, corners[2][1] - pad)
        for a, b in (((gx0, gy0), (gx1, gy0)), ((gx1, gy0), (gx1, gy1)),
                     ((gx1, gy1), (gx0, gy1)), ((gx0, gy1), (gx0, gy0))):  # fmt: skip
            sheet.lines.append(Line(*a, *b, 0.15, light))
        label_y = gy0 - 1.5 if marker_id in (2, 3) else gy1 + 3.5
        corner_name = {0: "a1", 1: f"{geometry.FILES[size - 1]}1", 2: "far", 3: f"a{size}"}[
            marker_id
        ]
        sheet.texts.append(Text(gx0, label_y, 2.5, f"id {marker_id} ({corner_name} corner)"))
    ax, ay = sheet.page_from_board(0.05, 0.05)
    sheet.texts.append(Text(ax + 1, ay - 1.5, 3.0, "a1"))
    # footer: scale bar and what this is
    bar_y = height - PAGE_MARGIN_MM - 14
    bar_x = PAGE_MARGIN_MM
    _scale_bar(sheet, bar_x, bar_y)
    sheet.texts.append(
        Text(
            bar_x, bar_y + 11, 3.0,
            f"takboard markers: {size}x{size} board, square pitch {p:g} mm, "
            f"ArUco {geometry.DICTIONARY} ids 0-3, marker side {geometry.MARKER_SIDE * p:g} mm",
        )
    )  # fmt: skip
    sheet.texts.append(Text(bar_x, PAGE_MARGIN_MM + 2, 3.0, "far side (player 2)"))
    return sheet


def _draw_marker(sheet: Sheet, marker_id: int, x_mm: float, y_mm: float, pitch_mm: float) -> None:
    """One marker's black cells, its top-left corner at page (x_mm, y_mm), upright."""
    cell = geometry.MARKER_SIDE / 6 * pitch_mm
    pattern = marker_pattern(marker_id)
    overlap = 0.05  # mm into a black neighbour, so viewers show no hairline between cells
    for i in range(6):
        for j in range(6):
            if pattern[i, j]:
                grow_x = overlap if j < 5 and pattern[i, j + 1] else 0.0
                grow_y = overlap if i < 5 and pattern[i + 1, j] else 0.0
                sheet.rects.append(
                    Rect(x_mm + j * cell, y_mm + i * cell, cell + grow_x, cell + grow_y, (0, 0, 0))
                )


def _scale_bar(sheet: Sheet, x: float, y: float) -> None:
    sheet.rects.append(Rect(x, y, SCALE_BAR_MM, 1.0, (0, 0, 0)))
    for k in range(11):
        tick = 4.0 if k % 5 == 0 else 2.5
        tx = x + k * SCALE_BAR_MM / 10
        sheet.lines.append(Line(tx, y - tick, tx, y + 1.0, 0.3, (0, 0, 0)))
    sheet.texts.append(
        Text(x, y + 6, 3.0, f"this bar is {SCALE_BAR_MM:g} mm: print at 100 % (no fit to page)")
    )


def build_cutout_sheet(size: int, pitch_mm: float) -> Sheet:
    """The four markers alone, to cut out and glue onto an existing board (A4 when they fit).

    Each marker's cut line runs through the grid corner it belongs to on its two inner sides: put
    that corner of the paper on the board's grid corner, edges along the grid lines, and the marker
    sits exactly where `vision.geometry` says. `Sheet.page_from_board` is not meaningful here."""
    if not 3 <= size <= 8:
        raise ValueError(f"board size {size} is outside 3..8")
    p = pitch_mm
    pad = 0.06 * p
    side = geometry.MARKER_SIDE * p
    gap = geometry.MARKER_GAP * p
    piece = side + pad + gap  # the cut square: pad on the outer sides, up to the grid corner inside
    tile_w, tile_h = max(piece + 20.0, 85.0), piece + 24.0
    width = max(210.0, 2 * tile_w + 2 * PAGE_MARGIN_MM)
    height = max(297.0, 2 * tile_h + 2 * PAGE_MARGIN_MM + 50.0)
    sheet = Sheet(width, height, size, p, (0.0, 0.0))
    grey = (150, 150, 150)
    names = {0: "a1", 1: f"{geometry.FILES[size - 1]}1", 2: f"{geometry.FILES[size - 1]}{size}",
             3: f"a{size}"}  # fmt: skip
    # which side of the marker the grid is on: +1 = right/up in board terms
    towards = {0: (1, 1), 1: (-1, 1), 2: (-1, -1), 3: (1, -1)}
    for marker_id in geometry.MARKER_IDS:
        row, col = {3: (0, 0), 2: (0, 1), 0: (1, 0), 1: (1, 1)}[marker_id]  # as on the board
        tx = PAGE_MARGIN_MM + col * tile_w + (tile_w - piece) / 2
        ty = PAGE_MARGIN_MM + 20.0 + row * tile_h
        gx, gy = towards[marker_id]
        # page x grows right (board +x), page y grows down (board -y)
        left = tx + (pad if gx > 0 else gap)
        top = ty + (pad if gy < 0 else gap)
        _draw_marker(sheet, marker_id, left, top, p)
        x0, x1, y0, y1 = tx, tx + piece, ty, ty + piece
        for a, b in (((x0, y0), (x1, y0)), ((x1, y0), (x1, y1)),
                     ((x1, y1), (x0, y1)), ((x0, y1), (x0, y0))):  # fmt: skip
            sheet.lines.append(Line(*a, *b, 0.2, grey))
        corner_x = x1 if gx > 0 else x0
        corner_y = y0 if gy > 0 else y1
        # a black L along the two cut edges that meet the grid corner: that corner goes on it
        sheet.lines.append(Line(corner_x, corner_y, corner_x - 6 * gx, corner_y, 0.5, (0, 0, 0)))
        sheet.lines.append(Line(corner_x, corner_y, corner_x, corner_y + 6 * gy, 0.5, (0, 0, 0)))
        sheet.texts.append(
            Text(x0, y1 + 6, 3.0, f"id {marker_id}: outside the {names[marker_id]} corner")
        )
        sheet.texts.append(
            Text(x0, y1 + 10.5, 2.5, "cut out; the corner with the L goes on the grid corner")
        )
    sheet.texts.append(
        Text(
            PAGE_MARGIN_MM, PAGE_MARGIN_MM + 5, 3.5,
            f"takboard markers to cut out: {size}x{size} board, pitch {p:g} mm, "
            f"marker side {side:g} mm",
        )
    )  # fmt: skip
    _scale_bar(sheet, PAGE_MARGIN_MM, height - PAGE_MARGIN_MM - 14)
    return sheet


def marker_pattern(marker_id: int) -> np.ndarray:
    """The 6x6 cells (border included) of one marker, True = black. Row 0 is the top (+y) row."""
    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, geometry.DICTIONARY))
    cells = cv2.aruco.generateImageMarker(dictionary, marker_id, 6)
    return cells < 128


# ----------------------------------------------------------------------------------------------
def _hex(rgb: tuple[int, int, int]) -> str:
    return "#{:02x}{:02x}{:02x}".format(*rgb)


def _escape_xml(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def to_svg(sheet: Sheet) -> str:
    """SVG at true scale: width and height in mm, user units = mm."""
    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{sheet.width:.3f}mm" '
        f'height="{sheet.height:.3f}mm" viewBox="0 0 {sheet.width:.3f} {sheet.height:.3f}">',
        f'<rect x="0" y="0" width="{sheet.width:.3f}" height="{sheet.height:.3f}" fill="#ffffff"/>',
    ]
    for r in sheet.rects:
        out.append(
            f'<rect x="{r.x:.4f}" y="{r.y:.4f}" width="{r.w:.4f}" height="{r.h:.4f}" '
            f'fill="{_hex(r.fill)}" shape-rendering="crispEdges"/>'
        )
    for ln in sheet.lines:
        out.append(
            f'<line x1="{ln.x0:.4f}" y1="{ln.y0:.4f}" x2="{ln.x1:.4f}" y2="{ln.y1:.4f}" '
            f'stroke="{_hex(ln.stroke)}" stroke-width="{ln.width:.3f}"/>'
        )
    for t in sheet.texts:
        out.append(
            f'<text x="{t.x:.3f}" y="{t.y:.3f}" font-family="Helvetica, Arial, sans-serif" '
            f'font-size="{t.size:.2f}">{_escape_xml(t.text)}</text>'
        )
    out.append("</svg>")
    return "\n".join(out) + "\n"


_PT_PER_MM = 72.0 / 25.4


def to_pdf(sheet: Sheet) -> bytes:
    """A one-page PDF at true scale (MediaBox in points), using only the built-in Helvetica."""
    k = _PT_PER_MM
    page_h = sheet.height * k
    ops: list[str] = []
    for r in sheet.rects:
        rgb = " ".join(f"{c / 255:.3f}" for c in r.fill)
        ops.append(
            f"{rgb} rg {r.x * k:.3f} {page_h - (r.y + r.h) * k:.3f} "
            f"{r.w * k:.3f} {r.h * k:.3f} re f"
        )
    for ln in sheet.lines:
        rgb = " ".join(f"{c / 255:.3f}" for c in ln.stroke)
        ops.append(
            f"{rgb} RG {ln.width * k:.3f} w {ln.x0 * k:.3f} {page_h - ln.y0 * k:.3f} m "
            f"{ln.x1 * k:.3f} {page_h - ln.y1 * k:.3f} l S"
        )
    for t in sheet.texts:
        safe = t.text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
        ops.append(
            f"0 0 0 rg BT /F1 {t.size * k:.2f} Tf {t.x * k:.3f} {page_h - t.y * k:.3f} Td "
            f"({safe}) Tj ET"
        )
    content = ("\n".join(ops) + "\n").encode("latin-1", "replace")
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        (
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {sheet.width * k:.3f} {page_h:.3f}] "
            f"/Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>"
        ).encode(),
        b"<< /Length " + str(len(content)).encode() + b" >>\nstream\n" + content + b"endstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    pdf = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(pdf))
        pdf += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(pdf)
    pdf += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    for offset in offsets:
        pdf += f"{offset:010d} 00000 n \n".encode()
    pdf += (
        f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    )
    return bytes(pdf)


def rasterize(sheet: Sheet, px_per_mm: float = 4.0) -> np.ndarray:
    """The sheet as a grey image [H, W] uint8 (text left out): what a printer at that resolution
    would put on paper. Used by tests to check scale and marker placement with cv2.aruco."""
    h, w = round(sheet.height * px_per_mm), round(sheet.width * px_per_mm)
    img = np.full((h, w), 255, np.uint8)
    shift = 4
    one = 1 << shift

    def fx(v: float) -> int:
        return round((v * px_per_mm - 0.5) * one)

    for r in sheet.rects:
        # a rect covers [x, x+w] in mm: pixel centres (i + 0.5)/px_per_mm inside it are filled
        x0, y0 = r.x * px_per_mm, r.y * px_per_mm
        x1, y1 = (r.x + r.w) * px_per_mm, (r.y + r.h) * px_per_mm
        img[round(y0) : round(y1), round(x0) : round(x1)] = int(np.mean(r.fill))
    for ln in sheet.lines:
        cv2.line(
            img, (fx(ln.x0), fx(ln.y0)), (fx(ln.x1), fx(ln.y1)), int(np.mean(ln.stroke)),
            max(1, round(ln.width * px_per_mm)), cv2.LINE_AA, shift,
        )  # fmt: skip
    return img


LAYOUTS = ("board", "cutout")


def write_sheet(size: int, pitch_mm: float, path: str | Path, layout: str = "board") -> Path:
    """Write the sheet as .svg or .pdf (by the file's suffix); .png writes the raster preview.
    layout "board": the whole grid with its markers; "cutout": the four markers to cut out."""
    out = Path(path)
    if layout not in LAYOUTS:
        raise ValueError(f"layout {layout!r} is not one of {', '.join(LAYOUTS)}")
    sheet = build_sheet(size, pitch_mm) if layout == "board" else build_cutout_sheet(size, pitch_mm)
    suffix = out.suffix.lower()
    if suffix == ".svg":
        out.write_text(to_svg(sheet), encoding="utf-8")
    elif suffix == ".pdf":
        out.write_bytes(to_pdf(sheet))
    elif suffix == ".png":
        if not cv2.imwrite(str(out), rasterize(sheet, 8.0)):
            raise OSError(f"{out}: could not write the PNG")
    else:
        raise ValueError(
            f"{out}: unknown sheet format {suffix or '(none)'!r}; use .svg, .pdf or .png"
        )
    return out
