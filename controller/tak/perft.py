"""`perft(position, depth)`: leaves of the legal-ply tree, the standard correctness check.

Positions where the game is already over count 0 below them. The last ply is counted without being
played (`Position.count_legal` works from tables keyed by carry and distance to the blocker), and
deeper subtrees already seen are looked up by Zobrist hash (transpositions are common from depth 3).

>>> from collections.abc import Callable

from controller.tak.ply import Ply
from controller.tak.position import Position
>>> [perft(Position(3), d) for d in range(1, 4)]
[9, 72, 1200]
>>> perft(Position.from_tps("x3/x3/x3 1 1"), 2, table=False)
72
"""

from __future__ import annotations

from collections.abc import Callable

from controller.tak.ply import Ply
from controller.tak.position import Position


def perft(position: Position, depth: int, *, table: bool = True) -> int:
    """Leaf count of the legal-ply tree `depth` plies deep from `position` (left unchanged).

    `table=False` turns the transposition table off (it is also off under draw policies, where the
    result depends on the history, not only on the position).
    """
    if not isinstance(depth, int) or depth < 0:
        raise ValueError(f"perft depth must be a whole number >= 0, not {depth!r}")
    if depth == 0:
        return 1
    if position._terminal():
        return 0
    use_table = table and not position.draw_policies
    tables: list[dict[int, int]] | None = [{} for _ in range(depth + 1)] if use_table else None
    return _perft(position, depth, tables)


def perft_divide(
    position: Position,
    depth: int,
    *,
    table: bool = True,
    on_ply: Callable[[int, int, Ply, int], None] | None = None,
) -> list[tuple[Ply, int]]:
    """The perft count below each legal ply (depth >= 1), sharing one transposition table.

    `on_ply(done, total, ply, count)` is called after each ply (for progress bars).

    >>> sum(count for _, count in perft_divide(Position(3), 3)) == perft(Position(3), 3)
    True
    """
    if not isinstance(depth, int) or depth < 1:
        raise ValueError(f"perft_divide depth must be a whole number >= 1, not {depth!r}")
    if position._terminal():
        return []
    use_table = table and not position.draw_policies
    tables: list[dict[int, int]] | None = [{} for _ in range(depth + 1)] if use_table else None
    plies = position._generate()
    out: list[tuple[Ply, int]] = []
    for done, ply in enumerate(plies, start=1):
        played = position.push(ply)
        if depth == 1:
            count = 1
        elif position._terminal():
            count = 0
        else:
            count = _perft(position, depth - 1, tables)
        position.pop()
        out.append((played, count))
        if on_ply is not None:
            on_ply(done, len(plies), played, count)
    return out


def _perft(pos: Position, depth: int, tables: list[dict[int, int]] | None) -> int:
    """Leaf count below `pos`, which the caller has checked is not over."""
    if depth == 1:
        return pos._count()
    push, pop, terminal = pos.push, pos.pop, pos._terminal
    total = 0
    if depth == 2:
        # one ply above the leaves repeats are too rare to pay for a table lookup
        count = pos._count
        for ply in pos._generate():
            push(ply)
            if not terminal():
                total += count()
            pop()
        return total
    seen = tables[depth - 1] if tables is not None else None
    for ply in pos._generate():
        push(ply)
        if seen is None:
            if not terminal():
                total += _perft(pos, depth - 1, tables)
        else:
            key = pos._hash ^ pos._ply << 64  # the ply number decides the opening rule
            n = seen.get(key)
            if n is None:
                n = seen[key] = 0 if terminal() else _perft(pos, depth - 1, tables)
            total += n
        pop()
    return total
