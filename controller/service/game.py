"""The game in progress: the rules engine's `Position` kept in step with the journal.

Every change goes to the journal first (durable), then to the in-memory position, so a crash between
the two can only lose what was never reported. On start the newest unfinished game in the journal is
resumed, which is what makes `kill -9` harmless.

Synchronous and single-threaded by design: `BoardService` serialises calls with its lock.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from controller.service.errors import GameOverError, NoGameError, NotFoundError, NothingPendingError
from controller.store import GameId, GameRecord, Journal
from controller.tak import IllegalPlyError, Outcome, Ply, Position


@dataclass
class Ambiguity:
    """The board changed in a way more than one legal ply explains; a human picks one."""

    id: int
    candidates: list[Ply]
    scores: list[float] = field(default_factory=list)
    reason: str = ""  # why the camera asks, when it is not only close scores
    # per candidate, the reply seen played right after it (two plies at once), or None
    then: list[Ply | None] = field(default_factory=list)
    # per candidate, the plies seen played after its reply (a catch-up after the board was out of
    # sync: choosing the candidate records them all, in this order)
    more: list[tuple[Ply, ...]] = field(default_factory=list)

    def sequence(self, index: int) -> list[Ply]:
        """Every ply choosing candidate `index` records, in order."""
        then = self.then[index] if index < len(self.then) else None
        more = self.more[index] if index < len(self.more) else ()
        return [self.candidates[index], *([then] if then is not None else []), *more]

    def plies_named(self) -> list[Ply]:
        """Every ply the question names (the candidates, their replies, the plies after)."""
        return [ply for i in range(len(self.candidates)) for ply in self.sequence(i)]


@dataclass(frozen=True)
class RecordedPly:
    number: int  # 1-based
    ptn: str
    player: int  # who played it (its colour may differ on plies 1-2)
    uncertain: bool
    alternatives: tuple[str, ...] = ()  # PTN of the plies that may have been played instead


class GameSession:
    def __init__(self, journal: Journal) -> None:
        self.journal = journal
        self.game_id: GameId | None = None
        self.position: Position | None = None
        self.ambiguity: Ambiguity | None = None
        self._ambiguity_seq = 0

    # --- lifecycle -----------------------------------------------------------------------------
    def resume(self) -> bool:
        """Pick up the newest unfinished game from the journal. True if there was one."""
        open_games = self.journal.in_progress()
        if not open_games:
            return False
        self.game_id = open_games[0].id
        self.position = self.journal.position(self.game_id)
        return True

    def new_game(
        self, *, size: int, komi: int, players: tuple[str, str], opening: str,
        tags: dict[str, str] | None = None,
    ) -> GameId:
        """Start a game; an unfinished previous game is closed as aborted ("0-0")."""
        if self.game_id is not None and self.result is None:
            self.journal.finish(self.game_id, "0-0")
        position = Position(size, komi=komi, opening=opening)  # vets size/komi/opening first
        self.game_id = self.journal.new_game(
            size=size, komi=komi, players=players, opening=opening, tags=tags
        )
        self.position = position
        self.ambiguity = None
        return self.game_id

    def forget(self, game_id: GameId) -> None:
        """The game was deleted from the library: if it was the current one, there is none now."""
        if self.game_id == game_id:
            self.game_id, self.position, self.ambiguity = None, None, None

    # --- plies ---------------------------------------------------------------------------------
    def play(self, ply: Ply, *, uncertain: bool = False, alternatives: tuple[Ply, ...] = ()) -> Ply:
        """Check, journal, then apply one ply. Raises IllegalPlyError quoting ply and TPS."""
        position = self._open_position()
        if ply not in position.legal_plies:
            # play() on a copy gives the engine's own message (why it is illegal)
            position.copy().play(ply)
            raise IllegalPlyError(f"{ply.ptn()} is not legal in {position.tps()}")
        self.journal.append_ply(self.game_id, ply, uncertain=uncertain, alternatives=alternatives)
        played = position.push(ply)
        self.ambiguity = None
        outcome = position.outcome()
        if outcome is not None:
            self.journal.finish(self.game_id, outcome)
        return played

    def take_back(self, n: int = 1) -> list[str]:
        position = self._open_position()
        if not 1 <= n <= position.ply_count:
            raise NotFoundError(f"cannot take back {n} plies: the game has {position.ply_count}")
        undone = self.journal.undo_plies(self.game_id, n)
        for _ in range(n):
            position.pop()
        self.ambiguity = None
        return [entry.ply.ptn() for entry in undone]

    def correct_last(self, ply: Ply) -> tuple[Ply, Ply]:
        """The board shows another last ply than the one recorded (a person says so): replace
        it, journal first. A game its old last ply ended is open again unless `ply` ends it
        too. -> (the ply replaced, `ply` as played). Raises IllegalPlyError where `ply` could
        not have been played instead."""
        position = self._position()
        if position.ply_count == 0:
            raise NotFoundError("no ply to correct: the game has none yet")
        old = self.journal.correct_last_ply(self.game_id, ply)
        position.pop()
        played = position.push(ply)
        self.ambiguity = None
        return old.ply, played

    def finish(self, result: str) -> str:
        self._open_position()
        Outcome.from_result(result)
        self.journal.finish(self.game_id, result)
        self.ambiguity = None
        return result

    def set_tags(self, tags: dict[str, str | None]) -> None:
        self._position()
        self.journal.set_tags(self.game_id, **tags)

    # --- ambiguity -----------------------------------------------------------------------------
    def ask(self, candidates: list[Ply], scores: list[float], reason: str = "",
            then: list[Ply | None] | None = None,
            more: list[tuple[Ply, ...]] | None = None) -> Ambiguity:  # fmt: skip
        self._ambiguity_seq += 1
        self.ambiguity = Ambiguity(self._ambiguity_seq, list(candidates), list(scores), reason,
                                   list(then or [None] * len(candidates)),
                                   [tuple(m) for m in more or [()] * len(candidates)])  # fmt: skip
        return self.ambiguity

    def withdraw(self) -> Ambiguity | None:
        """Drop the pending question unanswered (its ply was taken back); the one dropped."""
        pending, self.ambiguity = self.ambiguity, None
        return pending

    def decline(self, ambiguity_id: int | None) -> Ambiguity:
        """Drop the pending question answered "none of these: nothing was played"; the one
        dropped."""
        pending = self._pending(ambiguity_id)
        self.ambiguity = None
        return pending

    def _pending(self, ambiguity_id: int | None) -> Ambiguity:
        """The pending question, checked to be `ambiguity_id` (when given)."""
        pending = self.ambiguity
        if pending is None:
            raise NothingPendingError("no ambiguous ply is waiting to be confirmed")
        if ambiguity_id is not None and ambiguity_id != pending.id:
            raise NothingPendingError(
                f"ambiguity {ambiguity_id} was already resolved; the pending one is {pending.id}"
            )
        return pending

    def resolve(self, ambiguity_id: int | None, choice: int | Ply) -> tuple[Ply, Ambiguity]:
        """Play the chosen candidate (an index) or a ply typed by hand instead."""
        pending = self._pending(ambiguity_id)
        if isinstance(choice, int):
            if not 0 <= choice < len(pending.candidates):
                raise NotFoundError(
                    f"candidate {choice} does not exist: there are {len(pending.candidates)} "
                    f"(0..{len(pending.candidates) - 1})"
                )
            ply = pending.candidates[choice]
        else:
            ply = choice
        others = tuple(c for c in pending.candidates if c != ply)
        return self.play(ply, alternatives=others), pending

    # --- views ---------------------------------------------------------------------------------
    @property
    def result(self) -> str | None:
        if self.game_id is None:
            return None
        return self.journal.game(self.game_id).result

    def plies(self) -> list[RecordedPly]:
        if self.game_id is None:
            return []
        return self.plies_of(self.journal.game(self.game_id))

    @staticmethod
    def plies_of(record: GameRecord) -> list[RecordedPly]:
        out = []
        for entry in record.plies:
            # plies 1 and 2 place the opponent's flat, but the mover is still white then black
            out.append(RecordedPly(entry.number, entry.ply.ptn(), (entry.number - 1) % 2,
                                   entry.uncertain,
                                   tuple(alt.ptn() for alt in entry.alternatives)))
        return out

    def _position(self) -> Position:
        if self.game_id is None or self.position is None:
            raise NoGameError("no game in progress: start one with POST /api/games")
        return self.position

    def _open_position(self) -> Position:
        position = self._position()
        result = self.result
        if result is not None:
            raise GameOverError(f"game {self.game_id} is over ({result}); start a new game")
        return position
