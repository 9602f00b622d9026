"""Training the stack net (`vision/stack_net.py`): `takboard vision train-stack`.

The examples are the square classifier's (`vision/sim/training.py`: rendered installations,
10 frames each, written to disk and read memory-mapped), so one rendered set serves both; only
the occupied squares are used. The last `EVAL_SHARE` of the set's squares (its last
installations) are kept out of the fit and the net is scored on them and on the held-out
installations as the reader uses it, beside the dense pair the reader ships, so every retraining
says what it is worth. `start` goes on from a fitted net: more installations without rendering
the old again.

PyTorch is needed here and nowhere else (the reader runs the net in numpy). It is not one of
takboard's dependencies: `pip install torch` (on these machines `pip install torch==2.13.0`, a
CPU build already on disk) in the environment that trains.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

from vision.net import Ensemble, best_temperature
from vision.reader import classify, with_stack_net
from vision.sim.training import HELD_OUT_SEED, dataset, training_seed
from vision.stack_net import (
    GRID_CHANNELS,
    HEIGHTS,
    KINDS,
    N_EDGE,
    N_PLANE,
    N_VERTICAL,
    StackNet,
)
from vision.views import EDGE_SHAPE, N_FEATURES, PLANE_SHAPE, mirror_index

EVAL_SHARE = 0.12  # of the set's squares, at its end: scored, never fitted
WIDTHS = (48, 48, 64)  # the three convolutions' channels
SIDE = 96  # the vertical lines and geometry, summed up
HIDDEN = 256
CHUNK = 50000  # squares read from the memory-mapped set at a time
MIN_STEPS = 8


def occupied(X: np.ndarray, kind: np.ndarray, lo: int, hi: int
             ) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """The occupied squares of rows lo..hi-1 of the set, read into memory (float16), and their
    row numbers in the set."""
    rows = np.arange(lo, hi)[kind[lo:hi] > 0]
    out = np.empty((len(rows), N_FEATURES), np.float16)
    for s in range(0, len(rows), CHUNK):
        part = rows[s : s + CHUNK]
        out[s : s + len(part)] = X[part[0] : part[-1] + 1][part - part[0]]  # one read a chunk
    return out, rows


def import_torch():
    try:
        import torch
    except ImportError:
        raise SystemExit(
            "takboard vision train-stack needs PyTorch, which only training uses: "
            "pip install torch (here: pip install torch==2.13.0)"
        ) from None
    return torch


def _model(torch, mean: np.ndarray, scale: np.ndarray, widths: tuple[int, int, int]):
    nn, F = torch.nn, torch.nn.functional
    side_in = N_VERTICAL + (N_FEATURES - N_PLANE - N_VERTICAL - N_EDGE)
    pooled = (PLANE_SHAPE[1] // 2) * (PLANE_SHAPE[2] // 2)

    class Model(nn.Module):
        """`StackNet`'s layers, for fitting: the same computation (checked by the tests of
        `StackNet` against a hand computation, and by `export`'s own comparison)."""

        def __init__(self):
            super().__init__()
            self.register_buffer("mean", torch.tensor(mean))
            self.register_buffer("scale", torch.tensor(scale))
            self.c1 = nn.Conv2d(GRID_CHANNELS, widths[0], 3, padding=1)
            self.c2 = nn.Conv2d(widths[0], widths[1], 3, padding=1)
            self.c3 = nn.Conv2d(widths[1], widths[2], 3, padding=1)
            self.side = nn.Linear(side_in, SIDE)
            self.dense = nn.Linear(widths[2] * pooled + SIDE, HIDDEN)
            self.out = nn.Linear(HIDDEN, len(KINDS) + HEIGHTS)

        def forward(self, x):
            x = (x - self.mean) / self.scale
            n = x.shape[0]
            planes = x[:, :N_PLANE].reshape(n, *PLANE_SHAPE)
            a = N_PLANE + N_VERTICAL
            edges = x[:, a : a + N_EDGE].reshape(n, *EDGE_SHAPE, 1)
            grid = torch.cat([planes, edges], -1).permute(0, 1, 4, 2, 3)
            grid = grid.reshape(n, GRID_CHANNELS, PLANE_SHAPE[1], PLANE_SHAPE[2])
            g = F.relu(self.c2(F.relu(self.c1(grid))))
            g = F.relu(self.c3(F.max_pool2d(g, 2))).flatten(1)
            side = F.relu(self.side(torch.cat([x[:, N_PLANE:a], x[:, a + N_EDGE :]], 1)))
            return self.out(F.relu(self.dense(torch.cat([g, side], 1))))

    return Model()


def warm_start(torch, model, net: StackNet) -> None:
    """Set `model`'s layers and input scaling to `net`'s: `export` undone."""

    def put(layer, W: np.ndarray, b: np.ndarray) -> None:
        if tuple(layer.weight.shape) != W.shape:
            raise ValueError(f"--from: a layer of {W.shape[1:]} -> {W.shape[0]} where this net "
                             f"has {tuple(layer.weight.shape[1:])} -> {layer.weight.shape[0]}")
        layer.weight.copy_(torch.from_numpy(np.ascontiguousarray(W)))
        layer.bias.copy_(torch.from_numpy(b))

    with torch.no_grad():
        model.mean.copy_(torch.from_numpy(net.mean))
        model.scale.copy_(torch.from_numpy(net.scale))
        for layer, (W, b) in zip((model.c1, model.c2, model.c3), net.convs, strict=True):
            C = W.shape[0] // 9  # rows taps first: kernel row, column, channel -> [out, C, 3, 3]
            put(layer, W.reshape(3, 3, C, -1).transpose(3, 2, 0, 1), b)
        for layer, (W, b) in ((model.side, net.side), (model.dense, net.dense),
                              (model.out, net.out)):  # fmt: skip
            put(layer, W.T, b)


def export(model, temperature: tuple[float, float]) -> StackNet:
    """The fitted model as a `StackNet` (numpy)."""

    def conv(layer) -> tuple[np.ndarray, np.ndarray]:
        W = layer.weight.detach().numpy()  # [out, C, 3, 3]
        taps = W.transpose(2, 3, 1, 0).reshape(-1, W.shape[0])  # rows: kernel row, column, channel
        return taps.copy(), layer.bias.detach().numpy().copy()

    def dense(layer) -> tuple[np.ndarray, np.ndarray]:
        return layer.weight.detach().numpy().T.copy(), layer.bias.detach().numpy().copy()

    return StackNet(model.mean.numpy().copy(), model.scale.numpy().copy(),
                    [conv(model.c1), conv(model.c2), conv(model.c3)], dense(model.side),
                    dense(model.dense), dense(model.out), temperature)  # fmt: skip


def fit_temperature(z: np.ndarray, kind: np.ndarray, height: np.ndarray) -> tuple[float, float]:
    """Per head, the temperature that minimises the negative log-likelihood (held-out logits)."""
    temps = np.exp(np.linspace(np.log(0.5), np.log(3.0), 61))
    return (best_temperature(z[:, : len(KINDS)], kind - 1, temps),
            best_temperature(z[:, len(KINDS) :], height, temps))  # fmt: skip


def score(net: StackNet, pair: Ensemble, X: np.ndarray, kind: np.ndarray, height: np.ndarray
          ) -> dict:  # fmt: skip
    """Occupied squares' kinds wrong (given occupied) and heights right: the pair's as the reader
    reads it (`classify`, mirrored views where unsure), the stack net's alone, and the reader's
    (the two averaged where the pair is unsure, `with_stack_net`)."""
    calls: dict[str, list] = {"pair": [], "stack": [], "reader": []}
    for s in range(0, len(X), 4096):
        xb = np.asarray(X[s : s + 4096], np.float32)
        pk, ph = classify(pair, xb)
        calls["pair"].append((pk[:, 1:], ph))
        calls["stack"].append(net.predict(xb))
        rk, rh = with_stack_net(net, xb, pk, ph)
        calls["reader"].append((rk[:, 1:], rh))
    out: dict = {"squares": len(X)}
    for who, parts in calls.items():
        k = np.vstack([a for a, _ in parts])  # (not normalised: the order is what counts)
        h = np.vstack([b for _, b in parts])
        out[who] = {"kinds wrong": int((k.argmax(axis=1) != kind - 1).sum()),
                    "heights right %": round(100 * float((h.argmax(axis=1) == height).mean()), 2)}
    return out


def run(installations: int, first: int, held_out: int, epochs: int, jobs: int, out: Path,
        data: Path, *, start: Path | None = None, learning_rate: float = 2e-3,
        widths: tuple[int, int, int] = WIDTHS, seed: int = 0, wooden_share: float = 0.0
        ) -> dict:  # fmt: skip
    """Render (or read back from `data`) installations `first`.. (a share `wooden_share` of them
    with light pieces of the board's wood, `random_look`) and the held-out set, fit the
    stack net (from `start`'s weights, if given) on the occupied squares of all but the last
    EVAL_SHARE of them, scale its heads on the held-out set, write `out` and return the
    scores."""
    torch = import_torch()
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    data.mkdir(parents=True, exist_ok=True)
    seeds = [training_seed(first + i) for i in range(installations)]
    X_all, kind_all, height_all = dataset(seeds, jobs, "train", data, wooden_share=wooden_share)
    cut = int(len(kind_all) * (1 - EVAL_SHARE))
    X, rows = occupied(X_all, kind_all, 0, cut)
    kind, height = kind_all[rows], height_all[rows]
    Xe, rows_e = occupied(X_all, kind_all, cut, len(kind_all))
    ke, he = kind_all[rows_e], height_all[rows_e]
    Xv_all, kv_all, hv_all = dataset([HELD_OUT_SEED + i for i in range(held_out)], jobs,
                                     "held out", data)  # fmt: skip
    Xv, rows_v = occupied(Xv_all, kv_all, 0, len(kv_all))
    kv, hv = kv_all[rows_v], hv_all[rows_v]
    print(f"{len(X)} occupied training squares, {len(Xe)} scored from the set's end, "
          f"{len(Xv)} held out; fitting", file=sys.stderr)  # fmt: skip

    sample = X[rng.choice(len(X), size=min(len(X), 50000), replace=False)].astype(np.float32)
    mean, scale = sample.mean(axis=0), sample.std(axis=0) + 1e-3
    model = _model(torch, mean, scale, widths)
    if start is not None:
        warm_start(torch, model, StackNet.load(start))
    batch = 256
    steps = epochs * (len(X) // batch)
    if steps < MIN_STEPS:
        raise ValueError(f"{len(X)} occupied training squares make {steps} steps of "
                         f"{batch}: too few to fit (at least {MIN_STEPS}); give more "
                         "installations")  # fmt: skip
    optimiser = torch.optim.AdamW(model.parameters(), lr=learning_rate, weight_decay=1e-4)
    # warm up for a tenth of the steps (at least two: the schedule's first phase must hold one)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, max_lr=learning_rate,
                                                   total_steps=steps,
                                                   pct_start=max(0.1, 2.5 / steps))  # fmt: skip
    mirror = torch.from_numpy(mirror_index())
    kinds_t, heights_t = torch.from_numpy(kind - 1), torch.from_numpy(height)
    F = torch.nn.functional
    started = time.monotonic()
    for epoch in range(epochs):
        model.train()
        order = rng.permutation(len(X))
        total = 0.0
        for i in range(len(X) // batch):
            idx = np.sort(order[i * batch : (i + 1) * batch])
            xb = torch.from_numpy(X[idx].astype(np.float32))
            flip = torch.rand(len(idx)) < 0.5  # the training symmetry: mirrored across r
            xb[flip] = xb[flip][:, mirror]
            z = model(xb)
            loss = (F.cross_entropy(z[:, : len(KINDS)], kinds_t[idx])
                    + F.cross_entropy(z[:, len(KINDS) :], heights_t[idx]))  # fmt: skip
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            total += float(loss.detach())
        print(f"  epoch {epoch + 1}/{epochs}: loss {total / (len(X) // batch):.4f} "
              f"{time.monotonic() - started:5.0f}s", file=sys.stderr, flush=True)  # fmt: skip

    model.eval()
    net = export(model, (1.0, 1.0))
    logits = np.vstack([net.logits(np.asarray(Xv[s : s + 4096], np.float32))
                        for s in range(0, len(Xv), 4096)])  # fmt: skip
    with torch.no_grad():  # the numpy net computes what was fitted
        check = model(torch.from_numpy(np.asarray(Xv[:512], np.float32))).numpy()
    if not np.allclose(check, logits[:512], atol=1e-3):
        raise RuntimeError("the exported stack net does not compute what was fitted")
    net.temperature = fit_temperature(logits, kv, hv)
    net.save(out)
    pair = Ensemble.load()
    return {"temperature": net.temperature,
            "set's end": score(net, pair, Xe, ke, he),
            "held out": score(net, pair, Xv, kv, hv)}  # fmt: skip
