"""The game journal: every game and ply in one SQLite file, each ply durable before it is reported.

    >>> journal = Journal("data/takboard.db")                  # doctest: +SKIP
    >>> gid = journal.new_game(size=5, komi=4, players=("Ann", "Bob"))
    >>> journal.append_ply(gid, Ply.from_ptn("a1"))            # on disk when this returns
    1
    >>> journal.append_ply(gid, Ply.from_ptn("3c3+12"), uncertain=True,
    ...                    alternatives=[Ply.from_ptn("3c3+21")])
    >>> journal.undo_plies(gid, 1)                             # a takeback
    >>> journal.finish(gid, "R-0")
    >>> print(journal.export_ptn(gid))

Durability: the database runs in WAL mode with `synchronous=FULL`, and every write is its own
transaction committed before the method returns, so a process killed at any instant (SIGKILL, power
cut after the fsync) loses no ply that a caller was told about, and the file is always consistent.
`in_progress()` lists the games to resume after a restart; `position(game_id)` replays one.

Plies are checked against the rules before they are written (the journal keeps the replayed position
of each open game), so a bad ply from any caller is a clear `IllegalPlyError`, never a corrupt game.
Plies are stored as canonical PTN text: readable with the `sqlite3` shell, and read back through the
rules engine's own parser. Komi is in half-flats, as everywhere in takboard.

One `Journal` may be shared by threads (one lock around the connection). Open it with a path, or
`":memory:"` for a throwaway journal.
"""

from __future__ import annotations

import datetime as _dt
import json
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import NewType

from controller.store.ptn_export import PlyNote, game_ptn
from controller.tak import Outcome, Ply, Position

GameId = NewType("GameId", int)

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    size        INTEGER NOT NULL CHECK (size BETWEEN 3 AND 8),
    komi        INTEGER NOT NULL DEFAULT 0,          -- half-flats
    opening     TEXT    NOT NULL DEFAULT 'swap',
    tags        TEXT    NOT NULL DEFAULT '{}',       -- JSON object, insertion order kept
    result      TEXT,                                -- PTN result once finished, else NULL
    created_at  REAL    NOT NULL,                    -- unix seconds
    finished_at REAL
);
CREATE TABLE IF NOT EXISTS plies (
    game_id      INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    number       INTEGER NOT NULL,                   -- 1-based ply number in the game
    ptn          TEXT    NOT NULL,
    uncertain    INTEGER NOT NULL DEFAULT 0,
    alternatives TEXT    NOT NULL DEFAULT '[]',      -- JSON list of PTN plies
    recorded_at  REAL    NOT NULL,
    PRIMARY KEY (game_id, number)
);
"""


class JournalError(ValueError):
    """A request the journal cannot honour (unknown game, finished game, bad argument)."""


class UnknownGameError(JournalError, KeyError):
    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0])


@dataclass(frozen=True)
class JournalPly:
    """One recorded ply. `number` is 1-based (ply 1 is white's first, an opponent-colour flat)."""

    number: int
    ply: Ply
    uncertain: bool = False
    alternatives: tuple[Ply, ...] = ()
    recorded_at: float = 0.0


@dataclass(frozen=True)
class GameSummary:
    """A game without its plies: what a library listing shows."""

    id: GameId
    size: int
    komi: int
    opening: str
    tags: dict[str, str]
    result: str | None
    created_at: float
    finished_at: float | None
    ply_count: int

    @property
    def in_progress(self) -> bool:
        return self.result is None

    @property
    def players(self) -> tuple[str, str]:
        return (self.tags.get("Player1", ""), self.tags.get("Player2", ""))


@dataclass(frozen=True)
class GameRecord(GameSummary):
    """A game with every ply, in order."""

    plies: tuple[JournalPly, ...] = field(default=())

    def position(self) -> Position:
        """The position after the last recorded ply (replays through the rules engine)."""
        position = Position(self.size, komi=self.komi, opening=self.opening)
        for entry in self.plies:
            position.play(entry.ply)
        return position


class Journal:
    """SQLite journal of games and plies. See the module docstring."""

    def __init__(
        self, path: str | Path, *, clock: Callable[[], float] = time.time
    ) -> None:
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._clock = clock
        self._lock = threading.RLock()
        try:
            # isolation_level=None: we issue BEGIN/COMMIT ourselves, one transaction per write.
            self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._db.execute("PRAGMA busy_timeout=5000")
            with self._write():
                for statement in _SCHEMA.split(";"):
                    if statement.strip():
                        self._db.execute(statement)
                version = self._db.execute("PRAGMA user_version").fetchone()[0]
                if version == 0:
                    self._db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
                elif version > SCHEMA_VERSION:
                    raise JournalError(
                        f"{self.path}: journal schema version {version} is newer than this "
                        f"takboard understands ({SCHEMA_VERSION})"
                    )
        except sqlite3.DatabaseError as exc:
            raise JournalError(f"{self.path}: not a usable takboard journal ({exc})") from exc
        # Replayed positions of open games, so each append is checked without a full replay.
        self._positions: dict[int, Position] = {}

    # -- plumbing -------------------------------------------------------------------------------

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One durable transaction: committed (fsynced: synchronous=FULL) when the block ends."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _row(self, game_id: int) -> sqlite3.Row | tuple:
        row = self._db.execute(
            "SELECT id, size, komi, opening, tags, result, created_at, finished_at,"
            " (SELECT COUNT(*) FROM plies WHERE game_id = games.id)"
            " FROM games WHERE id = ?",
            (int(game_id),),
        ).fetchone()
        if row is None:
            raise UnknownGameError(f"no game {game_id} in {self.path}")
        return row

    @staticmethod
    def _summary(row: tuple) -> GameSummary:
        return GameSummary(
            id=GameId(row[0]),
            size=row[1],
            komi=row[2],
            opening=row[3],
            tags=json.loads(row[4]),
            result=row[5],
            created_at=row[6],
            finished_at=row[7],
            ply_count=row[8],
        )

    def _open_position(self, game_id: int) -> Position:
        """The cached position of an unfinished game (replayed from disk on first use)."""
        position = self._positions.get(game_id)
        if position is None:
            record = self.game(GameId(game_id))
            if record.result is not None:
                raise JournalError(
                    f"game {game_id} is finished ({record.result}); it takes no plies"
                )
            position = record.position()
            self._positions[game_id] = position
        return position

    # -- writing --------------------------------------------------------------------------------

    def new_game(
        self,
        *,
        size: int,
        komi: int = 0,
        players: tuple[str, str] | None = None,
        opening: str = "swap",
        tags: Mapping[str, str] | None = None,
    ) -> GameId:
        """Start a game. `komi` in half-flats. Date is today's unless `tags` gives one."""
        if not isinstance(size, int) or not 3 <= size <= 8:
            raise JournalError(f"board size must be 3..8, got {size!r}")
        if not isinstance(komi, int):
            raise JournalError(f"komi is an integer number of half-flats, got {komi!r}")
        Position(size, komi=komi, opening=opening)  # the engine vets the opening name
        now = self._clock()
        all_tags: dict[str, str] = {}
        if players is not None:
            all_tags["Player1"], all_tags["Player2"] = str(players[0]), str(players[1])
        all_tags["Date"] = _dt.datetime.fromtimestamp(now).strftime("%Y.%m.%d")
        for name, value in (tags or {}).items():
            all_tags[_canonical_tag(name, all_tags)] = str(value)
        for reserved in ("Size", "Komi", "Result", "Opening"):
            all_tags.pop(reserved, None)  # columns of their own; written by the exporter
        with self._write() as db:
            cursor = db.execute(
                "INSERT INTO games (size, komi, opening, tags, created_at) VALUES (?, ?, ?, ?, ?)",
                (size, komi, opening, json.dumps(all_tags), now),
            )
        game_id = GameId(int(cursor.lastrowid))
        self._positions[game_id] = Position(size, komi=komi, opening=opening)
        return game_id

    def append_ply(
        self,
        game_id: GameId,
        ply: Ply,
        *,
        uncertain: bool = False,
        alternatives: Iterable[Ply] = (),
    ) -> int:
        """Record the next ply of a game; returns its 1-based number once it is durably on disk.

        Raises `IllegalPlyError` (from the rules engine) if the ply is not legal in the game's
        current position, `JournalError` if the game is finished or unknown.
        """
        alternatives = tuple(alternatives)
        with self._lock:
            position = self._open_position(game_id)
            played = position.play(ply)  # raises IllegalPlyError quoting ply and TPS
            try:
                number = position.ply_count
                with self._write() as db:
                    db.execute(
                        "INSERT INTO plies (game_id, number, ptn, uncertain, alternatives,"
                        " recorded_at) VALUES (?, ?, ?, ?, ?, ?)",
                        (
                            int(game_id),
                            number,
                            played.ptn(),
                            int(bool(uncertain)),
                            json.dumps([alt.ptn() for alt in alternatives]),
                            self._clock(),
                        ),
                    )
            except BaseException:
                position.pop()
                raise
        return number

    def undo_plies(self, game_id: GameId, n: int) -> list[JournalPly]:
        """Take back the last `n` plies (a takeback on the board). Returns them, last first."""
        if not isinstance(n, int) or n < 0:
            raise JournalError(f"number of plies to undo must be >= 0, got {n!r}")
        with self._lock:
            position = self._open_position(game_id)
            if n > position.ply_count:
                raise JournalError(
                    f"game {game_id} has {position.ply_count} plies; cannot undo {n}"
                )
            if n == 0:
                return []
            undone = list(reversed(self.game(game_id).plies[-n:]))
            with self._write() as db:
                db.execute(
                    "DELETE FROM plies WHERE game_id = ? AND number > ?",
                    (int(game_id), position.ply_count - n),
                )
            for _ in range(n):
                position.pop()
        return undone

    def correct_last_ply(
        self,
        game_id: GameId,
        ply: Ply,
        *,
        uncertain: bool = False,
        alternatives: Iterable[Ply] = (),
    ) -> JournalPly:
        """Replace the game's last ply with `ply` (a person says the board shows another ply
        than the one recorded), in one durable transaction: there is never a moment on disk
        without the ply. A game that the old ply ended is open again unless `ply` ends it too
        (a game resigned or drawn stays closed). -> the ply replaced.

        Raises `IllegalPlyError` if `ply` is not legal where the old one was played,
        `JournalError` if the game has no plies or was ended otherwise than by its last ply."""
        alternatives = tuple(alternatives)
        with self._lock:
            record = self.game(game_id)
            if not record.plies:
                raise JournalError(f"game {game_id} has no plies to correct")
            position = record.position()
            ended = position.outcome()
            if record.result is not None and (ended is None or ended.result() != record.result):
                raise JournalError(
                    f"game {game_id} was ended ({record.result}) otherwise than by its last ply;"
                    " it takes no corrections"
                )
            old = record.plies[-1]
            position.pop()
            played = position.play(ply)  # raises IllegalPlyError quoting ply and TPS
            outcome = position.outcome()
            now = self._clock()
            with self._write() as db:
                db.execute(
                    "UPDATE plies SET ptn = ?, uncertain = ?, alternatives = ?, recorded_at = ?"
                    " WHERE game_id = ? AND number = ?",
                    (played.ptn(), int(bool(uncertain)),
                     json.dumps([alt.ptn() for alt in alternatives]), now, int(game_id),
                     old.number),
                )  # fmt: skip
                db.execute(
                    "UPDATE games SET result = ?, finished_at = ? WHERE id = ?",
                    (outcome.result(), now, int(game_id)) if outcome is not None
                    else (None, None, int(game_id)),
                )  # fmt: skip
            if outcome is None:
                self._positions[int(game_id)] = position
            else:
                self._positions.pop(int(game_id), None)
        return old

    def mark_uncertain(self, game_id: GameId, number: int, alternatives: Iterable[Ply]) -> None:
        """Mark ply `number` unsure after the fact, naming `alternatives` (a later board showed
        what one of them would have left), in one durable transaction. Raises `JournalError`
        if the game has no such ply, `IllegalPlyError` if an alternative could not have been
        played in its place."""
        alternatives = tuple(alternatives)
        with self._lock:
            record = self.game(game_id)
            if not 1 <= number <= len(record.plies):
                raise JournalError(f"game {game_id} has no ply {number} (it has "
                                   f"{len(record.plies)})")  # fmt: skip
            position = Position(record.size, komi=record.komi, opening=record.opening)
            for ply in record.plies[: number - 1]:
                position.play(ply.ply)
            for alt in alternatives:  # raises IllegalPlyError quoting the ply and TPS
                position.play(alt)
                position.pop()
            with self._write() as db:
                db.execute(
                    "UPDATE plies SET uncertain = 1, alternatives = ? WHERE game_id = ?"
                    " AND number = ?",
                    (json.dumps([alt.ptn() for alt in alternatives]), int(game_id), number),
                )

    def set_tags(self, game_id: GameId, **tags: str | None) -> None:
        """Add, change (or with None, remove) tags: `set_tags(gid, Player1="Ann", Event=None)`."""
        with self._lock, self._write() as db:
            current = json.loads(self._row(game_id)[4])
            for name, value in tags.items():
                if name.lower() in ("size", "komi", "result", "opening"):
                    raise JournalError(f"tag {name} is fixed by the game itself; it cannot be set")
                key = _canonical_tag(name, current)
                if value is None:
                    current.pop(key, None)
                else:
                    current[key] = str(value)
            db.execute("UPDATE games SET tags = ? WHERE id = ?", (json.dumps(current), game_id))

    def finish(self, game_id: GameId, result: str | Outcome) -> None:
        """Close a game with its PTN result ("R-0", "0-F", "1/2-1/2", "0-0" aborted, ...)."""
        text = result.result() if isinstance(result, Outcome) else str(result)
        if text != "0-0":
            Outcome.from_result(text)  # the engine vets the result text
        with self._lock, self._write() as db:
            self._row(game_id)
            db.execute(
                "UPDATE games SET result = ?, finished_at = ? WHERE id = ?",
                (text, self._clock(), int(game_id)),
            )
            self._positions.pop(int(game_id), None)

    def reopen(self, game_id: GameId) -> None:
        """Undo `finish`: the game takes plies again (the offline recorder found that the ply that
        ended it rested on a wrong guess). A game that is not finished is left as it is."""
        with self._lock, self._write() as db:
            self._row(game_id)
            db.execute(
                "UPDATE games SET result = NULL, finished_at = NULL WHERE id = ?", (int(game_id),)
            )

    def delete(self, game_id: GameId) -> None:
        with self._lock, self._write() as db:
            self._row(game_id)
            db.execute("DELETE FROM plies WHERE game_id = ?", (int(game_id),))
            db.execute("DELETE FROM games WHERE id = ?", (int(game_id),))
            self._positions.pop(int(game_id), None)

    # -- reading --------------------------------------------------------------------------------

    def games(self) -> list[GameSummary]:
        """Every game, newest first."""
        with self._lock:
            rows = self._db.execute(
                "SELECT id, size, komi, opening, tags, result, created_at, finished_at,"
                " (SELECT COUNT(*) FROM plies WHERE game_id = games.id)"
                " FROM games ORDER BY id DESC"
            ).fetchall()
        return [self._summary(row) for row in rows]

    def in_progress(self) -> list[GameSummary]:
        """Unfinished games, newest first: what to resume after a restart."""
        return [game for game in self.games() if game.result is None]

    def game(self, game_id: GameId) -> GameRecord:
        with self._lock:
            summary = self._summary(self._row(game_id))
            rows = self._db.execute(
                "SELECT number, ptn, uncertain, alternatives, recorded_at FROM plies"
                " WHERE game_id = ? ORDER BY number",
                (int(game_id),),
            ).fetchall()
        plies = tuple(
            JournalPly(
                number=number,
                ply=Ply.from_ptn(text),
                uncertain=bool(uncertain),
                alternatives=tuple(Ply.from_ptn(alt) for alt in json.loads(alts)),
                recorded_at=recorded_at,
            )
            for number, text, uncertain, alts, recorded_at in rows
        )
        return GameRecord(**summary.__dict__, plies=plies)

    def position(self, game_id: GameId) -> Position:
        """A fresh copy of the position after the game's last ply."""
        return self.game(game_id).position()

    def export_ptn(self, game_id: GameId, marks: Sequence[str] = ()) -> str:
        """The game as PTN text (rules engine's writer); unsure plies carry `?` and a comment.

        `marks` gives each ply its tak/tinue mark ("", "'", "''"), in order; plies beyond it get
        none (the journal does not judge positions; `controller/service/marks.py` does)."""
        record = self.game(game_id)
        notes = [
            PlyNote(ply=entry.ply, uncertain=entry.uncertain, alternatives=entry.alternatives,
                    mark=marks[i] if i < len(marks) else "")
            for i, entry in enumerate(record.plies)
        ]
        return game_ptn(
            size=record.size,
            komi=record.komi,
            opening=record.opening,
            plies=notes,
            tags=record.tags,
            result=record.result,
        )


def _canonical_tag(name: str, existing: Mapping[str, str]) -> str:
    """Tag names are case-insensitive: reuse the spelling already present."""
    for key in existing:
        if key.lower() == name.lower():
            return key
    return name
