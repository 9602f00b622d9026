"""How one board, piece set, room and camera look: everything a seed varies except the pose.

All colours are BGR 0..255. Angles in degrees. Lengths in pitches unless named otherwise.
"""

from __future__ import annotations

import colorsys
from dataclasses import dataclass

import numpy as np

from vision.sim.camera import SimCamera

BGR = tuple[int, int, int]


@dataclass(frozen=True)
class Look:
    seed: int = 0
    # board
    board_color: BGR = (95, 150, 200)
    grain_color: BGR = (60, 105, 160)
    grain_angle_deg: float = 0.0
    grain_period: float = 0.25  # pitches between growth rings
    grain_strength: float = 0.35
    checker: float = 0.0  # tone difference of alternate squares (inlaid boards), 0 = plain
    board_margin: float = 1.1  # wood beyond the grid on each side
    board_thickness: float = 0.4
    line_color: BGR = (30, 45, 70)
    line_width: float = 0.03
    marker_paper: BGR = (235, 238, 240)
    table_color: BGR = (70, 80, 90)
    table_texture: float = 0.15
    # pieces
    light_color: BGR = (170, 210, 235)
    dark_color: BGR = (40, 55, 80)
    piece_tint: float = 0.06  # piece-to-piece colour variation
    gloss: float = 0.2
    piece_grain: float = 0.0  # wood grain on the pieces (0 = painted or plastic)
    round_flats: bool = False
    cap_style: str = "cylinder"  # "cylinder" or "pawn"
    jitter: float = 0.05  # how far pieces sit off the square centre
    # light
    lighting: str = "overhead"  # the variant random_look drew this from (see LIGHTING)
    light_azimuth_deg: float = 60.0
    light_elevation_deg: float = 60.0
    ambient: float = 0.55
    exposure: float = 1.0
    white_balance: tuple[float, float, float] = (1.0, 1.0, 1.0)
    gradient: tuple[float, float] = (0.0, 0.0)  # brightness change across the frame (x, y)
    vignette: float = 0.2
    hotspots: tuple[tuple[float, float, float, float], ...] = ()  # (x, y, radius, gain), image frac
    # glare spots on the board: (x, y) fractions of the grid, (rx, ry) of the image width, strength
    glare: tuple[tuple[float, float, float, float, float], ...] = ()
    shadow_strength: float = 0.45
    drift_amplitude: float = 0.08  # slow exposure drift, fraction
    drift_period_s: float = 40.0
    auto_exposure: float = 0.0  # 0 = locked exposure; up to ~0.5: the camera meters each frame
    # camera
    blur_sigma: float = 0.7
    noise_sigma: float = 2.5
    jpeg_quality: int = 85  # 0 = no compression


def _hsv_bgr(h: float, s: float, v: float) -> BGR:
    r, g, b = colorsys.hsv_to_rgb(h % 1.0, min(max(s, 0.0), 1.0), min(max(v, 0.0), 1.0))
    return int(b * 255), int(g * 255), int(r * 255)


LIGHTING = ("overhead", "lamp", "window", "dim")


def _lighting(rng: np.random.Generator, kind: str) -> dict:
    """Room light and camera quality for one of the lighting variants.

    overhead: even ceiling light, soft shadows. lamp: one warm lamp from the side, hard shadows, a
    hotspot and glare. window: cool daylight from one side, brightness falling across the board.
    dim: an evening room, low exposure, a noisy sensor working hard."""
    u = rng.uniform
    glare_count = {"overhead": [0, 0, 1], "lamp": [0, 1, 1, 2], "window": [0, 0, 1], "dim": [0]}
    glare = tuple(
        (u(0.15, 0.85), u(0.15, 0.85), u(0.02, 0.08), u(0.01, 0.04), u(40, 160))
        for _ in range(int(rng.choice(glare_count[kind])))
    )
    side = u(0, 2 * np.pi)
    light = dict(
        light_azimuth_deg=u(0, 360),
        light_elevation_deg=u(65, 88),
        ambient=u(0.5, 0.7),
        exposure=u(0.85, 1.15),
        white_balance=(u(0.92, 1.08), u(0.97, 1.03), u(0.92, 1.08)),
        gradient=(u(-0.2, 0.2), u(-0.2, 0.2)),
        vignette=u(0.0, 0.3),
        hotspots=tuple(
            (u(0, 1), u(0, 1), u(0.3, 0.7), u(-0.15, 0.2)) for _ in range(int(rng.integers(0, 2)))
        ),
        glare=glare,
        shadow_strength=u(0.3, 0.5),
        drift_amplitude=u(0.02, 0.08),
        drift_period_s=u(30, 120),
        auto_exposure=float(rng.choice([0.0, u(0.15, 0.5)])),
        blur_sigma=u(0.3, 1.1),
        noise_sigma=u(0.5, 3.5),
        jpeg_quality=int(rng.choice([0, 70, 80, 90, 95])),
    )
    if kind == "lamp":
        light.update(
            light_elevation_deg=u(35, 60),
            ambient=u(0.35, 0.5),
            white_balance=(u(0.75, 0.9), u(0.95, 1.02), u(1.1, 1.25)),  # BGR: warm
            vignette=u(0.2, 0.5),
            hotspots=((u(0.2, 0.8), u(0.2, 0.8), u(0.2, 0.45), u(0.25, 0.55)),),
            shadow_strength=u(0.45, 0.7),
        )
    elif kind == "window":
        light.update(
            light_azimuth_deg=float(np.degrees(side)),
            light_elevation_deg=u(25, 50),
            white_balance=(u(1.05, 1.2), u(0.98, 1.03), u(0.85, 0.97)),  # BGR: cool
            gradient=(0.5 * float(np.cos(side)), -0.5 * float(np.sin(side))),
            shadow_strength=u(0.35, 0.6),
            drift_amplitude=u(0.05, 0.15),  # clouds
        )
    elif kind == "dim":
        light.update(
            exposure=u(0.45, 0.65),
            noise_sigma=u(4.0, 8.0),
            blur_sigma=u(0.6, 1.4),
            jpeg_quality=int(rng.choice([70, 80, 90])),
        )
    return light


def random_look(seed: int, *, wooden_share: float = 0.0) -> Look:
    """A random board, piece set, room and camera quality. Same seed, same look.

    `wooden_share`: the chance that the light pieces are of the board's own wood, a little paler
    or darker (a wooden set: common, and where the reader errs most, pieces barely apart from the
    board: docs/vision.md, session 33). Drawn from a generator of its own, so that at 0 every
    seed's look is what it always was."""
    rng = np.random.default_rng([seed, 0x100C])
    u = rng.uniform
    wood_h = u(0.05, 0.11)  # orange-brown hues
    wood_v = u(0.35, 0.85)
    wood_s = u(0.35, 0.7)
    board = _hsv_bgr(wood_h, wood_s, wood_v)
    grain = _hsv_bgr(wood_h + u(-0.01, 0.01), u(0.45, 0.8), wood_v * u(0.55, 0.8))
    # light pieces: cream, white, pale wood, pale blue; dark: walnut, black, red, green, blue
    light_kind = int(rng.integers(4))
    light = [
        _hsv_bgr(u(0.08, 0.14), u(0.15, 0.45), u(0.82, 0.97)),
        _hsv_bgr(u(0.0, 1.0), u(0.0, 0.08), u(0.85, 0.98)),
        _hsv_bgr(u(0.09, 0.12), u(0.3, 0.55), u(0.8, 0.92)),
        _hsv_bgr(u(0.5, 0.65), u(0.1, 0.3), u(0.8, 0.95)),
    ][light_kind]
    wooden = np.random.default_rng([seed, 0x800D])
    if wooden.random() < wooden_share:
        w = wooden.uniform
        # (never darker than a mid grey: on a dark board the "light" pieces are still the
        # lighter set)
        light = _hsv_bgr(wood_h + w(-0.01, 0.01), wood_s * w(0.6, 1.1),
                         min(0.97, max(0.6, wood_v * w(0.9, 1.3))))  # fmt: skip
    dark_kind = int(rng.integers(5))
    dark = [
        _hsv_bgr(u(0.04, 0.09), u(0.5, 0.8), u(0.18, 0.35)),
        _hsv_bgr(u(0.0, 1.0), u(0.0, 0.15), u(0.08, 0.2)),
        _hsv_bgr(u(0.97, 1.02), u(0.6, 0.85), u(0.22, 0.38)),
        _hsv_bgr(u(0.3, 0.45), u(0.4, 0.7), u(0.15, 0.3)),
        _hsv_bgr(u(0.58, 0.68), u(0.5, 0.8), u(0.2, 0.35)),
    ][dark_kind]
    table = _hsv_bgr(u(0.0, 1.0), u(0.0, 0.5), u(0.15, 0.7))
    line = _hsv_bgr(wood_h, u(0.3, 0.8), wood_v * u(0.15, 0.45))
    lighting = str(rng.choice(LIGHTING))
    return Look(
        seed=seed,
        board_color=board,
        grain_color=grain,
        grain_angle_deg=float(rng.choice([0.0, 90.0]) + u(-4, 4)),
        grain_period=u(0.12, 0.45),
        grain_strength=u(0.1, 0.4),
        checker=float(rng.choice([0.0, 0.0, 0.0, u(0.08, 0.2)])),
        board_margin=u(0.85, 1.6),
        board_thickness=u(0.2, 0.6),
        line_color=line,
        line_width=u(0.015, 0.05),
        marker_paper=_hsv_bgr(u(0.1, 0.16), u(0.0, 0.1), u(0.88, 0.98)),
        table_color=table,
        table_texture=u(0.02, 0.12),
        light_color=light,
        dark_color=dark,
        piece_tint=u(0.02, 0.08),
        gloss=u(0.0, 0.5),
        piece_grain=float(rng.choice([0.0, u(0.02, 0.06), u(0.02, 0.06)])),
        round_flats=bool(rng.random() < 0.3),
        cap_style=str(rng.choice(["cylinder", "pawn"])),
        jitter=u(0.0, 0.1),
        lighting=lighting,
        **_lighting(rng, lighting),
    )


def random_camera(seed: int, size: int, *, tilt_deg: float | None = None) -> SimCamera:
    """A camera on a mount above the board: tilt 0..40 degrees, a little yaw and roll, board filling
    a random share of the 1280x720 frame. Same seed, same pose."""
    rng = np.random.default_rng([seed, 0xCA3])
    tilt = float(rng.uniform(0, 40)) if tilt_deg is None else float(tilt_deg)
    return SimCamera.framing(
        size,
        tilt_deg=tilt,
        yaw_deg=float(rng.uniform(-12, 12)),
        roll_deg=float(rng.uniform(-4, 4)),
        hfov_deg=float(rng.uniform(50, 68)),
        fill=float(rng.uniform(0.78, 0.95)),
        target_offset=(float(rng.uniform(-0.3, 0.3)), float(rng.uniform(-0.3, 0.3))),
    )


def random_setup(
    seed: int, size: int, *, tilt_deg: float | None = None, wooden_share: float = 0.0
) -> tuple[SimCamera, Look]:
    """Camera pose and look for one simulated installation, both from `seed` (`wooden_share`:
    see `random_look`)."""
    look = random_look(seed, wooden_share=wooden_share)
    return random_camera(seed, size, tilt_deg=tilt_deg), look
