"""Annotated debug images: people check a camera system by looking.

`write_debug(dir, frame, reading, reader)` writes
  frame.png     the frame with the detected grid, every square's label and confidence, each
                stack's fitted extent on its strip, and the frame flags in a banner
  topview.png   the board plane rectified to a top view, with the same labels
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from vision.reader import BoardReader
from vision.reading import BoardReading
from vision.rectify import Rectifier

GREEN, RED, YELLOW, WHITE, BLACK = (
    (60, 200, 60),
    (40, 40, 230),
    (0, 215, 255),
    (255, 255, 255),
    (0, 0, 0),
)


def _text(img: np.ndarray, text: str, org: tuple[int, int], scale: float, colour) -> None:
    """Text on a dark box, readable on any board."""
    (w, h), base = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, 1)
    x, y = org
    cv2.rectangle(img, (x - 2, y - h - 2), (x + w + 2, y + base), BLACK, -1)
    cv2.putText(img, text, org, cv2.FONT_HERSHEY_SIMPLEX, scale, colour, 1, cv2.LINE_AA)


def _banner(img: np.ndarray, reading: BoardReading) -> None:
    flags = []
    flags.append("board found" if reading.board_found else "BOARD NOT FOUND")
    if reading.occluded:
        flags.append("HAND/ARM")
    if reading.moving:
        flags.append("MOVING")
    if reading.relocalised:
        flags.append("re-localised")
    flags.append(f"conf {reading.confidence:.2f}")
    colour = GREEN if reading.clean else RED
    _text(img, " | ".join(flags), (10, 28), 0.8, colour)
    if reading.reason:
        _text(img, reading.reason[:110], (10, 56), 0.55, YELLOW)


def annotate_frame(frame: np.ndarray, reading: BoardReading, reader: BoardReader) -> np.ndarray:
    img = frame.copy() if frame.ndim == 3 else cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
    pose, model = reader.pose, reader.model
    if reading.board_found and pose is not None and model is not None:
        n = pose.size
        for i in range(n + 1):
            for a, b in (((i, 0, 0), (i, n, 0)), ((0, i, 0), (n, i, 0))):
                p = pose.project(np.array([a, b], dtype=np.float64))
                cv2.line(img, tuple(np.round(p[0]).astype(int)), tuple(np.round(p[1]).astype(int)),
                         GREEN, 1, cv2.LINE_AA)  # fmt: skip
        fits = reader.last_fits or {}
        for s, name in enumerate(model.names):
            sq = reading.squares.get(name)
            if sq is None:
                continue
            c, r = model.centres[s], model.radial[s]
            if not sq.empty and "base_t" in fits and "top_z" in fits:
                base = c + r * float(fits["base_t"][s])
                # the stack as read: its front edge on the board and its top surface
                top_c = np.append(c + r * (float(fits["base_t"][s]) + 0.35), fits["top_z"][s])
                pts = pose.project(np.array([[*base, 0.0], top_c]))
                p0, p1 = (tuple(np.round(p).astype(int)) for p in pts)
                cv2.line(img, p0, p1, YELLOW, 2, cv2.LINE_AA)
                anchor = pts[1]
            else:
                anchor = pose.project(np.array([[*c, 0.0]]))[0]
            colour = GREEN if sq.confidence >= 0.8 else (YELLOW if sq.confidence >= 0.6 else RED)
            x, y = int(anchor[0]) - 14, int(anchor[1]) - 4
            if sq.empty:
                _text(img, f"{sq.confidence:.2f}", (x, y + 8), 0.3, colour)
            else:
                _text(img, sq.label(), (x, y), 0.45, colour)
                _text(img, f"{sq.confidence:.2f}", (x, y + 14), 0.35, colour)
    _banner(img, reading)
    return img


def top_view(
    frame: np.ndarray, reading: BoardReading, reader: BoardReader, ppp: int = 64
) -> np.ndarray:
    pose = reader.pose
    if pose is None:
        return np.zeros((200, 400, 3), np.uint8)
    rect = Rectifier(pose, px_per_pitch=ppp, margin=0.8)
    img = rect.warp(frame)
    n = pose.size
    for i in range(n + 1):
        p = rect.rect_from_board(np.array([[i, 0], [i, n], [0, i], [n, i]], dtype=np.float64))
        cv2.line(
            img, tuple(np.round(p[0]).astype(int)), tuple(np.round(p[1]).astype(int)), GREEN, 1
        )
        cv2.line(
            img, tuple(np.round(p[2]).astype(int)), tuple(np.round(p[3]).astype(int)), GREEN, 1
        )
    for name, sq in reading.squares.items():
        file, rank = "abcdefgh".index(name[0]), int(name[1:]) - 1
        p = rect.rect_from_board(np.array([[file + 0.08, rank + 0.25]]))[0]
        colour = GREEN if sq.confidence >= 0.8 else (YELLOW if sq.confidence >= 0.6 else RED)
        _text(img, sq.label(), (int(p[0]), int(p[1])), 0.5, colour)
    _banner(img, reading)
    return img


def write_debug(directory: str | Path, frame: np.ndarray, reading: BoardReading,
                reader: BoardReader, stem: str = "") -> list[Path]:  # fmt: skip
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    prefix = f"{stem}_" if stem else ""
    paths = [out / f"{prefix}frame.png", out / f"{prefix}topview.png"]
    cv2.imwrite(str(paths[0]), annotate_frame(frame, reading, reader))
    cv2.imwrite(str(paths[1]), top_view(frame, reading, reader))
    return paths
