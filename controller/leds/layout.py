"""Which LEDs of the WS2812B chain sit under which square, read from the layout file.

The layout file is TOML (format documented in hardware/README.md and docs/leds.md), for example:

    [layout]
    board_size = 6            # the LED grid is board_size x board_size squares
    leds_per_square = 1       # consecutive LEDs of the chain under one square
    wiring = "serpentine"     # "serpentine" (every other run reversed) or "row-major"
    start_corner = "a1"       # the square the chain starts under: a1, aN, N1 or NN by name
    runs = "ranks"            # the chain runs along ranks (a1, b1, ...) or "files" (a1, a2, ...)

Squares follow the project's convention: a1 is player 1's lower-left corner.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from controller.leds.frame import FILES, check_size, square_index, square_names

WIRINGS = ("serpentine", "row-major")
RUNS = ("ranks", "files")
MAX_LEDS = 256


class LayoutError(ValueError):
    """A layout file or value that cannot be used; names the file and the key."""


@dataclass(frozen=True)
class Layout:
    board_size: int = 8
    leds_per_square: int = 1
    wiring: str = "serpentine"
    start_corner: str = "a1"
    runs: str = "ranks"

    def __post_init__(self) -> None:
        try:
            check_size(self.board_size)
        except ValueError as error:
            raise LayoutError(f"board_size: {error}") from None
        if not isinstance(self.leds_per_square, int) or not 1 <= self.leds_per_square <= 4:
            raise LayoutError(f"leds_per_square must be 1..4, got {self.leds_per_square!r}")
        if self.led_count > MAX_LEDS:
            raise LayoutError(f"{self.led_count} LEDs is more than the firmware's {MAX_LEDS}")
        if self.wiring not in WIRINGS:
            raise LayoutError(f"wiring must be one of {WIRINGS}, got {self.wiring!r}")
        if self.runs not in RUNS:
            raise LayoutError(f"runs must be one of {RUNS}, got {self.runs!r}")
        if self.start_corner not in self.corners():
            raise LayoutError(
                f"start_corner must be a corner of a {self.board_size}x{self.board_size} board "
                f"({', '.join(self.corners())}), got {self.start_corner!r}"
            )

    def corners(self) -> tuple[str, ...]:
        last_file, last_rank = FILES[self.board_size - 1], str(self.board_size)
        return ("a1", f"{last_file}1", f"a{last_rank}", f"{last_file}{last_rank}")

    @property
    def led_count(self) -> int:
        return self.board_size * self.board_size * self.leds_per_square

    def chain_position(self, square: str) -> int:
        """The square's place along the chain, 0 = the first square the data line reaches."""
        n = self.board_size
        file, rank = square_index(square, n)
        start_file, start_rank = square_index(self.start_corner, n)
        # Count runs away from the starting edge, and places along a run away from the start side.
        along, across = (file, rank) if self.runs == "ranks" else (rank, file)
        start_along, start_across = (
            (start_file, start_rank) if self.runs == "ranks" else (start_rank, start_file)
        )
        run = across if start_across == 0 else n - 1 - across
        place = along if start_along == 0 else n - 1 - along
        if self.wiring == "serpentine" and run % 2 == 1:
            place = n - 1 - place
        return run * n + place

    def leds(self, square: str) -> range:
        """Indices in the chain of the LEDs under `square`."""
        first = self.chain_position(square) * self.leds_per_square
        return range(first, first + self.leds_per_square)

    def square_order(self) -> list[str]:
        """Squares in chain order (the square under LED 0 first)."""
        return sorted(square_names(self.board_size), key=self.chain_position)


def load_layout(path: str | Path) -> Layout:
    """Read the [layout] table of a TOML file; every problem names the file and the key."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise LayoutError(f"{path}: cannot read the LED layout file: {error.strerror}") from None
    except tomllib.TOMLDecodeError as error:
        raise LayoutError(f"{path}: not valid TOML: {error}") from None
    table = data.get("layout")
    if not isinstance(table, dict):
        raise LayoutError(f"{path}: no [layout] table")
    known = {"board_size", "leds_per_square", "wiring", "start_corner", "runs"}
    unknown = sorted(set(table) - known)
    if unknown:
        raise LayoutError(f"{path}: [layout] has unknown keys {unknown} (known: {sorted(known)})")
    try:
        return Layout(**table)
    except LayoutError as error:
        raise LayoutError(f"{path}: [layout] {error}") from None
