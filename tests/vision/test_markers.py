"""The marker sheet: true scale in every format, markers exactly where `vision.geometry` says."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import cv2
import numpy as np
import pytest

from controller import cli
from vision import geometry
from vision.markers import (
    SCALE_BAR_MM,
    build_cutout_sheet,
    build_sheet,
    parse_length_mm,
    rasterize,
    to_pdf,
    to_svg,
)


@pytest.mark.parametrize(("size", "pitch"), [(3, 30.0), (5, 50.0), (8, 45.0)])
def test_printed_markers_are_detected_at_their_true_positions(size, pitch):
    sheet = build_sheet(size, pitch)
    px_per_mm = 4.0
    image = rasterize(sheet, px_per_mm)
    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, geometry.DICTIONARY))
    corners, ids, _ = cv2.aruco.ArucoDetector(dictionary).detectMarkers(image)
    assert sorted(ids.ravel().tolist()) == [0, 1, 2, 3]
    for marker_id, found in zip(ids.ravel(), corners, strict=True):
        board = geometry.marker_corners(size, int(marker_id))
        expected_mm = np.array([sheet.page_from_board(x, y) for x, y in board])
        expected_px = expected_mm * px_per_mm - 0.5  # pixel centres at integers
        assert np.abs(found.reshape(4, 2) - expected_px).max() <= 0.75
    # the marker side on paper is 0.6 pitch
    side_mm = np.linalg.norm(np.diff(corners[0].reshape(4, 2)[:2], axis=0)) / px_per_mm
    assert side_mm == pytest.approx(geometry.MARKER_SIDE * pitch, abs=0.3)


def test_svg_is_in_millimetres_with_a_100_mm_scale_bar():
    sheet = build_sheet(6, 50.0)
    root = ET.fromstring(to_svg(sheet))
    assert root.get("width") == f"{sheet.width:.3f}mm"
    assert root.get("viewBox") == f"0 0 {sheet.width:.3f} {sheet.height:.3f}"
    ns = {"s": "http://www.w3.org/2000/svg"}
    bars = [r for r in root.findall("s:rect", ns) if float(r.get("width")) == SCALE_BAR_MM]
    assert len(bars) == 1
    # vertical grid lines: as long as the grid, one pitch apart
    grid_xs = sorted(
        float(ln.get("x1"))
        for ln in root.findall("s:line", ns)
        if ln.get("x1") == ln.get("x2")
        and abs(float(ln.get("y2")) - float(ln.get("y1"))) == pytest.approx(6 * 50.0)
    )
    assert len(grid_xs) == 7
    assert np.allclose(np.diff(grid_xs), 50.0)
    assert "pitch 50 mm" in ET.tostring(root, encoding="unicode")


def test_pdf_page_is_true_size_and_well_formed():
    sheet = build_sheet(4, 40.0)
    pdf = to_pdf(sheet)
    assert pdf.startswith(b"%PDF-1.4") and pdf.rstrip().endswith(b"%%EOF")
    box = re.search(rb"/MediaBox \[0 0 ([\d.]+) ([\d.]+)\]", pdf)
    assert float(box[1]) == pytest.approx(sheet.width * 72 / 25.4, abs=0.01)
    assert float(box[2]) == pytest.approx(sheet.height * 72 / 25.4, abs=0.01)
    xref_at = int(re.search(rb"startxref\n(\d+)", pdf)[1])
    assert pdf[xref_at:].startswith(b"xref")
    # every object offset in the table points at "N 0 obj"
    offsets = [int(m) for m in re.findall(rb"(\d{10}) 00000 n", pdf)]
    for number, offset in enumerate(offsets, start=1):
        assert pdf[offset:].startswith(f"{number} 0 obj".encode())


@pytest.mark.parametrize(
    ("text", "mm"), [("50mm", 50.0), ("5cm", 50.0), ("2in", 50.8), ("42", 42.0), (" 37.5 mm", 37.5)]
)
def test_pitch_lengths_parse_with_units(text, mm):
    assert parse_length_mm(text) == pytest.approx(mm)


@pytest.mark.parametrize("text", ["", "fifty", "50 furlongs", "5mm", "-50mm", "3m"])
def test_bad_pitch_lengths_are_refused_quoting_them(text):
    with pytest.raises(ValueError, match=re.escape(repr(text))):
        parse_length_mm(text)


def test_markers_command_writes_svg_and_pdf(tmp_path, capsys):
    svg, pdf = tmp_path / "m.svg", tmp_path / "m.pdf"
    assert cli.main(["vision", "markers", "--size", "5", "--pitch", "5cm", "-o", str(svg)]) == 0
    assert "print at 100 %" in capsys.readouterr().out
    assert ET.parse(svg).getroot().get("width").endswith("mm")
    assert cli.main(["vision", "markers", "--size", "5", "-o", str(pdf)]) == 0
    assert pdf.read_bytes().startswith(b"%PDF")


def test_markers_command_refuses_bad_input_clearly(tmp_path, capsys):
    assert cli.main(["vision", "markers", "--size", "9", "-o", str(tmp_path / "m.svg")]) == 2
    assert "board size 9 is outside 3..8" in capsys.readouterr().err
    assert cli.main(["vision", "markers", "--size", "5", "-o", str(tmp_path / "m.doc")]) == 2
    assert "use .svg, .pdf or .png" in capsys.readouterr().err


def test_cutout_markers_sit_a_tenth_pitch_from_the_corner_to_glue_on_the_grid_corner():
    pitch, px_per_mm = 50.0, 4.0
    sheet = build_cutout_sheet(6, pitch)
    assert (round(sheet.width), round(sheet.height)) == (210, 297)  # A4
    image = rasterize(sheet, px_per_mm)
    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, geometry.DICTIONARY))
    corners, ids, _ = cv2.aruco.ArucoDetector(dictionary).detectMarkers(image)
    found = {int(i): c.reshape(4, 2) for i, c in zip(ids.ravel(), corners, strict=True)}
    assert sorted(found) == [0, 1, 2, 3]
    # the L marks (two thick lines from one point) give the glue corners, in mm
    l_corners = sorted(
        {(round(ln.x0, 3), round(ln.y0, 3)) for ln in sheet.lines if ln.width == 0.5}
    )
    assert len(l_corners) == 4
    # ArUco corner order: top-left, top-right, bottom-right, bottom-left; each marker's corner
    # nearest the grid, and the page direction (x right, y down) from it to the grid corner
    nearest = {0: (1, (1, -1)), 1: (0, (-1, -1)), 2: (3, (-1, 1)), 3: (2, (1, 1))}
    gap = geometry.MARKER_GAP * pitch
    for marker_id, (index, (dx, dy)) in nearest.items():
        corner_mm = (found[marker_id][index] + 0.5) / px_per_mm
        expected = corner_mm + np.array([dx, dy]) * gap
        distances = [np.hypot(*(np.array(c) - expected)) for c in l_corners]
        assert min(distances) < 0.3, (marker_id, expected, l_corners)
        side = np.linalg.norm(found[marker_id][1] - found[marker_id][0]) / px_per_mm
        assert side == pytest.approx(geometry.MARKER_SIDE * pitch, abs=0.3)


def test_markers_command_writes_the_cutout_layout(tmp_path, capsys):
    out = tmp_path / "cut.pdf"
    args = ["vision", "markers", "--size", "6", "-o", str(out), "--layout", "cutout"]
    assert cli.main(args) == 0
    assert "markers to cut out" in capsys.readouterr().out
    assert b"/MediaBox [0 0 595.276 841.890]" in out.read_bytes()
