"""Draw a frame's ground truth on it: grid, markers, per-square labels, the hand outline.

People check a camera system by looking; this is the picture of what the reader should find.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision import geometry
from vision.sim.renderer import GroundTruth

_LABEL = {"flat": "F", "wall": "S", "cap": "C"}


def _pt(xy: np.ndarray) -> tuple[int, int]:
    return round(float(xy[0]) * 16), round(float(xy[1]) * 16)


def draw_truth(image: np.ndarray, truth: GroundTruth) -> np.ndarray:
    """A copy of `image` with the truth drawn on it. Square labels: height, colour (L/D), kind
    (F flat, S standing wall, C capstone), e.g. "3DC"; a red label marks a square a hand covers, an
    orange one a square mostly hidden behind a nearer stack."""
    out = image.copy()
    H = truth.H_img_from_board
    n = truth.size

    def board_to_img(pts: np.ndarray) -> np.ndarray:
        h = np.c_[pts, np.ones(len(pts))] @ H.T
        return h[:, :2] / h[:, 2:]

    for k in range(n + 1):
        for a, b in (((k, 0), (k, n)), ((0, k), (n, k))):
            p, q = board_to_img(np.array([a, b], float))
            cv2.line(out, _pt(p), _pt(q), (0, 255, 255), 1, cv2.LINE_AA, 4)
    for marker_id, corners in truth.marker_corners_img.items():
        colour = (0, 255, 0) if truth.markers_visible[marker_id] else (0, 0, 255)
        poly = np.round(corners * 16).astype(np.int32)
        cv2.polylines(out, [poly], True, colour, 2, cv2.LINE_AA, 4)
        cv2.circle(out, _pt(corners[0]), 4 * 16, colour, -1, cv2.LINE_AA, 4)  # ArUco's first corner
        label_at = (int(corners[:, 0].min()), int(corners[:, 1].min()) - 6)
        cv2.putText(
            out, f"id {marker_id}", label_at, cv2.FONT_HERSHEY_SIMPLEX, 0.5, colour, 1, cv2.LINE_AA
        )
    for name, square in truth.squares.items():
        file, rank = geometry.FILES.index(name[0]), int(name[1:]) - 1
        centre = board_to_img(np.array([geometry.square_center(file, rank)]))[0]
        text = (
            name
            if square.empty
            else f"{square.height}{square.color[0].upper()}{_LABEL[square.kind]}"
        )
        colour = (255, 255, 255)
        if square.visible < 0.5:  # hidden behind a nearer stack (or a hand)
            colour = (0, 165, 255)
        if square.occluded:
            colour = (0, 0, 255)
        size, _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, 0.45, 1)
        org = (int(centre[0] - size[0] / 2), int(centre[1] + size[1] / 2))
        cv2.putText(out, text, org, cv2.FONT_HERSHEY_SIMPLEX, 0.45, (0, 0, 0), 3, cv2.LINE_AA)
        cv2.putText(out, text, org, cv2.FONT_HERSHEY_SIMPLEX, 0.45, colour, 1, cv2.LINE_AA)
    if truth.hand_present:
        contours, _ = cv2.findContours(
            truth.hand_mask.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE
        )
        cv2.drawContours(out, contours, -1, (255, 0, 255), 2, cv2.LINE_AA)
    return out


def contact_sheet(images: list[np.ndarray], columns: int, width: int = 400) -> np.ndarray:
    """Images scaled to `width` and tiled, `columns` per row, on a dark background."""
    tiles = [cv2.resize(im, (width, round(im.shape[0] * width / im.shape[1])),
                        interpolation=cv2.INTER_AREA) for im in images]  # fmt: skip
    tile_h = max(t.shape[0] for t in tiles)
    rows = -(-len(tiles) // columns)
    sheet = np.full((rows * tile_h + (rows + 1) * 4, columns * width + (columns + 1) * 4, 3), 24,
                    np.uint8)  # fmt: skip
    for i, tile in enumerate(tiles):
        r, c = divmod(i, columns)
        y, x = 4 + r * (tile_h + 4), 4 + c * (width + 4)
        sheet[y : y + tile.shape[0], x : x + width] = tile
    return sheet
