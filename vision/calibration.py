"""Calibrated per-square confidences: turn what the reader knows into "right with probability p".

Tracking reads a confidence c as "the reported value is right with probability c" and commits a
ply silently only on strong evidence, so a wrong call reported at 0.99 becomes a silent recording
error while a wrong call at 0.6 becomes a question to the user. The square classifier's own
probabilities (temperature-scaled, `vision/net.py`) come close, but not everywhere alike: its
"0.99" means less on a dark piece on dark wood at 35 degrees tilt, and the colour comes from a
separate two-cluster split with only a margin.

So every confidence is a small logistic model over a few per-square features (the classifier's
own log-odds, the colour margin, view angle, what was read), fitted on benchmark frames
from seeds other than the benchmark's own (`python bench/vision.py --fit-calibration ...`) and
stored in `calibration.json` next to this module. `bench/vision.py` prints the reliability table
(confidence bucket -> observed accuracy) on its own seed, which is the check that they mean what
they say.

What each probability is about (the semantics tracking's `evidence.py` assumes):
  empty    the empty/occupied call is right (all squares)
  color    the top colour is right, given the square is occupied
  kind     the top kind is right, given the square is occupied
  height   the height is exactly right, given the square is occupied
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

TABLE = Path(__file__).with_name("calibration.json")

FEATURES = (
    "bias",
    "empty_logit",  # log-odds of the classifier's empty/occupied call (clipped to +-12)
    "called_empty",  # 1 when the square was read empty
    "kind_logit",  # log-odds of the top kind given occupied
    "height_logit",  # log-odds of the height
    "color_margin",  # the colour classifier's own margin, 0..0.5
    "view_angle",  # angle of the line of sight at the square from vertical, radians
    "height",  # height read (0 for empty), / 6
    "is_wall",
    "is_cap",
    # a square read empty is wrong in another way (a missed dark piece) than one read occupied
    "empty_logit_if_empty",
    # a wall's or capstone's colour comes from a thin side in shade, not a lit face: the same
    # margin means less there (bench: walls' colours 96 % right, flats' 99.4 %)
    "color_margin_if_standing",
)
ATTRIBUTES = ("empty", "color", "kind", "height")
# A reported value is never less likely than a uniform guess among the alternatives.
FLOORS = {"empty": 0.5, "color": 0.5, "kind": 1 / 3, "height": 0.05}
CEILING = 0.999  # nothing seen through a camera is certain


def square_features(
    fits: dict[str, np.ndarray], color_margin: np.ndarray, view_angle: np.ndarray
) -> np.ndarray:
    """[S, F] feature rows from the reader's raw calls (`BoardReader._classify_squares`: the
    classifier's probabilities) and the colour margins."""
    empty = fits["empty"].astype(bool)
    height = np.where(empty, 0, fits["height"]).astype(np.float64)
    kind = fits["kind"]

    def logit(p: np.ndarray) -> np.ndarray:
        p = np.clip(np.asarray(p, np.float64), 1e-6, 1 - 1e-6)
        return np.clip(np.log(p / (1 - p)), -12.0, 12.0)

    cols = {
        "bias": np.ones(len(empty)),
        "empty_logit": logit(fits["empty_conf"]),
        "called_empty": empty.astype(np.float64),
        "kind_logit": np.where(empty, 0.0, logit(fits["kind_conf"])),
        "height_logit": np.where(empty, 0.0, logit(fits["height_conf"])),
        "color_margin": np.where(empty, 0.0, np.clip(color_margin, 0.0, 0.5)),
        "view_angle": np.asarray(view_angle, np.float64),
        "height": height / 6.0,
        "is_wall": (kind == "wall").astype(np.float64),
        "is_cap": (kind == "cap").astype(np.float64),
    }
    cols["empty_logit_if_empty"] = cols["empty_logit"] * cols["called_empty"]
    cols["color_margin_if_standing"] = cols["color_margin"] * (cols["is_wall"] + cols["is_cap"])
    return np.stack([cols[f] for f in FEATURES], axis=1)


@dataclass(frozen=True)
class Calibration:
    """One logistic model per attribute over `FEATURES`."""

    coef: dict[str, np.ndarray]
    source: str = ""

    @classmethod
    def load(cls, path: Path = TABLE) -> Calibration:
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError) as err:
            raise RuntimeError(f"cannot read the confidence calibration {path}: {err}") from err
        if list(data.get("features", [])) != list(FEATURES):
            raise RuntimeError(
                f"{path} was fitted for other features ({data.get('features')}); refit it with "
                "python bench/vision.py --fit-calibration"
            )
        coef = {a: np.asarray(data["coef"][a], np.float64) for a in ATTRIBUTES}
        return cls(coef, data.get("source", ""))

    def save(self, path: Path = TABLE) -> None:
        data = {
            "features": list(FEATURES),
            "coef": {a: [round(float(v), 5) for v in self.coef[a]] for a in ATTRIBUTES},
            "source": self.source,
        }
        path.write_text(json.dumps(data, indent=1) + "\n")

    def probabilities(self, features: np.ndarray) -> dict[str, np.ndarray]:
        """[S, F] -> per attribute [S] probabilities, floored and capped (see FLOORS)."""
        out = {}
        for a in ATTRIBUTES:
            p = _sigmoid(features @ self.coef[a])
            out[a] = np.clip(p, FLOORS[a], CEILING)
        return out


def fit_logistic(x: np.ndarray, y: np.ndarray, l2: float = 1.0, steps: int = 50) -> np.ndarray:
    """Logistic regression by Newton's method with a small ridge (not on the bias). [N, F], [N]"""
    w = np.zeros(x.shape[1])
    ridge = np.full(x.shape[1], l2)
    ridge[0] = 1e-6
    for _ in range(steps):
        p = _sigmoid(x @ w)
        grad = x.T @ (p - y) + ridge * w
        hess = (x * (p * (1 - p))[:, None]).T @ x + np.diag(ridge)
        step = np.linalg.solve(hess, grad)
        w -= step
        if float(np.abs(step).max()) < 1e-7:
            break
    return w


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.clip(z, -40, 40)))
