"""A fixed, seeded set of simulated frames for benchmarks: sizes, tilts and lighting spread evenly.

    for case in cases(2000, seed=1, hand_share=0.2):
        frame = case.render()            # RenderedFrame: image + truth
        ...

Case k is the same on every machine and every run, so figures from two runs compare.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from vision.sim.camera import SimCamera
from vision.sim.look import LIGHTING, Look, random_camera, random_look
from vision.sim.renderer import RenderedFrame, render_frame
from vision.sim.scene import Scene, random_hand, random_scene


@dataclass(frozen=True)
class Case:
    index: int
    scene: Scene
    camera: SimCamera
    look: Look
    frame_seed: int

    @property
    def size(self) -> int:
        return self.scene.size

    @property
    def has_hand(self) -> bool:
        return bool(self.scene.hands)

    def render(self) -> RenderedFrame:
        return render_frame(self.scene, self.camera, self.look, seed=self.frame_seed)


def _look_with_lighting(lighting: str, start: int) -> Look:
    """The first look at or after seed `start` drawn with this lighting variant."""
    seed = start
    while True:
        look = random_look(seed)
        if look.lighting == lighting:
            return look
        seed += 1


def cases(
    n: int,
    *,
    seed: int = 0,
    sizes: tuple[int, ...] = (4, 5, 6, 7, 8),
    tilt_range: tuple[float, float] = (0.0, 40.0),
    lighting: tuple[str, ...] = LIGHTING,
    hand_share: float = 0.0,
    max_height: int = 6,
) -> Iterator[Case]:
    """`n` cases: board sizes and lighting variants taken in turn, tilts spread evenly over
    `tilt_range` (shuffled), mid-game boards with stacks up to `max_height`, and a hand reaching
    in on a `hand_share` of them."""
    if n < 1:
        raise ValueError(f"need at least one case, not {n}")
    unknown = set(lighting) - set(LIGHTING)
    if unknown:
        raise ValueError(f"unknown lighting {sorted(unknown)}; known: {', '.join(LIGHTING)}")
    rng = np.random.default_rng([seed, 0xDA7A])
    lo, hi = tilt_range
    tilts = lo + (hi - lo) * (np.arange(n) + rng.random(n)) / n
    rng.shuffle(tilts)
    hands = rng.random(n) < hand_share
    for k in range(n):
        case_seed = seed * 1_000_003 + k
        size = sizes[k % len(sizes)]
        look = _look_with_lighting(lighting[(k // len(sizes)) % len(lighting)], case_seed * 7)
        camera = random_camera(case_seed, size, tilt_deg=float(tilts[k]))
        scene_rng = np.random.default_rng([case_seed, 0x5CE])
        scene = random_scene(scene_rng, size, max_height=max_height)
        if hands[k]:
            scene.hands.append(random_hand(scene_rng, scene, resting=0.15))
        yield Case(k, scene, camera, look, frame_seed=case_seed)
