"""The square classifier's fit (`vision.net.train`) on a small made-up problem, and going on from a
trained net with more data (`takboard vision train --from`)."""

from __future__ import annotations

import numpy as np
import pytest

from vision.net import KINDS, train
from vision.sim.training import HELD_OUT_SEED, training_seed


def _problem(n: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Features whose first four columns say the kind and the next one the height."""
    rng = np.random.default_rng(seed)
    kind = rng.integers(0, len(KINDS), n)
    height = np.where(kind > 0, rng.integers(0, 4, n), 0)
    X = rng.normal(0.0, 1.0, (n, 12)).astype(np.float32)
    X[np.arange(n), kind] += 4.0
    X[:, 4] += height
    return X.astype(np.float16), kind, height


def _kinds_right(net, X, kind) -> float:
    return float((net.predict(X)[0].argmax(axis=1) == kind).mean())


def test_a_net_goes_on_from_its_weights_with_new_data():
    X, kind, height = _problem(3000, 1)
    first = train(X, kind, height, hidden=(16, 8), epochs=20, batch=32)
    Xt, kt, _ = _problem(2000, 3)
    before = [W.copy() for W, _ in first.layers]
    X2, kind2, height2 = _problem(3000, 2)
    more = train(X2, kind2, height2, epochs=5, batch=32, learning_rate=3e-4, start=first)
    assert [W.shape for W, _ in more.layers] == [W.shape for W, _ in first.layers]
    assert all(np.array_equal(W, w) for (W, _), w in zip(first.layers, before, strict=True))
    assert not all(np.array_equal(W, w) for (W, _), w in zip(more.layers, before, strict=True))
    assert np.array_equal(more.mean, first.mean)  # the same input scaling as the start
    assert _kinds_right(more, Xt, kt) >= _kinds_right(first, Xt, kt) - 0.01 > 0.9


def test_a_start_for_other_features_is_refused():
    X, kind, height = _problem(500, 1)
    net = train(X, kind, height, hidden=(8,), epochs=1)
    with pytest.raises(ValueError, match="takes 12 features"):
        train(X[:, :10], kind, height, start=net)


def test_training_installations_never_use_a_held_out_seed():
    seeds = [training_seed(i) for i in range(8000)]
    assert len(set(seeds)) == len(seeds)
    assert not set(seeds) & set(range(HELD_OUT_SEED, HELD_OUT_SEED + 1000))
    assert seeds[:2] == [1000, 1001]  # the shipped weights' installations are unchanged
