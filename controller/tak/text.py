"""A position as plain text for a terminal: a grid of stacks, then who is to move and what is left.

Each square shows its stack bottom to top the way TPS writes it (`1` = player 1, `2` = player 2,
`S` wall, `C` capstone on top), so `112C` is two white flats under a black capstone.

>>> from controller.tak.position import Position
>>> print(board_text(Position.from_tps("x3/x,12C,x/2,x,1 1 4", caps=1)))
    a      b      c
  +------+------+------+
3 |      |      |      |
  +------+------+------+
2 |      | 12C  |      |
  +------+------+------+
1 | 2    |      | 1    |
  +------+------+------+
move 4, white (1) to move
reserves: white 8 stones 1 capstone, black 9 stones 0 capstones
flats on top: white 1, black 1
"""

from __future__ import annotations

from controller.tak.position import Position
from controller.tak.tps import format_stack
from controller.tak.vocab import FILES, WHITE

MAX_CELL = 10


def _cell(owners: int, height: int, top: int) -> str:
    text = format_stack((owners, height, top))
    if height == 0:
        return ""
    if len(text) > MAX_CELL:  # a tall stack: its height, then the stones nearest the top
        head = f"{height}:.."
        text = head + text[-(MAX_CELL - len(head)) :]
    return text


def board_text(position: Position) -> str:
    n = position.size
    cells = [_cell(position._own[sq], position._hgt[sq], position._top[sq]) for sq in range(n * n)]
    width = max(4, *(len(c) for c in cells)) + 2
    rule = "  +" + "+".join("-" * width for _ in range(n)) + "+"
    header = ("   " + "".join(f" {FILES[f]:<{width}}" for f in range(n))).rstrip()
    lines = [header, rule]
    for rank in range(n - 1, -1, -1):
        row = "|".join(f" {cells[rank * n + f]:<{width - 1}}" for f in range(n))
        lines.append(f"{rank + 1} |{row}|")
        lines.append(rule)
    player = "white (1)" if position.to_move == WHITE else "black (2)"
    outcome = position.outcome()
    lines.append(
        f"move {position.move_number}, {player} to move"
        + (f", komi {position.komi / 2:g}" if position.komi else "")
    )
    (wf, wc), (bf, bc) = position.reserves(0), position.reserves(1)
    lines.append(
        f"reserves: white {wf} stone{'s' * (wf != 1)} {wc} capstone{'s' * (wc != 1)}, "
        f"black {bf} stone{'s' * (bf != 1)} {bc} capstone{'s' * (bc != 1)}"
    )
    white, black = position.flat_count()
    lines.append(f"flats on top: white {white}, black {black}")
    if outcome is not None:
        line = f"game over: {outcome.result()}"
        if outcome.reason == "road" and outcome.winner is not None:
            line += f" (road {' '.join(position.road(outcome.winner) or [])})"
        lines.append(line)
    return "\n".join(lines)
