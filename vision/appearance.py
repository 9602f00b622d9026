"""Per-square appearance signatures: what each square looks like, for telling what CHANGED.

The reader's absolute answers (empty, colour, kind, height) are sometimes wrong, and wrong the same
way frame after frame. What changed between two still boards is much easier to see than what is
there: a recorder compares the signature of every square now with the one it kept from the last
board that matched the game (the way camera chess recorders work).

A square's signature is taken from its radial strip (`vision.squares`: the line on the board plane
from the camera's foot point through the square's centre, along which a stack on the square is
smeared in the camera's view). Only the square's own footprint is used, `BIN_START` to `BIN_END`
pitches: further out the strip runs over the next square, and a piece placed there would show as a
change here. It is cut into `BINS` bins; each bin keeps its mean colour as log brightness per
channel, divided by `LOG_UNIT`:

    signature[s, b, c] = log(mean BGR_c of bin b of square s + LOG_OFFSET) / LOG_UNIT

Log brightness, so a change of light (the slow drift of a room, the camera's exposure) is the same
shift on every bin of every square: a comparison takes it out as the median shift of the whole
board. `LOG_UNIT` makes one unit a visible difference: about 35 % in brightness on a bin.
Measured on the bench's rendered games (consecutive still boards, seeds 2-5): squares nobody
touched 0.04-0.66, squares a ply altered 3.2-20; a light flat on light wood seen from straight
above can change its square by as little as 0.46 (tracking then also asks the reader). The
comparison used by tracking (`controller.tracking.change`):

    d[s, b] = || (sig_now - sig_then)[s, b, :] - median over all s, b of (sig_now - sig_then) ||
    change[s] = mean of the CHANGE_TOP largest d[s, b]

so change ~0 on a square nobody touched and >= 1 where a piece was placed, taken or moved (a
localised change counts in full: a stack one piece taller shows only in a few bins, and then often
not above the noise). LED glow is not taken out (tracking follows it on still boards).

After the strip's bins, a signature holds the square's footprint: the board-plane grid of the
classifier's views (`vision.views`, the blurred frame at height 0) over the square's inner
`FOOTPRINT` x `FOOTPRINT` points, +-0.48 pitch, in the same units. The strip's few bins average
the square's colours; they barely move when a flat is taken off a stack of its colour, or dropped
on one, which from near straight above is all that changes. The footprint sees the top piece's
outline and tone, and no two pieces sit or look quite alike: the piece below (or above) shows
where and how it lies. Measured on nine rendered games at tilts 1-38 (docs/recording.md,
session 30): such squares changed their strips by 0.04-2.7 (median 0.38) and their footprints by
0.39-6.2 (median 1.8; `controller.tracking.change.footprint_changes`); squares nobody touched by
0.60 at the 99th percentile (2 times their board's median), those next to a square a ply
altered by 0.58.

The signature depends on the pose: a camera that was bumped (`BoardReading.relocalised`) samples
other pixels, and a kept signature must then be taken again.
"""

from __future__ import annotations

import numpy as np

BIN_START = -0.35  # pitches along the strip (negative: towards the camera; a stack in front rises
# over the first tenth of a pitch)
BIN_END = 0.45  # the end of the square: beyond it, a piece placed behind would show here
BINS = 8
LOG_OFFSET = 16.0  # keeps the log of dark pixels from amplifying their noise
LOG_UNIT = 0.3  # log brightness per unit of signature (about 35 %)
CHANGE_TOP = 3  # bins whose mean is a square's change


FOOTPRINT = 9  # points across, of the plane grid's 11 (the outer ring, +-0.6 pitch, is the
# neighbours' ground)
FOOTPRINT_STEPS = 64  # per unit


def signatures(t: np.ndarray, profile: np.ndarray, plane: np.ndarray | None = None) -> np.ndarray:
    """Strips of one frame -> signatures. `t` [T] pitches, `profile` [S, T, 3] BGR -> [S, BINS, 3];
    with the board-plane grid `plane` [S, 11, 11, 3] BGR, the footprints follow the bins:
    [S, BINS + FOOTPRINT**2, 3].

    A bin the strip does not reach (a short strip near the camera's foot point) repeats the last
    bin that it does reach, so it never looks like a change.
    """
    if profile.ndim != 3 or profile.shape[1] != len(t):
        raise ValueError(f"profile must be [squares, {len(t)}, channels], got {profile.shape}")
    edges = np.linspace(BIN_START, BIN_END, BINS + 1)
    index = np.searchsorted(edges, t, side="right") - 1  # bin of every sample, -1 / BINS outside
    out = np.empty((profile.shape[0], BINS, profile.shape[2]), np.float32)
    last = None
    for b in range(BINS):
        inside = index == b
        if inside.any():
            last = profile[:, inside, :].mean(axis=1)
        out[:, b, :] = last if last is not None else profile[:, :1, :].mean(axis=1)
    strips = _in_units(out)
    if plane is None:
        return strips
    cut = (plane.shape[1] - FOOTPRINT) // 2
    footprints = _in_units(plane[:, cut : cut + FOOTPRINT, cut : cut + FOOTPRINT, :]
                           .reshape(len(out), -1, 3))  # fmt: skip
    # kept to 1/FOOTPRINT_STEPS of a unit (0.5 % in brightness, far under the noise): float16,
    # as game files store footprints, holds such values exactly, so a stored game replays as read
    footprints = np.round(footprints * FOOTPRINT_STEPS) / FOOTPRINT_STEPS
    return np.concatenate([strips, footprints.astype(np.float32)], axis=1)


def _in_units(bgr: np.ndarray) -> np.ndarray:
    """Mean colours (BGR) -> the signature's units: log brightness per channel / `LOG_UNIT`."""
    return np.log(np.maximum(bgr, 0.0) + LOG_OFFSET) / LOG_UNIT


def changes(now: np.ndarray, then: np.ndarray) -> np.ndarray:
    """How much every square changed between two signature arrays [S, BINS, C] -> [S].

    The reference implementation of the comparison above (tracking carries its own copy, since it
    may not import vision; `tests/tracking/test_by_change.py` checks that the two agree).
    """
    diff = now[:, :BINS] - then[:, :BINS]
    diff = diff - np.median(diff.reshape(-1, diff.shape[-1]), axis=0)
    d = np.linalg.norm(diff, axis=-1)  # [S, BINS]
    top = np.sort(d, axis=1)[:, -CHANGE_TOP:]
    return top.mean(axis=1)
