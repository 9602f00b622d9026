"""The square classifier: small multilayer perceptrons over `vision.views` features.

Per square it gives two probability tables: what stands on top (empty, flat, wall, capstone) and
how many pieces the stack holds (1..8, meaningful when not empty). Plain numpy, so it runs
anywhere the reader runs (a Pi included) with nothing to install: two hidden layers, ReLU,
softmax heads. The reader reads with two such nets trained on different rendered boards and
averages them (`Ensemble`); their weights are `square_net.npz` and `square_net_2.npz` next to
this module (1.4 MB each; how each was made: `_RECIPES`).

Why learned: the hand-written strip model this replaced had to be told, constant by constant,
what a wall seen at 35 degrees in a shadow looks like, and read 83 % of kinds and 52 % of heights
right on the benchmark. The same samples, given to a classifier trained on rendered boards from
seeds the benchmark never uses, do far better (figures in docs/vision.md). The training is
reproducible: `takboard vision train` (vision/sim/training.py) renders the data and fits it.

Probabilities are temperature-scaled per head on held-out rendered boards, so that "0.99" means
right 99 times in 100 there; tracking relies on that to decide when to ask.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from vision.views import N_FEATURES

WEIGHTS = Path(__file__).with_name("square_net.npz")
# the reader's nets (`Ensemble`): trained alike on installations the other never saw
MEMBERS = (WEIGHTS, WEIGHTS.with_name("square_net_2.npz"))
# how each member was made: the first on installations 0-3,599, then gone on with on the third
# 3,600 (7,200-10,799: more data, and none the second saw); the second on 3,600-7,199, then gone
# on with on the fourth 3,600 (10,800-14,399: none the first saw)
_RECIPES = {
    MEMBERS[0].name: "`takboard vision train -o {p}`, then "
                     "`takboard vision train --from {p} --first 7200 -o {p}`",
    MEMBERS[1].name: "`takboard vision train --first 3600 -o {p}`, then "
                     "`takboard vision train --from {p} --first 10800 -o {p}`",
}
KINDS = ("empty", "flat", "wall", "cap")
MAX_HEIGHT = 8
N_OUT = len(KINDS) + MAX_HEIGHT
HIDDEN = (256, 128)  # hidden units per layer
# each member's first layer is read as a product of this rank (`factor_first_layer`): 128 of 256
# units, so that two members cost about what one of rank 192 did
FIRST_RANK = 128
# the members' input products read through one shared basis of this rank (`fit_basis`): 160 of
# their 256 columns
BASIS = WEIGHTS.with_name("square_net_basis.npz")
BASIS_RANK = 160


def softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


@dataclass
class SquareNet:
    layers: list[tuple[np.ndarray, np.ndarray]]  # (W [in, out], b [out]) per layer
    mean: np.ndarray  # [N_FEATURES] input standardisation
    scale: np.ndarray
    temperature: tuple[float, float] = (1.0, 1.0)  # kind head, height head
    # the first layer's W as a product A [in, r] @ B [r, out] (`factor_first_layer`): what
    # reading uses; layers[0] then holds A @ B, what training from these weights goes on with
    first_factors: tuple[np.ndarray, np.ndarray] | None = None

    @classmethod
    def load(cls, path: Path = WEIGHTS) -> SquareNet:
        if not path.exists():
            raise FileNotFoundError(
                f"{path}: the square classifier's weights are missing; made by "
                + _RECIPES.get(path.name, "`takboard vision train -o {p}`").format(p=path)
            )
        with np.load(path) as data:
            n = int(data["n_layers"])
            if int(data["n_features"]) != N_FEATURES:
                raise ValueError(
                    f"{path}: made for {int(data['n_features'])} features, the reader makes "
                    f"{N_FEATURES}; retrain with `takboard vision train`"
                )
            factors = None
            if "A0" in data:  # a factored first layer
                factors = (data["A0"].astype(np.float32), data["B0"].astype(np.float32))
            weights = [factors[0] @ factors[1] if factors and i == 0 else
                       data[f"W{i}"].astype(np.float32) for i in range(n)]  # fmt: skip
            layers = [(W, data[f"b{i}"].astype(np.float32)) for i, W in enumerate(weights)]
            t = data["temperature"]
            return cls(layers, data["mean"].astype(np.float32),
                       data["scale"].astype(np.float32), (float(t[0]), float(t[1])),
                       factors)  # fmt: skip

    def save(self, path: Path) -> None:
        arrays: dict[str, np.ndarray] = {
            "n_layers": np.array(len(self.layers)),
            "n_features": np.array(N_FEATURES),
            "mean": self.mean,
            "scale": self.scale,
            "temperature": np.array(self.temperature),
        }
        for i, (W, b) in enumerate(self.layers):
            if i == 0 and self.first_factors is not None:
                A, B = self.first_factors
                arrays["A0"], arrays["B0"] = A.astype(np.float16), B.astype(np.float16)
            else:
                arrays[f"W{i}"] = W.astype(np.float16)  # half precision: half the file, same calls
            arrays[f"b{i}"] = b
        np.savez_compressed(path, **arrays)

    def logits(self, features: np.ndarray) -> np.ndarray:
        return self._after_input(features @ self._first_layer[0])

    def _after_input(self, h: np.ndarray) -> np.ndarray:
        """The logits from the input's product with the first layer's first matrix."""
        *weights, b0 = self._first_layer[1:]
        for W in weights:
            h = h @ W
        h += b0
        for W, b in self.layers[1:]:
            np.maximum(h, 0.0, out=h)
            h = h @ W + b
        return h

    @functools.cached_property
    def _first_layer(self) -> tuple[np.ndarray, ...]:
        """The first layer with the input standardisation folded in: ((x - mean) / scale) W + b
        = x (W / scale) + (b - (mean / scale) W). One pass over the [S, N_FEATURES] input
        fewer (0.1-0.3 ms a frame). Factored, W = A B: x (A / scale) B. Computed on first use:
        the weights are final by then. Returns the weight matrices in order, then the bias."""
        W, b = self.layers[0]
        bias = (b - (self.mean / self.scale) @ W).astype(np.float32)
        if self.first_factors is None:
            return (W / self.scale[:, None]).astype(np.float32), bias
        A, B = self.first_factors
        return (A / self.scale[:, None]).astype(np.float32), B.astype(np.float32), bias

    def predict(self, features: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """[S, N_FEATURES] -> (P(kind) [S, 4] over KINDS, P(height) [S, 8] for 1..8)."""
        return self._probabilities(self.logits(features.astype(np.float32)))

    def _probabilities(self, out: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        tk, th = self.temperature
        return softmax(out[:, : len(KINDS)] / tk), softmax(out[:, len(KINDS) :] / th)


@dataclass
class Ensemble:
    """Nets trained apart (on other rendered installations), read together: each square's
    probabilities are the members' average. Nets trained on different data err on different
    squares; where one meets a look it never learnt (a lone wall at one angle and offset read
    empty at 1.00) the other seldom does, and their average is unsure there instead of wrong.

    The members read the same input, so their first layers' input matrices are put side by side
    and the input is read once: the bulk of the work, done in one product. With a `basis` (the
    directions that product takes on real squares, `fit_basis`) it is read through those
    directions only: a narrower product, and nearly the same numbers."""

    members: tuple[SquareNet, ...]
    # [rank, the members' first-layer widths together]; None: the exact product
    basis: np.ndarray | None = None

    @classmethod
    def load(cls, paths: tuple[Path, ...] = MEMBERS, basis: Path | None = BASIS) -> Ensemble:
        """The members' weights; and the basis file `basis` when it was fitted to these very
        weights (else, with a warning, the exact product: slower, never wrong)."""
        ensemble = cls(tuple(SquareNet.load(path) for path in paths))
        if basis is not None:
            # (the members' stacked input matrix, which the fingerprint is taken of, is then
            # the one reading uses: stacked once)
            ensemble.basis = read_basis(basis, ensemble.fingerprint())
        return ensemble

    @functools.cached_property
    def _exact_input_matrix(self) -> np.ndarray:
        return np.ascontiguousarray(np.hstack([net._first_layer[0] for net in self.members]))

    @functools.cached_property
    def _input_matrix(self) -> np.ndarray:
        exact = self._exact_input_matrix
        if self.basis is None:
            return exact
        return np.ascontiguousarray(exact @ self.basis.T, dtype=np.float32)

    def fingerprint(self) -> str:
        """Names the members' input matrices (what a basis is fitted to), bit for bit."""
        return hashlib.sha256(self._exact_input_matrix.tobytes()).hexdigest()[:16]

    def predict(self, features: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """[S, N_FEATURES] -> (P(kind) [S, 4] over KINDS, P(height) [S, 8] for 1..8), the
        members' average."""
        product = features.astype(np.float32, copy=False) @ self._input_matrix
        if self.basis is not None:
            product = product @ self.basis
        p_kind, p_height = 0.0, 0.0
        start = 0
        for net in self.members:
            width = net._first_layer[0].shape[1]
            k, h = net._probabilities(net._after_input(product[:, start : start + width]))
            p_kind, p_height, start = p_kind + k, p_height + h, start + width
        n = len(self.members)
        return p_kind / n, p_height / n


def fit_basis(ensemble: Ensemble, X: np.ndarray, rank: int = BASIS_RANK) -> np.ndarray:
    """The `rank` directions [rank, width] that the members' input product X M takes most on
    the squares' inputs X [N, N_FEATURES] (what the reader reads; never the benchmark's frames):
    the top right singular vectors of X M. Reading X (M V^T) V instead of X M is then the
    closest a product of that rank comes to it on such squares, in the least-squares sense.

    Why it pays: the two members' first layers read 256 columns in all, but what they pick out
    of real squares overlaps (the same samples, strongly correlated, both nets learnt from), so
    far fewer directions carry nearly all of it. Fitted on one member alone (`factor_first_layer`
    to rank 64 each) the same width changes four times as many kind calls (docs/vision.md)."""
    exact = ensemble._exact_input_matrix
    if not 0 < rank < exact.shape[1]:
        raise ValueError(f"rank {rank}: between 1 and {exact.shape[1] - 1} for input products "
                         f"{exact.shape[1]} wide")  # fmt: skip
    _, _, Vt = np.linalg.svd(X.astype(np.float32) @ exact, full_matrices=False)
    return np.ascontiguousarray(Vt[:rank], dtype=np.float32)


def save_basis(path: Path, basis: np.ndarray, fingerprint: str, source: str) -> None:
    np.savez_compressed(path, basis=basis.astype(np.float32), fingerprint=np.array(fingerprint),
                        source=np.array(source))  # fmt: skip


def read_basis(path: Path, fingerprint: str) -> np.ndarray | None:
    """The basis stored at `path` if it was fitted to the members named by `fingerprint`; None,
    with a warning that says how to make one, if it is missing or fitted to other weights."""
    refit = "refit it with `python bench/vision.py --fit-basis " + str(path) + "`"
    if not path.exists():
        warnings.warn(f"{path} is missing: reading squares with the exact (slower) product; "
                      + refit, stacklevel=3)  # fmt: skip
        return None
    with np.load(path) as data:
        if str(data["fingerprint"]) != fingerprint:
            warnings.warn(f"{path} was fitted to other weights than the square classifier's "
                          f"now: reading squares with the exact (slower) product; {refit}",
                          stacklevel=3)  # fmt: skip
            return None
        return data["basis"].astype(np.float32)


# -- training ----------------------------------------------------------------------------------


def train(
    X: np.ndarray,
    kind: np.ndarray,
    height: np.ndarray,
    *,
    hidden: tuple[int, ...] = HIDDEN,
    epochs: int = 10,
    batch: int = 256,
    learning_rate: float = 1e-3,
    weight_decay: float = 1e-5,
    seed: int = 0,
    mirror: np.ndarray | None = None,
    report: Callable[[int, float], None] | None = None,
    start: SquareNet | None = None,
) -> SquareNet:
    """Fit a net: Adam, cosine learning rate, cross-entropy on both heads (the height head only
    on occupied squares). X [N, N_FEATURES] (float16 is fine: batches are converted as they
    go); kind [N] index into KINDS; height [N] 0..7 (pieces - 1; ignored where empty).
    `mirror`: a feature permutation giving the same square seen mirrored; each batch applies it
    to a random half of its rows.
    `start`: go on from this net (its layers and input scaling; `hidden` is then its own): more
    data for a net already trained, without the data it was trained on."""
    rng = np.random.default_rng(seed)
    if start is not None:
        if start.mean.shape[0] != X.shape[1]:
            raise ValueError(f"the starting net takes {start.mean.shape[0]} features, "
                             f"the examples have {X.shape[1]}")  # fmt: skip
        mean, scale = start.mean, start.scale
        layers = [(W.copy(), b.copy()) for W, b in start.layers]
    else:
        sample = X[rng.choice(len(X), size=min(len(X), 50000), replace=False)].astype(np.float32)
        if mirror is not None:
            sample = np.vstack([sample, sample[:, mirror]])
        mean = sample.mean(axis=0)
        scale = sample.std(axis=0) + 1e-3
        sizes = [X.shape[1], *hidden, N_OUT]
        layers = [
            (rng.normal(0, np.sqrt(2 / a), (a, b)).astype(np.float32), np.zeros(b, np.float32))
            for a, b in itertools.pairwise(sizes)
        ]
    params = [p for layer in layers for p in layer]
    m1 = [np.zeros_like(p) for p in params]
    m2 = [np.zeros_like(p) for p in params]
    step = 0
    n = len(X)
    for epoch in range(epochs):
        rate = learning_rate * 0.5 * (1 + np.cos(np.pi * epoch / epochs))
        order = rng.permutation(n)
        total = 0.0
        for start in range(0, n, batch):
            idx = order[start : start + batch]
            xb = X[idx].astype(np.float32)
            if mirror is not None:
                flip = rng.random(len(idx)) < 0.5
                xb[flip] = xb[flip][:, mirror]
            xb = (xb - mean) / scale
            acts = [xb]
            h = xb
            for i, (W, b) in enumerate(layers):
                h = h @ W + b
                if i < len(layers) - 1:
                    h = np.maximum(h, 0.0)
                acts.append(h)
            rows = np.arange(len(idx))
            kb, hb = kind[idx], height[idx]
            pk = softmax(h[:, : len(KINDS)])
            ph = softmax(h[:, len(KINDS) :])
            total += float(-np.log(pk[rows, kb] + 1e-9).sum())
            grad = np.empty_like(h)
            pk[rows, kb] -= 1.0
            ph[rows, hb] -= 1.0
            ph[kb == 0] = 0.0
            grad[:, : len(KINDS)] = pk
            grad[:, len(KINDS) :] = ph
            grad /= len(idx)
            step += 1
            grads: list[np.ndarray] = []
            for i in range(len(layers) - 1, -1, -1):
                W, _ = layers[i]
                gW = acts[i].T @ grad + weight_decay * W
                gb = grad.sum(axis=0)
                if i > 0:
                    grad = (grad @ W.T) * (acts[i] > 0)
                grads = [gW, gb, *grads]
            for p, g, a, v in zip(params, grads, m1, m2, strict=True):
                a *= 0.9
                a += 0.1 * g
                v *= 0.999
                v += 0.001 * g * g
                unbiased = a / (1 - 0.9**step), v / (1 - 0.999**step)
                p -= (rate * unbiased[0] / (np.sqrt(unbiased[1]) + 1e-8)).astype(np.float32)
        if report:
            report(epoch, total / n)
    return SquareNet(layers, mean, scale)


def factor_first_layer(net: SquareNet, X: np.ndarray, rank: int = FIRST_RANK) -> None:
    """Make the first layer a product of rank `rank`, fitted to the inputs X [N, N_FEATURES]
    (examples of what the net reads). Its 256 units' pre-activations on real squares vary in
    far fewer directions than 256 (the samples of a square are strongly correlated), so
    projecting them onto their top `rank` principal directions V changes the logits little,
    and reading costs x A B with A = W V [in, rank], B = V^T: the input's product, the bulk of
    a read's arithmetic, is that much smaller (rank 192 of 256 on the first net: the net for
    36 squares 1.39 -> 1.05 ms, the read 9.9 -> 9.6 ms median, colour+kind 99.15 -> 99.14 %;
    each of the two members now: rank 128; docs/vision.md). The mean pre-activation is
    kept exactly (in the bias). Temperatures must be fitted after this."""
    W, b = net.layers[0]
    if not 0 < rank < W.shape[1]:
        raise ValueError(f"rank {rank}: between 1 and {W.shape[1] - 1} for a first layer of "
                         f"{W.shape[1]} units")  # fmt: skip
    pre = ((X.astype(np.float32) - net.mean) / net.scale) @ W
    centre = pre.mean(axis=0)
    _, _, Vt = np.linalg.svd(pre - centre, full_matrices=False)
    V = Vt[:rank].T
    A, B = (W @ V).astype(np.float32), np.ascontiguousarray(V.T, np.float32)
    net.layers[0] = (A @ B, (b + centre - (centre @ V) @ V.T).astype(np.float32))
    net.first_factors = (A, B)
    net.__dict__.pop("_first_layer", None)  # folded from the old layer, if used already


def best_temperature(logits: np.ndarray, labels: np.ndarray, temps: np.ndarray) -> float:
    """The temperature among `temps` that minimises the negative log-likelihood of `labels`
    (one head's held-out logits [N, classes], labels [N] as class indices)."""

    def nll(t: float) -> float:
        p = softmax(logits / t)
        return float(-np.log(p[np.arange(len(labels)), labels] + 1e-12).mean())

    return float(min(temps, key=nll))


def fit_temperature(net: SquareNet, X: np.ndarray, kind: np.ndarray, height: np.ndarray) -> None:
    """Per head, the temperature that minimises the negative log-likelihood on held-out data."""
    out = net.logits(X.astype(np.float32))
    occupied = kind > 0
    temps = np.exp(np.linspace(np.log(0.5), np.log(5.0), 60))
    net.temperature = (best_temperature(out[:, : len(KINDS)], kind, temps),
                       best_temperature(out[occupied, len(KINDS) :], height[occupied], temps))
