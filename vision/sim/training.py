"""Training data for the square classifier, rendered by the simulated camera; and the fit.

    takboard vision train [--installations 3600] [--epochs 10] [--jobs 2] [-o vision/square_net.npz]
    takboard vision train --from vision/square_net.npz --first 3600 --installations 2400 ...
    takboard vision train --installations 6500 --keep-empty 0.4 --data train-data/ ...

Like the benchmark (bench/vision.py), the data comes in installations: a random board, piece set,
room, camera pose (tilt 0..40 degrees), resolution (1280x720 or 960x540) and size 4..8,
whose empty board is seen first (the
empty-board model, exactly as the reader builds it), then ten positions under slowly drifting
light, some with LEDs lit. Half of the positions are ordinary mid-games (`random_scene`), half
are crowded with tall stacks, walls and capstones (so the rarer cases are not rare here). Every
square of every frame is one example: its `vision.views` features, its true top kind and height.

Seeds: training uses 1000 + installation (10000 + installation - 4000 from 4000 on, past the
held-out seeds: `training_seed`); the held-out set (temperature scaling, the figures printed at
the end) uses 5000 + installation; the benchmark's installations come from seeds 1..3
drawn another way. Nothing the benchmark reads was ever trained on.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import numpy as np

from vision import geometry
from vision.locate import BoardLocator, BoardNotFoundError, BoardPose
from vision.net import (
    FIRST_RANK,
    HIDDEN,
    KINDS,
    MAX_HEIGHT,
    SquareNet,
    factor_first_layer,
    fit_temperature,
    train,
)
from vision.sim.look import Look, random_setup
from vision.sim.renderer import RenderedFrame, render_frame
from vision.sim.scene import COLORS, Scene, capstones_per_player, random_leds, random_scene
from vision.views import N_FEATURES, SquareViews, mirror_index, warp_to_board

FRAMES_PER_INSTALLATION = 10
LED_SHARE = 0.15
# camera resolutions, drawn per installation: the benchmark's 1280x720 most often, and the 960x540
# `serve --sim` streams (the classifier must not learn one pixel size). Same aspect only: the
# simulated camera keeps its field of view, so another aspect would mean non-square pixels.
RESOLUTIONS = ((1280, 720), (1280, 720), (960, 540))
TRAIN_SEED = 1000
HELD_OUT_SEED = 5000
FACTORING_ROWS = 60000  # training squares the factored first layer is fitted on
MORE_TRAIN_SEED = 10000  # training installations from 4000 on (past the held-out seeds)


def training_seed(installation: int) -> int:
    """The seed of training installation `installation` (0, 1, ...): never a held-out one."""
    below = HELD_OUT_SEED - TRAIN_SEED
    if installation < below:
        return TRAIN_SEED + installation
    return MORE_TRAIN_SEED + installation - below


def crowded_scene(rng: np.random.Generator, size: int) -> Scene:
    """Most squares occupied, stacks up to 8, a fifth of the tops walls, capstones as in a set."""
    caps = dict.fromkeys(COLORS, capstones_per_player(size))
    stacks = {}
    for file in range(size):
        for rank in range(size):
            if rng.random() < 0.4:
                continue
            height = int(min(MAX_HEIGHT, 1 + rng.geometric(0.35)))
            stack = [(COLORS[int(rng.integers(2))], "flat") for _ in range(height)]
            colour, roll = stack[-1][0], rng.random()
            if roll < 0.2:
                stack[-1] = (colour, "wall")
            elif roll < 0.3 and caps[colour] > 0:
                stack[-1] = (colour, "cap")
                caps[colour] -= 1
            stacks[geometry.square_name(file, rank)] = stack
    return Scene(size, stacks)


@dataclass
class Shot:
    """One training frame of an installation, with what was used to render and read it."""

    pose: BoardPose  # located on the installation's empty frame, as the reader locates it
    views: SquareViews
    empty: np.ndarray  # the empty board's frame (BGR)
    empty_rect: np.ndarray  # its empty-board model (`warp_to_board`)
    scene: Scene
    look: Look
    frame: RenderedFrame
    tilt: float  # degrees


def installation_shots(seed: int, wooden_share: float = 0.0) -> Iterator[Shot]:
    """The frames of installation `seed`: a random size, camera, look and resolution, then
    FRAMES_PER_INSTALLATION positions (half ordinary mid-games, half crowded). Nothing when the
    board is not found in the empty frame. The draw is the same whoever consumes it, so the
    classifier's examples (`installation`) and any experiment on the same seeds see the same
    frames."""
    rng = np.random.default_rng(seed)
    size = int(rng.integers(4, 9))
    tilt = float(rng.uniform(0.0, 40.0))
    camera, look = random_setup(seed, size, tilt_deg=tilt, wooden_share=wooden_share)
    width, height = RESOLUTIONS[int(rng.integers(len(RESOLUTIONS)))]
    camera = camera.with_resolution(width, height)
    empty = render_frame(Scene(size), camera, look, seed=seed).image
    try:
        pose = BoardLocator(size).locate(empty)
    except BoardNotFoundError:
        return
    views = SquareViews(pose)
    empty_rect = warp_to_board(empty, pose)
    for k in range(FRAMES_PER_INSTALLATION):
        if rng.random() < 0.5:
            scene = random_scene(int(rng.integers(1 << 30)), size,
                                 max_height=int(rng.choice([6, 6, 8])))  # fmt: skip
        else:
            scene = crowded_scene(rng, size)
        if rng.random() < LED_SHARE:
            scene.leds = random_leds(rng, size)
        frame = render_frame(scene, camera, look, seed=seed + k + 1, t=2.0 * (k + 1))
        yield Shot(pose, views, empty, empty_rect, scene, look, frame, tilt)


def installation(
    seed: int, keep_empty: float = 1.0, wooden_share: float = 0.0
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One installation's examples: features [N, F] float16, kind [N], height - 1 [N].

    `keep_empty`: the share of empty squares kept (drawn from their own generator, so the frames
    rendered do not depend on it). `wooden_share`: the chance of a set whose light pieces are of
    the board's wood (`random_look`)."""
    xs, kinds, heights = [], [], []
    for shot in installation_shots(seed, wooden_share):
        views = shot.views
        features = views.features(views.sample(shot.frame.image, shot.empty_rect),
                                  shot.scene.leds)  # fmt: skip
        xs.append(features.astype(np.float16))
        for name in views.names:
            truth = shot.frame.truth.squares[name]
            kinds.append(0 if truth.empty else KINDS.index(truth.kind))
            heights.append(0 if truth.empty else min(truth.height, MAX_HEIGHT) - 1)
    if not xs:
        return np.zeros((0, N_FEATURES), np.float16), np.zeros(0, int), np.zeros(0, int)
    X, kind, height = np.vstack(xs), np.array(kinds), np.array(heights)
    if keep_empty < 1.0:
        keep = (kind > 0) | (np.random.default_rng((seed, 1)).random(len(kind)) < keep_empty)
        X, kind, height = X[keep], kind[keep], height[keep]
    return X, kind, height


def dataset(
    seeds: list[int], jobs: int, label: str, folder: Path, *, keep_empty: float = 1.0,
    wooden_share: float = 0.0,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    """The examples of these installations, rendered by `jobs` processes into files in `folder`
    and opened from there (memory-mapped: a training set larger than what is free to hold twice
    stays on disk and in the page cache). Rendered once: a folder that already holds the same
    installations is read back, so a refit with other settings costs no rendering."""
    name = f"{label.replace(' ', '-')}-{seeds[0]}-{len(seeds)}-keep{keep_empty:g}"
    if wooden_share:
        name += f"-wooden{wooden_share:g}"
    features, labels, meta = (folder / f"{name}.{ext}" for ext in ("f16", "npz", "json"))
    if not meta.exists():
        started = time.monotonic()
        kinds, heights, skipped = [], [], 0
        with open(features, "wb") as out, ProcessPoolExecutor(max_workers=jobs) as pool:
            render = partial(installation, keep_empty=keep_empty, wooden_share=wooden_share)
            for done, (X, kind, height) in enumerate(pool.map(render, seeds, chunksize=4), 1):
                out.write(np.ascontiguousarray(X, np.float16).tobytes())
                kinds.append(kind)
                heights.append(height)
                skipped += len(kind) == 0
                _progress(done, len(seeds), started, label)
        print(file=sys.stderr)
        if skipped:
            print(f"{label}: {skipped} installations skipped (board not found in the empty frame)",
                  file=sys.stderr)  # fmt: skip
        np.savez(labels, kind=np.concatenate(kinds), height=np.concatenate(heights))
        meta.write_text(json.dumps({"seeds": seeds, "keep_empty": keep_empty,
                                    "wooden_share": wooden_share}))  # last: complete  # fmt: skip
    else:
        print(f"{label}: the examples already rendered in {folder}", file=sys.stderr)
    with np.load(labels) as data:
        kind, height = data["kind"], data["height"]
    if len(kind) == 0:  # mmap cannot map an empty file
        return np.zeros((0, N_FEATURES), np.float16), kind, height
    X = np.memmap(features, np.float16, "r", shape=(len(kind), N_FEATURES))
    return X, kind, height


def _progress(done: int, total: int, started: float, label: str) -> None:
    width = 30
    filled = int(width * done / max(total, 1))
    elapsed = time.monotonic() - started
    eta = elapsed / done * (total - done) if done else 0.0
    print(f"\r{label} [{'#' * filled}{'-' * (width - filled)}] {done}/{total} installations "
          f"{elapsed:5.0f}s  eta {eta:4.0f}s", end="", file=sys.stderr, flush=True)  # fmt: skip


def held_out_figures(net: SquareNet, X: np.ndarray, kind: np.ndarray, height: np.ndarray) -> dict:
    p_kind, p_height = net.predict(X.astype(np.float32))
    called = p_kind.argmax(axis=1)
    occupied = kind > 0
    return {
        "squares": len(kind),
        "empty_right": float(((called == 0) == ~occupied).mean()),
        "kind_right": float((called == kind).mean()),
        "height_right_occupied": float((p_height.argmax(axis=1) == height)[occupied].mean()),
    }


def factoring_sample(X: np.ndarray, rows: int = FACTORING_ROWS) -> np.ndarray:
    """A fixed random sample of the training examples (in file order: X is read from disk) to
    fit the factored first layer on."""
    pick = np.random.default_rng(0).choice(len(X), size=min(rows, len(X)), replace=False)
    return np.asarray(X[np.sort(pick)], dtype=np.float32)


def restore_empty_prior(net: SquareNet, keep_empty: float) -> None:
    """A net trained on `keep_empty` of the empty squares learnt empty squares as that much rarer
    than they are; adding log(1 / keep_empty) to the empty logit puts the true odds back (Bayes'
    rule: the odds scale with the prior)."""
    _, b = net.layers[-1]
    b[KINDS.index("empty")] += np.float32(np.log(1.0 / keep_empty))


def run(
    installations: int,
    held_out: int,
    epochs: int,
    jobs: int,
    out: Path,
    *,
    first: int = 0,
    start: Path | None = None,
    learning_rate: float = 1e-3,
    keep_empty: float = 1.0,
    data: Path | None = None,
    first_rank: int | None = FIRST_RANK,
    wooden_share: float = 0.0,
) -> dict:
    """Render training installations `first`.. `first + installations - 1` (keeping `keep_empty`
    of their empty squares) and the held-out set (all of it) into `data` (a temporary folder if
    None), fit (from the weights `start`, if given: more data for a trained net), factor the
    first layer to `first_rank` (None: keep it whole), scale, write `out`."""
    if data is None:
        with tempfile.TemporaryDirectory(prefix="takboard-train-") as folder:
            return run(
                installations,
                held_out,
                epochs,
                jobs,
                out,
                first=first,
                start=start,
                learning_rate=learning_rate,
                keep_empty=keep_empty,
                data=Path(folder),
                first_rank=first_rank,
                wooden_share=wooden_share,
            )
    data.mkdir(parents=True, exist_ok=True)
    begin = SquareNet.load(start) if start is not None else None
    units = begin.layers[0][0].shape[1] if begin is not None else HIDDEN[0]
    if first_rank is not None and not 0 < first_rank < units:  # said now, not after the fit
        raise ValueError(f"first rank {first_rank}: 1 to {units - 1} for {units} units")
    seeds = [training_seed(first + i) for i in range(installations)]
    X, kind, height = dataset(seeds, jobs, "train", data, keep_empty=keep_empty,
                              wooden_share=wooden_share)  # fmt: skip
    Xv, kv, hv = dataset([HELD_OUT_SEED + i for i in range(held_out)], jobs, "held out", data)
    if begin is not None:
        print(f"starting from {start}: {held_out_figures(begin, Xv, kv, hv)}", file=sys.stderr)
    print(f"{len(X)} training squares, {len(Xv)} held out; fitting", file=sys.stderr)
    started = time.monotonic()
    net = train(X, kind, height, epochs=epochs, mirror=mirror_index(), start=begin,
                learning_rate=learning_rate,
                report=lambda e, loss: print(f"  epoch {e + 1}/{epochs}: loss {loss:.4f} "
                                             f"{time.monotonic() - started:5.0f}s",
                                             file=sys.stderr, flush=True))  # fmt: skip
    if keep_empty < 1.0:
        restore_empty_prior(net, keep_empty)
    if first_rank is not None:
        factor_first_layer(net, factoring_sample(X), first_rank)
    fit_temperature(net, Xv, kv, hv)
    net.save(out)
    figures = held_out_figures(net, Xv, kv, hv)
    figures["temperature"] = net.temperature
    return figures
