"""`takboard capture replay FILE`: run a bug report the board saved through the tracker again.

    takboard capture replay capture-20261201-193012.zip [--quiet]

A capture (`controller/service/capture.py`; saved from the web page's "Save a bug report" or
`POST /api/captures`) holds the camera's last minute of readings, the game's position at each and
what the service recorded. The replay gives the readings to a fresh tracker, frame by frame at
their times, and prints what it decides next to what the service recorded: the same readings give
the same decisions, so a tracker change can be checked against a bug seen once on a real board.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def add_parser(subparsers) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "capture",
        help="replay a bug report (the camera's last minute) through the tracker",
        description="Bug reports saved by the board (web page: Save a bug report; "
        "POST /api/captures; in <data dir>/captures/).",
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    replay = actions.add_parser(
        "replay", help="give its readings to the tracker again and print what it decides"
    )
    replay.add_argument("file", type=Path, metavar="FILE", help="a capture-*.zip")
    replay.add_argument("--quiet", action="store_true",
                        help="only the summary, not every decision")  # fmt: skip
    return parser


def run(args) -> int:
    from controller.commands.record import Event
    from controller.service.capture import load_capture, replay_capture
    from controller.tracking import Ask, Commit

    try:
        capture = load_capture(args.file)
    except ValueError as bad:
        print(f"takboard capture: {bad}", file=sys.stderr)
        return 2
    about = capture.about
    start = capture.times[0] if capture.times else 0.0
    span = capture.times[-1] - start if capture.times else 0.0
    print(f"{args.file.name}: {len(capture.readings)} readings over {span:.1f} s, "
          f"{capture.size}x{capture.size} board, saved {about.get('saved', '?')}")
    if about.get("note"):
        print(f"  note: {about['note']}")
    print(f"  camera {about.get('camera', '?')}, tracker {about.get('tracker', '?')}; "
          f"from the position {capture.positions[0]}")
    replayed: list[str] = []
    for step in replay_capture(capture):
        if step.adopted and not args.quiet:
            print(f"  {step.t - start:6.1f} s  the service's game changed here (an answer or a "
                  f"correction from the page): replay goes on from {step.adopted}")
        for decision in step.decisions:
            if isinstance(decision, Commit):
                replayed.append(decision.ply.ptn())
            elif isinstance(decision, Ask):
                replayed.append(decision.candidates[0].ply.ptn() + "?")
            if not args.quiet:
                print(f"  {step.t - start:6.1f} s  frame {step.index:4d}: "
                      f"{Event(step.index, step.t, decision).describe()}")
    print(f"the service recorded: {' '.join(capture.recorded) or '(no ply)'}")
    print(f"this replay:          {' '.join(replayed) or '(no ply)'}")
    return 0
