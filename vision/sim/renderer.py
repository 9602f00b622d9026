"""Compose one frame: table, board, markers, LED glow, shadows, pieces, hands, light and sensor.

Paint order does the occlusion: stacks from far to near (horizontal distance from the lens), each
stack bottom to top, hands last. The static part (table, board slab, texture, markers) depends only
on the look and the camera and is cached, so a source rendering many frames pays for it once.
"""

from __future__ import annotations

import math
import zlib
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from vision import geometry
from vision.sim.camera import NEAR_PLANE, SimCamera
from vision.sim.hands import hand_polygons
from vision.sim.look import Look
from vision.sim.scene import (
    Hand,
    Scene,
    all_squares,
    parse_square,
    side_direction,
    stack_top_height,
)
from vision.sim.solids import Part, piece_parts
from vision.sim.textures import board_texture, table_image

SHIFT = 4  # fillPoly fixed-point bits: vertices to 1/16 pixel
_ONE = 1 << SHIFT


@dataclass(frozen=True)
class SquareTruth:
    empty: bool
    color: str | None  # "light" | "dark" | None
    kind: str | None  # "flat" | "wall" | "cap" | None
    height: int
    occluded: bool  # a hand or arm covers part of the square or its stack in the image
    visible: float  # share of the top piece (or of an empty square's surface) the camera sees:
    #                 1.0 = all of it; less when a nearer tall stack, a wall or a hand hides it


@dataclass(frozen=True)
class GroundTruth:
    """What the camera really sees. Image points in pixels, OpenCV convention (pixel centres at
    integers); board points in pitches (see `vision.geometry`)."""

    size: int
    H_img_from_board: np.ndarray  # [3, 3], the board plane z = 0
    grid_corners_img: np.ndarray  # [4, 2], geometry's corner order
    marker_corners_img: dict[int, np.ndarray]  # id -> [4, 2], ArUco's corner order
    markers_visible: dict[int, bool]  # False when a hand covers the marker or it leaves the frame
    squares: dict[str, SquareTruth]
    hand_present: bool  # any hand or arm pixel in the frame
    hand_over_board: bool  # a hand or arm over the grid area
    hand_mask: np.ndarray  # [H, W] bool


@dataclass(frozen=True)
class RenderedFrame:
    image: np.ndarray  # [H, W, 3] uint8 BGR
    truth: GroundTruth


# ----------------------------------------------------------------------------------------------
# light
def light_direction(look: Look) -> np.ndarray:
    """Unit vector from the board towards the lamp. shape: [3]"""
    az, el = math.radians(look.light_azimuth_deg), math.radians(look.light_elevation_deg)
    return np.array([math.cos(el) * math.cos(az), math.cos(el) * math.sin(az), math.sin(el)])


def _to_ground(pts: np.ndarray, light: np.ndarray, z: float = 0.0) -> np.ndarray:
    """Shadow of world points [N, 3] on the plane at height z, cast away from the lamp."""
    k = (pts[:, 2] - z) / light[2]
    return pts - k[:, None] * light


# ----------------------------------------------------------------------------------------------
# polygons
def _clip_near(cam_pts: np.ndarray) -> np.ndarray:
    """Clip one polygon [K, 3] (camera frame) to the half space z >= NEAR_PLANE."""
    out = []
    k = len(cam_pts)
    for i in range(k):
        a, b = cam_pts[i], cam_pts[(i + 1) % k]
        a_in, b_in = a[2] >= NEAR_PLANE, b[2] >= NEAR_PLANE
        if a_in:
            out.append(a)
        if a_in != b_in:
            t = (NEAR_PLANE - a[2]) / (b[2] - a[2])
            out.append(a + t * (b - a))
    return np.array(out).reshape(-1, 3)


def _project_polygon(camera: SimCamera, world: np.ndarray) -> np.ndarray | None:
    """World polygon [K, 3] -> fixed-point pixel polygon [K', 2] int32; None if behind the lens."""
    cam = camera.to_camera(world)
    if (cam[:, 2] < NEAR_PLANE).any():
        cam = _clip_near(cam)
        if len(cam) < 3:
            return None
    img = camera.cam_to_img(cam)
    img = np.clip(img, -4 * camera.width, 5 * camera.width)  # keep fixed point in range
    return np.round(img * _ONE).astype(np.int32)


def _fill(img: np.ndarray, poly: np.ndarray, colour, aa: bool = True) -> None:
    cv2.fillPoly(img, [poly], colour, cv2.LINE_AA if aa else cv2.LINE_8, SHIFT)


# ----------------------------------------------------------------------------------------------
# static background
def texels_per_pitch(camera: SimCamera) -> int:
    """Texture density: 1.5x the densest image sampling, a multiple of 10 (see textures.py)."""
    ppp = camera.pixels_per_pitch() * 1.5
    return int(min(max(math.ceil(ppp / 10) * 10, 60), 320))


@lru_cache(maxsize=4)
def static_layer(camera: SimCamera, look: Look) -> np.ndarray:
    """Table, the board's shadow on it, its visible sides, and its top with grid and markers."""
    size = camera.size
    img = table_image(look, camera.width, camera.height).copy()
    tex = board_texture(look, size, texels_per_pitch(camera))
    light = light_direction(look)
    x0, y1 = tex.x0, tex.y1
    x1, y0 = x0 + tex.image.shape[1] / tex.ppp, y1 - tex.image.shape[0] / tex.ppp
    thick = look.board_thickness
    top = np.array([[x0, y0, 0.0], [x1, y0, 0.0], [x1, y1, 0.0], [x0, y1, 0.0]])
    bottom = top - np.array([0.0, 0.0, thick])
    # the board's shadow on the table, soft
    small = (camera.width // 4, camera.height // 4)  # soft: drawn and blurred at quarter size
    shadow = np.zeros(small[::-1], np.uint8)
    ground = _to_ground(np.concatenate([top, bottom]), light, -thick)
    hull = cv2.convexHull(camera.project(ground).astype(np.float32)).reshape(-1, 2)
    _fill(shadow, np.round((hull + 0.5) / 4 * _ONE - _ONE / 2).astype(np.int32), 255)
    blur = max(1.0, 0.15 * camera.pixels_per_pitch() / 4)
    shadow = cv2.resize(cv2.GaussianBlur(shadow, (0, 0), blur), (camera.width, camera.height))
    factor = 1.0 - 0.55 * (shadow.astype(np.float32) / 255.0)
    img = (img.astype(np.float32) * factor[..., None]).astype(np.uint8)
    # sides facing the lens
    lens = camera.centre
    side_colour = np.array(look.grain_color, np.float64) * 0.75
    middle = top.mean(0)
    for i in range(4):
        j = (i + 1) % 4
        quad = np.array([top[i], top[j], bottom[j], bottom[i]])
        outward = (top[i] + top[j]) / 2 - middle
        outward /= np.linalg.norm(outward)
        if outward @ (lens - quad.mean(0)) <= 0:
            continue
        lit = 0.6 + 0.4 * max(0.0, float(outward @ light))
        poly = _project_polygon(camera, quad)
        if poly is not None:
            _fill(img, poly, tuple(float(c) for c in side_colour * lit))
    # the top, warped from the texture
    H = camera.H_img_from_board @ tex.H_board_from_tex
    cv2.warpPerspective(
        tex.image, H, (camera.width, camera.height), dst=img, flags=cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_TRANSPARENT,
    )  # fmt: skip
    return img


# ----------------------------------------------------------------------------------------------
# pieces
def _piece_rng(look: Look, square: str, level: int) -> np.random.Generator:
    """Per-piece randomness that stays put from frame to frame (a piece does not jiggle)."""
    return np.random.default_rng([look.seed, zlib.crc32(square.encode()), level])


def piece_offset(look: Look, square: str, level: int, rng: np.random.Generator | None = None
                 ) -> tuple[float, float]:  # fmt: skip
    """How far the piece at `level` of `square`'s stack sits off the square's centre (pitches,
    board axes): set squarely on the square, never exactly; pieces above the first sit a little
    straighter on the stack. `rng`: that piece's `_piece_rng`, to draw the rest from it after."""
    rng = _piece_rng(look, square, level) if rng is None else rng
    jitter = look.jitter * (0.6 if level else 1.0)
    return float(rng.uniform(-jitter, jitter)), float(rng.uniform(-jitter, jitter))


def _stack_parts(scene: Scene, square: str, look: Look) -> list[tuple[list[Part], np.ndarray]]:
    """Per piece: its parts and its base colour (BGR float)."""
    return _stack_solids(scene.size, square, tuple(map(tuple, scene.stacks[square])), look)


@lru_cache(maxsize=2048)
def _stack_solids(size: int, square: str, stack: tuple[tuple[str, str], ...],
                  look: Look) -> list[tuple[list[Part], np.ndarray]]:  # fmt: skip
    """`_stack_parts`, cached: a stack that did not change between frames is not rebuilt.
    (The arrays are shared between calls; nothing may modify them.)"""
    file, rank = parse_square(square, size)
    cx, cy = geometry.square_center(file, rank)
    out = []
    z = 0.0
    for level, (colour, kind) in enumerate(stack):
        rng = _piece_rng(look, square, level)
        dx, dy = piece_offset(look, square, level, rng)
        px, py = cx + dx, cy + dy
        if kind == "wall":
            angle = math.radians(float(rng.choice([0.0, 45.0, 90.0, -45.0])) + rng.uniform(-10, 10))
        else:
            angle = math.radians(rng.uniform(-8, 8))
        parts = piece_parts(kind, px, py, z, angle, look.round_flats, look.cap_style)
        base = np.array(look.light_color if colour == "light" else look.dark_color, np.float64)
        # pieces of one set differ mostly in tone, a little in hue
        tone = look.piece_tint * float(np.clip(rng.standard_normal(), -2, 2))
        hue = 0.3 * look.piece_tint * rng.standard_normal(3).clip(-2, 2)
        base = base * (1.0 + tone + hue)
        out.append((parts, base))
        z += geometry.FLAT_THICKNESS
    return out


def _stack_order(scene: Scene, camera: SimCamera) -> list[str]:
    """Squares with stacks, farthest from the lens (horizontally) first."""
    lens = camera.centre[:2]

    def dist(square: str) -> float:
        file, rank = parse_square(square, scene.size)
        cx, cy = geometry.square_center(file, rank)
        return -math.hypot(cx - lens[0], cy - lens[1])

    return sorted((sq for sq, st in scene.stacks.items() if st), key=dist)


@lru_cache(maxsize=4)
def _piece_grain(look: Look, width: int, height: int) -> np.ndarray:
    """Streaky brightness [H, W] float32 around 1, laid over wooden pieces."""
    rng = np.random.default_rng([look.seed, 0x6A1])
    streaks = rng.standard_normal((height // 3, max(width // 40, 2))).astype(np.float32)
    streaks = cv2.resize(streaks, (width, height), interpolation=cv2.INTER_LINEAR)
    angle = float(rng.uniform(-60, 60))
    turn = cv2.getRotationMatrix2D((width / 2, height / 2), angle, 1.0)
    streaks = cv2.warpAffine(streaks, turn, (width, height), borderMode=cv2.BORDER_REFLECT)
    return 1.0 + look.piece_grain * np.clip(streaks, -2.5, 2.5)


def _part_strokes(camera: SimCamera, look: Look, parts: list[Part], base: np.ndarray) -> list:
    """Shaded faces of one piece as seen by the camera: a list of
    (polygon fixed point [K, 2], fill BGR, outline BGR or None, seam (p, q, BGR) or None)."""
    light = light_direction(look)
    lens = camera.centre
    strokes = []
    for part in parts:
        centroids = part.verts.mean(1)
        view = lens - centroids
        view /= np.linalg.norm(view, axis=1, keepdims=True)
        facing = np.einsum("fi,fi->f", part.normals, view) > 1e-6
        if not facing.any():
            continue
        normals = part.normals[facing]
        diffuse = np.clip(normals @ light, 0.0, None)
        half = view[facing] + light
        half /= np.linalg.norm(half, axis=1, keepdims=True)
        spec = np.clip(np.einsum("fi,fi->f", normals, half), 0.0, None) ** 24
        shade = look.ambient + (1.0 - look.ambient) * diffuse
        colours = base[None, :] * shade[:, None] + (look.gloss * 200.0 * spec)[:, None]
        colours = np.clip(colours, 0, 255)
        verts = part.verts[facing]
        img_pts = camera.project(verts.reshape(-1, 3)).reshape(len(verts), -1, 2)
        fixed = np.round(img_pts * _ONE).astype(np.int32)
        tops = normals[:, 2] > 0.99
        sides = np.abs(normals[:, 2]) < 0.01
        for poly, colour, is_top, is_side in zip(fixed, colours, tops, sides, strict=True):
            outline = seam = None
            if is_top:  # the rounded edge of a tile catches less light than its face
                outline = tuple((colour * 0.82).tolist())
            elif is_side and len(poly) == 4:  # the seam where this piece meets the next
                p, q = tuple(poly[2].tolist()), tuple(poly[3].tolist())
                seam = (p, q, tuple((colour * 0.7).tolist()))
            strokes.append((poly, tuple(colour.tolist()), outline, seam))
    return strokes


def _paint(img: np.ndarray, strokes: list, covered: np.ndarray | None = None) -> None:
    for poly, colour, outline, seam in strokes:
        cv2.fillPoly(img, [poly], colour, cv2.LINE_AA, SHIFT)
        if covered is not None:
            cv2.fillPoly(covered, [poly], 255, cv2.LINE_8, SHIFT)
        if outline is not None:
            cv2.polylines(img, [poly], True, outline, 1, cv2.LINE_AA, SHIFT)
        elif seam is not None:
            cv2.line(img, seam[0], seam[1], seam[2], 1, cv2.LINE_AA, SHIFT)


@lru_cache(maxsize=2048)
def _stack_strokes(camera: SimCamera, look: Look, size: int, square: str,
                   stack: tuple[tuple[str, str], ...]) -> list[tuple]:  # fmt: skip
    """What painting one stack takes (see `_part_strokes`), cached per camera, look and stack."""
    strokes = []
    for parts, base in _stack_solids(size, square, stack, look):
        strokes += _part_strokes(camera, look, parts, base)
    return strokes


def _draw_pieces(img: np.ndarray, scene: Scene, camera: SimCamera, look: Look) -> None:
    """Stacks far to near, each bottom to top, then wood grain over wooden pieces."""
    covered = np.zeros(img.shape[:2], np.uint8) if look.piece_grain > 0 else None
    for square in _stack_order(scene, camera):
        stack = tuple(map(tuple, scene.stacks[square]))
        _paint(img, _stack_strokes(camera, look, scene.size, square, stack), covered)
    if covered is not None and covered.any():
        x, y, w, h = cv2.boundingRect(covered)
        roi = (slice(y, y + h), slice(x, x + w))
        grain = _piece_grain(look, camera.width, camera.height)[roi]
        factor = np.where(covered[roi] > 0, grain, np.float32(1.0))
        img[roi] = np.clip(img[roi] * factor[..., None], 0, 255).astype(np.uint8)


def _shadow_mask(scene: Scene, camera: SimCamera, look: Look,
                 stacks: dict[str, list[tuple[list[Part], np.ndarray]]]) -> np.ndarray:  # fmt: skip
    """Soft shadows of stacks and hands on the board, 0..1 float32 [H, W].

    Drawn and blurred at reduced resolution (shadows are soft anyway), which keeps the wide blur
    of a hand's shadow cheap."""
    light = light_direction(look)
    ppp = camera.pixels_per_pitch()
    size = (camera.width, camera.height)

    def small_mask(scale: int) -> np.ndarray:
        return np.zeros((camera.height // scale, camera.width // scale), np.uint8)

    def fixed(img_pts: np.ndarray, scale: int) -> np.ndarray:
        return np.round((img_pts + 0.5) / scale * _ONE - _ONE / 2).astype(np.int32)

    mask = small_mask(2)
    for pieces in stacks.values():
        pts = np.concatenate([p.verts.reshape(-1, 3) for parts, _ in pieces for p in parts])
        ground = camera.project(_to_ground(pts, light))
        hull = cv2.convexHull(ground.astype(np.float32)).reshape(-1, 2)
        _fill(mask, fixed(hull, 2), 255)
    mask = cv2.GaussianBlur(mask, (0, 0), max(0.7, 0.05 * ppp / 2))
    out = cv2.resize(mask, size, interpolation=cv2.INTER_LINEAR)
    if scene.hands:
        hand_mask = small_mask(8)
        for hand in scene.hands:
            for poly in hand_polygons(hand):
                ground = _to_ground(poly.verts, light)
                cam = camera.to_camera(ground)
                if (cam[:, 2] < NEAR_PLANE).any():
                    cam = _clip_near(cam)
                    if len(cam) < 3:
                        continue
                _fill(hand_mask, fixed(camera.cam_to_img(cam), 8), 200)
        hand_mask = cv2.GaussianBlur(hand_mask, (0, 0), max(1.0, 0.35 * ppp / 8))
        out = np.maximum(out, cv2.resize(hand_mask, size, interpolation=cv2.INTER_LINEAR))
    return out.astype(np.float32) * (1.0 / 255.0)


def _motion_kernel(camera: SimCamera, scene: Scene) -> np.ndarray | None:
    """A line kernel for the longest image streak any hand makes during the exposure, or None."""
    longest, streak = 0.0, np.zeros(2)
    for hand in scene.hands:
        if hand.motion == (0.0, 0.0):
            continue
        a = np.array([*hand.tip, hand.height])
        b = a + np.array([*hand.motion, 0.0])
        d = camera.project(b) - camera.project(a)
        if np.linalg.norm(d) > longest:
            longest, streak = float(np.linalg.norm(d)), d
    if longest < 1.5:
        return None
    half = math.ceil(longest / 2)
    kernel = np.zeros((2 * half + 1, 2 * half + 1), np.float32)
    for f in np.linspace(-0.5, 0.5, 2 * half + 2):
        x, y = half + f * streak[0], half + f * streak[1]
        kernel[round(y), round(x)] += 1.0
    return kernel / kernel.sum()


def _held_piece(hand: Hand, camera: SimCamera, look: Look) -> list:
    """Strokes of the piece a hand carries, under its fingertips (the fingers are drawn over it)."""
    colour, kind = hand.holding  # type: ignore[misc]
    back = np.array(side_direction(hand.from_side, hand.angle_deg))
    cx, cy = np.array(hand.tip) + back * 0.02 * hand.width  # pinched at the fingertips
    z0 = max(hand.height - 0.5 * geometry.FLAT_THICKNESS, 0.0)
    angle = math.radians(hand.angle_deg + 10.0)
    parts = piece_parts(kind, float(cx), float(cy), z0, angle, look.round_flats, look.cap_style)
    base = np.array(look.light_color if colour == "light" else look.dark_color, np.float64)
    return _part_strokes(camera, look, parts, base)


def _draw_hands(img: np.ndarray, scene: Scene, camera: SimCamera, look: Look,
                mask: np.ndarray) -> None:  # fmt: skip
    """Hands and arms (and any piece they carry) with a soft darkening towards their outlines so
    they look round, smeared along their motion when they move during the exposure. `mask` gets
    where they cover."""
    layer = img.copy()
    skin = np.zeros_like(mask)  # hands and arms only: the rounding shade applies there
    for hand in scene.hands:
        if hand.holding is not None:
            _paint(layer, _held_piece(hand, camera, look), mask)
        for poly in hand_polygons(hand):
            fixed = _project_polygon(camera, poly.verts)
            if fixed is None:
                continue
            _fill(layer, fixed, poly.colour)
            if poly.outline is not None:
                cv2.polylines(layer, [fixed], True, poly.outline, 1, cv2.LINE_AA, SHIFT)
            _fill(skin, fixed, 255, aa=False)
    mask |= skin
    if not mask.any():
        return
    small = cv2.resize(skin, (camera.width // 4, camera.height // 4), interpolation=cv2.INTER_AREA)
    small = cv2.GaussianBlur(small, (0, 0), max(1.0, 0.06 * camera.pixels_per_pitch()))
    inner = cv2.resize(small, (camera.width, camera.height)).astype(np.float32) / 255.0
    shade = 0.55 + 0.45 * np.clip(inner * 1.6 - 0.3, 0.0, 1.0)
    shade[skin == 0] = 1.0  # a carried piece keeps its own shading
    region = mask > 0
    kernel = _motion_kernel(camera, scene)
    if kernel is None:
        img[region] = (layer[region].astype(np.float32) * shade[region][:, None]).astype(np.uint8)
        return
    # motion blur: smear the hand (premultiplied by its coverage) and its coverage alike, then
    # lay it over the frame, only inside the hand's bounding box grown by the kernel
    pad = kernel.shape[0]
    x, y, w, h = cv2.boundingRect(mask)
    x0, y0 = max(x - pad, 0), max(y - pad, 0)
    x1, y1 = min(x + w + pad, camera.width), min(y + h + pad, camera.height)
    roi = (slice(y0, y1), slice(x0, x1))
    cover = region[roi].astype(np.float32)
    hand = layer[roi].astype(np.float32) * (shade[roi] * cover)[..., None]
    smeared = cv2.filter2D(hand, -1, kernel, borderType=cv2.BORDER_CONSTANT)
    alpha = cv2.filter2D(cover, -1, kernel, borderType=cv2.BORDER_CONSTANT)
    out = img[roi].astype(np.float32) * (1.0 - alpha)[..., None] + smeared
    img[roi] = np.clip(out, 0, 255).astype(np.uint8)
    mask[roi] = np.where(alpha > 0.1, 255, 0).astype(np.uint8)


def _draw_leds(img: np.ndarray, scene: Scene, camera: SimCamera) -> None:
    """Light from LEDs under the squares shining through the wood: a soft coloured glow."""
    if not scene.leds:
        return
    glow = np.zeros_like(img)
    ring = np.linspace(0, 2 * math.pi, 20, endpoint=False)
    for square, colour in scene.leds.items():
        file, rank = parse_square(square, scene.size)
        cx, cy = geometry.square_center(file, rank)
        disk = np.stack([cx + 0.28 * np.cos(ring), cy + 0.28 * np.sin(ring)], -1)
        poly = np.round(camera.project(disk) * _ONE).astype(np.int32)
        _fill(glow, poly, tuple(float(c) for c in colour))
    glow = cv2.GaussianBlur(glow, (0, 0), max(2.0, 0.12 * camera.pixels_per_pitch()))
    cv2.add(img, glow, dst=img)


# ----------------------------------------------------------------------------------------------
# light field and sensor
@lru_cache(maxsize=8)
def _empty_board_level(camera: SimCamera, look: Look) -> float:
    """Mean grey level of the empty board frame before the light: what auto exposure aims for."""
    return max(float(np.mean(cv2.mean(static_layer(camera, look))[:3])), 1.0)


def _light_field(camera: SimCamera, look: Look, t: float) -> np.ndarray:
    """Multiplicative light, [H, W, 3] float32: exposure with slow drift, white balance, a gradient
    across the room, vignetting and broad hotspots that wander a little as time goes by."""
    w, h = 64, 36
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    u, v = (xx + 0.5) / w, (yy + 0.5) / h
    phase = (look.seed % 97) / 97 * 2 * math.pi
    drift = 1.0 + look.drift_amplitude * math.sin(2 * math.pi * t / look.drift_period_s + phase)
    field = (
        look.exposure * drift * (1.0 + look.gradient[0] * (u - 0.5) + look.gradient[1] * (v - 0.5))
    )
    r2 = ((u - 0.5) * 16 / 9) ** 2 + (v - 0.5) ** 2
    field = field * (1.0 - look.vignette * r2 / 1.1)
    wander = 0.05 * math.sin(2 * math.pi * t / (1.7 * look.drift_period_s) + phase)
    for hx, hy, radius, gain in look.hotspots:
        d2 = (u - hx - wander) ** 2 * (16 / 9) ** 2 + (v - hy) ** 2
        field = field * (1.0 + gain * np.exp(-d2 / (2 * radius**2)))
    field3 = np.clip(field, 0.05, 3.0)[..., None] * np.array(look.white_balance, np.float32)
    return cv2.resize(field3.astype(np.float32), (camera.width, camera.height))


def _glare(camera: SimCamera, look: Look, t: float) -> np.ndarray | None:
    """Specular glare spots (the lamp reflected in the varnished board), additive, [H, W] float32.

    A glare's (x, y) is a fraction of the grid (0..1 along files and ranks), so it lies on the
    board; its radii are fractions of the image width."""
    if not look.glare:
        return None
    w, h = camera.width // 4, camera.height // 4
    spots = np.zeros((h, w), np.float32)
    wobble = 0.01 * math.sin(2 * math.pi * t / look.drift_period_s)
    for gx, gy, rx, ry, strength in look.glare:
        on_board = camera.project(np.array([(gx + wobble) * camera.size, gy * camera.size]))
        centre = (int(on_board[0] / 4), int(on_board[1] / 4))
        axes = (max(1, int(rx * w)), max(1, int(ry * w)))
        cv2.ellipse(
            spots, centre, axes, 20.0 * (gx - 0.5), 0, 360, float(strength), -1, cv2.LINE_AA
        )
    spots = cv2.GaussianBlur(spots, (0, 0), max(1.0, 0.01 * w))
    return cv2.resize(spots, (camera.width, camera.height))


NOISE_MARGIN = 64


@lru_cache(maxsize=2)
def _noise_bank(width: int, height: int) -> np.ndarray:
    """Gaussian noise (sigma 16, int16) a little larger than the frame. Each frame takes a crop
    at a random offset: independent noise at every pixel for a few ms instead of fresh random
    numbers for 2.8 million values."""
    rng = np.random.default_rng(0x5E45)
    shape = (height + NOISE_MARGIN, width + NOISE_MARGIN, 3)
    return (rng.standard_normal(shape, dtype=np.float32) * 16.0).round().astype(np.int16)


def _sensor(img: np.ndarray, look: Look, rng: np.random.Generator) -> np.ndarray:
    """Lens blur, sensor noise and JPEG compression, in that order."""
    if look.blur_sigma > 0.05:
        img = cv2.GaussianBlur(img, (0, 0), look.blur_sigma)
    if look.noise_sigma > 0:
        h, w = img.shape[:2]
        bank = _noise_bank(w, h)
        dy, dx = (int(v) for v in rng.integers(0, NOISE_MARGIN, size=2))
        crop = bank[dy : dy + h, dx : dx + w]
        if rng.random() < 0.5:  # flipped as well as shifted: more distinct frames from one bank
            crop = crop[::-1, ::-1]
        img = cv2.addWeighted(img, 1.0, crop, look.noise_sigma / 16.0, 0.0, dtype=cv2.CV_8U)
    if look.jpeg_quality:
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(look.jpeg_quality)])
        if ok:
            img = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return img


# ----------------------------------------------------------------------------------------------
# truth
NOMINAL_LOOK = Look(jitter=0.0)  # piece geometry for truth computed without a look


def _probe_points(
    square: str, scene: Scene, pieces: list[tuple[list[Part], np.ndarray]]
) -> np.ndarray:
    """Points [K, 3] whose visibility stands for the square's: the upper surface of its top piece
    (points inside the wall for a wall), or the middle of an empty square's surface."""
    if not pieces:
        file, rank = parse_square(square, scene.size)
        cx, cy = geometry.square_center(file, rank)
        offsets = np.linspace(-0.3, 0.3, 4)
        return np.array([[cx + a, cy + b, 0.0] for a in offsets for b in offsets])
    verts = np.concatenate([p.verts.reshape(-1, 3) for p in pieces[-1][0]])
    z0, z_top = verts[:, 2].min(), verts[:, 2].max()
    if scene.stacks[square][-1][1] == "wall":
        top = verts[verts[:, 2] > z_top - 1e-6]
        centre = top.mean(0)
        spread = top[:, :2] - centre[:2]
        axis = spread[np.argmax(np.linalg.norm(spread, axis=1))]
        return np.array(
            [[*(centre[:2] + t * 0.8 * axis), z] for t in (-1, 0, 1)
             for z in (z0 + 0.15, (z0 + z_top) / 2, z_top - 0.05)]
        )  # fmt: skip
    # a flat's top face or a capstone's upper part, pulled in from its outline
    upper = verts[verts[:, 2] > z_top - 0.12]
    centre = upper.mean(0)
    ring = centre + 0.6 * (upper - centre)
    return np.vstack([ring, centre[None]]) - np.array([0.0, 0.0, 0.01])


@lru_cache(maxsize=64)
def _visibility_cached(camera: SimCamera, look: Look, size: int, board: tuple) -> dict:
    no_hands = np.zeros((camera.height, camera.width), bool)
    return _visibility(camera, look, size, board, no_hands)


def _visibility(camera: SimCamera, look: Look, size: int, board: tuple, hmask: np.ndarray) -> dict:
    """Square -> share of its probe points the camera sees, from a label image painted like the
    frame (stacks far to near, each piece as its convex outline, hands on top) at half size.
    `board`: ((square, stack), ...) of the non-empty squares."""
    scene = Scene(size, {sq: list(st) for sq, st in board})
    stacks = {sq: _stack_solids(size, sq, st, look) for sq, st in board}
    h, w = camera.height // 2, camera.width // 2
    labels = np.zeros((h, w), np.uint16)
    ids = {sq: i + 1 for i, sq in enumerate(all_squares(scene.size))}
    for square in _stack_order(scene, camera):
        for parts, _ in stacks[square]:
            pts = np.concatenate([p.verts.reshape(-1, 3) for p in parts])
            hull = cv2.convexHull((camera.project(pts) / 2).astype(np.float32)).reshape(-1, 2)
            cv2.fillPoly(
                labels, [np.round(hull * _ONE).astype(np.int32)], ids[square], cv2.LINE_8, SHIFT
            )
    hand_label = 0xFFFF
    if hmask.any():
        labels[cv2.resize(hmask.astype(np.uint8), (w, h), interpolation=cv2.INTER_NEAREST) > 0] = (
            hand_label
        )
    out = {}
    for square in ids:
        pieces = stacks.get(square, [])
        probe = camera.project(_probe_points(square, scene, pieces)) / 2
        xi, yi = np.round(probe[:, 0]).astype(int), np.round(probe[:, 1]).astype(int)
        inside = (xi >= 0) & (xi < w) & (yi >= 0) & (yi < h)
        seen = np.zeros(len(probe), bool)
        own = ids[square] if pieces else 0
        seen[inside] = labels[yi[inside], xi[inside]] == own
        out[square] = float(seen.mean())
    return out


def _hand_mask(scene: Scene, camera: SimCamera) -> np.ndarray:
    mask = np.zeros((camera.height, camera.width), np.uint8)
    for hand in scene.hands:
        for poly in hand_polygons(hand):
            fixed = _project_polygon(camera, poly.verts)
            if fixed is not None:
                _fill(mask, fixed, 255, aa=False)
    return mask


def ground_truth(
    scene: Scene,
    camera: SimCamera,
    hand_mask: np.ndarray | None = None,
    look: Look | None = None,
) -> GroundTruth:
    """Where everything is in the image, without rendering it. (`render_frame` passes the hand mask
    it drew and its look; without a look, pieces are taken as sitting centred on their squares.)"""
    if scene.size != camera.size:
        raise ValueError(
            f"scene is {scene.size}x{scene.size} but the camera frames a {camera.size}"
        )
    mask = _hand_mask(scene, camera) if hand_mask is None else hand_mask
    hmask = mask > 0
    h, w = hmask.shape

    def covered(img_pts: np.ndarray) -> bool:
        xi = np.round(img_pts[:, 0]).astype(int)
        yi = np.round(img_pts[:, 1]).astype(int)
        inside = (xi >= 0) & (xi < w) & (yi >= 0) & (yi < h)
        return bool(hmask[yi[inside], xi[inside]].any())

    n = scene.size
    markers = {i: camera.project(c) for i, c in geometry.all_marker_corners(n).items()}
    visible = {}
    for i, corners in markers.items():
        inside = (
            (corners[:, 0] >= 0) & (corners[:, 0] < w) & (corners[:, 1] >= 0) & (corners[:, 1] < h)
        )
        box = geometry.marker_corners(n, i)
        samples = np.array([[x, y] for x in np.linspace(box[:, 0].min(), box[:, 0].max(), 5)
                            for y in np.linspace(box[:, 1].min(), box[:, 1].max(), 5)])  # fmt: skip
        visible[i] = bool(inside.all()) and not covered(camera.project(samples))
    look = NOMINAL_LOOK if look is None else look
    board = tuple(sorted((sq, tuple(map(tuple, st))) for sq, st in scene.stacks.items() if st))
    if hmask.any():
        visibility = _visibility(camera, look, n, board, hmask)
    else:  # the same board seen by the same camera gives the same answer as the last frame
        visibility = _visibility_cached(camera, look, n, board)
    grid = np.linspace(0.05, 0.95, 4)
    squares = {}
    for r in range(n):
        for f in range(n):
            name = geometry.square_name(f, r)
            stack = scene.stacks.get(name, [])
            top_z = stack_top_height(stack)
            pts = np.array([[f + a, r + b, z] for a in grid for b in grid for z in (0.0, top_z)])
            squares[name] = SquareTruth(
                empty=not stack,
                color=stack[-1][0] if stack else None,
                kind=stack[-1][1] if stack else None,
                height=len(stack),
                occluded=covered(camera.project(pts)),
                visible=visibility[name],
            )
    grid_img = camera.project(geometry.grid_corners(n))
    over_board = False
    if hmask.any():
        board_mask = np.zeros_like(mask)
        _fill(board_mask, np.round(grid_img * _ONE).astype(np.int32), 255, aa=False)
        over_board = bool((hmask & (board_mask > 0)).any())
    return GroundTruth(
        size=n,
        H_img_from_board=camera.H_img_from_board,
        grid_corners_img=grid_img,
        marker_corners_img=markers,
        markers_visible=visible,
        squares=squares,
        hand_present=bool(hmask.any()),
        hand_over_board=over_board,
        hand_mask=hmask,
    )


# ----------------------------------------------------------------------------------------------
def render_frame(scene: Scene, camera: SimCamera, look: Look, *, seed: int = 0,
                 t: float = 0.0) -> RenderedFrame:  # fmt: skip
    """Render `scene` and return the image with its ground truth. `seed` drives the per-frame sensor
    noise only; `t` (seconds) drives the slow lighting drift."""
    if scene.size != camera.size:
        raise ValueError(
            f"scene is {scene.size}x{scene.size} but the camera frames a {camera.size}"
        )
    scene.validate()
    rng = np.random.default_rng([seed, look.seed, 0xF4A])
    img = static_layer(camera, look).copy()
    _draw_leds(img, scene, camera)
    stacks = {sq: _stack_parts(scene, sq, look) for sq, st in scene.stacks.items() if st}
    if stacks or scene.hands:
        shadow = _shadow_mask(scene, camera, look, stacks)
        factor = 1.0 - look.shadow_strength * shadow
        img = (img.astype(np.float32) * factor[..., None]).astype(np.uint8)
    _draw_pieces(img, scene, camera, look)
    hand_mask = np.zeros(img.shape[:2], np.uint8)
    if scene.hands:
        _draw_hands(img, scene, camera, look, hand_mask)
    field = _light_field(camera, look, t)
    if look.auto_exposure > 0:
        # the camera meters the whole frame: dark pieces or a pale sleeve shift everything a bit
        metered = float(cv2.mean(img)[:3] @ np.ones(3)) / 3
        target = _empty_board_level(camera, look)
        field = field * (target / max(metered, 1.0)) ** look.auto_exposure
    lit = img.astype(np.float32) * field
    glare = _glare(camera, look, t)
    if glare is not None:
        lit += glare[..., None]
    img = np.clip(lit, 0, 255).astype(np.uint8)
    img = _sensor(img, look, rng)
    return RenderedFrame(img, ground_truth(scene, camera, hand_mask, look))


def render(
    scene: Scene, camera: SimCamera, look: Look, *, seed: int = 0, t: float = 0.0
) -> np.ndarray:
    """Render `scene`: [H, W, 3] uint8 BGR. See `render_frame` for the ground truth too."""
    return render_frame(scene, camera, look, seed=seed, t=t).image
