"""`takboard vision SUBCOMMAND ...`: the camera side from the command line.

    takboard vision render TPS -o frame.png [--seed S] [--tilt DEG] [--hand]   a simulated frame
    takboard vision film GAME.ptn -o game.avi [--seed S] [--plies N]           a game, filmed
    takboard vision markers --size N --pitch 50mm -o FILE                      the marker sheet

Each subcommand is a pair `_add_NAME(subparsers)` / `_run_NAME(args)` listed in `SUBCOMMANDS`, so
adding one (`read`) touches only its own lines. This module is the only place where `controller`
meets `vision`: a TPS becomes the renderer's `Scene` here; vision never sees the rules engine.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

# -------------------------------------------------------------------------------------------------
# render


def position_to_scene(position):
    """A `controller.tak.Position` -> `vision.sim.Scene` (light = player 1, dark = player 2).

    The one place a rules-engine position becomes something the simulated camera can show; the
    service's `--sim` camera can use it too."""
    from controller.tak import CAP, FLAT, WALL, WHITE
    from vision.sim import Scene

    kinds = {FLAT: "flat", WALL: "wall", CAP: "cap"}
    stacks = {
        square: [("light" if player == WHITE else "dark", kinds[stone]) for player, stone in stack]
        for square, stack in position.stacks().items()
    }
    return Scene(position.size, stacks)


def tps_to_scene(tps: str):
    """A TPS string -> `vision.sim.Scene`; ValueError (TPSError) quoting the text if it is bad."""
    try:
        from controller.tak import Position
    except ImportError as missing:
        raise ValueError(
            f"cannot read TPS: the rules engine is not available ({missing})"
        ) from None
    return position_to_scene(Position.from_tps(tps))


def _parse_leds(text: str, size: int) -> dict[str, tuple[int, int, int]]:
    """ "a1=ff0000,c3=00ff00" (RGB hex) -> square -> BGR."""
    from vision.sim.scene import parse_square

    leds = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        square, sep, colour = item.partition("=")
        if not sep or len(colour) != 6:
            raise ValueError(f"--leds item {item!r}: expected SQUARE=RRGGBB, e.g. c3=ff8800")
        parse_square(square, size)
        try:
            r, g, b = (int(colour[i : i + 2], 16) for i in (0, 2, 4))
        except ValueError as bad:
            raise ValueError(f"--leds item {item!r}: {colour!r} is not RRGGBB hex") from bad
        leds[square] = (b, g, r)
    return leds


def _truth_json(truth, camera) -> dict:
    return {
        "size": truth.size,
        "image_size": [camera.width, camera.height],
        "tilt_deg": camera.tilt_deg,
        "H_img_from_board": truth.H_img_from_board.tolist(),
        "grid_corners_img": truth.grid_corners_img.tolist(),
        "marker_corners_img": {str(k): v.tolist() for k, v in truth.marker_corners_img.items()},
        "markers_visible": {str(k): v for k, v in truth.markers_visible.items()},
        "hand_present": truth.hand_present,
        "hand_over_board": truth.hand_over_board,
        "squares": {
            name: {
                "empty": sq.empty,
                "color": sq.color,
                "kind": sq.kind,
                "height": sq.height,
                "occluded": sq.occluded,
                "visible": round(sq.visible, 3),
            }
            for name, sq in truth.squares.items()
        },
    }


def _add_render(subparsers) -> None:
    parser = subparsers.add_parser(
        "render",
        help="render a position with the simulated camera",
        description="Render a TPS position as a simulated camera frame: perspective, markers, "
        "wood, 3D pieces with shadows, light, noise and JPEG artefacts, all chosen by --seed.",
    )
    parser.add_argument("tps", metavar="TPS", help='the position, e.g. "x5/x5/x2,1,x2/x5/x5 1 2"')
    parser.add_argument("-o", "--output", required=True, type=Path, help="image file to write")
    parser.add_argument("--seed", type=int, default=0, help="board, room and camera (default 0)")
    parser.add_argument("--tilt", type=float, help="camera tilt from vertical, 0..40 degrees")
    parser.add_argument("--hand", action="store_true", help="a hand reaching over the board")
    parser.add_argument("--leds", default="", help="LEDs lit under squares: a1=ff0000,c3=00ff88")
    parser.add_argument("--width", type=int, default=1280, help="image width (default 1280)")
    parser.add_argument("--height", type=int, default=720, help="image height (default 720)")
    parser.add_argument("--truth", type=Path, help="also write the ground truth as JSON here")
    parser.add_argument(
        "--annotate", type=Path, help="also write the frame with the ground truth drawn on it"
    )
    parser.set_defaults(_vision_run=_run_render)


IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp")


def _output_problem(path: Path | None, suffixes: tuple[str, ...]) -> str | None:
    """Why `path` cannot be written, checked before any work is done; None if it looks fine."""
    if path is None:
        return None
    if path.suffix.lower() not in suffixes:
        return f"{path}: unknown file type {path.suffix or '(none)'!r}; use {', '.join(suffixes)}"
    if not path.parent.is_dir():
        return f"{path}: folder {path.parent} does not exist"
    return None


def _write_image(path: Path, image) -> str | None:
    import cv2

    try:
        if cv2.imwrite(str(path), image):
            return None
    except cv2.error as failure:
        return f"{path}: could not write the image ({failure.err})"
    return f"{path}: could not write the image (no access?)"


def _run_render(args) -> int:
    import numpy as np

    from vision.sim import random_hand, random_setup, render_frame

    if args.tilt is not None and not 0 <= args.tilt <= 40:
        return _fail(f"--tilt {args.tilt}: the mount holds the camera 0..40 degrees from vertical")
    if not (64 <= args.width <= 4096 and 64 <= args.height <= 4096):
        return _fail(f"image size {args.width}x{args.height} is outside 64..4096")
    for path, suffixes in (
        (args.output, IMAGE_SUFFIXES),
        (args.annotate, IMAGE_SUFFIXES),
        (args.truth, (".json",)),
    ):
        problem = _output_problem(path, suffixes)
        if problem:
            return _fail(problem)
    try:
        scene = tps_to_scene(args.tps)
        scene.leds = _parse_leds(args.leds, scene.size)
    except ValueError as bad:  # TPSError is a ValueError and quotes the text
        return _fail(str(bad))
    camera, look = random_setup(args.seed, scene.size, tilt_deg=args.tilt)
    if (args.width, args.height) != (camera.width, camera.height):
        camera = camera.with_resolution(args.width, args.height)
    if args.hand:
        scene.hands.append(random_hand(np.random.default_rng([args.seed, 0x4A2D]), scene))
    frame = render_frame(scene, camera, look, seed=args.seed)
    problem = _write_image(args.output, frame.image)
    if problem:
        return _fail(problem)
    if args.truth:
        try:
            args.truth.write_text(json.dumps(_truth_json(frame.truth, camera), indent=1) + "\n")
        except OSError as failure:
            return _fail(f"{args.truth}: {failure.strerror}")
    if args.annotate:
        from vision.sim.annotate import draw_truth

        problem = _write_image(args.annotate, draw_truth(frame.image, frame.truth))
        if problem:
            return _fail(problem)
    print(
        f"wrote {args.output} ({camera.width}x{camera.height}, {scene.size}x{scene.size} board, "
        f"tilt {camera.tilt_deg:.1f} deg, seed {args.seed}"
        f"{', hand' if scene.hands else ''})"
    )
    return 0


# -------------------------------------------------------------------------------------------------
# markers


def _add_markers(subparsers) -> None:
    parser = subparsers.add_parser(
        "markers",
        help="write the printable marker sheet (SVG or PDF, true scale)",
        description="Write the four ArUco markers and the grid outline at true scale, with a "
        "100 mm scale bar to check the print. Print at 100 %% (no fit to page).",
    )
    parser.add_argument("--size", type=int, required=True, help="board size N (3..8)")
    parser.add_argument(
        "--pitch", default="50mm", help="square pitch: 50mm, 5cm, 2in (default 50mm)"
    )
    parser.add_argument(
        "-o", "--output", required=True, type=Path, help="file to write: .svg, .pdf or .png preview"
    )
    parser.add_argument(
        "--layout",
        choices=["board", "cutout"],
        default="board",
        help="board: the whole grid with its markers (default); cutout: the four markers alone, "
        "on A4, to cut out and glue onto an existing board",
    )
    parser.set_defaults(_vision_run=_run_markers)


def _run_markers(args) -> int:
    from vision.markers import build_cutout_sheet, build_sheet, parse_length_mm, write_sheet

    try:
        pitch = parse_length_mm(args.pitch)
        path = write_sheet(args.size, pitch, args.output, args.layout)
    except ValueError as bad:
        return _fail(str(bad))
    except OSError as bad:
        return _fail(f"{args.output}: {bad.strerror or bad}")
    build = build_sheet if args.layout == "board" else build_cutout_sheet
    sheet = build(args.size, pitch)
    what = "grid and markers" if args.layout == "board" else "markers to cut out"
    print(
        f"wrote {path}: {args.size}x{args.size} board, pitch {pitch:g} mm, {what}, page "
        f"{sheet.width:.0f} x {sheet.height:.0f} mm; print at 100 % and check the 100 mm bar"
    )
    return 0


# -------------------------------------------------------------------------------------------------
# film

VIDEO_CODECS = {".avi": "MJPG", ".mp4": "mp4v"}


def _add_film(subparsers) -> None:
    parser = subparsers.add_parser(
        "film",
        help="film a PTN game with the simulated camera, a hand making every ply",
        description="Replay a PTN game in front of the simulated camera: for every ply a hand "
        "comes in from the mover's side (player 1 near the camera, player 2 across), the board "
        "changes under it, the hand leaves. Writes a video (.avi or .mp4) or a folder of PNG "
        "frames, and optionally the truth of every frame as JSON lines.",
    )
    parser.add_argument("ptn", type=Path, metavar="PTN", help="the game file")
    parser.add_argument(
        "-o", "--output", required=True, type=Path, help="video.avi, video.mp4 or a folder"
    )
    parser.add_argument("--game", type=int, default=1, help="which game in the file (default 1)")
    parser.add_argument("--plies", type=int, help="stop after this many plies")
    parser.add_argument("--seed", type=int, default=0, help="board, room and camera (default 0)")
    parser.add_argument("--tilt", type=float, help="camera tilt from vertical, 0..40 degrees")
    parser.add_argument("--fps", type=float, default=15.0, help="frames per second (default 15)")
    parser.add_argument("--width", type=int, default=1280, help="image width (default 1280)")
    parser.add_argument("--height", type=int, default=720, help="image height (default 720)")
    parser.add_argument(
        "--truth",
        type=Path,
        help="write per-frame truth here as JSON lines (frame, ply, tps, hand)",
    )
    parser.set_defaults(_vision_run=_run_film)


def _film_scenes(game, seed: int, fps: float, plies: int | None):
    """(scene, plies played, tps after them) for every frame of the film."""
    from controller.tak import WHITE
    from vision.sim import reach_and_change

    position = game.start_position()
    rest = max(2, round(fps / 2))  # half a second of still board between plies
    board = position_to_scene(position)
    for _ in range(rest):
        yield board, 0, position.tps()
    for number, record in enumerate(game.moves[:plies], start=1):
        side = "south" if position.to_move == WHITE else "north"
        tps_before = position.tps()
        position.play(record.ply)
        after = position_to_scene(position)
        for scene in reach_and_change(board, after, seed=seed * 1009 + number, side=side):
            if scene.stacks == after.stacks:
                yield scene, number, position.tps()
            else:
                yield scene, number - 1, tps_before
        for _ in range(rest):
            yield after, number, position.tps()
        board = after


def _run_film(args) -> int:
    import cv2

    from controller.tak import ptn
    from vision.sim import SimCameraSource, random_setup

    if args.tilt is not None and not 0 <= args.tilt <= 40:
        return _fail(f"--tilt {args.tilt}: the mount holds the camera 0..40 degrees from vertical")
    if not 1 <= args.fps <= 120:
        return _fail(f"--fps {args.fps} is outside 1..120")
    if not (64 <= args.width <= 4096 and 64 <= args.height <= 4096):
        return _fail(f"image size {args.width}x{args.height} is outside 64..4096")
    folder = args.output.suffix == "" or args.output.is_dir()
    if not folder and args.output.suffix.lower() not in VIDEO_CODECS:
        return _fail(f"{args.output}: use .avi, .mp4 or a folder for PNG frames")
    problem = _output_problem(args.truth, (".jsonl", ".json"))
    if problem:
        return _fail(problem)
    try:
        games = ptn.read_games(args.ptn.read_text(encoding="utf-8"), filename=str(args.ptn))
    except OSError as failure:
        return _fail(f"{args.ptn}: {failure.strerror}")
    except ValueError as bad:  # PTNError quotes file, game, line and token
        return _fail(str(bad))
    if not 1 <= args.game <= len(games):
        return _fail(f"{args.ptn}: no game {args.game} (the file has {len(games)})")
    game = games[args.game - 1]
    if game.errors:
        return _fail(str(game.errors[0]))
    plies = len(game.moves) if args.plies is None else min(args.plies, len(game.moves))
    camera, look = random_setup(args.seed, game.size, tilt_deg=args.tilt)
    if (args.width, args.height) != (camera.width, camera.height):
        camera = camera.with_resolution(args.width, args.height)
    try:
        scenes = list(_film_scenes(game, args.seed, args.fps, plies))
    except ValueError as bad:  # an illegal ply: IllegalPlyError quotes the ply and the TPS
        return _fail(f"{args.ptn}: game {args.game}: {bad}")
    if folder:
        args.output.mkdir(parents=True, exist_ok=True)
        writer = None
    else:
        if not args.output.parent.is_dir():
            return _fail(f"{args.output}: folder {args.output.parent} does not exist")
        fourcc = cv2.VideoWriter_fourcc(*VIDEO_CODECS[args.output.suffix.lower()])
        writer = cv2.VideoWriter(str(args.output), fourcc, args.fps, (camera.width, camera.height))
        if not writer.isOpened():
            return _fail(f"{args.output}: OpenCV cannot write this video format here")
    truth_file = args.truth.open("w", encoding="utf-8") if args.truth else None
    source = SimCameraSource(scenes[0][0], camera, look, fps=args.fps, seed=args.seed)
    source.queue([scene for scene, _, _ in scenes])
    try:
        for index, (_, played, tps) in enumerate(scenes):
            _ok, frame = source.read()
            if writer is not None:
                writer.write(frame)
            else:
                problem = _write_image(args.output / f"{index:05d}.png", frame)
                if problem:
                    return _fail(problem)
            if truth_file:
                truth = source.last_truth
                line = {"frame": index, "ply": played, "tps": tps, "hand": truth.hand_present,
                        "hand_over_board": truth.hand_over_board}  # fmt: skip
                truth_file.write(json.dumps(line) + "\n")
            _progress(index + 1, len(scenes), f"ply {played}/{plies}")
    finally:
        if writer is not None:
            writer.release()
        if truth_file:
            truth_file.close()
        print(file=sys.stderr)
    print(
        f"wrote {args.output}: {len(scenes)} frames at {args.fps:g} fps "
        f"({len(scenes) / args.fps:.0f} s), {plies} plies of game {args.game}, "
        f"{game.size}x{game.size} board, tilt {camera.tilt_deg:.1f} deg, seed {args.seed}"
    )
    return 0


def _progress(done: int, total: int, note: str) -> None:
    """A one-line progress bar on stderr (only when it is a terminal)."""
    if not sys.stderr.isatty():
        return
    width = 30
    filled = round(width * done / total)
    bar = "#" * filled + "-" * (width - filled)
    print(f"\r[{bar}] {done}/{total} frames, {note}", end="", file=sys.stderr, flush=True)


# -------------------------------------------------------------------------------------------------
# read


def _add_read(subparsers) -> None:
    parser = subparsers.add_parser(
        "read",
        help="read one camera frame: every square's top colour, kind and stack height",
        description="Find the board in IMAGE (markers, or --corners), read every square and print "
        "a board diagram, or the reading as JSON with --json.",
    )
    parser.add_argument("image", metavar="IMAGE", type=Path, help="the camera frame (PNG, JPEG...)")
    parser.add_argument("--size", type=int, required=True, help="board size N (3..8)")
    parser.add_argument(
        "--reference", type=Path, help="a frame of the same camera with the board empty"
    )
    parser.add_argument(
        "--corners",
        help='the four outer grid corners in pixels, "x,y x,y x,y x,y": a1 corner, '
        "last-file rank-1 corner, far corner, a-file last-rank corner (for boards without markers)",
    )
    parser.add_argument("--json", action="store_true", help="print the reading as JSON")
    parser.add_argument(
        "--debug", type=Path, metavar="DIR", help="write annotated frame and top view to DIR"
    )
    parser.set_defaults(_vision_run=_run_read)


def _load_image(path: Path, what: str):
    import cv2

    if not path.is_file():
        raise ValueError(f"{what} {path}: no such file")
    image = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if image is None:
        raise ValueError(f"{what} {path}: not an image OpenCV can read")
    return image


def _run_read(args) -> int:
    from vision.locate import BoardNotFoundError, parse_corners
    from vision.mount import check_mount
    from vision.reader import BoardReader

    if not 3 <= args.size <= 8:
        return _fail(f"--size {args.size}: boards are 3..8 squares")
    try:
        frame = _load_image(args.image, "IMAGE")
        reference = _load_image(args.reference, "--reference") if args.reference else None
        corners = parse_corners(args.corners) if args.corners else None
    except ValueError as bad:
        return _fail(str(bad))
    reader = BoardReader(args.size, corners=corners, reference=reference, learn_empty=False)
    try:
        reading = reader.read(frame)
    except BoardNotFoundError as err:  # the empty-board reference could not be located
        return _fail(f"--reference {args.reference}: board not found ({err.reason})")
    if args.debug:
        from vision.debug import write_debug

        paths = write_debug(args.debug, frame, reading, reader, stem=args.image.stem)
        print("debug images: " + ", ".join(str(p) for p in paths), file=sys.stderr)
    # where the camera is, judged from the board found (`vision.mount`): what to change, if anything
    mount = check_mount(reader.pose) if reading.board_found and reader.pose is not None else None
    if args.json:
        out = reading.to_json()
        if mount is not None:
            out["camera"] = mount.as_dict()
        print(json.dumps(out, indent=1))
    else:
        print(reading.diagram())
        if mount is not None:
            print(mount.summary())
    return 0 if reading.board_found else 1


# -------------------------------------------------------------------------------------------------
# train


def _add_train(subparsers) -> None:
    parser = subparsers.add_parser(
        "train",
        help="render training boards and fit the square classifier the reader uses",
        description="Render INSTALLATIONS simulated installations (10 frames each), fit the "
        "square classifier on them, scale its confidences on held-out installations and write "
        "the weights. The reader averages two nets trained apart: vision/square_net.npz was "
        "made with the defaults (3600 installations, 10 epochs: about 70 minutes on two cores; "
        "the examples, 15 GB, go to disk as they are rendered and are read from there), then "
        "gone on with by --from vision/square_net.npz --first 7200 (the third 3600); "
        "vision/square_net_2.npz with --first 3600 -o vision/square_net_2.npz (the next 3600), "
        "then gone on with by --from vision/square_net_2.npz --first 10800 (the fourth 3600).",
    )
    _add_training_set(parser, epochs=10, first=0, learning_rate=1e-3)
    parser.add_argument(
        "-o", "--output", type=Path, default=None,
        help="weights file (default: the reader's own, vision/square_net.npz)",
    )  # fmt: skip
    parser.add_argument(
        "--keep-empty", type=float, default=1.0, metavar="SHARE",
        help="share of the empty squares kept in the training set (default 1): they are the "
        "easy half of it, and dropping most of them lets more installations fit; the net's "
        "empty odds are put back afterwards",
    )  # fmt: skip
    parser.add_argument(
        "--data", type=Path, default=None, metavar="DIR",
        help="keep the rendered examples in DIR (on disk, read memory-mapped) and read them "
        "back from there when the same installations are asked for again: a refit with other "
        "settings renders nothing (default: a temporary folder)",
    )  # fmt: skip
    parser.add_argument(
        "--first-rank", type=int, default=None, metavar="R",
        help="read the first layer as a product of rank R, fitted to the training squares "
        "(default: the shipped nets', 128 of 256 units: half the net's work, so that the "
        "reader's two nets cost about what one whole one would, for almost the same calls; 0 "
        "keeps the layer whole)",
    )  # fmt: skip
    parser.set_defaults(_vision_run=_run_train)


def _add_training_set(parser, *, epochs: int, first: int, learning_rate: float) -> None:
    """The arguments both training commands take: which installations, how long, from what."""
    parser.add_argument("--installations", type=int, default=3600, help="training installations")
    parser.add_argument("--first", type=int, default=first,
                        help=f"first training installation (default {first})")  # fmt: skip
    parser.add_argument("--held-out", type=int, default=60, help="held-out installations")
    parser.add_argument("--epochs", type=int, default=epochs)
    parser.add_argument("--jobs", type=int, default=2, help="rendering processes")
    parser.add_argument(
        "--from", dest="start", type=Path, default=None, metavar="WEIGHTS",
        help="go on training these weights on new installations (more data, without rendering "
        "the old again); use --first past the installations they were trained on",
    )  # fmt: skip
    parser.add_argument("--learning-rate", type=float, default=learning_rate,
                        help=f"peak learning rate (default {learning_rate:g}; lower with "
                        "--from)")  # fmt: skip
    parser.add_argument(
        "--wooden-share", type=float, default=0.0, metavar="SHARE",
        help="share of the training installations whose light pieces are of the board's own "
        "wood (default 0: the draw of every installation before session 33; the reader errs most "
        "where pieces barely stand apart from the board); the held-out set stays the plain draw",
    )  # fmt: skip


def _training_problem(args) -> str | None:
    """What is wrong with the arguments both training commands take (`_add_training_set`, and
    --data; None: nothing)."""
    for name in ("installations", "held_out", "epochs", "jobs"):
        if getattr(args, name) < 1:
            return f"--{name.replace('_', '-')} must be at least 1"
    if args.first < 0:
        return "--first must be 0 or more"
    if args.data is not None and args.data.exists() and not args.data.is_dir():
        return f"--data {args.data}: not a folder"
    if args.learning_rate <= 0:
        return "--learning-rate must be above 0"
    if args.start is not None and not args.start.is_file():
        return f"--from {args.start}: no such weights file"
    if not 0 <= args.wooden_share <= 1:
        return f"--wooden-share {args.wooden_share}: a share from 0 to 1"
    return None


def _run_train(args) -> int:
    from vision.net import FIRST_RANK, WEIGHTS
    from vision.sim.training import run as run_training

    problem = _training_problem(args)
    if problem:
        return _fail(problem)
    if not 0 < args.keep_empty <= 1:
        return _fail(f"--keep-empty {args.keep_empty}: a share above 0 and at most 1")
    if args.first_rank is not None and args.first_rank < 0:
        return _fail(f"--first-rank {args.first_rank}: 0 (whole) or a rank below the units")
    out = args.output or WEIGHTS
    problem = _output_problem(out, (".npz",))
    if problem:
        return _fail(problem)
    try:
        figures = run_training(args.installations, args.held_out, args.epochs, args.jobs, out,
                               first=args.first, start=args.start,
                               learning_rate=args.learning_rate, keep_empty=args.keep_empty,
                               data=args.data, wooden_share=args.wooden_share,
                               first_rank=FIRST_RANK if args.first_rank is None
                               else args.first_rank or None)  # fmt: skip
    except ValueError as err:  # weights made for other features, a rank too high
        return _fail(str(err))
    print(f"wrote {out}")
    print(json.dumps(figures, indent=1))
    return 0


# -------------------------------------------------------------------------------------------------

def _add_train_stack(subparsers) -> None:
    parser = subparsers.add_parser(
        "train-stack",
        help="fit the stack net, the reader's second opinion on occupied squares (needs PyTorch)",
        description="Fit the stack net (vision/stack_net.py: a small convolutional net that "
        "reads an occupied square's top kind and stack height from the same views as the "
        "square classifier, averaged with it) on the occupied squares of rendered installations, "
        "all but the last 12 %% of them; score it there and on the held-out installations as the "
        "reader reads it, beside the shipped pair; write the weights. The examples are the "
        "square classifier's: a --data folder that `takboard vision train` rendered into is read "
        "back, not rendered again. vision/stack_net.npz was made with the defaults "
        "(installations 10800-14399; 8 epochs, 30-40 minutes on two cores after the "
        "rendering). --from goes on training a net on new installations (docs/vision.md, "
        "session 36, for what that gave). Needs PyTorch, which only training uses: pip install "
        "torch.",
    )
    _add_training_set(parser, epochs=8, first=10800, learning_rate=2e-3)
    parser.add_argument("--data", type=Path, required=True, metavar="DIR",
                        help="where the rendered examples are (or go: 15 GB for 3600)")  # fmt: skip
    parser.add_argument(
        "-o", "--output", type=Path, default=None,
        help="weights file (default: the reader's own, vision/stack_net.npz)",
    )  # fmt: skip
    parser.set_defaults(_vision_run=_run_train_stack)


def _run_train_stack(args) -> int:
    from vision.sim.stack_training import run as run_training
    from vision.stack_net import WEIGHTS

    problem = _training_problem(args)
    if problem:
        return _fail(problem)
    out = args.output or WEIGHTS
    problem = _output_problem(out, (".npz",))
    if problem:
        return _fail(problem)
    try:
        figures = run_training(args.installations, args.first, args.held_out, args.epochs,
                               args.jobs, out, args.data, start=args.start,
                               learning_rate=args.learning_rate,
                               wooden_share=args.wooden_share)  # fmt: skip
    except ValueError as err:  # too few squares to fit, --from weights of other features
        return _fail(str(err))
    print(f"wrote {out}")
    print(json.dumps(figures, indent=1))
    return 0


SUBCOMMANDS = [_add_render, _add_film, _add_markers, _add_read, _add_train, _add_train_stack]


def _fail(message: str) -> int:
    print(f"takboard vision: {message}", file=sys.stderr)
    return 2


def add_parser(subparsers) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "vision",
        help="camera tools: render simulated frames, print markers, read a frame, train the reader",
        description="Camera tools. `takboard vision SUBCOMMAND --help` for each.",
    )
    sub = parser.add_subparsers(dest="vision_command", metavar="SUBCOMMAND")
    for add in SUBCOMMANDS:
        add(sub)
    return parser


def run(args) -> int:
    handler = getattr(args, "_vision_run", None)
    if handler is None:
        print("takboard vision: give a subcommand (see takboard vision --help)", file=sys.stderr)
        return 2
    return int(handler(args) or 0)
