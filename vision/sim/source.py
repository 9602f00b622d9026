"""`SimCameraSource`: the simulated camera behind the same `read()` a real camera has."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

import numpy as np

from vision.sim.camera import SimCamera
from vision.sim.look import Look
from vision.sim.renderer import GroundTruth, render_frame
from vision.sim.scene import Scene


class SimCameraSource:
    """Renders `scene` on every `read()`. The scene may be replaced or edited between reads (pieces
    placed, hands reaching in); the light drifts slowly with time.

    Time comes from `clock()` (seconds) when given, else from the frame count at `fps`, so tests get
    the same frames every run. Frame k uses sensor-noise seed `seed + k`.
    """

    def __init__(
        self,
        scene: Scene,
        camera: SimCamera,
        look: Look,
        *,
        fps: float = 30.0,
        seed: int = 0,
        clock: Callable[[], float] | None = None,
    ) -> None:
        if scene.size != camera.size:
            raise ValueError(
                f"scene is {scene.size}x{scene.size} but the camera frames a {camera.size}"
            )
        self.scene = scene
        self.camera = camera
        self.look = look
        self.fps = fps
        self.seed = seed
        self.clock = clock
        self.frame_index = 0
        self.last_truth: GroundTruth | None = None
        self.closed = False
        self._queue: deque[Scene] = deque()
        self.ended = False
        self.error: str | None = None
        self.description = f"sim:size={camera.size}:seed={look.seed}:tilt={camera.tilt_deg:.1f}"

    @property
    def time_s(self) -> float:
        return self.clock() if self.clock is not None else self.frame_index / self.fps

    def queue(self, scenes: list[Scene]) -> None:
        """Play these scenes on the next reads, one per frame; the last one then stays."""
        for scene in scenes:
            if scene.size != self.camera.size:
                raise ValueError(
                    f"queued scene is {scene.size}x{scene.size}, the camera frames a "
                    f"{self.camera.size}"
                )
        self._queue.extend(scenes)

    @property
    def queued(self) -> int:
        return len(self._queue)

    def read(self) -> tuple[bool, np.ndarray | None]:
        if self.closed:
            self.error = "simulated camera is closed"
            return False, None
        if self._queue:
            self.scene = self._queue.popleft()
        frame = render_frame(
            self.scene, self.camera, self.look, seed=self.seed + self.frame_index, t=self.time_s
        )
        self.frame_index += 1
        self.last_truth = frame.truth
        return True, frame.image

    def release(self) -> None:
        self.closed = True

    def __enter__(self) -> SimCameraSource:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()
