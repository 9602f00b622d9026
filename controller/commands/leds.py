"""`takboard leds demo|test|pictures|button`: show the LED scenes, light each square in turn (wiring
check), film every scene on the emulated board into pictures (the README's), or print the presses
of the button on the board's edge.

`--port` takes a device path (/dev/ttyUSB0), a pyserial URL, a pty path, or `sim` for the real
firmware under the emulator; without it the board is found by USB VID:PID. With `sim` the terminal
shows what the emulated LEDs really latched (decoded from the data pin); with a real board it shows
the frame sent.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

from controller.leds import scenes
from controller.leds.emulator import EmulatedBoard, EmulatorError
from controller.leds.frame import Animation, Effect, LedFrame, square_names
from controller.leds.layout import DEFAULT_CONFIG_PATH, LayoutError, LedConfig, load_config
from controller.leds.link import ButtonPress, LedLink, LinkError
from controller.tak import Ply, Position


def add_parser(subparsers) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "leds",
        help="LED board: cycle the scenes (demo), light each square in turn (test), draw the "
        "scenes (pictures)",
        description="Drive the LED board over its serial link. PORT is a device path, a pyserial "
        "URL, a pty path, or 'sim' for the real firmware under the emulator; omitted: find the "
        "board by USB VID:PID.",
    )
    actions = parser.add_subparsers(dest="leds_action", metavar="ACTION", required=True)
    for name, text in (
        ("demo", "cycle through every scene (last move, hint, illegal, ...)"),
        ("test", "light each square in turn, a1 first, for a wiring check"),
    ):
        sub = actions.add_parser(name, help=text, description=text)
        _add_common(sub, name)
    text = (
        "film every scene on the real firmware under the emulator and draw what its LEDs latched, "
        "one PNG per scene (moments left to right)"
    )
    sub = actions.add_parser("pictures", help=text, description=text)
    sub.add_argument("-o", "--out", type=Path, default=Path("."), help="folder for the PNGs")
    sub.add_argument("--size", type=int, default=5, help="board size of the example game (3..8)")
    text = (
        "print each press of the button on the board's edge (with --port sim the emulated "
        "button is pressed once a second)"
    )
    sub = actions.add_parser("button", help=text, description=text)
    sub.add_argument("--port", help="device path, pyserial URL, pty path, or 'sim'")
    sub.add_argument("--config", type=Path, default=DEFAULT_CONFIG_PATH,
                     help="LED config (default: %(default)s)")
    sub.add_argument("--seconds", type=float, default=30.0,
                     help="how long to listen (default: %(default)s)")
    sub.add_argument("--presses", type=int, default=0, help="stop after this many presses")
    return parser


def _add_common(sub: argparse.ArgumentParser, name: str) -> None:
    """The options of `demo` and `test` (a port, the LED config, timing)."""
    sub.add_argument("--port", help="device path, pyserial URL, pty path, or 'sim'")
    sub.add_argument(
        "--config",
        type=Path,
        default=DEFAULT_CONFIG_PATH,
        help="LED config (default: %(default)s)",
    )
    sub.add_argument(
        "--seconds",
        type=float,
        default=4.0 if name == "demo" else 0.5,
        help="time per scene (demo) or per square (test) (default: %(default)s)",
    )
    sub.add_argument("--loops", type=int, default=1, help="how many rounds (default: 1)")
    sub.add_argument(
        "--no-picture", action="store_true", help="do not draw the board in the terminal"
    )


def run(args) -> int:
    if args.leds_action == "pictures":
        return write_pictures(args.out, args.size)
    try:
        config = load_config(args.config) if args.config.exists() else LedConfig()
    except LayoutError as error:
        print(f"takboard leds: {error}", file=sys.stderr)
        return 2
    with ExitStack() as stack:
        board = None
        port = args.port
        if port == "sim":
            print("starting the emulated LED board (building the firmware if needed) ...")
            try:
                board = stack.enter_context(EmulatedBoard(baud=config.baud))
            except EmulatorError as error:
                print(f"takboard leds: {error}", file=sys.stderr)
                return 1
            port = board.port
        if port and "://" not in port and not os.path.exists(port):
            print(
                f"takboard leds: no such port {port!r} (a device path, a pyserial URL, or 'sim')",
                file=sys.stderr,
            )
            return 2
        link = stack.enter_context(LedLink(port, config=config))
        if not link.wait_ready(10.0):
            print(
                f"takboard leds: no LED board answered on {link.port}: "
                f"{link.health().last_error or 'still connecting'}",
                file=sys.stderr,
            )
            return 1
        info = link.health().firmware
        print(
            f"connected to {link.port}: firmware {info.firmware_version if info else '?'}, "
            f"{config.size}x{config.size} squares"
        )
        if args.leds_action == "button":
            return watch_button(link, board, args.seconds, args.presses)
        pictures = demo_scenes(config.size) if args.leds_action == "demo" else wiring_steps(config)
        try:
            for _ in range(max(1, args.loops)):
                for title, picture in pictures():
                    mark = board.mark() if board else 0
                    link.show_blocking(picture, timeout=5.0)
                    print(f"\n{title}")
                    if not args.no_picture:
                        print(draw(picture_colours(picture, board, config, mark), config.size))
                    time.sleep(args.seconds)
        except LinkError as error:
            print(f"takboard leds: {error}", file=sys.stderr)
            return 1
        health = link.health()
        print(
            f"\ndone: {health.frames_acked} frames acked, {health.retries} retries, "
            f"{health.errors} errors"
        )
    return 0


def watch_button(link: LedLink, board: EmulatedBoard | None, seconds: float, limit: int) -> int:
    """Prints each press as the link reports it; with the emulated board, presses it itself."""
    if link.health().button == "absent":
        info = link.health().firmware
        print(f"takboard leds: firmware {info.firmware_version if info else '?'} has no button "
              "input (it needs 1.1: flash firmware/build/avr-500000/takboard.hex)", file=sys.stderr)
        return 1
    started = time.monotonic()
    reported = threading.Semaphore(0)

    def on_button(press: ButtonPress) -> None:
        held = " (still held)" if press.down else ""
        print(f"{time.monotonic() - started:7.2f} s  press {press.number}{held}", flush=True)
        reported.release()

    link.on_button = on_button
    print(f"listening for {seconds:g} s" + (" (the emulated button is pressed once a second)"
                                           if board is not None else "; press the button"))
    count = 0
    while time.monotonic() - started < seconds and not (limit and count >= limit):
        if board is not None:
            board.press_button()
            time.sleep(0.15)
            board.release_button()
        if reported.acquire(timeout=1.0 if board is not None else 0.2):
            count += 1
            if board is not None:
                time.sleep(0.5)
    print(f"{link.health().button_presses} presses")
    return 0


def demo_scenes(size: int):
    """Every scene on example game states that fit any board size 3..8."""

    def scenes_of() -> Iterator[tuple[str, LedFrame | Animation]]:
        last = "abcdefgh"[size - 1]
        yield "idle: the four corners breathe dimly", scenes.idle(size)
        yield "last move a1 (a placement): orange", scenes.last_move(size, Ply.from_ptn("a1"))
        spread = Ply.from_ptn("2a1>11")
        yield "last move 2a1>11: origin blue, drops orange", scenes.last_move(size, spread)
        yield (
            "hint 3a1>21: origin pulses blue; b1 flashes twice, c1 once",
            scenes.hint(size, Ply.from_ptn("3a1>21")),
        )
        yield "hint Cb2 (capstone): b2 flashes three times", scenes.hint(size, Ply.from_ptn("Cb2"))
        yield (
            "illegal move: b1 and c1 blink white fast over the last move",
            scenes.illegal(size, ["b1", "c1"], spread),
        )
        yield (
            "resync: a2 and b3 differ from the record, pulsing white",
            scenes.resync(size, ["a2", "b3"]),
        )
        rank1 = "1,2,12" + (f",x{size - 3}" if size > 3 else "")
        tps = "/".join([f"x{size}"] * (size - 1) + [rank1]) + " 1 3"
        yield (
            "setup: a1 white piece, b1 blue piece, c1 a stack (blinks)",
            scenes.setup(Position.from_tps(tps), done=()),
        )
        road = [f"a{rank}" for rank in range(1, size + 1)]
        yield f"road win for player 1: a1..a{size} white", scenes.road_win(size, road, 0)
        yield (
            f"road win for player 2: a1..{last}1 blue",
            scenes.road_win(size, [f"{f}1" for f in "abcdefgh"[:size]], 1),
        )
        yield "all off", LedFrame.off(size)

    return scenes_of


def wiring_steps(config: LedConfig):
    def steps() -> Iterator[tuple[str, LedFrame]]:
        for i, square in enumerate(square_names(config.size)):
            leds = config.leds(square)
            yield (
                f"square {square}: LED {leds[0]}" + (f"..{leds[-1]}" if len(leds) > 1 else ""),
                scenes.wiring_test(config.size, i),
            )
        yield "all off", LedFrame.off(config.size)

    return steps


def picture_colours(picture, board: EmulatedBoard | None, config: LedConfig, mark: int):
    """What to draw: the colours the emulated LEDs latched, or the frame as sent (real board)."""
    frame = picture.steps[0][0] if isinstance(picture, Animation) else picture
    if board is not None:
        try:
            latch = board.wait_for_leds(lambda latch: True, timeout=2.0, after=mark)
            return {sq: (rgb, "") for sq, rgb in latch.squares(config).items()}
        except EmulatorError:
            pass
    marks = {Effect.BLINK: "*", Effect.PULSE: "~"}
    return {
        sq: (
            (light.colour.r, light.colour.g, light.colour.b) if not light.is_off else (0, 0, 0),
            marks.get(light.effect, ""),
        )
        for sq, light in frame
    }


def draw(colours: dict[str, tuple[tuple[int, int, int], str]], size: int) -> str:
    """The board as coloured cells, rank `size` at the top like the real board seen by player 1."""
    rows = []
    for rank in range(size, 0, -1):
        cells = []
        for file in "abcdefgh"[:size]:
            (r, g, b), mark = colours.get(f"{file}{rank}", ((0, 0, 0), ""))
            cells.append(f"\x1b[48;2;{r};{g};{b}m {mark or ' '} \x1b[0m")
        rows.append(f"{rank} " + "".join(cells))
    rows.append("  " + "".join(f" {f} " for f in "abcdefgh"[:size]))
    return "\n".join(rows)


# The example game of the pictures: after 1. a1 e5 2. c2 d2 3. c3 d2< 4. c3- b4 (white to move),
# a 3-stack stands on c2 for the spread hint. Needs a board of at least 5x5.
PICTURE_GAME = ["a1", "e5", "c2", "d2", "c3", "d2<", "c3-", "b4"]


def _after(size: int, plies: list[str]) -> Position:
    position = Position(size)
    for ptn in plies:
        position.play(Ply.from_ptn(ptn))
    return position


def picture_scenes(size: int) -> Iterator[tuple[str, str, LedFrame | Animation, Position]]:
    """(file stem, title, picture, position on the board) for every scene worth a picture."""
    game = _after(size, PICTURE_GAME)
    spread = Ply.from_ptn("d2<")
    after_spread = _after(size, PICTURE_GAME[: PICTURE_GAME.index("d2<") + 1])
    yield "last-move", "last move d2<: picked up at blue, dropped on orange", \
        scenes.last_move(size, spread), after_spread  # fmt: skip
    yield (
        "hint-spread",
        "hint 3c2>21: c2 pulses blue (take 3), d2 flashes twice, e2 once (drop 2, then 1)",
        scenes.hint(size, Ply.from_ptn("3c2>21")),
        game,
    )
    yield (
        "hint-wall",
        "hint Sd3: d3 flashes twice (1 flash: flat, 2: wall, 3: capstone)",
        scenes.hint(size, Ply.from_ptn("Sd3")),
        game,
    )
    yield (
        "illegal",
        "illegal: b3 and c3 blink white fast (put them back); the last move stays lit",
        scenes.illegal(size, ["b3", "c3"], Ply.from_ptn("b4")),
        game,
    )
    yield (
        "resync",
        "out of sync: c2 and b4 pulse white until they match the record",
        scenes.resync(size, ["c2", "b4"]),
        game,
    )
    road = [f"{f}3" for f in "abcdefgh"[:size]]
    yield "road", "road: player 1 wins along rank 3 (white; player 2 would be blue)", \
        scenes.road_win(size, road, 0), game  # fmt: skip


def write_pictures(out: Path, size: int) -> int:
    """Film every picture scene on the emulated board and write one PNG each into `out`."""
    import cv2  # only this action draws

    from controller.leds.film import animated_squares, film
    from controller.leds.picture import film_strip

    if not 5 <= size <= 8:
        print(f"takboard leds pictures: --size must be 5..8 (the example game), got {size}",
              file=sys.stderr)  # fmt: skip
        return 2
    out.mkdir(parents=True, exist_ok=True)
    config = LedConfig(size=size)
    print("starting the emulated LED board (building the firmware if needed) ...", file=sys.stderr)
    try:
        with EmulatedBoard(baud=config.baud) as board, LedLink(board.port, config=config) as link:
            if not link.wait_ready(10.0):
                print("takboard leds pictures: the emulated board did not answer", file=sys.stderr)
                return 1
            for stem, title, picture, position in picture_scenes(size):
                seconds = picture.cycle_seconds if isinstance(picture, Animation) else 1.0
                moments = film(board, link, config, picture, seconds)
                sheet = film_strip(title, size, moments, position.stacks(),
                                   animated_squares(picture))  # fmt: skip
                path = out / f"leds-{stem}.png"
                cv2.imwrite(str(path), sheet)
                print(f"{path}: {len(moments)} moment(s) filmed over {seconds:.1f} s")
    except (EmulatorError, LinkError) as error:
        print(f"takboard leds pictures: {error}", file=sys.stderr)
        return 1
    return 0
