"""The stack net (vision/stack_net.py): its numpy layers against plain loops, its file, and how
the reader averages it in."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from vision import reader as reader_module
from vision.net import Ensemble
from vision.stack_net import (
    GRID_CHANNELS,
    N_EDGE,
    N_PLANE,
    N_VERTICAL,
    StackNet,
    channels_first,
    conv3x3,
    grid_image,
    max_pool2,
    taps_first,
)
from vision.views import EDGE_SHAPE, N_FEATURES, PLANE_SHAPE


def test_conv3x3_is_a_padded_3x3_convolution_with_relu():
    rng = np.random.default_rng(1)
    image = rng.standard_normal((2, 5, 4, 3)).astype(np.float32)
    kernel = rng.standard_normal((6, 3, 3, 3)).astype(np.float32)  # [out, C, kh, kw]
    bias = rng.standard_normal(6).astype(np.float32)
    got = conv3x3(image, kernel.transpose(2, 3, 1, 0).reshape(-1, 6), bias)  # taps first
    want = np.zeros((2, 5, 4, 6), np.float32)
    for s in range(2):
        for y in range(5):
            for x in range(4):
                for o in range(6):
                    total = bias[o]
                    for c in range(3):
                        for dy in range(3):
                            for dx in range(3):
                                yy, xx = y + dy - 1, x + dx - 1
                                if 0 <= yy < 5 and 0 <= xx < 4:
                                    total += image[s, yy, xx, c] * kernel[o, c, dy, dx]
                    want[s, y, x, o] = max(total, 0.0)
    assert np.allclose(got, want, atol=1e-4)


def test_max_pool2_drops_an_odd_last_row_and_column():
    image = np.arange(2 * 5 * 5 * 1, dtype=np.float32).reshape(2, 5, 5, 1)
    pooled = max_pool2(image)
    assert pooled.shape == (2, 2, 2, 1)
    assert pooled[0, 0, 0, 0] == image[0, 1, 1, 0] and pooled[1, 1, 1, 0] == image[1, 3, 3, 0]


def test_grid_image_puts_each_height_s_channels_then_its_edge_at_each_grid_point():
    x = np.zeros((1, N_FEATURES), np.float32)
    z, r, q = 3, 7, 2
    x[0, np.ravel_multi_index((z, r, q, 1), PLANE_SHAPE)] = 5.0  # a colour channel
    x[0, N_PLANE + N_VERTICAL + np.ravel_multi_index((z, r, q), EDGE_SHAPE)] = 9.0  # its edge
    image = grid_image(x)
    assert image.shape == (1, PLANE_SHAPE[1], PLANE_SHAPE[2], GRID_CHANNELS)
    assert image[0, r, q, 4 * z + 1] == 5.0 and image[0, r, q, 4 * z + 3] == 9.0
    assert np.count_nonzero(image) == 2


def random_net(seed: int = 0) -> StackNet:
    rng = np.random.default_rng(seed)
    widths = (4, 5, 6)
    side_in = N_FEATURES - N_PLANE - N_EDGE

    def layer(a: int, b: int) -> tuple[np.ndarray, np.ndarray]:
        return (rng.normal(0, 1 / np.sqrt(a), (a, b)).astype(np.float32),
                rng.normal(0, 0.1, b).astype(np.float32))  # fmt: skip

    return StackNet(np.zeros(N_FEATURES, np.float32), np.ones(N_FEATURES, np.float32),
                    [layer(GRID_CHANNELS * 9, 4), layer(4 * 9, 5), layer(5 * 9, 6)],
                    layer(side_in, 7), layer(widths[2] * 25 + 7, 8), layer(8, 11),
                    (1.2, 0.8))  # fmt: skip


def test_a_stack_net_file_reads_back_to_the_same_answers(tmp_path):
    net = random_net()
    x = np.random.default_rng(2).standard_normal((5, N_FEATURES)).astype(np.float32)
    net.save(tmp_path / "s.npz")
    again = StackNet.load(tmp_path / "s.npz")
    k, h = net.predict(x)
    assert k.shape == (5, 3) and h.shape == (5, 8)
    assert np.allclose(k.sum(axis=1), 1) and np.allclose(h.sum(axis=1), 1)
    # (weights kept in half precision: the same answers to about a thousandth)
    assert np.allclose(again.predict(x)[0], k, atol=5e-3)
    assert np.allclose(again.predict(x)[1], h, atol=5e-3)
    again.save(tmp_path / "t.npz")
    twice = StackNet.load(tmp_path / "t.npz")
    assert np.array_equal(twice.predict(x)[0], again.predict(x)[0])
    assert again.temperature == (1.2, 0.8)
    empty_k, empty_h = net.predict(np.zeros((0, N_FEATURES), np.float32))
    assert empty_k.shape == (0, 3) and empty_h.shape == (0, 8)


def test_the_file_keeps_pytorch_s_channel_first_rows_which_the_net_reads_taps_first(tmp_path):
    # (a file from `train-stack` or an older one reads the same; the net gathers taps first)
    net = random_net()
    net.save(tmp_path / "s.npz")
    with np.load(tmp_path / "s.npz") as d:
        stored = d["conv1_W"].astype(np.float32)  # [4 channels * 9, 5]
    W = net.convs[1][0]
    # the file's row (channel, kernel row, kernel column) is the net's (row, column, channel)
    assert np.allclose(stored.reshape(4, 3, 3, 5), W.reshape(3, 3, 4, 5).transpose(2, 0, 1, 3),
                       atol=1e-2)  # fmt: skip
    assert np.array_equal(taps_first(channels_first(W)), W)
    assert not np.allclose(taps_first(W), W)


def test_a_missing_or_mismatched_stack_net_file_says_how_to_make_it(tmp_path):
    with pytest.raises(FileNotFoundError, match="takboard vision train-stack"):
        StackNet.load(tmp_path / "none.npz")
    random_net().save(tmp_path / "s.npz")
    with np.load(tmp_path / "s.npz") as d:
        arrays = dict(d)
    arrays["n_features"] = np.array(N_FEATURES - 1)
    np.savez(tmp_path / "old.npz", **arrays)
    with pytest.raises(ValueError, match="retrain"):
        StackNet.load(tmp_path / "old.npz")


def test_the_reader_averages_the_stack_net_in_only_where_the_pair_is_unsure_of_an_occupied_square():
    pair = Ensemble.load()
    stack = StackNet.load()
    rng = np.random.default_rng(3)
    features = rng.standard_normal((64, N_FEATURES)).astype(np.float32)
    alone_k, alone_h = reader_module.classify(pair, features)
    both_k, both_h = reader_module.with_stack_net(stack, features, alone_k, alone_h)
    assert np.allclose(both_k.sum(axis=1), 1, atol=1e-5) and np.allclose(both_h.sum(axis=1), 1)
    assert np.array_equal(both_k[:, 0], alone_k[:, 0])  # empty or not stays the pair's
    occupied = 1 - alone_k[:, 0]
    given = alone_k[:, 1:] / occupied[:, None]
    asked = (occupied > reader_module.STACK_OCCUPIED_ABOVE) & (
        (given.max(axis=1) < reader_module.STACK_KIND_BELOW)
        | (alone_h.max(axis=1) < reader_module.STACK_HEIGHT_BELOW))  # fmt: skip
    changed = ~np.all(np.isclose(both_h, alone_h), axis=1)
    assert asked.any() and not changed[~asked].any()
    sk, sh = stack.predict(features[asked])
    assert np.allclose(both_h[asked], (alone_h[asked] + sh) / 2, atol=1e-6)
    assert np.allclose(both_k[asked, 1:], occupied[asked, None] * (given[asked] + sk) / 2,
                       atol=1e-6)  # fmt: skip


def test_training_without_pytorch_says_what_to_install(tmp_path):
    try:
        import torch  # noqa: F401
    except ImportError:
        pass
    else:
        pytest.skip("PyTorch is installed here: training would start")
    done = subprocess.run(
        [sys.executable, "-m", "controller.cli", "vision", "train-stack", "--data", str(tmp_path)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode != 0
    assert "pip install torch" in done.stderr
    assert list(tmp_path.iterdir()) == []  # nothing rendered first


def test_train_stack_refuses_bad_arguments_before_anything_is_rendered(tmp_path, capsys):
    from controller.cli import main as takboard

    assert takboard(["vision", "train-stack", "--data", str(tmp_path), "--epochs", "0"]) == 2
    assert "--epochs must be at least 1" in capsys.readouterr().err
    a_file = tmp_path / "file"
    a_file.write_text("")
    assert takboard(["vision", "train-stack", "--data", str(a_file)]) == 2
    assert "not a folder" in capsys.readouterr().err
    assert takboard(["vision", "train", "--first", "-1"]) == 2
    assert "--first must be 0 or more" in capsys.readouterr().err
    for bad, said in ((["--learning-rate", "0"], "--learning-rate must be above 0"),
                      (["--from", str(tmp_path / "none.npz")], "no such weights file"),
                      (["--wooden-share", "-0.1"], "--wooden-share -0.1: a share from 0 to 1")):
        assert takboard(["vision", "train-stack", "--data", str(tmp_path / "d"), *bad]) == 2
        assert said in capsys.readouterr().err
    assert not (tmp_path / "d").exists()
