"""The board top as a texture in board coordinates: wood grain, grid lines, printed markers.

Texture pixel (u, v) covers board x in [x0 + u/ppp, x0 + (u+1)/ppp] and board y in
[y1 - (v+1)/ppp, y1 - v/ppp] (rows go down the image, +y goes up the board). The margin is a whole
number of tenths of a pitch and ppp a multiple of ten, so every marker cell (0.1 p) and every grid
line centre falls exactly on texel boundaries: the markers are sharp and exactly where
`vision.geometry` says.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from vision import geometry
from vision.markers import marker_pattern
from vision.sim.look import Look

MARKER_INK = (28, 28, 30)
PAD = 0.06  # paper around each marker's black border, pitches (the gap to the grid is 0.1 p)


@dataclass(frozen=True)
class BoardTexture:
    image: np.ndarray  # [H, W, 3] uint8 BGR
    ppp: int  # texels per pitch
    x0: float  # board x of the texture's left edge
    y1: float  # board y of the texture's top edge

    @property
    def H_board_from_tex(self) -> np.ndarray:
        """Texel centre (u, v) -> board (x, y). shape: [3, 3]"""
        s = 1.0 / self.ppp
        return np.array(
            [[s, 0.0, self.x0 + 0.5 * s], [0.0, -s, self.y1 - 0.5 * s], [0.0, 0.0, 1.0]]
        )


def _wood(rng: np.random.Generator, h: int, w: int, ppp: int, look: Look) -> np.ndarray:
    """Wood grain: long growth rings along the grain, gently bent, plus fine fibre streaks."""
    ang = math.radians(look.grain_angle_deg)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32) / ppp
    across = xx * math.sin(ang) - yy * math.cos(ang)
    along = xx * math.cos(ang) + yy * math.sin(ang)
    # bends: a few slow waves, slow along the grain, a little faster across it
    bend = np.zeros_like(xx)
    for _ in range(4):
        f_along, f_across = rng.uniform(0.03, 0.2), rng.uniform(0.01, 0.1)
        amp = rng.uniform(0.05, 0.4) * look.grain_period * 2
        bend += amp * np.sin(
            2 * math.pi * (f_along * along + f_across * across) + rng.uniform(0, 6.3)
        )
    phase = (across + bend) * (2 * math.pi / look.grain_period)
    rings = np.power(0.5 + 0.5 * np.sin(phase), 2.5)
    # fibres: noise stretched along the grain
    fibres = rng.standard_normal((h, max(w // 24, 2))).astype(np.float32)
    if abs(math.cos(ang)) < 0.5:  # grain runs along y
        fibres = rng.standard_normal((max(h // 24, 2), w)).astype(np.float32)
    fibres = cv2.resize(fibres, (w, h), interpolation=cv2.INTER_LINEAR)
    mix = np.clip(look.grain_strength * rings + 0.05 * fibres + 0.04, 0.0, 1.0)[..., None]
    board = np.array(look.board_color, np.float32)
    grain = np.array(look.grain_color, np.float32)
    return board * (1.0 - mix) + grain * mix


@lru_cache(maxsize=6)
def board_texture(look: Look, size: int, ppp: int) -> BoardTexture:
    """The board top for one look: wood, optional inlaid squares, grid lines, the four markers."""
    if ppp % 10:
        raise ValueError(f"texels per pitch {ppp} must be a multiple of 10")
    margin = round(look.board_margin * 10) / 10
    margin = max(margin, geometry.MARKER_GAP + geometry.MARKER_SIDE + PAD + 0.1)
    extent = size + 2 * margin
    n_px = round(extent * ppp)
    rng = np.random.default_rng([look.seed, size, 0x70D])
    # the grain is smooth: make it at half resolution and scale it up (4x less work)
    half = _wood(rng, (n_px + 1) // 2, (n_px + 1) // 2, ppp // 2, look)
    tex = cv2.resize(half, (n_px, n_px), interpolation=cv2.INTER_LINEAR)
    x0, y1 = -margin, size + margin

    def cols(x_lo: float, x_hi: float) -> slice:
        return slice(round((x_lo - x0) * ppp), round((x_hi - x0) * ppp))

    def rows(y_lo: float, y_hi: float) -> slice:
        return slice(round((y1 - y_hi) * ppp), round((y1 - y_lo) * ppp))

    if look.checker:
        for f in range(size):
            for r in range(size):
                if (f + r) % 2 == 0:
                    tex[rows(r, r + 1), cols(f, f + 1)] *= 1.0 - look.checker
    half = max(1, round(look.line_width * ppp / 2))
    line = np.array(look.line_color, np.float32)
    for k in range(size + 1):
        c = round((k - x0) * ppp)
        tex[rows(0, size).start - half : rows(0, size).stop + half, c - half : c + half] = line
        r = round((y1 - k) * ppp)
        tex[r - half : r + half, cols(0, size).start - half : cols(0, size).stop + half] = line
    paper = np.array(look.marker_paper, np.float32)
    ink = np.array(MARKER_INK, np.float32)
    cell = geometry.MARKER_SIDE / 6
    for marker_id, corners in geometry.all_marker_corners(size).items():
        mx0, my1 = corners[0]  # top-left = (x0, y1)
        mx1, my0 = corners[2]
        tex[rows(my0 - PAD, my1 + PAD), cols(mx0 - PAD, mx1 + PAD)] = paper
        pattern = marker_pattern(marker_id)
        for i in range(6):
            for j in range(6):
                colour = ink if pattern[i, j] else paper
                cx = mx0 + j * cell
                cy = my1 - (i + 1) * cell
                tex[rows(cy, cy + cell), cols(cx, cx + cell)] = colour
    image = np.clip(tex, 0, 255).astype(np.uint8)
    return BoardTexture(image, ppp, x0, y1)


@lru_cache(maxsize=4)
def table_image(look: Look, width: int, height: int) -> np.ndarray:
    """The table around the board: a colour with soft blotches and fine texture. [H, W, 3] uint8"""
    rng = np.random.default_rng([look.seed, 0x7AB1E])
    w, h = width // 2, height // 2  # made at half size, scaled up: it is soft anyway
    blotch = cv2.resize(
        rng.standard_normal((5, 8)).astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC
    )
    fine = cv2.resize(rng.standard_normal((h // 2, w // 2)).astype(np.float32), (w, h))
    shade = 1.0 + look.table_texture * (0.6 * blotch + 0.5 * fine)
    table = np.clip(np.array(look.table_color, np.float32) * shade[..., None], 0, 255)
    return cv2.resize(table.astype(np.uint8), (width, height), interpolation=cv2.INTER_LINEAR)
