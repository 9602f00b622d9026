"""A hand and sleeved arm as a few polygons floating above the board.

Built in the hand's own 2D frame (u: from the fingertips back along the arm, v: across it, both in
pitches), then laid into the world with a height that rises from the fingertips to the shoulder.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from vision.sim.scene import Hand, side_direction

ARM_LENGTH = 14.0  # pitches: far enough to leave any frame


@dataclass
class HandPolygon:
    verts: np.ndarray  # [K, 3] world
    colour: tuple[float, float, float]  # BGR
    outline: tuple[float, float, float] | None = None


def _capsule(u0: float, v0: float, u1: float, v1: float, radius: float, n: int = 7) -> np.ndarray:
    """Outline [K, 2] of a rounded bar from (u0, v0) to (u1, v1)."""
    d = math.atan2(v1 - v0, u1 - u0)
    half = np.linspace(-math.pi / 2, math.pi / 2, n)
    end1 = np.stack([u1 + radius * np.cos(d + half), v1 + radius * np.sin(d + half)], -1)
    end0 = np.stack(
        [u0 + radius * np.cos(d + math.pi + half), v0 + radius * np.sin(d + math.pi + half)], -1
    )
    return np.concatenate([end1, end0])


def _rounded_rect(u0: float, u1: float, half_w: float, r: float, n: int = 5) -> np.ndarray:
    """Outline [K, 2] of a rectangle with rounded corners (convex: sorting by angle orders it)."""
    corners = ((u0 + r, -half_w + r, math.pi), (u0 + r, half_w - r, math.pi / 2),
               (u1 - r, half_w - r, 0.0), (u1 - r, -half_w + r, 1.5 * math.pi))  # fmt: skip
    pts = []
    for cu, cv, a0 in corners:
        a = a0 + np.linspace(0, math.pi / 2, n)
        pts.append(np.stack([cu + r * np.cos(a), cv + r * np.sin(a)], -1))
    outline = np.concatenate(pts)
    centre = outline.mean(0)
    order = np.argsort(np.arctan2(outline[:, 1] - centre[1], outline[:, 0] - centre[0]))
    return outline[order]


def _shade(colour: tuple[int, int, int], k: float) -> tuple[float, float, float]:
    return tuple(min(255.0, c * k) for c in colour)  # type: ignore[return-value]


def hand_polygons(hand: Hand) -> list[HandPolygon]:
    """Polygons in paint order (sleeve first, fingers last)."""
    w = hand.width
    back = np.array(side_direction(hand.from_side, hand.angle_deg))  # from the tips towards the arm
    across = np.array([-back[1], back[0]])
    tip = np.array(hand.tip, dtype=np.float64)
    thumb_side = 1.0 if hand.left else -1.0

    def world(uv: np.ndarray) -> np.ndarray:
        u, v = uv[:, 0], uv[:, 1]
        xy = tip + u[:, None] * back + v[:, None] * across
        z = hand.height + np.clip(u, 0, None) * 0.3 + np.clip(u - w, 0, None) * 0.15
        return np.column_stack([xy, z])

    skin, sleeve = hand.skin, hand.sleeve
    polys: list[HandPolygon] = []
    # sleeve: three strips, the edges darker, so it reads as a rounded arm
    s_half = 0.62 * w
    for v_lo, v_hi, k in (
        (-s_half, -0.3 * w, 0.7),
        (0.3 * w, s_half, 0.75),
        (-0.3 * w, 0.3 * w, 1.0),
    ):
        quad = np.array([[1.35 * w, v_lo], [ARM_LENGTH, v_lo * 1.15], [ARM_LENGTH, v_hi * 1.15],
                         [1.35 * w, v_hi]])  # fmt: skip
        polys.append(HandPolygon(world(quad), _shade(sleeve, k)))
    wrist = np.array(
        [[0.9 * w, -0.4 * w], [1.5 * w, -0.45 * w], [1.5 * w, 0.45 * w], [0.9 * w, 0.4 * w]]
    )
    polys.append(HandPolygon(world(wrist), _shade(skin, 0.9)))
    palm = _rounded_rect(0.42 * w, 1.12 * w, 0.5 * w, 0.18 * w)
    polys.append(HandPolygon(world(palm), _shade(skin, 1.0), _shade(skin, 0.75)))
    thumb = _capsule(0.85 * w, thumb_side * 0.4 * w, 0.5 * w, thumb_side * 0.78 * w, 0.12 * w)
    polys.append(HandPolygon(world(thumb), _shade(skin, 0.93), _shade(skin, 0.7)))
    finger_tips = (0.16, 0.02, 0.08, 0.3)
    fan = 0.22 * hand.spread
    for i, tip_u in enumerate(finger_tips):
        v_base = (-0.375 + 0.25 * i) * w
        v_tip = v_base * (1.0 + 2.0 * fan)
        radius = 0.105 * w
        cap = _capsule(0.55 * w, v_base, (tip_u + 0.1) * w, v_tip, radius)
        polys.append(
            HandPolygon(world(cap), _shade(skin, 0.97 - 0.03 * (i % 2)), _shade(skin, 0.72))
        )
    return polys
