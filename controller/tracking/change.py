"""Which squares CHANGED between two still boards, from vision's appearance signatures.

The reader's absolute answers are sometimes wrong the same way frame after frame (a phantom stack,
a flat read as a wall): scored as absolute truth, one such square contradicts every hypothesis and
stalls the game. What changed between the last board that matched the game and the board now is
far more reliable, and it is what camera chess recorders judge moves by. vision gives, per square,
a signature (`vision.appearance`: log brightness along the square's strip, in units where ~1 is a
visible difference); this module turns two of them into a change per square and a probability that
the square really changed. Duck-typed: a signature is anything numpy can subtract.

    change[s] = mean of the CHANGE_TOP largest per-bin colour distances of (now - then), after the
                board-wide median shift is taken out (the room's light drifting, the exposure)

A signature's first `STRIP_BINS` rows are the strip's bins; where the reader gives more, the rest
are the square's footprint (`footprint_changes`): what shows a flat taken off a stack of its
colour, or dropped on one, from near straight above.

The same comparison as `vision.appearance.changes` (tracking may not import vision; a test checks
that the two agree).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np

CHANGE_TOP = 3
# Measured on the real renderer + reader (bench/record.py seeds 2-5, consecutive still boards):
# squares nobody touched 0.04-0.2 typically, 0.66 at most away from the ply; next to a square the
# ply altered up to 3.5 (its strip runs over the neighbour); squares a ply altered 3.2-20.
UNCHANGED_BELOW = 0.7  # change below this: surely not changed
CHANGED_ABOVE = 1.7  # change above this: surely changed

Signatures = Mapping[str, object]
STRIP_BINS = 8  # vision.appearance.BINS: the strip's part of a signature (a test checks)


def _drift_free(now: Signatures, then: Signatures, part: slice = slice(0, STRIP_BINS)
                ) -> tuple[list[str], np.ndarray]:  # fmt: skip
    """The squares in both, and the change of their signatures' `part` (the strip's bins unless
    told) [squares, rows, channels] with the board-wide median shift (the room's light, the
    exposure) taken out."""
    names = [name for name in now if name in then]
    if not names:
        return names, np.zeros((0, 0, 1), np.float32)
    diff = np.stack([np.asarray(now[n], np.float32)[part] for n in names]) - np.stack(
        [np.asarray(then[n], np.float32)[part] for n in names]
    )
    channels = diff.shape[-1] if diff.ndim >= 2 else 1
    diff = diff.reshape(len(names), -1, channels)
    return names, diff - np.median(diff.reshape(-1, channels), axis=0)


def bin_changes(now: Signatures, then: Signatures) -> dict[str, np.ndarray]:
    """Per square, the change of every bin of its strip (squares in both), drift taken out."""
    names, diff = _drift_free(now, then)
    return dict(zip(names, np.linalg.norm(diff, axis=-1), strict=True))


def changes(now: Signatures, then: Signatures) -> dict[str, float]:
    """Change per square between two boards' signatures (squares in both)."""
    return {n: float(np.sort(d)[-CHANGE_TOP:].mean()) for n, d in bin_changes(now, then).items()}


def footprint_changes(now: Signatures, then: Signatures) -> dict[str, float]:
    """Change of each square's footprint (signatures that have one, in both), drift taken out.

    A square's own pieces change its footprint all round (the top piece's outline, rotated or
    shifted, and its tone); a neighbour's new piece or shadow reaches in from one side only. So
    the change is taken half by half (the footprint's near, far, left and right halves, each the
    mean of its `CHANGE_TOP` cells that changed most) and the quietest half is the square's:
    on four rendered games from near above, next to squares a ply altered, 0.34 at the 99th
    percentile where taking the whole footprint gave 3.0 (docs/recording.md, session 30)."""
    names = [n for n in now if n in then and _has_footprint(now[n]) and _has_footprint(then[n])]
    if not names:
        return {}
    names, diff = _drift_free({n: now[n] for n in names}, then, slice(STRIP_BINS, None))
    side = round(np.sqrt(diff.shape[1]))
    cells = np.linalg.norm(diff, axis=-1).reshape(len(names), side, side)
    mid = side // 2
    halves = (cells[:, : mid + 1], cells[:, mid:], cells[:, :, : mid + 1], cells[:, :, mid:])
    per_half = [np.sort(h.reshape(len(names), -1), axis=1)[:, -CHANGE_TOP:].mean(axis=1)
                for h in halves]  # fmt: skip
    return dict(zip(names, np.min(per_half, axis=0).astype(float).tolist(), strict=True))


def _has_footprint(signature: object) -> bool:
    return np.shape(signature)[0] > STRIP_BINS


def board_noise(changes: Mapping[str, float]) -> float:
    """The board's median change: what a square nobody touched changes by on this pair of
    boards (the sensor's noise, the light's flicker); 0 for no squares. Most squares of a
    board are untouched by one ply, so the median is theirs."""
    return float(np.median(list(changes.values()))) if changes else 0.0


def p_changed(change: float) -> float:
    """How sure a change is real: 0 below `UNCHANGED_BELOW`, 1 above `CHANGED_ABOVE`."""
    return min(1.0, max(0.0, (change - UNCHANGED_BELOW) / (CHANGED_ABOVE - UNCHANGED_BELOW)))


# A square a ply alters only a little (a flat dropped on a flat of its colour, a capstone moved
# onto one) is expected to change faintly: there a change that stands out from the board's noise
# counts, from FAINT_OVER_NOISE times the board's median change (and at least FAINT_FROM) up to
# UNCHANGED_BELOW. Bench seed 20: a dark capstone moved onto e1 (dark flats) changed it by 0.75,
# the other candidate square by 0.13; both were "not changed" by `p_changed`.
FAINT_FROM = 0.25
FAINT_OVER_NOISE = 3.0


def p_faint(change: float, noise: float) -> float:
    """How sure a faint change is real, for a square a hypothesis alters out of sight: 0 up to
    the noise threshold, 1 from `UNCHANGED_BELOW` on (where `p_changed` only begins)."""
    start = min(max(FAINT_FROM, FAINT_OVER_NOISE * noise), UNCHANGED_BELOW - 0.05)
    return min(1.0, max(0.0, (change - start) / (UNCHANGED_BELOW - start)))


# A square's footprint (`footprint_changes`) tells a faint change where its strip cannot: a flat
# taken off a stack of its colour or dropped on one, from near straight above. Measured on nine
# rendered games at tilts 1-38 (docs/recording.md, session 30): squares nobody touched changed
# their footprints by 0.60 at the 99th percentile (2 times their board's median; the worst 0.95),
# those next to a square a ply altered by 0.58; such faint changes by 0.39-6.2, 44 of 45 above
# 0.85. Counted from here on: 44 of those 45, and 8 of 9,034 untouched squares (5 of 2,463 next
# to altered ones), most where the strip counts a faint change too.
FOOTPRINT_FAINT_FROM = 0.5
FOOTPRINT_FAINT_SPAN = 0.5  # from FAINT_FROM (or FAINT_OVER_NOISE times the board's median) on


def p_faint_footprint(change: float, noise: float) -> float:
    """`p_faint` for a footprint's change (`footprint_changes`; `noise`: the board's median)."""
    start = max(FOOTPRINT_FAINT_FROM, FAINT_OVER_NOISE * noise)
    return min(1.0, max(0.0, (change - start) / FOOTPRINT_FAINT_SPAN))


def faint_changes(now: Signatures, then: Signatures, strip: Mapping[str, float],
                  footprints: Mapping[str, float] | None = None) -> dict[str, float]:
    """Per square, how sure a faint change is real: by its strip (`strip`, the `changes` of the
    same signatures; `p_faint`) or by its footprint where the signatures have one
    (`p_faint_footprint`), whichever is surer. `footprints`: their `footprint_changes`, where
    the caller has them already."""
    floor = board_noise(strip)
    if footprints is None:
        footprints = footprint_changes(now, then)
    under = board_noise(footprints)
    return {sq: max(p_faint(c, floor), p_faint_footprint(footprints.get(sq, 0.0), under))
            for sq, c in strip.items()}  # fmt: skip


# A square whose look surely did not change: its strip by less than QUIET_STRIP and its
# footprint by less than QUIET_FOOTPRINT (only where the signatures have footprints). The
# reader's height there may still move: a square's views reach over it to the square behind,
# and a piece set down there changes what the classifier sees (fresh bench seed 3140, tilt 36:
# a flat placed on d4 behind d3 turned d3's height from 2 at 0.86 to 1 at 0.69, its strip
# changing by 0.02 and its footprint by 0.05; `d3+` was guessed for `d4`). On the 218 stored
# games with footprints (sets 2801, 3001, 3051, 3101 and the 18 lost ones), at the evaluation
# that committed each ply: the reader's height moved by half a piece or more on 498 squares the
# ply left alone, 436 of them this quiet, and on 806 squares whose stack the ply grew or shrank
# (top kept), none of them this quiet (the quietest: strip 0.12 with footprint 0.53, 0.15 with
# 0.42). The strip alone does not tell them apart (39 true ones under 0.15), the footprint alone
# nearly (0 under 0.2, 3 under 0.3).
QUIET_STRIP = 0.15
QUIET_FOOTPRINT = 0.3


def quiet_squares(strip: Mapping[str, float], footprints: Mapping[str, float]) -> set[str]:
    """The squares whose look surely did not change (`QUIET_STRIP`, `QUIET_FOOTPRINT`): `strip`
    and `footprints` are the `changes` and `footprint_changes` of one pair of boards. None
    without footprints."""
    return {sq for sq, c in strip.items() if c < QUIET_STRIP
            and footprints.get(sq, QUIET_FOOTPRINT) < QUIET_FOOTPRINT}  # fmt: skip


# A change of the light alone (a shadow cast or lifted, a glare spot) scales all three colour
# channels alike: in log brightness the same shift on each, a grey shift. A piece placed, taken or
# moved changes the colour as well, mostly. Measured on the bench's rendered games (seeds 4, 6, 7,
# 9, 37; the three largest bins of squares that changed by 0.7 or more): the colour part of the
# change over its grey part was under 0.4 on 46 of 73 changes of squares nobody touched (shadows
# of stacks built or taken down nearby) and on 206 of 732 squares a ply altered (flats dropped on
# flats of their colour, pieces that happen to have the wood's hue). The bins are in log
# brightness plus an offset, which shifts dark channels less: a shadow's ratio is not 0.
LIGHT_ONLY_BELOW = 0.35  # colour part / grey part of a change: up to this, light alone
LIGHT_ONLY_UNTIL = 0.6  # and from this on, not light alone
# The deepest shadow leaves 30 % of the light (the simulator's darkest): a shift of 4 units in
# each channel, a change of 7. Light and dark pieces may differ in brightness alone, and a piece
# placed on wood or a top changing colour changes its square by 5-20: beyond 7, not a shadow.
LIGHT_ONLY_MAX = 7.0
# `light_only` at least this: a square's change is taken for a shadow's (a shadow moved with a
# stack, `_shade_moved`; a reply read in a standing piece's shadow, `_reply_in_shadow`; a piece
# the reader lost in one, `_lost_in_shadow`), below it for a colour's (`_unseen_after_hand`)
SHADOWED = 0.5


def light_only(now: Signatures, then: Signatures) -> dict[str, float]:
    """Per square, how much its change looks like a change of the light alone: 1 for a grey
    shift (a shadow), 0 for a change of colour or one deeper than a shadow. Measured over the
    `CHANGE_TOP` bins that changed most, after the board-wide shift is taken out, as `changes`
    does."""
    names, diff = _drift_free(now, then)
    if not names:
        return {}
    one = np.asarray(now[names[0]])
    if one.ndim < 2 or one.shape[-1] < 2:  # one channel: no colour to tell by
        return dict.fromkeys(names, 0.0)
    norm, diff = _top_bins(diff)
    grey = diff.mean(axis=-1)  # [S, CHANGE_TOP]
    colour = np.linalg.norm(diff - grey[..., None], axis=-1).mean(axis=1)
    ratio = colour / np.maximum(np.abs(grey.mean(axis=1)), 1e-6)
    p = np.clip((LIGHT_ONLY_UNTIL - ratio) / (LIGHT_ONLY_UNTIL - LIGHT_ONLY_BELOW), 0.0, 1.0)
    p[norm.mean(axis=1) > LIGHT_ONLY_MAX] = 0.0
    return dict(zip(names, p.astype(float).tolist(), strict=True))


def darkened(now: Signatures, then: Signatures) -> dict[str, float]:
    """Per square, how much darker it became, over the same bins as `light_only` (negative:
    brighter; the signatures' units, grey part of the change): a shadow that came, or a dark
    piece, darkens; a shadow that went brightens."""
    names, diff = _drift_free(now, then)
    if not names:
        return {}
    _norm, diff = _top_bins(diff)
    return dict(zip(names, (-diff.mean(axis=(1, 2))).astype(float).tolist(), strict=True))


def _top_bins(diff: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """[S, bins, C] -> the `CHANGE_TOP` bins that changed most per square: (their norms
    [S, CHANGE_TOP], their changes [S, CHANGE_TOP, C])."""
    norm = np.linalg.norm(diff, axis=-1)
    top = np.argsort(norm, axis=1)[:, -CHANGE_TOP:]
    return (np.take_along_axis(norm, top, axis=1),
            np.take_along_axis(diff, top[..., None], axis=1))  # fmt: skip


def mean_signatures(frames: Iterable[Signatures]) -> dict[str, np.ndarray] | None:
    """Mean signature per square over several frames (None when a frame has none)."""
    frames = list(frames)
    if not frames or any(f is None for f in frames):
        return None
    names = [n for n in frames[0] if all(n in f for f in frames)]
    return {n: np.mean([np.asarray(f[n], np.float32) for f in frames], axis=0) for n in names}
