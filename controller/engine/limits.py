"""How long a search may run, and the engine's error family."""

from __future__ import annotations

from dataclasses import dataclass


class EngineError(RuntimeError):
    """An engine did something wrong: a bad reply, an illegal ply, a protocol violation."""


class EngineTerminatedError(EngineError):
    """The engine process died or closed its pipes."""


@dataclass(frozen=True)
class Limit:
    """When to stop searching. Unset fields do not limit; of several set fields the first hit wins.

    `movetime_ms` is a fixed budget for this ply. The clock fields (`wtime`/`btime` remaining,
    `winc`/`binc` increment, all in ms) let the engine budget for itself.
    """

    movetime_ms: int | None = None
    nodes: int | None = None
    depth: int | None = None
    wtime: int | None = None
    btime: int | None = None
    winc: int | None = None
    binc: int | None = None

    def __post_init__(self) -> None:
        for name in ("movetime_ms", "nodes", "depth", "wtime", "btime", "winc", "binc"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, int) or value < 0):
                raise ValueError(f"Limit.{name} must be a non-negative int, got {value!r}")

    def budget_ms(self, to_move: int, moves_left_guess: int = 25) -> float | None:
        """Milliseconds to spend on this ply for the player to move (0 = white), None = no clock.

        With a clock: a share of the time left plus most of the increment, never more than a third
        of what is left, so a sudden-death game cannot flag.
        """
        budgets = []
        if self.movetime_ms is not None:
            budgets.append(float(self.movetime_ms))
        left = self.wtime if to_move == 0 else self.btime
        if left is not None:
            inc = (self.winc if to_move == 0 else self.binc) or 0
            share = left / moves_left_guess + 0.8 * inc
            budgets.append(max(1.0, min(share, left / 3)))
        return min(budgets) if budgets else None
