"""TEI (Tak Engine Interface) lines: one parser and one set of writers for both ends.

The server (`takboard tei`) and the client (`tei_client.TeiEngine`) both read lines with
`parse_line` and the typed readers below, and write them with the `format_*` functions, so the two
ends cannot drift apart. TEI is UCI for Tak:

    gui -> engine   tei | teinewgame N | teinewgame size N halfkomi K | setoption name X value Y
                    | isready | position (startpos | tps <row/s> <player> <move>) [moves p1 p2 ...]
                    | go [movetime T] [wtime T btime T winc T binc T] [nodes N] [depth D] [infinite]
                    | stop | quit
    engine -> gui   id name X | id author X | option name X type spin default D min A max B
                    | size N | halfkomi K (v1: what the engine supports, before teiok) | teiok
                    | readyok | info depth D score (cp S | mate M) nodes N time T nps R pv p1 p2 ...
                    | bestmove PLY

Bad lines raise `TeiProtocolError` quoting the line and saying what is wrong.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from controller.engine.limits import EngineError, Limit


class TeiProtocolError(EngineError):
    """A TEI line that does not follow the protocol."""


@dataclass(frozen=True)
class TeiLine:
    command: str
    args: tuple[str, ...]
    text: str

    def fail(self, why: str) -> TeiProtocolError:
        return TeiProtocolError(f"TEI line {self.text!r}: {why}")


def parse_line(text: str) -> TeiLine | None:
    """Split a line into its command and arguments; None for a blank line (ignored by both ends)."""
    tokens = text.strip().split()
    if not tokens:
        return None
    return TeiLine(tokens[0], tuple(tokens[1:]), text.rstrip("\r\n"))


def _int(line: TeiLine, name: str, value: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise line.fail(f"{name} must be an integer, got {value!r}") from None


# ----------------------------------------------------------------------------- gui -> engine
@dataclass(frozen=True)
class NewGame:
    size: int
    halfkomi: int | None  # None: not given (v0); keep the HalfKomi option


def read_teinewgame(line: TeiLine) -> NewGame:
    args = line.args
    if len(args) == 1:
        size = _int(line, "size", args[0])
        halfkomi = None
    elif len(args) >= 2 and len(args) % 2 == 0 and args[0] == "size":
        pairs = dict(zip(args[::2], args[1::2], strict=True))
        unknown = set(pairs) - {"size", "halfkomi"}
        if unknown:
            raise line.fail(f"unknown field(s) {', '.join(sorted(unknown))}")
        size = _int(line, "size", pairs["size"])
        halfkomi = _int(line, "halfkomi", pairs["halfkomi"]) if "halfkomi" in pairs else None
    else:
        raise line.fail("expected 'teinewgame N' or 'teinewgame size N [halfkomi K]'")
    if not 3 <= size <= 8:
        raise line.fail(f"board size {size} is not 3..8")
    return NewGame(size, halfkomi)


def format_teinewgame(size: int, halfkomi: int | None, *, v1: bool) -> str:
    if not v1:
        return f"teinewgame {size}"
    text = f"teinewgame size {size}"
    return text if halfkomi is None else f"{text} halfkomi {halfkomi}"


def read_setoption(line: TeiLine) -> tuple[str, str]:
    args = line.args
    if len(args) < 4 or args[0] != "name" or "value" not in args[2:]:
        raise line.fail("expected 'setoption name NAME value VALUE'")
    at = args.index("value", 2)
    return " ".join(args[1:at]), " ".join(args[at + 1 :])


def format_setoption(name: str, value: object) -> str:
    return f"setoption name {name} value {value}"


@dataclass(frozen=True)
class PositionCommand:
    tps: str | None  # None = start position
    moves: tuple[str, ...]


def read_position(line: TeiLine) -> PositionCommand:
    args = list(line.args)
    if not args:
        raise line.fail("expected 'position startpos' or 'position tps <TPS>'")
    if args[0] == "startpos":
        tps = None
        rest = args[1:]
    elif args[0] == "tps":
        if len(args) < 4:
            raise line.fail("a TPS needs three fields: rows, player, move number")
        tps = " ".join(args[1:4])
        rest = args[4:]
    else:
        raise line.fail(f"unknown position kind {args[0]!r} (startpos or tps)")
    if rest and rest[0] != "moves":
        raise line.fail(f"expected 'moves' after the position, got {rest[0]!r}")
    return PositionCommand(tps, tuple(rest[1:]))


def format_position(tps: str | None, moves: list[str] | tuple[str, ...] = ()) -> str:
    text = "position startpos" if tps is None else f"position tps {tps}"
    return f"{text} moves {' '.join(moves)}" if moves else text


@dataclass(frozen=True)
class GoCommand:
    limit: Limit
    infinite: bool = False


_GO_FIELDS = {
    "movetime": "movetime_ms",
    "nodes": "nodes",
    "depth": "depth",
    "wtime": "wtime",
    "btime": "btime",
    "winc": "winc",
    "binc": "binc",
}


def read_go(line: TeiLine) -> GoCommand:
    args = list(line.args)
    values: dict[str, int] = {}
    infinite = False
    i = 0
    while i < len(args):
        key = args[i]
        if key == "infinite":
            infinite = True
            i += 1
            continue
        if key not in _GO_FIELDS:
            raise line.fail(f"unknown go parameter {key!r}")
        if i + 1 >= len(args):
            raise line.fail(f"go {key} needs a value")
        value = _int(line, key, args[i + 1])
        if value < 0:
            raise line.fail(f"go {key} must not be negative")
        values[_GO_FIELDS[key]] = value
        i += 2
    return GoCommand(Limit(**values), infinite)


def format_go(limit: Limit, *, infinite: bool = False) -> str:
    parts = ["go"]
    for key, attr in _GO_FIELDS.items():
        value = getattr(limit, attr)
        if value is not None:
            parts += [key, str(value)]
    if infinite:
        parts.append("infinite")
    return " ".join(parts)


# ----------------------------------------------------------------------------- engine -> gui
@dataclass(frozen=True)
class Info:
    depth: int | None = None
    score_cp: int | None = None
    mate: int | None = None  # plies-to-mate convention of UCI: moves, negative = being mated
    nodes: int | None = None
    time_ms: int | None = None
    nps: int | None = None
    pv: tuple[str, ...] = field(default_factory=tuple)
    string: str | None = None


def read_info(line: TeiLine) -> Info:
    args = list(line.args)
    fields: dict[str, object] = {}
    i = 0
    while i < len(args):
        key = args[i]
        if key == "pv":
            fields["pv"] = tuple(args[i + 1 :])
            break
        if key == "string":
            fields["string"] = " ".join(args[i + 1 :])
            break
        if key == "score":
            if i + 2 >= len(args) or args[i + 1] not in ("cp", "mate"):
                raise line.fail("expected 'score cp N' or 'score mate N'")
            name = "score_cp" if args[i + 1] == "cp" else "mate"
            fields[name] = _int(line, "score", args[i + 2])
            i += 3
            continue
        if key in ("depth", "nodes", "time", "nps", "seldepth", "hashfull", "multipv"):
            if i + 1 >= len(args):
                raise line.fail(f"info {key} needs a value")
            value = _int(line, key, args[i + 1])
            if key in ("depth", "nodes", "nps"):
                fields[key] = value
            elif key == "time":
                fields["time_ms"] = value
            i += 2
            continue
        raise line.fail(f"unknown info field {key!r}")
    return Info(**fields)  # type: ignore[arg-type]


def format_info(info: Info) -> str:
    parts = ["info"]
    if info.depth is not None:
        parts += ["depth", str(info.depth)]
    if info.mate is not None:
        parts += ["score", "mate", str(info.mate)]
    elif info.score_cp is not None:
        parts += ["score", "cp", str(info.score_cp)]
    for key, value in (("nodes", info.nodes), ("time", info.time_ms), ("nps", info.nps)):
        if value is not None:
            parts += [key, str(value)]
    if info.string is not None:
        parts += ["string", info.string]
    elif info.pv:
        parts += ["pv", *info.pv]
    return " ".join(parts)


def read_bestmove(line: TeiLine) -> str:
    if len(line.args) < 1:
        raise line.fail("bestmove needs a ply")
    return line.args[0]


def read_option(line: TeiLine) -> tuple[str, dict[str, str]]:
    """`option name X type spin default D min A max B` -> ("X", {"type": "spin", ...})."""
    args = list(line.args)
    if len(args) < 2 or args[0] != "name":
        raise line.fail("expected 'option name NAME ...'")
    keys = ("type", "default", "min", "max", "var")
    try:
        end = next(i for i in range(1, len(args)) if args[i] in keys)
    except StopIteration:
        end = len(args)
    name = " ".join(args[1:end])
    rest = args[end:]
    return name, dict(zip(rest[::2], rest[1::2], strict=False))
