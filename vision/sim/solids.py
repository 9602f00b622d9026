"""Pieces as 3D solids: flat tiles (square or round), standing walls, capstones (cylinder or pawn).

A solid is a list of `Part`s, each a batch of planar faces with the same vertex count, in the order
they must be painted (bottom parts first). World frame = board frame (pitches, z up).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from vision import geometry


@dataclass
class Part:
    verts: np.ndarray  # [F, K, 3] face polygons
    normals: np.ndarray  # [F, 3] outward unit normals


def box(cx: float, cy: float, z0: float, sx: float, sy: float, sz: float, angle: float) -> Part:
    """An upright box centred on (cx, cy), bottom at z0, turned `angle` radians about z.
    Five faces (no bottom)."""
    c, s = math.cos(angle), math.sin(angle)
    ax = np.array([c, s, 0.0]) * sx / 2
    ay = np.array([-s, c, 0.0]) * sy / 2
    base = np.array([cx, cy, z0])
    up = np.array([0.0, 0.0, sz])
    b = [base - ax - ay, base + ax - ay, base + ax + ay, base - ax + ay]
    t = [p + up for p in b]
    faces = [
        t,
        [b[0], b[1], t[1], t[0]],
        [b[1], b[2], t[2], t[1]],
        [b[2], b[3], t[3], t[2]],
        [b[3], b[0], t[0], t[3]],
    ]
    ux, uy = ax / np.linalg.norm(ax), ay / np.linalg.norm(ay)
    normals = [np.array([0.0, 0.0, 1.0]), -uy, ux, uy, -ux]
    return Part(np.array(faces), np.array(normals))


def frustum(cx: float, cy: float, z0: float, z1: float, r0: float, r1: float, segments: int,
            phase: float = 0.0, top: bool = True) -> list[Part]:  # fmt: skip
    """A cone frustum (a cylinder when r0 == r1): side quads, then the top disk."""
    ang = phase + np.arange(segments + 1) * (2 * math.pi / segments)
    cos, sin = np.cos(ang), np.sin(ang)
    lo = np.stack([cx + r0 * cos, cy + r0 * sin, np.full_like(cos, z0)], -1)
    hi = np.stack([cx + r1 * cos, cy + r1 * sin, np.full_like(cos, z1)], -1)
    quads = np.stack([lo[:-1], lo[1:], hi[1:], hi[:-1]], 1)
    mid = ang[:-1] + math.pi / segments
    dz, dr = z1 - z0, r0 - r1
    normals = np.stack([np.cos(mid) * dz, np.sin(mid) * dz, np.full_like(mid, dr)], -1)
    normals /= np.linalg.norm(normals, axis=1, keepdims=True)
    parts = [Part(quads, normals)]
    if top and r1 > 1e-6:
        parts.append(Part(hi[None, :-1], np.array([[0.0, 0.0, 1.0]])))
    return parts


def flat(cx: float, cy: float, z0: float, angle: float, round_: bool) -> list[Part]:
    w, h = geometry.FLAT_WIDTH, geometry.FLAT_THICKNESS
    if round_:
        return frustum(cx, cy, z0, z0 + h, w / 2, w / 2, 28, angle)
    return [box(cx, cy, z0, w, w, h, angle)]


def wall(cx: float, cy: float, z0: float, angle: float) -> list[Part]:
    return [
        box(cx, cy, z0, geometry.FLAT_WIDTH, geometry.WALL_THICKNESS, geometry.WALL_HEIGHT, angle)
    ]


# Pawn profile as (z0, z1, r0, r1) in units of (cap height, cap radius): base, waist, collar, head.
_PAWN = (
    (0.00, 0.12, 1.00, 1.00),
    (0.12, 0.20, 1.00, 0.70),
    (0.20, 0.66, 0.62, 0.38),
    (0.66, 0.71, 0.58, 0.58),
    (0.71, 0.78, 0.42, 0.52),
    (0.78, 0.88, 0.52, 0.50),
    (0.88, 0.95, 0.50, 0.34),
    (0.95, 1.00, 0.34, 0.00),
)


def cap(cx: float, cy: float, z0: float, style: str) -> list[Part]:
    r, h = geometry.CAP_DIAMETER / 2, geometry.CAP_HEIGHT
    if style == "pawn":
        parts: list[Part] = []
        for a, b, ra, rb in _PAWN:
            parts += frustum(cx, cy, z0 + a * h, z0 + b * h, ra * r, rb * r, 24)
        return parts
    return frustum(cx, cy, z0, z0 + h, r, r, 24)


def piece_parts(kind: str, cx: float, cy: float, z0: float, angle: float, round_flats: bool,
                cap_style: str) -> list[Part]:  # fmt: skip
    if kind == "flat":
        return flat(cx, cy, z0, angle, round_flats)
    if kind == "wall":
        return wall(cx, cy, z0, angle)
    if kind == "cap":
        return cap(cx, cy, z0, cap_style)
    raise ValueError(f"unknown piece kind {kind!r}")
