"""A second opinion on occupied squares: a small convolutional net over the same views.

The square classifier's nets (`vision/net.py`) are dense: every sample of a square's views is an
input of its own, so what a wall looks like is learnt separately at every place and offset it
can stand at. A wall seen face on from 45 degrees has the outline of a flat; what tells it
apart is where that outline sits (from the foot of the square up, not from its front edge) and
that bare board shows in front of it, which a piece set a little off centre moves about the
grid. A convolution learns such a shape once, wherever on the grid it shows. This net reads
only the plane grid (`vision.views`: 10 heights x 11 x 11 samples, 3 colour-change channels and
the edge channel each, taken here as 40 channels of an 11 x 11 image), the vertical lines and the
view's geometry, and answers two questions about a square that holds a stack: what kind of
piece is on top (flat, wall, capstone) and how many pieces the stack holds.

It is averaged with the dense pair where they say a square is occupied (`classify` in
`vision/reader.py`); whether a square is empty stays theirs. Two convolutions of 3 x 3 at full
grid size, a 2 x 2 max-pool, a third convolution, one dense layer. Plain numpy at reading time
(the convolutions as one matrix product over the 3 x 3 neighbourhoods); trained with PyTorch,
which only training needs (`takboard vision train-stack`, vision/sim/stack_training.py).
Figures in docs/vision.md (session 34).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from vision.net import softmax
from vision.views import EDGE_SHAPE, N_FEATURES, PLANE_SHAPE, VERTICAL_SHAPE

WEIGHTS = Path(__file__).with_name("stack_net.npz")
KINDS = ("flat", "wall", "cap")  # the kind head's answers (the square is taken to be occupied)
HEIGHTS = 8  # the height head: 1..8 pieces

N_PLANE = int(np.prod(PLANE_SHAPE))
N_VERTICAL = int(np.prod(VERTICAL_SHAPE))
N_EDGE = int(np.prod(EDGE_SHAPE))
GRID_CHANNELS = PLANE_SHAPE[0] * (PLANE_SHAPE[3] + 1)  # per height: 3 channels and the edge


def grid_image(x: np.ndarray) -> np.ndarray:
    """Standardised features [S, N_FEATURES] -> the plane grid as images [S, 11, 11, 40], the
    channels ordered height by height, each height's three channels then its edge channel."""
    S = len(x)
    planes = x[:, :N_PLANE].reshape(S, *PLANE_SHAPE)  # [S, Z, r, q, 3]
    edges = x[:, N_PLANE + N_VERTICAL : N_PLANE + N_VERTICAL + N_EDGE].reshape(S, *EDGE_SHAPE, 1)
    grid = np.concatenate([planes, edges], axis=-1)  # [S, Z, r, q, 4]
    return grid.transpose(0, 2, 3, 1, 4).reshape(S, PLANE_SHAPE[1], PLANE_SHAPE[2], -1)


def conv3x3(image: np.ndarray, W: np.ndarray, b: np.ndarray) -> np.ndarray:
    """A 3 x 3 convolution with zero padding, ReLU after: image [S, H, W, C] -> [S, H, W, out].
    `W` [9 * C, out], rows ordered by kernel row, then kernel column, then channel (`taps_first`).

    One matrix product over every point's 3 x 3 neighbourhood. The neighbourhoods are gathered
    with the channels innermost, as the image holds them: gathered channel-major instead, the
    copy alone cost more than the product (0.97 against 0.73 ms for the first layer on 16
    squares; 0.08 ms so)."""
    S, H, Wd, C = image.shape
    padded = np.zeros((S, H + 2, Wd + 2, C), np.float32)
    padded[:, 1:-1, 1:-1] = image
    windows = np.lib.stride_tricks.sliding_window_view(padded, (3, 3), axis=(1, 2))
    taps = windows.transpose(0, 1, 2, 4, 5, 3)  # [S, H, W, C, 3, 3] -> [S, H, W, 3, 3, C]
    out = taps.reshape(S * H * Wd, 9 * C) @ W + b
    return np.maximum(out, 0.0).reshape(S, H, Wd, -1)


def taps_first(W: np.ndarray) -> np.ndarray:
    """A convolution's weights [C * 9, out] with rows ordered by channel, then kernel row and
    column (PyTorch's order, the file's) -> rows ordered by kernel row and column, then channel
    (`conv3x3`'s)."""
    C = W.shape[0] // 9
    return W.reshape(C, 9, -1).transpose(1, 0, 2).reshape(9 * C, -1)


def channels_first(W: np.ndarray) -> np.ndarray:
    """`taps_first` undone."""
    C = W.shape[0] // 9
    return W.reshape(9, C, -1).transpose(1, 0, 2).reshape(9 * C, -1)


def max_pool2(image: np.ndarray) -> np.ndarray:
    """2 x 2 max-pooling, an odd last row and column dropped: [S, 11, 11, C] -> [S, 5, 5, C]."""
    S, H, Wd, C = image.shape
    h, w = H // 2, Wd // 2
    return image[:, : 2 * h, : 2 * w].reshape(S, h, 2, w, 2, C).max(axis=(2, 4))


@dataclass
class StackNet:
    mean: np.ndarray  # [N_FEATURES] input standardisation
    scale: np.ndarray
    convs: list[tuple[np.ndarray, np.ndarray]]  # three (W [9 * C, out] taps first, b [out])
    side: tuple[np.ndarray, np.ndarray]  # the vertical lines and geometry -> a side vector
    dense: tuple[np.ndarray, np.ndarray]  # grid and side together -> the hidden layer
    out: tuple[np.ndarray, np.ndarray]  # hidden -> kind (3) and height (8) logits
    temperature: tuple[float, float] = (1.0, 1.0)  # kind head, height head

    @classmethod
    def load(cls, path: Path = WEIGHTS) -> StackNet:
        if not path.exists():
            raise FileNotFoundError(
                f"{path}: the stack net's weights are missing; made by `takboard vision "
                f"train-stack -o {path}` (vision/sim/stack_training.py)"
            )
        with np.load(path) as d:
            if int(d["n_features"]) != N_FEATURES:
                raise ValueError(
                    f"{path}: made for {int(d['n_features'])} features, the reader makes "
                    f"{N_FEATURES}; retrain with `takboard vision train-stack`"
                )

            def pair(name: str) -> tuple[np.ndarray, np.ndarray]:
                return d[f"{name}_W"].astype(np.float32), d[f"{name}_b"].astype(np.float32)

            def conv(name: str) -> tuple[np.ndarray, np.ndarray]:
                W, b = pair(name)
                return np.ascontiguousarray(taps_first(W)), b

            t = d["temperature"]
            return cls(d["mean"].astype(np.float32), d["scale"].astype(np.float32),
                       [conv(f"conv{i}") for i in range(3)], pair("side"), pair("dense"),
                       pair("out"), (float(t[0]), float(t[1])))  # fmt: skip

    def save(self, path: Path) -> None:
        arrays = {"n_features": np.array(N_FEATURES), "mean": self.mean, "scale": self.scale,
                  "temperature": np.array(self.temperature)}  # fmt: skip
        # (the convolutions' rows in the file in PyTorch's order, channels first)
        named = [*((f"conv{i}", (channels_first(W), b)) for i, (W, b) in enumerate(self.convs)),
                 ("side", self.side), ("dense", self.dense), ("out", self.out)]  # fmt: skip
        for name, (W, b) in named:
            # half precision: half the file, the same calls (as the square classifier's)
            arrays[f"{name}_W"], arrays[f"{name}_b"] = W.astype(np.float16), b.astype(np.float32)
        np.savez_compressed(path, **arrays)

    def logits(self, features: np.ndarray) -> np.ndarray:
        """[S, N_FEATURES] -> [S, 3 + 8] logits (kind, then height), before temperature."""
        x = (features.astype(np.float32, copy=False) - self.mean) / self.scale
        g = conv3x3(grid_image(x), *self.convs[0])
        g = max_pool2(conv3x3(g, *self.convs[1]))
        g = conv3x3(g, *self.convs[2])
        g = g.transpose(0, 3, 1, 2).reshape(len(x), -1)  # channel-major, as trained
        side_in = np.hstack([x[:, N_PLANE : N_PLANE + N_VERTICAL],
                             x[:, N_PLANE + N_VERTICAL + N_EDGE :]])  # fmt: skip
        side = np.maximum(side_in @ self.side[0] + self.side[1], 0.0)
        hidden = np.maximum(np.hstack([g, side]) @ self.dense[0] + self.dense[1], 0.0)
        return hidden @ self.out[0] + self.out[1]

    def predict(self, features: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """[S, N_FEATURES] -> (P(kind | occupied) [S, 3] over KINDS, P(height) [S, 8] for 1..8)."""
        if len(features) == 0:
            return np.zeros((0, len(KINDS)), np.float32), np.zeros((0, HEIGHTS), np.float32)
        z = self.logits(features)
        tk, th = self.temperature
        return softmax(z[:, : len(KINDS)] / tk), softmax(z[:, len(KINDS) :] / th)
