"""Wire models: what the API accepts and returns. Separate from the rules engine's types on purpose,
so the HTTP contract does not change when the engine's internals do."""

from __future__ import annotations

import math
import re
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

TAG_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,31}$")
SQUARE = r"^[a-h][1-8]$"
FIXED_TAGS = ("size", "komi", "result", "opening")

Opening = Literal["swap", "no-swap", "double black stack"]
Direction = Literal["+", "-", "<", ">"]
PlayerName = Annotated[str, Field(max_length=64, pattern=r"^[^\x00-\x1f\"\[\]{}]*$")]
PlyText = Annotated[str, Field(min_length=1, max_length=32, examples=["c3", "3c3>12", "Sa1"])]
SquareName = Annotated[str, Field(pattern=SQUARE, examples=["c3"])]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


# --- requests ----------------------------------------------------------------------------------
class NewGame(Strict):
    size: int = Field(6, ge=3, le=8)
    komi: float = Field(0, ge=0, le=10, description="in flats; multiples of 0.5 (PTN style)")
    white: PlayerName = ""
    black: PlayerName = ""
    opening: Opening = "swap"
    computer: Literal["white", "black"] | None = Field(
        None, description="play against the computer: the side it plays (its plies are shown on "
        "the LEDs; a player makes them on the board)")
    strength: Literal["easy", "medium", "hard"] = Field(
        "medium", description="the computer's strength: easy = 1 ply deep, medium 0.7 s, "
        "hard 2.5 s of thought per ply")

    @field_validator("komi")
    @classmethod
    def _half_flats(cls, value: float) -> float:
        if not math.isfinite(value) or (value * 2) != int(value * 2):
            raise ValueError(f"komi must be a multiple of 0.5 flats, got {value}")
        return value


class PlyIn(Strict):
    ptn: PlyText


class Resolve(Strict):
    ambiguity_id: int | None = Field(None, ge=1, description="the id from the ambiguity event")
    candidate: int | None = Field(None, ge=0, le=255, description="index into the candidates")
    ptn: PlyText | None = Field(None, description="a different ply, typed by hand")

    @field_validator("ptn")
    @classmethod
    def _strip(cls, value: str | None) -> str | None:
        return value.strip() if value is not None else None


class TakeBack(Strict):
    plies: int = Field(1, ge=1, le=64)


class EndGame(Strict):
    how: Literal["resign", "draw"]
    player: Literal["white", "black"] | None = Field(
        None, description="who resigns (required for resign)")


class TagsIn(Strict):
    tags: dict[str, Annotated[str, Field(max_length=200)] | None] = Field(max_length=32)

    @field_validator("tags")
    @classmethod
    def _names(cls, tags: dict[str, str | None]) -> dict[str, str | None]:
        for name, value in tags.items():
            if not TAG_NAME.match(name):
                raise ValueError(f"tag name {name!r}: letters, digits and _ only, 1..32, "
                                 "starting with a letter")
            if name.lower() in FIXED_TAGS:
                raise ValueError(f"tag {name} is fixed by the game itself (size, komi, result, "
                                 "opening); it cannot be set")
            if value is not None and (any(ord(c) < 32 for c in value) or '"' in value):
                raise ValueError(f"tag {name}: value may not hold quotes or control characters")
        return tags


class Brightness(Strict):
    brightness: int = Field(ge=0, le=255)


class Corners(Strict):
    corners: list[Annotated[list[Annotated[float, Field(ge=-10000, le=10000)]],
                            Field(min_length=2, max_length=2)]] = Field(
        min_length=4, max_length=4,
        description="pixels of /api/camera/frame.jpg, order: a1 corner, (last file, rank 1), "
        "far corner, (a, last rank)")


class CaptureRequest(Strict):
    note: str = Field("", max_length=500, description="what went wrong, in the user's words",
                      examples=["ply 23 was c4+, recorded as c4>"])


class CaptureSaved(BaseModel):
    name: str = Field(examples=["capture-20261201-193012.zip"])
    url: str = Field(description="where to download it")
    bytes: int
    readings: int = Field(description="camera readings in it (the last minute's)")


class CaptureListed(BaseModel):
    name: str
    url: str
    bytes: int
    saved: str = Field(description="when, ISO 8601")


# --- virtual board (sim) -----------------------------------------------------------------------
class SimPlace(Strict):
    square: SquareName
    player: Literal["white", "black", "to_move"] = Field(
        "to_move", description="whose piece; to_move: the colour the player to move puts down "
                               "now in the game in progress (the opponent's on plies 1-2)")
    stone: Literal["flat", "wall", "cap"] = "flat"


class SimPickUp(Strict):
    square: SquareName
    count: int = Field(ge=1, le=8)


class SimDrop(Strict):
    square: SquareName
    count: int = Field(1, ge=1, le=8)


class SimSpread(Strict):
    square: SquareName
    direction: Direction
    drops: list[Annotated[int, Field(ge=1, le=8)]] = Field(min_length=1, max_length=7)


class SimKnock(Strict):
    square: SquareName
    direction: Direction


class SimHand(Strict):
    over: bool


class SimSquare(Strict):
    square: SquareName


class SimPly(Strict):
    ptn: PlyText


# --- responses ---------------------------------------------------------------------------------
class PlyPublic(BaseModel):
    number: int
    ptn: str
    player: Literal["white", "black"]
    uncertain: bool
    alternatives: list[str] = Field(
        default_factory=list,
        description="an unsure ply: the plies that may have been played instead, as PTN")


class AmbiguityPublic(BaseModel):
    id: int
    candidates: list[str]
    scores: list[float]
    reason: str = Field("", description="why the camera asks, when it is not only close scores "
                                        "(e.g. a ply before this one was not seen)")
    then: list[str | None] = Field(
        default_factory=list,
        description="per candidate, the reply the board shows played right after it (two plies "
                    "seen at once: choosing the candidate records both), or null")
    more: list[list[str]] = Field(
        default_factory=list,
        description="per candidate, the plies the board shows played after its reply (a catch-up "
                    "after the board was out of sync: choosing the candidate records them all, "
                    "in order); empty for most questions")


class ComputerPublic(BaseModel):
    side: Literal["white", "black"]
    strength: Literal["easy", "medium", "hard"]
    move: str | None = Field(None, description="the computer's ply, to be made on the board")
    thinking: bool


class GamePublic(BaseModel):
    id: int
    size: int
    komi: float
    opening: str
    white: str
    black: str
    tags: dict[str, str]
    plies: list[PlyPublic]
    tps: str
    to_move: Literal["white", "black"]
    result: str | None
    state: Literal["recording", "paused", "desync", "illegal", "ambiguous", "over"]
    stacks: dict[str, list[tuple[Literal["white", "black"], Literal["flat", "wall", "cap"]]]]
    reserves: dict[str, dict[str, int]]
    flat_count: dict[str, int]
    ambiguity: AmbiguityPublic | None
    problem: dict[str, Any]
    computer: ComputerPublic | None = None
    ptn: str
    ptn_ninja_url: str


class PlyResult(BaseModel):
    ptn: str
    game: GamePublic


class TakeBackResult(BaseModel):
    undone: list[str]
    game: GamePublic


class HintPublic(BaseModel):
    ptn: str
    info: dict[str, Any]


class GameSummaryPublic(BaseModel):
    id: int
    size: int
    komi: float
    white: str
    black: str
    date: str
    result: str | None
    plies: int
    in_progress: bool


class GameDetail(BaseModel):
    summary: GameSummaryPublic
    tags: dict[str, str]
    plies: list[PlyPublic]
    ptn: str
    ptn_ninja_url: str


class Health(BaseModel):
    status: Literal["ok", "degraded"]
    recording: str
    tracker: str = Field(
        description="the camera's tracker: none | resuming (after a restart, until the board "
        "shows the journal's position; no ply is recorded from the camera until then) | tracking "
        "| asking | illegal | desync | over")
    sim: bool
    hints: bool
    camera: dict[str, Any]
    vision: dict[str, Any]
    link: dict[str, Any]
    journal: dict[str, Any]
    events: dict[str, Any]


class LedsPublic(BaseModel):
    link: dict[str, Any]
    brightness: int
    scene: str
    squares: dict[str, dict[str, Any]]


class CameraStatus(BaseModel):
    camera: dict[str, Any]
    vision: dict[str, Any]
    overlay: dict[str, Any]


class SimBoardPublic(BaseModel):
    size: int
    stacks: dict[str, list[list[int]]]
    hand_over: bool
    in_hand: list[list[int]]
    version: int


class Problem(BaseModel):
    """Every error response: what went wrong and where."""
    detail: Any
