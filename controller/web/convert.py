"""Domain values -> wire models. The only place that knows both sides."""

from __future__ import annotations

import datetime as dt
from urllib.parse import quote

from controller.service.board import GameView
from controller.service.game import RecordedPly
from controller.store import GameSummary
from controller.web import models

PLAYER = ("white", "black")
STONE = ("flat", "wall", "cap")
PTN_NINJA = "https://ptn.ninja/"


def ptn_ninja_url(ptn: str) -> str:
    """PTN Ninja reads a game from the URL path (percent-encoded PTN text)."""
    return PTN_NINJA + quote(ptn, safe="")


def ply_public(p: RecordedPly) -> models.PlyPublic:
    return models.PlyPublic(number=p.number, ptn=p.ptn, player=PLAYER[p.player],
                            uncertain=p.uncertain, alternatives=list(p.alternatives))


def game_public(view: GameView) -> models.GamePublic:
    amb = view.ambiguity
    return models.GamePublic(
        id=view.id,
        size=view.size,
        komi=view.komi / 2,
        opening=view.opening,
        white=view.tags.get("Player1", ""),
        black=view.tags.get("Player2", ""),
        tags=view.tags,
        plies=[ply_public(p) for p in view.plies],
        tps=view.tps,
        to_move=PLAYER[view.to_move],
        result=view.result,
        state=view.state,
        stacks={sq: [(PLAYER[p], STONE[s]) for p, s in stack] for sq, stack in view.stacks.items()},
        reserves={PLAYER[i]: {"flats": r[0], "caps": r[1]} for i, r in enumerate(view.reserves)},
        flat_count={"white": view.flat_count[0], "black": view.flat_count[1]},
        ambiguity=None if amb is None else models.AmbiguityPublic(
            id=amb.id, candidates=[c.ptn() for c in amb.candidates],
            scores=[round(s, 4) for s in amb.scores], reason=amb.reason,
            then=[None if t is None else t.ptn() for t in amb.then],
            more=[[p.ptn() for p in m] for m in amb.more]),
        problem=view.problem,
        computer=None if view.computer is None else models.ComputerPublic(**view.computer),
        ptn=view.ptn,
        ptn_ninja_url=ptn_ninja_url(view.ptn),
    )


def summary_public(s: GameSummary) -> models.GameSummaryPublic:
    date = s.tags.get("Date") or dt.datetime.fromtimestamp(s.created_at).strftime("%Y.%m.%d")
    return models.GameSummaryPublic(
        id=int(s.id), size=s.size, komi=s.komi / 2, white=s.players[0], black=s.players[1],
        date=date, result=s.result, plies=s.ply_count, in_progress=s.in_progress)
