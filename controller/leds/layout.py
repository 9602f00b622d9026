"""The LED configuration (hardware/leds.toml) and which LEDs of the chain sit under which square.

The file format is the firmware engineer's, documented in hardware/README.md:

    [board]  size = 8
    [chain]  leds_per_square = 1, wiring = "serpentine" | "row-major",
             start_corner = "bottom-left" | "bottom-right" | "top-left" | "top-right",
             axis = "ranks" | "files"
    [power]  budget_ma = 1500
    [link]   baud = 500000, watchdog_ms = 5000, brightness = 255

"bottom" is rank 1 (player 1's side), "left" is file a. A missing key takes its default; an unknown
key or an out-of-range value is an error naming the key and the file.

The firmware maps squares to LEDs itself (the host sends squares, PROTOCOL.md 4.3). The mapping here
is the same rule written once more on the host, for the wiring check and for tests that read the
emulated chain's GRB bytes back as squares.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, fields
from pathlib import Path

from controller.leds.frame import check_size, square_names
from controller.tak import parse_square

WIRINGS = ("row-major", "serpentine")  # SET_CONFIG codes 0, 1
CORNERS = ("bottom-left", "bottom-right", "top-left", "top-right")  # codes 0..3
AXES = ("ranks", "files")  # codes 0, 1
BAUDS = (115200, 250000, 500000)
MAX_LEDS = 128  # the firmware build's capacity (INFO max_leds)


class LayoutError(ValueError):
    """A layout file or value that cannot be used; names the file and the key."""


@dataclass(frozen=True)
class LedConfig:
    """Everything hardware/leds.toml says; defaults are the firmware's boot defaults."""

    size: int = 8
    leds_per_square: int = 1
    wiring: str = "serpentine"
    start_corner: str = "bottom-left"
    axis: str = "ranks"
    budget_ma: int = 1500
    baud: int = 500000
    watchdog_ms: int = 5000
    brightness: int = 255

    def __post_init__(self) -> None:
        try:
            check_size(self.size)
        except ValueError as error:
            raise LayoutError(f"board.size: {error}") from None
        _check_int("chain.leds_per_square", self.leds_per_square, 1, 4)
        if self.led_count > MAX_LEDS:
            raise LayoutError(
                f"chain.leds_per_square: {self.size}x{self.size} squares x {self.leds_per_square} "
                f"= {self.led_count} LEDs, more than the firmware's {MAX_LEDS}"
            )
        _check_choice("chain.wiring", self.wiring, WIRINGS)
        _check_choice("chain.start_corner", self.start_corner, CORNERS)
        _check_choice("chain.axis", self.axis, AXES)
        _check_int("power.budget_ma", self.budget_ma, max(100, self.led_count + 50), 10000)
        _check_choice("link.baud", self.baud, BAUDS)
        _check_int("link.watchdog_ms", self.watchdog_ms, 100, 60000)
        _check_int("link.brightness", self.brightness, 0, 255)

    @property
    def led_count(self) -> int:
        return self.size * self.size * self.leds_per_square

    def chain_position(self, square: str) -> int:
        """The square's place along the chain, 0 = the first square the data line reaches."""
        n = self.size
        file, rank = parse_square(square, n)
        right = self.start_corner.endswith("right")
        top = self.start_corner.startswith("top")
        # Walk a run along the axis from the start corner's side, then step to the next run.
        along, across = (file, rank) if self.axis == "ranks" else (rank, file)
        from_far_along, from_far_across = (right, top) if self.axis == "ranks" else (top, right)
        run = n - 1 - across if from_far_across else across
        place = n - 1 - along if from_far_along else along
        if self.wiring == "serpentine" and run % 2 == 1:
            place = n - 1 - place
        return run * n + place

    def leds(self, square: str) -> range:
        """Indices in the chain of the LEDs under `square` (they are consecutive)."""
        first = self.chain_position(square) * self.leds_per_square
        return range(first, first + self.leds_per_square)

    def square_order(self) -> list[str]:
        """Squares in chain order (the square under LED 0 first)."""
        return sorted(square_names(self.size), key=self.chain_position)

    def config_codes(self) -> tuple[int, int, int]:
        """(wiring, start_corner, axis) as the protocol numbers them."""
        return (
            WIRINGS.index(self.wiring),
            CORNERS.index(self.start_corner),
            AXES.index(self.axis),
        )


def _check_int(key: str, value: object, low: int, high: int) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise LayoutError(f"{key} must be an integer {low}..{high}, got {value!r}")


def _check_choice(key: str, value: object, choices: tuple) -> None:
    if value not in choices:
        raise LayoutError(f"{key} must be one of {', '.join(map(repr, choices))}, got {value!r}")


# TOML table.key -> LedConfig field
_KEYS = {
    ("board", "size"): "size",
    ("chain", "leds_per_square"): "leds_per_square",
    ("chain", "wiring"): "wiring",
    ("chain", "start_corner"): "start_corner",
    ("chain", "axis"): "axis",
    ("power", "budget_ma"): "budget_ma",
    ("link", "baud"): "baud",
    ("link", "watchdog_ms"): "watchdog_ms",
    ("link", "brightness"): "brightness",
}
assert set(_KEYS.values()) == {f.name for f in fields(LedConfig)}


def load_config(path: str | Path) -> LedConfig:
    """Read a leds.toml file; every problem names the file and the key."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise LayoutError(f"{path}: cannot read the LED config: {error.strerror}") from None
    except tomllib.TOMLDecodeError as error:
        raise LayoutError(f"{path}: not valid TOML: {error}") from None
    values = {}
    for table_name, table in data.items():
        if not isinstance(table, dict):
            raise LayoutError(
                f"{path}: unknown key {table_name!r} (expected tables "
                f"{sorted({t for t, _ in _KEYS})})"
            )
        for key, value in table.items():
            field_name = _KEYS.get((table_name, key))
            if field_name is None:
                known = ", ".join(f"{t}.{k}" for t, k in _KEYS)
                raise LayoutError(f"{path}: unknown key {table_name}.{key} (known: {known})")
            values[field_name] = value
    try:
        return LedConfig(**values)
    except LayoutError as error:
        raise LayoutError(f"{path}: {error}") from None


DEFAULT_CONFIG_PATH = Path(__file__).resolve().parents[2] / "hardware" / "leds.toml"
