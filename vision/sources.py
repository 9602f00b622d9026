"""Frame sources: one interface for a camera, a video file, a folder of images or the simulator.

    source = open_source("/dev/video0")   # or "0", "game.mp4", "frames/", "sim:size=6", "picamera"
    ok, frame = source.read()             # frame: [H, W, 3] uint8 BGR, or None when ok is False
    source.release()

Every source has `read() -> (ok, frame)`, `release()`, `description` and `error`. When `read()`
returns False, `error` says why ("end of video", "camera /dev/video0 stopped delivering frames",
"frames/0007.png is not a readable image"); `ended` is True for a normal end of a file or folder.
Opening something that is not there raises `FrameSourceError` naming it. Nothing falls back to
another source: a missing camera is an error, never the simulator.

Source strings:
- an integer ("0") or a device path ("/dev/video0"): an OpenCV camera
- "picamera" or "picamera:WIDTHxHEIGHT": the Raspberry Pi camera through picamera2 (if installed)
- a folder: its image files (png, jpg, jpeg, bmp, tif, tiff, webp) in file-name order
- a file: a video OpenCV can decode (or a single image)
- "sim:key=value:...": the simulated camera; keys size (default 6), seed (0), tilt (degrees, default
  from the seed), fps (30), pieces (a random mid-game board with this many pieces; default 0)
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Protocol, runtime_checkable

import cv2
import numpy as np

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp")


class FrameSourceError(RuntimeError):
    """A frame source cannot be opened; the message names the source and says why."""


@runtime_checkable
class FrameSource(Protocol):
    description: str
    error: str | None

    def read(self) -> tuple[bool, np.ndarray | None]: ...

    def release(self) -> None: ...


class _Base:
    description = ""
    error: str | None = None
    ended = False

    def release(self) -> None:  # pragma: no cover - overridden where there is something to free
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()

    def frames(self) -> Iterator[np.ndarray]:
        """Iterate frames until the source ends or fails (check `error` afterwards)."""
        while True:
            ok, frame = self.read()  # type: ignore[attr-defined]
            if not ok or frame is None:
                return
            yield frame


class CameraSource(_Base):
    """An OpenCV capture device: an index (0) or a V4L2 device path (/dev/video0)."""

    def __init__(self, device: int | str, *, width: int | None = None, height: int | None = None):
        self.description = f"camera {device}"
        if isinstance(device, str) and not Path(device).exists():
            raise FrameSourceError(f"camera {device}: no such device")
        self._cap = cv2.VideoCapture(device)
        if not self._cap.isOpened():
            self._cap.release()
            raise FrameSourceError(
                f"camera {device}: OpenCV could not open it (in use by another program, no "
                f"permission, or not a video capture device)"
            )
        if width and height:
            self._cap.set(cv2.CAP_PROP_FRAME_WIDTH, width)
            self._cap.set(cv2.CAP_PROP_FRAME_HEIGHT, height)

    def read(self) -> tuple[bool, np.ndarray | None]:
        ok, frame = self._cap.read()
        if not ok or frame is None:
            self.error = f"{self.description} stopped delivering frames (unplugged or busy?)"
            return False, None
        self.error = None
        return True, frame

    def release(self) -> None:
        self._cap.release()


class VideoFileSource(_Base):
    """A video file, decoded by OpenCV, frame by frame."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.description = f"video {self.path}"
        if not self.path.is_file():
            raise FrameSourceError(f"video {self.path}: no such file")
        self._cap = cv2.VideoCapture(str(self.path))
        if not self._cap.isOpened():
            self._cap.release()
            raise FrameSourceError(f"video {self.path}: OpenCV cannot decode this file")
        self.frame_index = 0

    def read(self) -> tuple[bool, np.ndarray | None]:
        ok, frame = self._cap.read()
        if not ok or frame is None:
            self.ended = True
            self.error = f"end of video {self.path} after {self.frame_index} frames"
            return False, None
        self.frame_index += 1
        return True, frame

    def release(self) -> None:
        self._cap.release()


class ImageFolderSource(_Base):
    """The image files of a folder, in file-name order (numbers compare as numbers: 2 < 10)."""

    def __init__(self, folder: str | Path):
        self.folder = Path(folder)
        self.description = f"folder {self.folder}"
        if not self.folder.is_dir():
            raise FrameSourceError(f"folder {self.folder}: no such folder")
        self.files = sorted(
            (p for p in self.folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES),
            key=_natural_key,
        )
        if not self.files:
            raise FrameSourceError(
                f"folder {self.folder}: no image files ({', '.join(IMAGE_SUFFIXES)})"
            )
        self.index = 0
        self.current: Path | None = None

    def read(self) -> tuple[bool, np.ndarray | None]:
        if self.index >= len(self.files):
            self.ended = True
            self.error = f"end of {self.description} after {len(self.files)} images"
            return False, None
        path = self.files[self.index]
        self.index += 1
        self.current = path
        frame = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if frame is None:
            self.error = f"{path} is not a readable image"
            return False, None
        self.error = None
        return True, frame


class SingleImageSource(_Base):
    """One image file, delivered once."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.description = f"image {self.path}"
        self._frame = cv2.imread(str(self.path), cv2.IMREAD_COLOR)
        if self._frame is None:
            raise FrameSourceError(f"image {self.path}: not a readable image")
        self._done = False

    def read(self) -> tuple[bool, np.ndarray | None]:
        if self._done:
            self.ended = True
            self.error = f"end of {self.description}"
            return False, None
        self._done = True
        return True, self._frame.copy()


class PiCameraSource(_Base):
    """The Raspberry Pi camera through picamera2 (libcamera). BGR frames like every other source."""

    def __init__(self, width: int = 1280, height: int = 720):
        self.description = f"picamera {width}x{height}"
        try:
            from picamera2 import Picamera2  # type: ignore[import-not-found]
        except ImportError as missing:
            raise FrameSourceError(
                "picamera: the picamera2 package is not installed (on Raspberry Pi OS: "
                "sudo apt install python3-picamera2, and create the venv with "
                "--system-site-packages); or open the camera as /dev/video0"
            ) from missing
        try:
            self._cam = Picamera2()
            config = self._cam.create_video_configuration(
                main={"size": (width, height), "format": "RGB888"}
            )
            self._cam.configure(config)
            self._cam.start()
        except Exception as failure:  # picamera2 raises plain exceptions for a missing camera
            raise FrameSourceError(f"picamera: cannot start the camera: {failure}") from failure

    def read(self) -> tuple[bool, np.ndarray | None]:
        try:
            # picamera2's "RGB888" is stored B, G, R in memory: already OpenCV's order.
            frame = self._cam.capture_array("main")
        except Exception as failure:
            self.error = f"picamera stopped delivering frames: {failure}"
            return False, None
        return True, np.ascontiguousarray(frame[..., :3])

    def release(self) -> None:
        self._cam.stop()


def _natural_key(path: Path) -> list[object]:
    return [int(part) if part.isdigit() else part.lower() for part in re.split(r"(\d+)", path.name)]


def parse_sim_options(spec: str) -> dict[str, str]:
    """ "sim:size=6:seed=3" -> {"size": "6", "seed": "3"}; ValueError naming a malformed item."""
    body = spec[len("sim") :].lstrip(":")
    options: dict[str, str] = {}
    for item in filter(None, re.split(r"[:,]", body)):
        key, sep, value = item.partition("=")
        if not sep or not key or not value:
            raise FrameSourceError(f"{spec!r}: {item!r} is not key=value")
        options[key.strip()] = value.strip()
    return options


def _sim_source(spec: str):
    from vision.sim import SimCameraSource, random_scene, random_setup
    from vision.sim.scene import Scene

    options = parse_sim_options(spec)
    known = {"size", "seed", "tilt", "fps", "pieces"}
    unknown = set(options) - known
    if unknown:
        raise FrameSourceError(
            f"{spec!r}: unknown option(s) {', '.join(sorted(unknown))} "
            f"(known: {', '.join(sorted(known))})"
        )
    try:
        size = int(options.get("size", 6))
        seed = int(options.get("seed", 0))
        tilt = float(options["tilt"]) if "tilt" in options else None
        fps = float(options.get("fps", 30))
        pieces = int(options.get("pieces", 0))
    except ValueError as bad:
        raise FrameSourceError(f"{spec!r}: {bad}") from bad
    if not 3 <= size <= 8:
        raise FrameSourceError(f"{spec!r}: size {size} is outside 3..8")
    if tilt is not None and not 0 <= tilt <= 60:
        raise FrameSourceError(f"{spec!r}: tilt {tilt} is outside 0..60 degrees")
    camera, look = random_setup(seed, size, tilt_deg=tilt)
    scene = random_scene(seed, size, pieces=pieces) if pieces else Scene(size)
    source = SimCameraSource(scene, camera, look, fps=fps, seed=seed)
    source.description = spec
    return source


def open_source(spec: str | int) -> FrameSource:
    """Open a frame source from a source string (see the module docstring)."""
    if isinstance(spec, int):
        return CameraSource(spec)
    text = str(spec).strip()
    if not text:
        raise FrameSourceError("empty frame source string")
    if text == "sim" or text.startswith("sim:"):
        return _sim_source(text)
    if text == "picamera" or text.startswith("picamera:"):
        size = text.partition(":")[2]
        if size:
            match = re.fullmatch(r"(\d+)x(\d+)", size)
            if not match:
                raise FrameSourceError(f"{text!r}: expected picamera:WIDTHxHEIGHT")
            return PiCameraSource(int(match[1]), int(match[2]))
        return PiCameraSource()
    if text.isdigit():
        return CameraSource(int(text))
    if text.startswith("/dev/"):
        return CameraSource(text)
    path = Path(text)
    if path.is_dir():
        return ImageFolderSource(path)
    if path.is_file():
        if path.suffix.lower() in IMAGE_SUFFIXES:
            return SingleImageSource(path)
        return VideoFileSource(path)
    raise FrameSourceError(
        f"{text!r}: no such file, folder or device (expected a camera index, /dev/videoN, a video "
        f"file, a folder of images, 'picamera' or 'sim:...')"
    )
