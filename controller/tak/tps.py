"""TPS (Tak Positional System) text <-> board contents.

A square's stack is kept as `(owners, height, top)`: bit i of `owners` is 1 when the i-th stone from
the bottom belongs to player 2; `top` is the top stone's type (every stone below the top is a flat).

>>> board = parse_tps("x3/x,12C,x/x3 1 3")
>>> board.size, board.to_move, board.move_number
(3, 0, 3)
>>> board.stacks[4]
(2, 2, 2)
>>> format_tps(board.size, board.stacks, board.to_move, board.move_number)
'x3/x,12C,x/x3 1 3'
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from controller.tak.errors import TPSError
from controller.tak.vocab import CAP, FLAT, MAX_SIZE, MIN_SIZE, WALL

Stack = tuple[int, int, int]  # (owners bits, height, top stone); (0, 0, FLAT) is empty
EMPTY: Stack = (0, 0, FLAT)

_STACK_RE = re.compile(r"^([12]+)([SC]?)$")
_EMPTY_RE = re.compile(r"^x(\d*)$")


@dataclass(frozen=True)
class TPSBoard:
    size: int
    stacks: list[Stack]  # index rank * size + file
    to_move: int  # 0 = player 1
    move_number: int


def parse_tps(text: str) -> TPSBoard:
    """Parse TPS; `TPSError` quoting the text and saying what is wrong and where."""
    if not isinstance(text, str):
        raise TPSError(f"TPS must be text, not {type(text).__name__}")
    src = text.strip()
    if src.startswith("[") or src.upper().startswith("TPS "):
        src = re.sub(r'^\[?\s*TPS\s+"?|"?\s*\]?$', "", src, flags=re.IGNORECASE)
    fields = src.split()
    if len(fields) != 3:
        raise TPSError(
            f'TPS "{text}": expected 3 fields (rows, player to move, move number), '
            f"found {len(fields)}"
        )
    rows_text, player_text, move_text = fields
    if player_text not in ("1", "2"):
        raise TPSError(f'TPS "{text}": player to move must be 1 or 2, not "{player_text}"')
    if not move_text.isdigit() or int(move_text) < 1:
        raise TPSError(f'TPS "{text}": move number must be a whole number >= 1, not "{move_text}"')
    rows = rows_text.split("/")
    size = len(rows)
    if not MIN_SIZE <= size <= MAX_SIZE:
        raise TPSError(f'TPS "{text}": {size} rows; Tak boards have 3 to 8')
    stacks: list[Stack] = [EMPTY] * (size * size)
    for row_index, row in enumerate(rows):
        rank = size - 1 - row_index
        file = 0
        for token in row.split(","):
            where = f"row {row_index + 1} (rank {rank + 1})"
            m = _EMPTY_RE.match(token)
            if m:
                run = int(m.group(1)) if m.group(1) else 1
                if run < 1:
                    raise TPSError(f'TPS "{text}": {where}: "{token}" is an empty run of 0')
                file += run
                continue
            m = _STACK_RE.match(token)
            if not m:
                raise TPSError(
                    f'TPS "{text}": {where}: "{token}" is not a square '
                    f"(x, xN, or a stack like 12 / 21S / 1C)"
                )
            if file >= size:
                raise TPSError(f'TPS "{text}": {where} has more than {size} squares')
            digits, top = m.groups()
            owners = sum(1 << i for i, c in enumerate(digits) if c == "2")
            stone = {"": FLAT, "S": WALL, "C": CAP}[top]
            stacks[rank * size + file] = (owners, len(digits), stone)
            file += 1
        if file != size:
            raise TPSError(
                f'TPS "{text}": row {row_index + 1} (rank {rank + 1}) has {file} squares, '
                f"expected {size}"
            )
    return TPSBoard(size, stacks, int(player_text) - 1, int(move_text))


def format_stack(stack: Stack) -> str:
    owners, height, top = stack
    if height == 0:
        return "x"
    digits = "".join("2" if owners >> i & 1 else "1" for i in range(height))
    return digits + ("", "S", "C")[top]


def format_tps(size: int, stacks: list[Stack], to_move: int, move_number: int) -> str:
    rows = []
    for rank in range(size - 1, -1, -1):
        parts: list[str] = []
        empties = 0
        for file in range(size):
            stack = stacks[rank * size + file]
            if stack[1] == 0:
                empties += 1
                continue
            if empties:
                parts.append("x" if empties == 1 else f"x{empties}")
                empties = 0
            parts.append(format_stack(stack))
        if empties:
            parts.append("x" if empties == 1 else f"x{empties}")
        rows.append(",".join(parts))
    return f"{'/'.join(rows)} {to_move + 1} {move_number}"
