"""PTN (Portable Tak Notation) games: read and write, keeping every tag, comment and annotation.

>>> game = parse_game('''[Size "3"]
... [Player1 "ann"]
... [Custom "kept"]
...
... 1. a1 {a quiet start} c3
... 2. b1 b3!? 3. Cb2' c1
... ''')
>>> game.tag("size"), game.tag("CUSTOM"), len(game.moves)
('3', 'kept', 6)
>>> game.moves[3].annotation, game.moves[0].comments_after
('!?', ['a quiet start'])
>>> print(write_game(game))
[Size "3"]
[Player1 "ann"]
[Custom "kept"]
<BLANKLINE>
1. a1 {a quiet start} c3
2. b1 b3!?
3. Cb2' c1
<BLANKLINE>

Reading is lenient by default: problems are collected in `game.errors` and the reader goes on with
the next game. `strict=True` raises the first `PTNError` instead.
"""

from __future__ import annotations

import io
import re
import weakref
from collections.abc import Iterator, MutableMapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TextIO

from controller.tak.errors import IllegalPlyError, InvalidPlyError, PTNError, TakError, TPSError
from controller.tak.outcome import RESULTS
from controller.tak.ply import Ply, parse_ptn_ply
from controller.tak.position import Position
from controller.tak.tps import parse_tps
from controller.tak.vocab import BLACK, OPENINGS, STANDARD_RESERVES, check_size

RESULT_TOKENS = (*RESULTS, "0-0", "*")
_TAG_RE = re.compile(r'\[\s*([A-Za-z][A-Za-z0-9_]*)\s+"((?:[^"\\\n]|\\.)*)"\s*\]')
_KOMI_RE = re.compile(r"^[+-]?\d+(\.\d+)?$")
_MOVE_NUMBER_RE = re.compile(r"^(\d+)(\.(?:\.\.)?)(.*)$")
_OPENING_ALIASES = {
    "swap": "swap",
    "no-swap": "no-swap",
    "noswap": "no-swap",
    "no swap": "no-swap",
    "double black stack": "double black stack",
    "double-black-stack": "double black stack",
}


class Tags(MutableMapping[str, str]):
    """PTN header tags: insertion order and original spelling kept, lookup case-insensitive.

    >>> t = Tags([("Size", "6"), ("komi", "2")])
    >>> t["SIZE"], list(t)
    ('6', ['Size', 'komi'])
    """

    def __init__(self, items: object = ()) -> None:
        self._items: dict[str, tuple[str, str]] = {}
        pairs = items.items() if isinstance(items, MutableMapping | dict) else items
        for name, value in pairs:  # type: ignore[union-attr]
            self[name] = value

    def __getitem__(self, name: str) -> str:
        return self._items[name.lower()][1]

    def __setitem__(self, name: str, value: str) -> None:
        key = name.lower()
        original = self._items[key][0] if key in self._items else name
        self._items[key] = (original, str(value))

    def __delitem__(self, name: str) -> None:
        del self._items[name.lower()]

    def __iter__(self) -> Iterator[str]:
        return (original for original, _ in self._items.values())

    def __len__(self) -> int:
        return len(self._items)

    def __repr__(self) -> str:
        return f"Tags({list(self.items())!r})"


@dataclass
class PlyRecord:
    """One ply of a game as written: the ply, its annotation and the comments around it."""

    ply: Ply
    annotation: str = ""
    comments_before: list[str] = field(default_factory=list)
    comments_after: list[str] = field(default_factory=list)
    token: str = ""  # the text as read (for error messages); empty when built in code
    line: int | None = None
    column: int | None = None


@dataclass
class Game:
    tags: Tags = field(default_factory=Tags)
    moves: list[PlyRecord] = field(default_factory=list)
    comments: list[str] = field(default_factory=list)  # before the first ply
    result_token: str | None = None  # the result written after the plies, if any
    errors: list[PTNError] = field(default_factory=list)
    filename: str | None = None
    index: int = 1  # 1-based position of the game in its file
    final_comments: list[str] = field(default_factory=list)  # after the result

    # -- tags --------------------------------------------------------------------------------
    def tag(self, name: str, default: str | None = None) -> str | None:
        return self.tags.get(name, default)

    @property
    def result(self) -> str | None:
        """The recorded result: the one after the plies, else the `Result` tag."""
        if self.result_token is not None:
            return self.result_token
        value = self.tag("result")
        return value.strip() if value and value.strip() else None

    def _error(self, why: str, token: str | None = None, ply: int | None = None) -> PTNError:
        return PTNError(self.filename, self.index, None, None, token, why, ply=ply)

    @property
    def size(self) -> int:
        text = self.tag("size")
        if text is not None:
            try:
                return check_size(int(text.strip()))
            except ValueError:
                raise self._error(f'Size tag "{text}" is not a board size 3..8') from None
        tps = self.tag("tps")
        if tps:
            try:
                return parse_tps(tps).size
            except TPSError as err:
                raise self._error(str(err)) from None
        return 5

    @property
    def komi(self) -> int:
        """Komi in half-flats (the `Komi` tag is in flats and may be a half, like "1.5")."""
        text = self.tag("komi")
        if text is None or not text.strip():
            return 0
        if not _KOMI_RE.match(text.strip()):
            raise self._error(f'Komi tag "{text}" is not a number of flats (like 2 or 1.5)')
        halves = Fraction(text.strip()) * 2
        if halves.denominator != 1:
            raise self._error(f'Komi tag "{text}" is not a whole or half number of flats')
        return int(halves)

    @property
    def opening(self) -> str:
        text = self.tag("opening")
        if text is None or not text.strip():
            return "swap"
        name = _OPENING_ALIASES.get(text.strip().lower())
        if name is None:
            raise self._error(f'Opening tag "{text}" is not one of {", ".join(OPENINGS)}')
        return name

    def _reserve(self, kind: str) -> tuple[int, int]:
        std = STANDARD_RESERVES[self.size][0 if kind == "flats" else 1]
        pair = []
        for player in ("1", "2"):
            text = self.tag(kind + player)
            if text is None:
                text = self.tag(kind)
            if text is None or not text.strip():
                pair.append(std)
                continue
            try:
                value = int(text.strip())
            except ValueError:
                raise self._error(f'{kind.title()} tag "{text}" is not a whole number') from None
            if value < 0:
                raise self._error(f'{kind.title()} tag "{text}" is negative')
            pair.append(value)
        return pair[0], pair[1]

    def start_position(self) -> Position:
        """The position before the first ply (tags `TPS` `Size` `Komi` `Flats` `Caps` `Opening`)."""
        size = self.size
        options = dict(
            komi=self.komi,
            flats=self._reserve("flats"),
            caps=self._reserve("caps"),
            opening=self.opening,
        )
        tps = self.tag("tps")
        if tps and tps.strip():
            try:
                pos = Position.from_tps(tps, **options)  # type: ignore[arg-type]
            except TPSError as err:
                raise self._error(str(err)) from None
            if pos.size != size:
                raise self._error(
                    f"the TPS tag is a {pos.size}x{pos.size} board but Size is {size}"
                )
            return pos
        return Position(size, **options)  # type: ignore[arg-type]

    def replay(self, *, strict: bool = False, until: int | None = None) -> Position:
        """Play every ply from the start position; `IllegalPlyError` names the game and ply number.

        `strict=True` also rejects a `*` where no wall was flattened. `until` stops after that many
        plies.
        """
        pos = self.start_position()
        for number, record in enumerate(self.moves[:until], start=pos.ply_count + 1):
            why = pos.why_illegal(record.ply)
            if why is None and strict and record.ply.flattens:
                played = pos.push(record.ply)
                pos.pop()
                if not played.flattens:
                    why = "marked * but no wall is flattened"
            if why is not None:
                token = record.token or record.ply.ptn()
                where = f"{self.filename}: " if self.filename else ""
                err = IllegalPlyError(f'{where}game {self.index}, ply {number} "{token}": {why}')
                err.game_index, err.ply_number, err.token, err.why = self.index, number, token, why
                raise err
            pos.push(record.ply)
        return pos

    # -- building ----------------------------------------------------------------------------
    @classmethod
    def from_position(cls, position: Position, tags: object = ()) -> Game:
        """A game holding the plies played on `position` (its whole history), with rules tags."""
        start = position.copy(stack=True)
        while start.last_ply is not None:
            start.pop()
        game = cls()
        n = position.size
        game.tags["Size"] = str(n)
        if position.komi:
            game.tags["Komi"] = format_komi(position.komi)
        (flats, caps) = position.starting_reserves()
        std_flats, std_caps = STANDARD_RESERVES[n]
        for kind, pair, std in (("Flats", flats, std_flats), ("Caps", caps, std_caps)):
            if pair[0] == pair[1] and pair[0] != std:
                game.tags[kind] = str(pair[0])
            elif pair[0] != pair[1]:
                game.tags[kind + "1"], game.tags[kind + "2"] = str(pair[0]), str(pair[1])
        if position.opening != "swap":
            game.tags["Opening"] = position.opening
        if start.ply_count != 0 or start.stacks():
            game.tags["TPS"] = start.tps()
        for name, value in Tags(tags).items():
            game.tags[name] = value
        game.moves = [PlyRecord(ply) for ply in position.history]
        outcome = position.outcome()
        if outcome is not None:
            game.result_token = outcome.result()
            if "result" not in {k.lower() for k in game.tags}:
                game.tags["Result"] = outcome.result()
        return game


def format_komi(half_flats: int) -> str:
    """4 -> "2", 3 -> "1.5"."""
    return str(half_flats // 2) if half_flats % 2 == 0 else f"{half_flats / 2:g}"


# -- reading -----------------------------------------------------------------------------
class _Reader:
    """Tokenises one game's text and fills a `Game`."""

    def __init__(self, text: str, game: Game, strict: bool, first_line: int) -> None:
        self.text = text
        self.game = game
        self.strict = strict
        self.first_line = first_line
        self.pending: list[str] = []  # comments waiting for the next ply
        self.stopped = False  # after a corrupt ply the rest cannot be placed on the board
        self.expect_move: int | None = None
        self.to_move: int | None = None
        self.pending_is_before = False  # between a move number and its ply
        self.start_ply = 0

    def fail(
        self, line: int, column: int, token: str | None, why: str, ply: int | None = None
    ) -> None:
        err = PTNError(self.game.filename, self.game.index, line, column, token, why, ply=ply)
        if self.strict:
            raise err
        self.game.errors.append(err)

    def read(self) -> None:
        text = self.text
        pos = 0
        line = self.first_line
        line_start = 0
        seen_moves = False
        n = len(text)
        self._start_counters()
        while pos < n:
            ch = text[pos]
            if ch == "\n":
                line += 1
                pos += 1
                line_start = pos
                continue
            if ch.isspace():
                pos += 1
                continue
            column = pos - line_start + 1
            if ch == "[":
                m = _TAG_RE.match(text, pos)
                end = text.find("\n", pos)
                end = n if end < 0 else end
                if not m:
                    self.fail(
                        line,
                        column,
                        text[pos:end].strip(),
                        'malformed tag (expected [Name "value"])',
                    )
                    pos = end
                    continue
                if seen_moves:
                    self.fail(line, column, m.group(0), "tag after the moves")
                name, value = m.group(1), m.group(2).replace('\\"', '"').replace("\\\\", "\\")
                self.game.tags[name] = value
                pos = m.end()
                if name.lower() in ("tps",):
                    self._start_counters()
                continue
            if ch == "{":
                end = text.find("}", pos + 1)
                if end < 0:
                    self.fail(line, column, text[pos : pos + 20], "comment never closed with }")
                    break
                body = text[pos + 1 : end]
                self._comment(body)
                line += body.count("\n")
                if "\n" in body:
                    line_start = pos + 1 + body.rfind("\n") + 1
                pos = end + 1
                continue
            if ch == ";":  # comment to the end of the line (PGN style)
                end = text.find("\n", pos)
                end = n if end < 0 else end
                self._comment(text[pos + 1 : end].strip())
                pos = end
                continue
            end = pos
            while end < n and not text[end].isspace() and text[end] not in "{[;":
                end += 1
            word = text[pos:end]
            pos = end
            seen_moves = True
            self._word(word, line, column)
        if self.pending:
            if self.game.result_token is not None:
                self.game.final_comments.extend(self.pending)
            elif self.game.moves:
                self.game.moves[-1].comments_after.extend(self.pending)
            else:
                self.game.comments.extend(self.pending)
            self.pending = []

    def _start_counters(self) -> None:
        """Expected move number, player and ply count of the first ply (a TPS tag moves them)."""
        tps = self.game.tag("tps")
        self.expect_move, self.to_move, self.start_ply = 1, 0, 0
        if tps:
            try:
                board = parse_tps(tps)
            except TPSError:
                return  # reported when the game is checked
            self.expect_move, self.to_move = board.move_number, board.to_move
            self.start_ply = 2 * (board.move_number - 1) + board.to_move

    def _comment(self, body: str) -> None:
        """A comment belongs after the ply before it, except right after a move number, where it
        belongs before the ply that follows."""
        if self.game.result_token is not None:
            self.game.final_comments.append(body)
        elif self.pending_is_before:
            self.pending.append(body)
        elif self.game.moves:
            self.game.moves[-1].comments_after.append(body)
        else:
            self.game.comments.append(body)

    def _word(self, word: str, line: int, column: int) -> None:
        game = self.game
        if word in RESULT_TOKENS:
            if game.result_token is not None:
                self.fail(line, column, word, f"a second result after {game.result_token}")
            game.result_token = word
            return
        m = _MOVE_NUMBER_RE.match(word)
        if m and not m.group(3)[:1].isdigit():
            number, dots, rest = int(m.group(1)), m.group(2), m.group(3)
            if self.expect_move is not None and not self.stopped:
                expected_black = dots == "..."
                if (
                    number != self.expect_move
                    or (expected_black and self.to_move != BLACK)
                    or (not expected_black and self.to_move == BLACK)
                ):
                    here = f"{self.expect_move}{'...' if self.to_move == BLACK else '.'}"
                    self.fail(
                        line, column, word, f"move number {number}{dots} where {here} was expected"
                    )
            self.pending_is_before = True
            if rest:
                self._word(rest, line, column + len(word) - len(rest))
            return
        if game.result_token is not None:
            self.fail(line, column, word, f"ply after the result {game.result_token}")
            return
        if self.stopped:
            return
        ply_number = len(game.moves) + 1 + self.start_ply
        try:
            ply, note = parse_ptn_ply(word)
        except InvalidPlyError as err:
            why = str(err)
            prefix = f'"{word}": '
            self.fail(
                line,
                column,
                word,
                why[len(prefix) :] if why.startswith(prefix) else why,
                ply=ply_number,
            )
            self.stopped = True
            return
        record = PlyRecord(
            ply, note, comments_before=self.pending, token=word, line=line, column=column
        )
        self.pending = []
        self.pending_is_before = False
        game.moves.append(record)
        if self.to_move == BLACK:
            self.expect_move = (self.expect_move or 0) + 1
        self.to_move = 1 - (self.to_move or 0)


def _check_rules_tags(game: Game, strict: bool) -> None:
    try:
        game.start_position()
    except PTNError as err:
        if strict:
            raise
        game.errors.append(err)
    except (TakError, ValueError) as err:
        wrapped = game._error(str(err))
        if strict:
            raise wrapped from None
        game.errors.append(wrapped)


def _split_games(lines: Iterator[tuple[int, str]]) -> Iterator[tuple[int, str]]:
    """Group (line number, line) pairs into games: a tag line after movetext starts a new game."""
    chunk: list[str] = []
    first = 1
    in_moves = False
    in_comment = False
    for number, raw in lines:
        stripped = raw.strip()
        if not in_comment and stripped.startswith("[") and in_moves:
            yield first, "".join(chunk)
            chunk, in_moves = [], False
        if not chunk:
            first = number
        chunk.append(raw)
        # track comments so a "[" inside a multi-line comment does not split games
        scan = raw
        i = 0
        while i < len(scan):
            c = scan[i]
            if in_comment:
                if c == "}":
                    in_comment = False
            elif c == "{":
                in_comment = True
            elif c == "[":
                close = scan.find("]", i)
                i = len(scan) if close < 0 else close
            elif not c.isspace():
                in_moves = True
            i += 1
    if "".join(chunk).strip():
        yield first, "".join(chunk)


def _numbered(handle: TextIO) -> Iterator[tuple[int, str]]:
    yield from enumerate(iter(handle.readline, ""), start=1)


def read_games(text: str, *, filename: str | None = None, strict: bool = False) -> list[Game]:
    """Every game in a PTN text (several games follow one another, each starting with its tags)."""
    games = []
    text = text.removeprefix("\ufeff")  # a byte-order mark some editors put first
    for index, (first_line, chunk) in enumerate(
        _split_games(_numbered(io.StringIO(text))), start=1
    ):
        games.append(_parse_chunk(chunk, filename, index, first_line, strict))
    return games


def _parse_chunk(
    chunk: str, filename: str | None, index: int, first_line: int, strict: bool
) -> Game:
    game = Game(filename=filename, index=index)
    _Reader(chunk, game, strict, first_line).read()
    _check_rules_tags(game, strict)
    return game


class GameStream:
    """Reads games one at a time from a text handle (`read_game` keeps one of these per handle)."""

    def __init__(
        self, handle: TextIO, *, filename: str | None = None, strict: bool = False
    ) -> None:
        self._games = _split_games(_numbered(handle))
        self._filename = filename or getattr(handle, "name", None)
        self._strict = strict
        self._index = 0

    def __iter__(self) -> Iterator[Game]:
        return self

    def __next__(self) -> Game:
        first_line, chunk = next(self._games)
        self._index += 1
        return _parse_chunk(chunk, self._filename, self._index, first_line, self._strict)


_STREAMS: weakref.WeakKeyDictionary[TextIO, GameStream] = weakref.WeakKeyDictionary()


def read_game(handle_or_text: TextIO | str, *, strict: bool = False) -> Game | None:
    """The next game from a text handle (None at the end), or the first game of a text.

    The handle is read line by line; a `GameStream` per handle remembers where the next game starts.
    """
    if isinstance(handle_or_text, str):
        games = read_games(handle_or_text, strict=strict)
        return games[0] if games else None
    stream = _STREAMS.get(handle_or_text)
    if stream is None:
        stream = _STREAMS[handle_or_text] = GameStream(handle_or_text, strict=strict)
    try:
        return next(stream)
    except StopIteration:
        del _STREAMS[handle_or_text]
        return None


def parse_game(text: str, *, strict: bool = True) -> Game:
    """Exactly one game from `text`; strict by default (the first problem raises `PTNError`)."""
    games = read_games(text, strict=strict)
    if not games:
        raise PTNError(None, None, None, None, None, "no game in the text")
    if len(games) > 1:
        raise PTNError(None, 2, None, None, None, f"expected one game, found {len(games)}")
    return games[0]


# -- writing -----------------------------------------------------------------------------
def _quote(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')


def _comments(items: list[str]) -> list[str]:
    return ["{" + c.replace("}", ")") + "}" for c in items]


def write_game(game: Game) -> str:
    """PTN text for `game`: tags, a blank line, one line per move, the result."""
    out = [f'[{name} "{_quote(value)}"]' for name, value in game.tags.items()]
    out.append("")
    if game.comments:
        out.append(" ".join(_comments(game.comments)))
    move_number, to_move = 1, 0
    tps = game.tag("tps")
    if tps:
        try:
            board = parse_tps(tps)
            move_number, to_move = board.move_number, board.to_move
        except TPSError:
            pass
    line: list[str] = []
    for i, record in enumerate(game.moves):
        if to_move == 0 or i == 0:
            if line:
                out.append(" ".join(line))
            line = [f"{move_number}." if to_move == 0 else f"{move_number}..."]
        if record.comments_before and len(line) > 1:
            # a comment before player 2's ply needs a move number in front to be read back there
            line.append(f"{move_number}...")
        line.extend(_comments(record.comments_before))
        line.append(record.ply.ptn() + record.annotation)
        line.extend(_comments(record.comments_after))
        if to_move == 1:
            move_number += 1
        to_move = 1 - to_move
    if line:
        out.append(" ".join(line))
    tail = []
    if game.result_token is not None:
        tail.append(game.result_token)
    tail.extend(_comments(game.final_comments))
    if tail:
        out.append(" ".join(tail))
    return "\n".join(out) + "\n"


def write_games(games: list[Game]) -> str:
    return "\n".join(write_game(g) for g in games)
