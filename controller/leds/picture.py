"""Draw LED moments as pictures: the board seen from above, the pieces on it, each LED glowing.

Used for the README's "what the LEDs mean" pictures and by `takboard leds pictures`. One board per
moment (`film.Keyframe`), left to right in time, each captioned with when it starts, how long it
lasts and what changed ("b1 flash 2"), so a counted-flash hint reads like a comic strip.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import cv2
import numpy as np

from controller.leds.film import Keyframe, brightened, dimmed
from controller.leds.frame import Effect

CELL = 56  # pixels per square
MARGIN = 22  # around the board, for the file and rank letters
CAPTION = 44  # below each board
TITLE = 40
PER_ROW = 4
WOOD = (52, 74, 104)  # BGR, a dark walnut so the glow reads
GRID = (34, 48, 68)
INK = (235, 235, 235)
LIGHT_PIECE, DARK_PIECE = (205, 222, 232), (40, 42, 48)
FONT = cv2.FONT_HERSHEY_SIMPLEX

Stack = tuple[tuple[int, int], ...]  # (player, stone) bottom to top, as controller.tak gives them


def _display(rgb: tuple[int, int, int]) -> np.ndarray:
    """LED PWM value -> what an eye sees on screen (gamma), as BGR floats 0..255."""
    r, g, b = (255.0 * (v / 255.0) ** (1 / 2.2) for v in rgb)
    return np.array([b, g, r], dtype=np.float32)


def _square_origin(square: str, size: int) -> tuple[int, int]:
    """Top-left pixel of a square; rank `size` at the top, as player 1 sees the board."""
    file, rank = ord(square[0]) - ord("a"), int(square[1:]) - 1
    return MARGIN + file * CELL, MARGIN + (size - 1 - rank) * CELL


def draw_board(
    size: int,
    colours: Mapping[str, tuple[int, int, int]],
    stacks: Mapping[str, Stack] | None = None,
    effects: Mapping[str, Effect] | None = None,
) -> np.ndarray:
    """One moment: wood, the LED glow under each lit square, the pieces on top, letters around."""
    side = 2 * MARGIN + size * CELL
    image = np.zeros((side, side, 3), np.float32)
    image[:] = WOOD
    # Light under the board: each lit square shows its colour in a soft disc, as bright as
    # the LED is (a dim LED: a dark-tinted disc; a bright one: a vivid one), never clipped to white.
    light = np.zeros_like(image)
    cover = np.zeros(image.shape[:2], np.float32)
    for square, rgb in colours.items():
        x, y = _square_origin(square, size)
        centre = (x + CELL // 2, y + CELL // 2)
        cv2.circle(light, centre, int(CELL * 0.40), _display(rgb).tolist(), -1, cv2.LINE_AA)
        cv2.circle(cover, centre, int(CELL * 0.40), 1.0, -1, cv2.LINE_AA)
    light = cv2.GaussianBlur(light, (0, 0), CELL * 0.10)
    cover = cv2.GaussianBlur(cover, (0, 0), CELL * 0.10)[..., None]
    image = np.clip(image * (1 - cover) + light, 0, 255).astype(np.uint8)
    for i in range(size + 1):
        at = MARGIN + i * CELL
        cv2.line(image, (MARGIN, at), (MARGIN + size * CELL, at), GRID, 1)
        cv2.line(image, (at, MARGIN), (at, MARGIN + size * CELL), GRID, 1)
    for square, stack in (stacks or {}).items():
        if stack:
            _draw_stack(image, *_square_origin(square, size), stack)
    for square, effect in (effects or {}).items():
        x, y = _square_origin(square, size)
        mark = "~" if effect is Effect.PULSE else "*"
        cv2.putText(image, mark, (x + 3, y + 14), FONT, 0.45, INK, 1, cv2.LINE_AA)
    for i in range(size):
        letter = "abcdefgh"[i]
        cx = MARGIN + i * CELL + CELL // 2 - 4
        cv2.putText(image, letter, (cx, side - 6), FONT, 0.45, INK, 1, cv2.LINE_AA)
        cy = MARGIN + (size - 1 - i) * CELL + CELL // 2 + 5
        cv2.putText(image, str(i + 1), (6, cy), FONT, 0.45, INK, 1, cv2.LINE_AA)
    return image


def _draw_stack(image: np.ndarray, x: int, y: int, stack: Stack) -> None:
    """The top piece from above (flat: a tile, wall: a thin bar, capstone: a disc), smaller than
    the square so the glow shows around it; a stack's height is written in its corner."""
    player, stone = stack[-1]
    fill = LIGHT_PIECE if player == 0 else DARK_PIECE
    edge = (90, 90, 90) if player == 0 else (130, 130, 130)
    cx, cy, half = x + CELL // 2, y + CELL // 2, int(CELL * 0.26)
    if stone == 1:  # wall: the tile standing on its edge, seen from above
        box = ((cx - half, cy - half // 3), (cx + half, cy + half // 3))
    elif stone == 2:
        cv2.circle(image, (cx, cy), int(half * 0.8), fill, -1, cv2.LINE_AA)
        cv2.circle(image, (cx, cy), int(half * 0.8), edge, 1, cv2.LINE_AA)
        box = None
    else:
        box = ((cx - half, cy - half), (cx + half, cy + half))
    if box is not None:
        cv2.rectangle(image, *box, fill, -1)
        cv2.rectangle(image, *box, edge, 1)
    if len(stack) > 1:
        cv2.putText(image, str(len(stack)), (x + CELL - 14, y + CELL - 5), FONT, 0.4, INK, 1,
                    cv2.LINE_AA)  # fmt: skip


def describe_changes(moments: Sequence[Keyframe]) -> list[str]:
    """A caption per moment: what lit up (with its running flash count) or went dim/dark."""
    captions: list[str] = []
    counts: dict[str, int] = {}
    for i, moment in enumerate(moments):
        if i == 0:
            captions.append("resting")
            continue
        brighter = brightened(moments[i - 1], moment)
        dimmer = dimmed(moments[i - 1], moment)
        for square in brighter:
            counts[square] = counts.get(square, 0) + 1
        if brighter:
            captions.append(", ".join(f"{sq} flash {counts[sq]}" for sq in brighter))
        elif dimmer:
            captions.append(", ".join(
                f"{sq} {'dim' if sq in moment.colours else 'off'}" for sq in dimmer
            ))  # fmt: skip
        else:
            captions.append("")
    return captions


def film_strip(
    title: str,
    size: int,
    moments: Sequence[Keyframe],
    stacks: Mapping[str, Stack] | None = None,
    effects: Mapping[str, Effect] | None = None,
) -> np.ndarray:
    """Every moment as a board, left to right and then in rows of `PER_ROW`, under a title."""
    if not moments:
        raise ValueError(f"{title}: nothing was filmed (no LED frame latched)")
    boards = [draw_board(size, m.colours, stacks, effects) for m in moments]
    captions = describe_changes(moments) if len(moments) > 1 else [""]
    side = boards[0].shape[0]
    columns = min(PER_ROW, len(boards))
    rows = -(-len(boards) // columns)
    (title_width, _), _ = cv2.getTextSize(title, FONT, 0.6, 1)
    width = max(columns * side, title_width + 20)
    sheet = np.full((TITLE + rows * (side + CAPTION), width, 3), 24, np.uint8)
    cv2.putText(sheet, title, (10, 27), FONT, 0.6, INK, 1, cv2.LINE_AA)
    for i, (board, moment, caption) in enumerate(zip(boards, moments, captions, strict=True)):
        x, y = (i % columns) * side, TITLE + (i // columns) * (side + CAPTION)
        sheet[y : y + side, x : x + side] = board
        if len(moments) > 1:
            when = f"{moment.start:4.1f} s, {moment.seconds:.2f} s long"
            cv2.putText(sheet, when, (x + 8, y + side + 16), FONT, 0.42, INK, 1, cv2.LINE_AA)
        cv2.putText(sheet, caption, (x + 8, y + side + 34), FONT, 0.42, INK, 1, cv2.LINE_AA)
    return sheet
