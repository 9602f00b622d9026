"""What the LEDs showed over time, cut into keyframes: the evidence behind the README's pictures.

The firmware latches a new LED frame about every 20 ms while anything is animated, so a capture of a
few seconds holds a hundred near-identical latches. A player does not see latches, they see
*moments*: "b1 lights up", "b1 goes dim again". `keyframes` groups consecutive latches that look the
same into one moment with a start and a duration.

Squares the firmware animates by itself (pulse, blink: known from the frame that was sent) change on
every latch; they are kept out of the comparison and drawn at their brightest, or every latch would
be a new moment. Everything the host steps through (the counted flashes of a hint) stays in.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from controller.leds.emulator import EmulatedBoard, LedLatch
from controller.leds.frame import Animation, Effect, LedFrame
from controller.leds.layout import LedConfig
from controller.leds.link import LedLink

RGB = tuple[int, int, int]

# A moment shorter than this is the instant between two host frames, not something a player sees.
MIN_MOMENT_S = 0.06


@dataclass(frozen=True)
class Keyframe:
    colours: dict[str, RGB]  # lit squares only
    start: float  # seconds from the start of the capture
    seconds: float  # how long the moment lasted


def film(
    board: EmulatedBoard,
    link: LedLink,
    config: LedConfig,
    picture: LedFrame | Animation,
    seconds: float,
) -> list[Keyframe]:
    """Show `picture` through the real link on the emulated board and cut what its LEDs latched
    during the next `seconds` into moments (one animation cycle is the natural length)."""
    mark = board.mark()
    start = time.monotonic()
    link.show_blocking(picture, timeout=5.0)
    time.sleep(seconds)
    end = time.monotonic()
    latches = [latch for latch in board.latches_since(mark) if latch.seen_at <= end]
    return keyframes(latches, config, animated_squares(picture), start=start, end=end)


def animated_squares(picture: LedFrame | Animation) -> dict[str, Effect]:
    """Squares the firmware animates by itself (pulse or blink) in any step of `picture`."""
    frames = [frame for frame, _ in picture.steps] if isinstance(picture, Animation) else [picture]
    out: dict[str, Effect] = {}
    for frame in frames:
        for square, light in frame.lit().items():
            if light.effect in (Effect.PULSE, Effect.BLINK):
                out[square] = light.effect
    return out


def keyframes(
    latches: Sequence[LedLatch],
    config: LedConfig,
    animated: Iterable[str] = (),
    *,
    start: float | None = None,
    end: float | None = None,
) -> list[Keyframe]:
    """Group latches (host-time ordered) into moments; `animated` squares are shown at their
    brightest over the capture and do not split moments. Times are relative to `start` (default:
    the first latch); the last moment runs to `end` (default: the last latch)."""
    if not latches:
        return []
    animated = set(animated)
    t0 = latches[0].seen_at if start is None else start
    t_end = latches[-1].seen_at if end is None else end
    brightest: dict[str, RGB] = {}
    for latch in latches:
        for square, rgb in latch.lit(config).items():
            if square in animated and sum(rgb) > sum(brightest.get(square, (0, 0, 0))):
                brightest[square] = rgb

    moments: list[tuple[dict[str, RGB], float]] = []  # (colours, start time)
    for latch in latches:
        colours = {sq: rgb for sq, rgb in latch.lit(config).items() if sq not in animated}
        if not moments or moments[-1][0] != colours:
            moments.append((colours, latch.seen_at))

    out: list[Keyframe] = []
    for i, (colours, begin) in enumerate(moments):
        finish = moments[i + 1][1] if i + 1 < len(moments) else t_end
        if finish - begin < MIN_MOMENT_S:
            continue
        shown = {**colours, **brightest}
        if out and out[-1].colours == shown:  # a glitch between two equal moments was dropped
            last = out[-1]
            out[-1] = Keyframe(last.colours, last.start, finish - t0 - last.start)
            continue
        out.append(Keyframe(shown, begin - t0, finish - begin))
    return out


def brightened(before: Keyframe, after: Keyframe) -> list[str]:
    """Squares brighter in `after` than in `before` (a flash starting, a light coming on)."""
    return [
        square for square, rgb in after.colours.items()
        if sum(rgb) > sum(before.colours.get(square, (0, 0, 0)))
    ]  # fmt: skip


def dimmed(before: Keyframe, after: Keyframe) -> list[str]:
    return brightened(after, before)


def flash_counts(moments: Sequence[Keyframe]) -> dict[str, int]:
    """How many times each square went brighter than it was in the moment before (a flash).

    The first moment is the resting picture; what a player counts is every rise after it."""
    counts: dict[str, int] = {}
    for before, after in itertools.pairwise(moments):
        for square in brightened(before, after):
            counts[square] = counts.get(square, 0) + 1
    return counts
