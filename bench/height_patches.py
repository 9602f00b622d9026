"""Can a net find a stack's piece in the picture well enough to read its height? An experiment.

    python bench/height_patches.py --data DIR [--first 40000] [--train 1200] [--test 150]
                                   [--epochs 5] [--jobs 2] [--json out.json]

The reader's heights at tilt >= 20 fall short of the issue's 99 % mostly because pieces sit off
their squares' centres: along the line of sight an offset moves a stack's top in the picture as
a layer does, and with the offset known (`bench/vision_centring.py`, an oracle) the reader's nets
would read 99.3 %; found to within 0.01 pitch, 99.2 %. The reader's views are sampled about a
tenth of a pitch apart on the board plane. What tells an offset from a layer there is finer:
where the stack's foot meets the board, how long its silhouette is along the line of sight
against across it. So this samples, for every occupied square, the board plane in the square's
own frame at about the image's resolution (RADIAL x ACROSS: 0.02 pitch apart along the line of
sight, 0.0375 across; the reader's three change channels against the empty frame), and fits a
small convolutional net (PyTorch, as `takboard vision train-stack`) to the stack's height, its
top kind and where its top and bottom pieces sit along the line of sight, given the square's
geometry and the shipped reader's own P(height) for the square (so it has only to correct the
reader). It reports, on installations it never saw, heights right as the reader reads them and
with the net, and how well the net found the pieces.

The examples are rendered from the classifier's own training draw (`installation_shots`), on
seeds no shipped net learnt from, and kept in DIR (one file per installation: a second run fits
without rendering). Figures: docs/vision.md, session 45. Not shipped code: a measurement that
says whether a piece-finding stage is worth building.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from vision.net import KINDS, MAX_HEIGHT, Ensemble  # noqa: E402
from vision.reader import classify, with_stack_net  # noqa: E402
from vision.sim.renderer import piece_offset  # noqa: E402
from vision.sim.stack_training import import_torch  # noqa: E402
from vision.sim.training import installation_shots, training_seed  # noqa: E402
from vision.stack_net import StackNet  # noqa: E402
from vision.views import change_channels  # noqa: E402

RADIAL = np.arange(-0.6, 1.6001, 0.02)  # pitches from the square's centre, away from the camera
ACROSS = np.linspace(-0.45, 0.45, 25)
OFFSET_SCALE = 20.0  # the offsets (pitches) are fitted times this: about unit spread
TILTED_DEG = 20.0
MAX_HEIGHT_SCORED = 6  # as the vision bench scores heights


def patch_maps(pose, centres: np.ndarray, radial: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """remap tables: every square's board-plane patch [S * ACROSS, RADIAL] in image pixels."""
    across = np.stack([-radial[:, 1], radial[:, 0]], axis=1)
    xy = (centres[:, None, None, :] + ACROSS[None, :, None, None] * across[:, None, None, :]
          + RADIAL[None, None, :, None] * radial[:, None, None, :])  # fmt: skip
    points = np.concatenate([xy.reshape(-1, 2), np.zeros((xy[..., 0].size, 1))], axis=1)
    img = pose.project(points).astype(np.float32)
    rows = len(centres) * len(ACROSS)
    return img[:, 0].reshape(rows, len(RADIAL)), img[:, 1].reshape(rows, len(RADIAL))


def board_patches(frame: np.ndarray, empty: np.ndarray, maps: tuple[np.ndarray, np.ndarray]
                  ) -> np.ndarray:  # fmt: skip
    """[S, 3, ACROSS, RADIAL]: the reader's change channels of `frame` against `empty`."""
    f, e = (cv2.remap(im, *maps, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
            for im in (frame, empty))  # fmt: skip
    ch = change_channels(f.reshape(-1, 3).astype(np.float32), e.reshape(-1, 3).astype(np.float32))
    return ch.reshape(-1, len(ACROSS), len(RADIAL), 3).transpose(0, 3, 1, 2)


_READER_NETS: list = []


def render(seed: int) -> dict[str, np.ndarray] | None:
    """One installation's occupied squares: patches, geometry, truth and the reader's calls."""
    cv2.setNumThreads(1)
    if not _READER_NETS:
        _READER_NETS.extend([Ensemble.load(), StackNet.load()])
    pair, stack_net = _READER_NETS
    out: dict[str, list] = {k: [] for k in ("patch", "geo", "height", "kind", "u_top",
                                            "u_bottom", "reader_p", "tilt")}  # fmt: skip
    maps = None
    for shot in installation_shots(seed):
        views, names = shot.views, shot.views.names
        if maps is None:
            maps = patch_maps(shot.pose, views.centres, views.radial)
        occupied = [i for i, n in enumerate(names) if not shot.frame.truth.squares[n].empty]
        if not occupied:
            continue
        X = views.features(views.sample(shot.frame.image, shot.empty_rect), shot.scene.leds)
        _, p_height = with_stack_net(stack_net, X, *classify(pair, X))
        patches = board_patches(shot.frame.image, shot.empty, maps)
        for i in occupied:
            name = names[i]
            truth = shot.frame.truth.squares[name]
            levels = len(shot.scene.stacks[name])
            offsets = [np.array(piece_offset(shot.look, name, lv)) @ views.radial[i]
                       for lv in (levels - 1, 0)]  # fmt: skip
            out["patch"].append(patches[i].astype(np.float16))
            out["geo"].append(np.append(views.geometry[i], views.tan_view[i]).astype(np.float32))
            out["height"].append(min(truth.height, MAX_HEIGHT) - 1)
            out["kind"].append(KINDS.index(truth.kind) - 1)
            out["u_top"].append(offsets[0])
            out["u_bottom"].append(offsets[1])
            out["reader_p"].append(p_height[i].astype(np.float32))
            out["tilt"].append(shot.tilt)
    if not out["height"]:
        return None
    return {k: np.array(v) for k, v in out.items()}


def render_all(seeds: list[int], folder: Path, jobs: int) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    todo = [s for s in seeds if not (folder / f"{s}.npz").exists()]
    started = time.monotonic()
    with ProcessPoolExecutor(jobs) as pool:
        rendered = zip(todo, pool.map(render, todo, chunksize=2), strict=True)
        for done, (seed, got) in enumerate(rendered, 1):
            np.savez(folder / f"{seed}.npz", **(got or {"none": np.array(1)}))
            spent = time.monotonic() - started
            print(f"\r  rendered {done}/{len(todo)} installations, {spent:.0f} s, about "
                  f"{spent / done * (len(todo) - done):.0f} s left", end="", file=sys.stderr,
                  flush=True)  # fmt: skip
    if todo:
        print(file=sys.stderr)


def load(folder: Path, seeds: list[int]) -> dict[str, np.ndarray]:
    parts: dict[str, list] = {}
    for seed in seeds:
        with np.load(folder / f"{seed}.npz") as d:
            if "none" in d:
                continue
            for k in d.files:
                parts.setdefault(k, []).append(d[k])
    return {k: np.concatenate(v) for k, v in parts.items()}


def side_input(d: dict[str, np.ndarray], rows) -> np.ndarray:
    """The square's geometry and the reader's log P(height)."""
    return np.hstack([d["geo"][rows], np.log(np.maximum(d["reader_p"][rows], 1e-4))]
                     ).astype(np.float32)  # fmt: skip


def patch_net(torch):
    nn, F = torch.nn, torch.nn.functional
    side = 4 + MAX_HEIGHT

    class PatchNet(nn.Module):
        """Four convolutions (the last three of stride 2) over the patch, then one dense layer
        with the side input: logits of height (8) and kind (3), and the two offsets."""

        def __init__(self, widths=(24, 32, 48, 64), hidden=256):
            super().__init__()
            a, b, c, d = widths
            self.convs = nn.ModuleList([nn.Conv2d(3, a, (3, 5), padding=(1, 2)),
                                        nn.Conv2d(a, b, 3, stride=2, padding=1),
                                        nn.Conv2d(b, c, 3, stride=2, padding=1),
                                        nn.Conv2d(c, d, 3, stride=2, padding=1)])  # fmt: skip
            cells = -(-len(ACROSS) // 8) * -(-len(RADIAL) // 8)
            self.dense = nn.Linear(d * cells + side, hidden)
            self.out = nn.Linear(hidden, MAX_HEIGHT + len(KINDS) - 1 + 2)

        def forward(self, patch, side_in):
            x = patch
            for conv in self.convs:
                x = F.relu(conv(x))
            return self.out(F.relu(self.dense(torch.cat([x.flatten(1), side_in], 1))))

    return PatchNet()


def predict(torch, model, d: dict[str, np.ndarray], batch: int = 1024
            ) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """P(height) [N, 8] and the offsets [N, 2] (pitches), each the average over the patch and
    its mirror image across the line of sight (the training symmetry)."""
    F = torch.nn.functional
    model.eval()
    heights, offsets = [], []
    with torch.no_grad():
        for s in range(0, len(d["height"]), batch):
            patch = torch.from_numpy(d["patch"][s : s + batch].astype(np.float32))
            side = torch.from_numpy(side_input(d, slice(s, s + batch)))
            z, zm = model(patch, side), model(torch.flip(patch, [2]), side)
            heights.append(((F.softmax(z[:, :MAX_HEIGHT], 1) + F.softmax(zm[:, :MAX_HEIGHT], 1))
                            / 2).numpy())  # fmt: skip
            offsets.append(((z[:, -2:] + zm[:, -2:]) / (2 * OFFSET_SCALE)).numpy())
    model.train()
    return np.vstack(heights), np.vstack(offsets)


def fit(torch, train: dict[str, np.ndarray], epochs: int, learning_rate: float = 2e-3,
        batch: int = 256):  # fmt: skip
    F = torch.nn.functional
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    model = patch_net(torch)
    opt = torch.optim.AdamW(model.parameters(), lr=learning_rate, weight_decay=1e-4)
    n, steps = len(train["height"]), len(train["height"]) // batch
    schedule = torch.optim.lr_scheduler.OneCycleLR(opt, learning_rate, total_steps=epochs * steps)
    height = torch.from_numpy(train["height"].astype(np.int64))
    kind = torch.from_numpy(train["kind"].astype(np.int64))
    offsets = torch.from_numpy(np.stack([train["u_top"], train["u_bottom"]], 1).astype(np.float32)
                               * OFFSET_SCALE)  # fmt: skip
    started = time.monotonic()
    for epoch in range(epochs):
        order, total = rng.permutation(n), 0.0
        for step in range(steps):
            rows = np.sort(order[step * batch : (step + 1) * batch])
            patch = torch.from_numpy(train["patch"][rows].astype(np.float32))
            if rng.random() < 0.5:
                patch = torch.flip(patch, [2])  # mirrored across the line of sight
            z = model(patch, torch.from_numpy(side_input(train, rows)))
            loss = (F.cross_entropy(z[:, :MAX_HEIGHT], height[rows])
                    + 0.5 * F.cross_entropy(z[:, MAX_HEIGHT:-2], kind[rows])
                    + F.mse_loss(z[:, -2:], offsets[rows]))  # fmt: skip
            opt.zero_grad()
            loss.backward()
            opt.step()
            schedule.step()
            total += loss.item()
            if step % 100 == 0 or step == steps - 1:
                print(f"\r  epoch {epoch + 1}/{epochs}, step {step + 1}/{steps}, loss "
                      f"{total / (step + 1):.3f}, {time.monotonic() - started:.0f} s", end="",
                      file=sys.stderr, flush=True)  # fmt: skip
        print(file=sys.stderr)
    return model


def figures(test: dict[str, np.ndarray], p_height: np.ndarray, offsets: np.ndarray) -> dict:
    h, tilt = test["height"], test["tilt"]
    groups = {"all": np.ones(len(h), bool),
              f"tilt >= {TILTED_DEG:g}, heights <= {MAX_HEIGHT_SCORED}":
                  (tilt >= TILTED_DEG) & (h < MAX_HEIGHT_SCORED),
              "tilt 0-10": tilt < 10, "tilt 10-20": (tilt >= 10) & (tilt < 20),
              "tilt 20-30": (tilt >= 20) & (tilt < 30), "tilt 30-40": tilt >= 30}  # fmt: skip
    out: dict = {"heights right %": {}}
    for name, rows in groups.items():
        if not rows.any():
            continue
        out["heights right %"][name] = {
            "squares": int(rows.sum()),
            "reader": round(100 * float((test["reader_p"][rows].argmax(1) == h[rows]).mean()), 2),
            "with the patch net": round(100 * float((p_height[rows].argmax(1) == h[rows]).mean()),
                                        2),
        }  # fmt: skip
    for j, name in enumerate(("u_top", "u_bottom")):
        error = offsets[:, j] - test[name]
        out[f"{name} (pitch)"] = {
            "rms error": round(float(np.sqrt(np.mean(error**2))), 4),
            "spread (rms)": round(float(np.sqrt(np.mean(test[name] ** 2))), 4),
            "within 0.01 %": round(100 * float(np.mean(np.abs(error) < 0.01)), 1),
        }
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, required=True, help="folder for the rendered examples")
    ap.add_argument("--first", type=int, default=40000, help="first training installation")
    ap.add_argument("--train", type=int, default=1200, help="installations to fit on")
    ap.add_argument("--test", type=int, default=150, help="installations after them, to score")
    ap.add_argument("--epochs", type=int, default=5, help="passes over the fitting set (5)")
    ap.add_argument("--jobs", type=int, default=2,
                    help="rendering processes and PyTorch threads (2)")
    ap.add_argument("--json", type=Path, help="also write the figures as JSON here")
    args = ap.parse_args(argv)
    torch = import_torch()
    torch.set_num_threads(args.jobs)
    seeds = [training_seed(args.first + i) for i in range(args.train + args.test)]
    render_all(seeds, args.data, args.jobs)
    train, test = load(args.data, seeds[: args.train]), load(args.data, seeds[args.train :])
    print(f"{len(train['height'])} occupied squares to fit on, {len(test['height'])} to score",
          file=sys.stderr)  # fmt: skip
    model = fit(torch, train, args.epochs)
    result = figures(test, *predict(torch, model, test))
    text = json.dumps(result, indent=1)
    print(text)
    if args.json:
        args.json.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
