"""A deliberately plain second implementation of the Tak rules, to cross-check the engine.

It shares no code with `controller.tak`: stacks are lists in a dict, plies are PTN strings built
by hand, roads are a depth-first search over a set. Slow and obvious on purpose.
"""

from __future__ import annotations

from itertools import product

RESERVES = {3: (10, 0), 4: (15, 0), 5: (21, 1), 6: (30, 1), 7: (40, 2), 8: (50, 2)}
STEPS = {"+": (0, 1), "-": (0, -1), ">": (1, 0), "<": (-1, 0)}


class NaiveBoard:
    def __init__(self, size, stacks, to_move, ply, flats, caps, opening="swap"):
        self.size = size
        # (file, rank) -> list of (player, stone) bottom to top; stone is F, S or C
        self.stacks = stacks
        self.to_move = to_move
        self.ply = ply
        self.flats = flats  # [white, black]
        self.caps = caps
        self.opening = opening

    @classmethod
    def from_tps(cls, tps, flats=None, caps=None, opening="swap"):
        rows_text, player, move = tps.split()
        rows = rows_text.split("/")
        size = len(rows)
        stacks = {}
        for i, row in enumerate(rows):
            rank = size - 1 - i
            file = 0
            for token in row.split(","):
                if token.startswith("x"):
                    file += int(token[1:] or 1)
                    continue
                stone = token[-1] if token[-1] in "SC" else "F"
                digits = token.rstrip("SC")
                stacks[(file, rank)] = [
                    (int(c) - 1, stone if j == len(digits) - 1 else "F")
                    for j, c in enumerate(digits)
                ]
                file += 1
        std_f, std_c = RESERVES[size]
        f = list(flats) if flats else [std_f, std_f]
        c = list(caps) if caps is not None else [std_c, std_c]
        for stack in stacks.values():
            for player_, stone in stack:
                if stone == "C":
                    c[player_] -= 1
                else:
                    f[player_] -= 1
        to_move = int(player) - 1
        return cls(size, stacks, to_move, 2 * (int(move) - 1) + to_move, f, c, opening)

    def copy(self):
        return NaiveBoard(
            self.size,
            {k: list(v) for k, v in self.stacks.items() if v},
            self.to_move,
            self.ply,
            list(self.flats),
            list(self.caps),
            self.opening,
        )

    def name(self, file, rank):
        return "abcdefgh"[file] + str(rank + 1)

    def road(self, player):
        n = self.size
        mine = {
            s for s, st in self.stacks.items() if st and st[-1][0] == player and st[-1][1] != "S"
        }
        for start, goal in (
            (lambda s: s[0] == 0, lambda s: s[0] == n - 1),
            (lambda s: s[1] == 0, lambda s: s[1] == n - 1),
        ):
            todo = [s for s in mine if start(s)]
            seen = set(todo)
            while todo:
                s = todo.pop()
                if goal(s):
                    return True
                for dx, dy in STEPS.values():
                    t = (s[0] + dx, s[1] + dy)
                    if t in mine and t not in seen:
                        seen.add(t)
                        todo.append(t)
        return False

    def over(self):
        if self.road(0) or self.road(1):
            return True
        if sum(1 for st in self.stacks.values() if st) == self.size**2:
            return True
        return any(self.flats[p] == 0 and self.caps[p] == 0 for p in (0, 1))

    def plies(self):
        """Every legal ply as (PTN text, board after it)."""
        n = self.size
        out = []
        empties = [(f, r) for f in range(n) for r in range(n) if not self.stacks.get((f, r))]
        if self.ply < 2:
            color = self.to_move if self.opening == "no-swap" else 1 - self.to_move
            count = 2 if (self.ply == 0 and self.opening == "double black stack") else 1
            if self.flats[color] >= count:
                for sq in empties:
                    b = self.copy()
                    b.stacks[sq] = [(color, "F")] * count
                    b.flats[color] -= count
                    b.finish()
                    out.append((("2" if count == 2 else "") + self.name(*sq), b))
            return out
        me = self.to_move
        for sq in empties:
            for stone in "FSC":
                have = self.caps[me] if stone == "C" else self.flats[me]
                if have:
                    b = self.copy()
                    b.stacks[sq] = [(me, stone)]
                    if stone == "C":
                        b.caps[me] -= 1
                    else:
                        b.flats[me] -= 1
                    b.finish()
                    out.append(({"F": "", "S": "S", "C": "C"}[stone] + self.name(*sq), b))
        for sq, stack in list(self.stacks.items()):
            if not stack or stack[-1][0] != me:
                continue
            for lift in range(1, min(n, len(stack)) + 1):
                for d, (dx, dy) in STEPS.items():
                    for parts in range(1, lift + 1):
                        for drops in product(range(1, lift + 1), repeat=parts):
                            if sum(drops) != lift:
                                continue
                            b = self._spread(sq, lift, dx, dy, drops)
                            if b is not None:
                                text = (str(lift) if lift > 1 else "") + self.name(*sq) + d
                                text += "".join(map(str, drops)) if len(drops) > 1 else ""
                                out.append((text, b))
        return out

    def _spread(self, sq, lift, dx, dy, drops):
        n = self.size
        b = self.copy()
        stack = b.stacks[sq]
        hand = stack[-lift:]
        b.stacks[sq] = stack[:-lift]
        f, r = sq
        for i, d in enumerate(drops):
            f, r = f + dx, r + dy
            if not (0 <= f < n and 0 <= r < n):
                return None
            target = b.stacks.setdefault((f, r), [])
            if target:
                top = target[-1]
                if top[1] == "C":
                    return None
                if top[1] == "S":
                    last = i == len(drops) - 1
                    if not (last and d == 1 and hand[0][1] == "C"):
                        return None
                    target[-1] = (top[0], "F")
            target.extend(hand[:d])
            hand = hand[d:]
        b.finish()
        return b

    def finish(self):
        self.to_move = 1 - self.to_move
        self.ply += 1


def naive_perft(board: NaiveBoard, depth: int) -> int:
    if depth == 0:
        return 1
    if board.over():
        return 0
    return sum(naive_perft(child, depth - 1) for _, child in board.plies())
