"""The square classifier's fit (`vision.net.train`) on a small made-up problem, going on from a
trained net with more data (`takboard vision train --from`), training on a share of the empty
squares (`--keep-empty`) and keeping the rendered examples (`--data`)."""

from __future__ import annotations

import numpy as np
import pytest

from vision.net import KINDS, train
from vision.sim import training
from vision.sim.training import HELD_OUT_SEED, restore_empty_prior, training_seed
from vision.views import N_FEATURES


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


def _blurred_problem(n: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Like `_problem`, but empty and flat overlap, so the prior decides the close calls."""
    X, kind, height = _problem(n, seed)
    X = X.astype(np.float32)
    X[:, 0] -= 3.0 * (kind == 0)
    X[:, 0] += 1.2 * (kind == 0)
    X[:, 1] += 1.2 * (kind == 0) - 2.8 * (kind == 1)
    return X.astype(np.float16), kind, height


def test_a_net_trained_on_a_share_of_the_empty_squares_gets_their_odds_back():
    X, kind, height = _blurred_problem(6000, 4)
    rng = np.random.default_rng(0)
    keep = (kind > 0) | (rng.random(len(kind)) < 0.25)
    net = train(X[keep], kind[keep], height[keep], hidden=(16,), epochs=15, batch=64)
    Xt, kt, _ = _blurred_problem(6000, 5)

    def empty_calls() -> float:
        return float((net.predict(Xt)[0].argmax(axis=1) == 0).mean())

    before = empty_calls()
    restore_empty_prior(net, 0.25)
    after = empty_calls()
    truth = float((kt == 0).mean())
    assert before < truth - 0.03  # trained on a quarter of them, it calls too few squares empty
    assert abs(after - truth) < abs(before - truth) / 2


def test_rendered_examples_are_kept_and_read_back_without_rendering(tmp_path, monkeypatch):
    X, kind, height = training.dataset([HELD_OUT_SEED], 1, "held out", tmp_path, keep_empty=0.5)
    assert X.shape == (len(kind), N_FEATURES) and len(kind) == len(height) > 0
    assert (kind == 0).sum() < (kind > 0).sum()  # about half the empty squares dropped

    def render(*_args, **_kwargs):
        raise AssertionError("rendered again")

    monkeypatch.setattr(training, "installation", render)
    X2, kind2, height2 = training.dataset([HELD_OUT_SEED], 1, "held out", tmp_path,
                                          keep_empty=0.5)  # fmt: skip
    assert np.array_equal(X, X2) and np.array_equal(kind, kind2)
    assert np.array_equal(height, height2)


def test_the_shipped_net_s_folded_first_layer_computes_what_standardising_first_does():
    from vision.net import SquareNet

    net = SquareNet.load()
    rng = np.random.default_rng(2)
    x = (rng.normal(size=(40, N_FEATURES)) * net.scale + net.mean).astype(np.float32)
    h = (x - net.mean) / net.scale  # the standardisation the net was trained with
    for i, (W, b) in enumerate(net.layers):
        h = h @ W + b
        if i < len(net.layers) - 1:
            h = np.maximum(h, 0.0)
    assert np.allclose(net.logits(x), h, atol=1e-3)


def _correlated_problem(n: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Like `_problem` with 48 columns that are noisy copies of its 12, as a square's neighbouring
    samples are: the inputs vary in few directions."""
    X, kind, height = _problem(n, seed)
    X = X.astype(np.float32)
    rng = np.random.default_rng(seed + 100)
    copies = np.repeat(X, 4, axis=1) + rng.normal(0.0, 0.2, (n, 48)).astype(np.float32)
    return copies.astype(np.float16), kind, height


def test_a_factored_first_layer_reads_almost_as_the_whole_one_and_survives_a_save(tmp_path):
    from vision.net import factor_first_layer

    X, kind, height = _correlated_problem(4000, 6)
    net = train(X, kind, height, hidden=(32, 16), epochs=10, batch=64)
    Xt, kt, _ = _correlated_problem(2000, 7)
    whole = net.logits(Xt.astype(np.float32))
    right = _kinds_right(net, Xt, kt)
    factor_first_layer(net, X, 12)
    A, B = net.first_factors
    assert A.shape == (48, 12) and B.shape == (12, 32)
    factored = net.logits(Xt.astype(np.float32))
    assert not np.allclose(factored, whole, atol=1e-4)  # a real approximation...
    assert np.abs(factored - whole).mean() < 0.05 * np.abs(whole).mean()  # ...and a close one
    assert _kinds_right(net, Xt, kt) >= right - 0.01
    assert np.allclose(net.layers[0][0], A @ B)  # what training from these weights goes on with
    with pytest.raises(ValueError, match="between 1 and 31"):
        factor_first_layer(net, X, 32)


@pytest.mark.parametrize("member", [0, 1])
def test_the_shipped_nets_are_factored_and_read_the_same_after_a_save(tmp_path, member):
    from vision.net import FIRST_RANK, MEMBERS, SquareNet

    net = SquareNet.load(MEMBERS[member])
    assert net.first_factors is not None and net.first_factors[1].shape[0] == FIRST_RANK
    net.save(tmp_path / "net.npz")
    with np.load(tmp_path / "net.npz") as data:
        assert "A0" in data and "W0" not in data  # the factors are what is stored
    back = SquareNet.load(tmp_path / "net.npz")
    x = (np.random.default_rng(3).normal(size=(20, N_FEATURES)) * net.scale + net.mean)
    assert np.allclose(back.logits(x.astype(np.float32)), net.logits(x.astype(np.float32)),
                       atol=1e-4)  # fmt: skip


def test_a_rank_the_net_cannot_have_is_refused_before_anything_is_rendered(tmp_path):
    with pytest.raises(ValueError, match="first rank 256: 1 to 255"):
        training.run(1, 1, 1, 1, tmp_path / "net.npz", data=tmp_path, first_rank=256)
    assert not list(tmp_path.iterdir())


def test_an_ensemble_reads_the_input_once_and_gives_its_members_average():
    from vision.net import Ensemble, factor_first_layer

    X, kind, height = _correlated_problem(3000, 8)
    factored = train(X, kind, height, hidden=(24, 12), epochs=5, batch=64, seed=1)
    factor_first_layer(factored, X, 10)
    factored.temperature = (1.3, 0.8)
    whole = train(X[::-1], kind[::-1], height[::-1], hidden=(16, 8), epochs=5, batch=64, seed=2)
    ensemble = Ensemble((factored, whole))
    Xt = _correlated_problem(300, 9)[0]
    k1, h1 = factored.predict(Xt)
    k2, h2 = whole.predict(Xt)
    assert not np.allclose(k1, k2, atol=1e-3)  # two nets that read differently...
    k, h = ensemble.predict(Xt)
    assert np.allclose(k, (k1 + k2) / 2, atol=1e-5)  # ...averaged, however their layers are
    assert np.allclose(h, (h1 + h2) / 2, atol=1e-5)
    assert np.allclose(k.sum(axis=1), 1.0, atol=1e-5)


def test_the_shipped_ensemble_has_two_members_that_do_not_always_agree():
    """Trained on different installations: were they copies, the second would be dead weight."""
    from vision.net import MEMBERS, Ensemble

    ensemble = Ensemble.load()
    assert len(ensemble.members) == len(MEMBERS) == 2
    x = (np.random.default_rng(4).normal(size=(50, N_FEATURES)) * ensemble.members[0].scale
         + ensemble.members[0].mean).astype(np.float32)  # fmt: skip
    (a, _), (b, _) = (net.predict(x) for net in ensemble.members)
    assert np.abs(a - b).max() > 0.01


def test_a_missing_member_s_weights_say_how_to_make_them(tmp_path):
    from vision.net import MEMBERS, Ensemble

    paths = (MEMBERS[0], tmp_path / MEMBERS[1].name)
    # each made in two steps: from scratch, then gone on with on installations the other never saw
    with pytest.raises(FileNotFoundError, match=r"vision train --first 3600 -o .*square_net_2"
                                                 r"\.npz`, then .*--from .*square_net_2\.npz "
                                                 r"--first 10800 -o "):
        Ensemble.load(paths)
    first = tmp_path / MEMBERS[0].name  # made in two steps: from scratch, then on the third 3600
    with pytest.raises(FileNotFoundError, match=r"train -o .*square_net\.npz`, then .*--from "
                                                 r".*square_net\.npz --first 7200 -o "):
        Ensemble.load((first, MEMBERS[1]))


def _two_members(seed: int):
    from vision.net import Ensemble

    X, kind, height = _correlated_problem(3000, seed)
    a = train(X, kind, height, hidden=(24, 12), epochs=5, batch=64, seed=1)
    b = train(X[::-1], kind[::-1], height[::-1], hidden=(16, 8), epochs=5, batch=64, seed=2)
    return Ensemble((a, b)), X


def test_a_shared_basis_reads_the_members_input_through_fewer_directions_almost_alike():
    from vision.net import Ensemble, fit_basis

    exact, X = _two_members(10)
    basis = fit_basis(exact, X, 12)  # the inputs vary in 12 directions (and noise)
    assert basis.shape == (12, 24 + 16)
    assert np.allclose(basis @ basis.T, np.eye(12), atol=1e-4)  # orthonormal directions
    narrow = Ensemble(exact.members, basis)
    assert narrow._input_matrix.shape == (48, 12)  # the product a read pays for
    Xt, kt, _ = _correlated_problem(2000, 11)
    (k0, _), (k1, h1) = exact.predict(Xt), narrow.predict(Xt)
    assert not np.allclose(k1, k0, atol=1e-4)  # a real approximation...
    assert np.abs(k1 - k0).mean() < 0.01  # ...that reads nearly as the exact product
    assert float((k1.argmax(1) == kt).mean()) >= float((k0.argmax(1) == kt).mean()) - 0.01
    assert np.allclose(h1.sum(axis=1), 1.0, atol=1e-5)
    with pytest.raises(ValueError, match="between 1 and 39"):
        fit_basis(exact, X, 40)


def test_a_basis_fitted_to_other_weights_is_refused_and_the_exact_product_read(tmp_path):
    from vision.net import MEMBERS, Ensemble, fit_basis, save_basis

    exact, X = _two_members(12)
    stale = tmp_path / "basis.npz"
    save_basis(stale, fit_basis(exact, X, 8), "0123456789abcdef", "made for other nets")
    with pytest.warns(UserWarning, match=r"basis\.npz was fitted to other weights .* exact "
                                          r"\(slower\) product; refit it with `python "
                                          r"bench/vision\.py --fit-basis "):
        shipped = Ensemble.load(MEMBERS, basis=stale)
    assert shipped.basis is None
    with pytest.warns(UserWarning, match=r"missing\.npz is missing"):
        assert Ensemble.load(MEMBERS, basis=tmp_path / "missing.npz").basis is None
    # fitted to these very weights (on any inputs): taken as stored
    members = Ensemble.load(MEMBERS, basis=None)
    inputs = np.random.default_rng(5).normal(size=(300, N_FEATURES)).astype(np.float32)
    fitted = fit_basis(members, inputs * members.members[0].scale + members.members[0].mean, 20)
    save_basis(stale, fitted, members.fingerprint(), "the shipped nets")
    assert np.array_equal(Ensemble.load(MEMBERS, basis=stale).basis, fitted)


def test_the_shipped_basis_fits_the_shipped_nets_and_reads_rendered_squares_as_they_do():
    """The reader's own inputs on rendered boards (seeds neither the basis nor the bench use):
    through the basis, the same calls, and probabilities within thousandths on average."""
    import warnings

    from vision.net import BASIS_RANK, Ensemble
    from vision.reader import BoardReader
    from vision.sim import Scene, random_scene, random_setup, render_frame

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a stale or missing basis warns: that is a failure here
        shipped = Ensemble.load()
    assert shipped.basis is not None and shipped.basis.shape == (BASIS_RANK, 256)
    exact = Ensemble(shipped.members)
    inputs = []
    for seed, size in ((901, 5), (902, 6), (903, 7)):
        camera, look = random_setup(seed, size, tilt_deg=10.0 * (seed - 900))
        reader = BoardReader(size)
        reader.read(render_frame(Scene(size), camera, look, seed=seed).image)
        scene = random_scene(np.random.default_rng(seed), size)
        image = render_frame(scene, camera, look, seed=seed + 1, t=2.0).image
        assert reader.read(image).board_found
        inputs.append(reader.view_features(image, reader.views)[1])
    X = np.concatenate(inputs)
    (k0, h0), (k1, h1) = exact.predict(X), shipped.predict(X)
    assert (k1.argmax(1) == k0.argmax(1)).all()
    occupied = k0[:, 0] < 0.5
    assert (h1.argmax(1) == h0.argmax(1))[occupied].mean() >= 0.97
    # (a basis of the weights alone, blind to what squares look like: 0.0016 and 0.0094)
    assert np.abs(k1 - k0).mean() < 0.001 and np.abs(h1 - h0).mean() < 0.006


def test_wooden_sets_are_rendered_and_kept_apart_from_the_plain_draw(tmp_path):
    plain, kind, _ = training.dataset([HELD_OUT_SEED], 1, "train", tmp_path)
    wooden, wooden_kind, _ = training.dataset([HELD_OUT_SEED], 1, "train", tmp_path,
                                              wooden_share=1.0)  # fmt: skip
    assert sorted(p.name for p in tmp_path.glob("*.json")) == [
        "train-5000-1-keep1-wooden1.json", "train-5000-1-keep1.json"]  # fmt: skip
    # the same boards, seen with light pieces of the board's wood
    assert np.array_equal(kind, wooden_kind) and (kind > 0).any()
    assert not np.array_equal(plain, wooden)


def test_train_refuses_a_wooden_share_outside_0_to_1(capsys):
    from controller.cli import main as takboard

    assert takboard(["vision", "train", "--wooden-share", "1.5"]) == 2
    assert "--wooden-share 1.5" in capsys.readouterr().err
