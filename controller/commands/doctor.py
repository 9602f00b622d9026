"""`takboard doctor`: check the camera, the LED board's serial port and firmware, and the disk, and
say
what to fix. Exit status 0 when everything needed is fine, 1 otherwise."""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from controller.commands.serve import settings_from_args
from controller.service.config import SettingsError

MIN_FREE_MB = 200


@dataclass
class Check:
    name: str
    ok: bool
    detail: str
    fix: str = ""
    needed: bool = True


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "doctor", help="check camera, LED board, firmware and disk; say what to fix",
    )
    p.add_argument("--data", type=Path, help="data directory to check")
    p.add_argument("--config", type=Path, help="settings file (TOML)")
    p.add_argument("--camera", help="camera source to check (default from settings: auto)")
    p.add_argument("--serial", help="LED serial port to check (default from settings: auto)")
    p.add_argument("--timeout", type=float, default=3.0, help="seconds to wait for the firmware")
    p.add_argument("--size", type=int, help="board size, to find the board in the camera's view "
                   "(default from settings: 6)")
    for name in ("sim", "host", "port", "token"):
        p.set_defaults(**{name: None})
    return p


def check_camera(source: str) -> tuple[Check, object]:
    """The camera's check, and a frame it gave (None if none)."""
    from controller.service.runner import find_cameras

    if source in ("sim", "none"):
        return Check("camera", True, f"camera = {source}: nothing to check", needed=False), None
    if source == "auto":
        found = find_cameras()
        if not found:
            return Check("camera", False, "no /dev/video* device",
                         "plug in the USB camera (or enable the Pi camera: `sudo raspi-config`, "
                         "Interface Options, Camera) and check `ls /dev/video*`"), None
        source = found[0]
    if source.startswith("/dev/") and not os.path.exists(source):
        return Check("camera", False, f"{source}: no such device",
                     "check the cable and `ls /dev/video*`, then set camera.source (or --camera)"
                     ), None
    if source.startswith("/dev/") and not os.access(source, os.R_OK | os.W_OK):
        return Check("camera", False, f"{source}: no permission",
                     "add yourself to the video group: `sudo usermod -aG video $USER`, "
                     "then log in again"), None
    import cv2

    cap = cv2.VideoCapture(source)
    try:
        ok, frame = cap.read() if cap.isOpened() else (False, None)
    finally:
        cap.release()
    if not ok or frame is None:
        return Check("camera", False, f"{source}: opened but gave no frame",
                     f"is another program using it (`fuser {source}`)? "
                     "try another /dev/videoN"), None
    h, w = frame.shape[:2]
    return Check("camera", True, f"{source}: {w}x{h} frame read"), frame


def check_mount(frame, size: int) -> Check:
    """Is the board in the camera's view, and is the camera where it reads the board well
    (`vision.mount`)? Advice, not a failure: the board may simply not be on the table yet."""
    from vision.locate import BoardLocator, BoardNotFoundError
    from vision.mount import check_mount as judge

    try:
        pose = BoardLocator(size).locate(frame)
    except BoardNotFoundError as why:
        return Check("camera mount", False, f"{size}x{size} board not found in the frame: "
                     f"{why.reason}", "put the board and its four markers in view "
                     "(hardware/markers.md), or set the corners by hand on the page",
                     needed=False)  # fmt: skip
    mount = judge(pose)
    if mount.ok:
        return Check("camera mount", True, mount.summary(), needed=False)
    return Check("camera mount", False, mount.measured, "; ".join(mount.advice), needed=False)


def check_serial(port: str, timeout: float) -> list[Check]:
    from controller.service.runner import find_serial_ports

    if port in ("sim", "none"):
        return [Check("LED board", True, f"serial = {port}: nothing to check", needed=False)]
    if port == "auto":
        found = find_serial_ports()
        if not found:
            return [Check("LED board", False, "no USB serial adapter found",
                          "plug in the Nano/Uno; check `ls /dev/ttyUSB* /dev/ttyACM*`; install the "
                          "udev rule from deploy/ for a stable /dev/takboard-leds name")]
        port = found[0]
    if port.startswith("/dev/") and not os.path.exists(port):
        return [Check("LED board", False, f"{port}: no such device",
                      "is the board plugged in? `ls /dev/ttyUSB* /dev/ttyACM*`, then set "
                      "leds.serial (or --serial) to what appears")]
    if port.startswith("/dev/") and not os.access(port, os.R_OK | os.W_OK):
        return [Check("LED board", False, f"{port}: no permission",
                      "add yourself to the dialout group: `sudo usermod -aG dialout $USER`, "
                      "log in again (or install deploy/99-takboard.rules)")]
    try:
        from controller.service.leds_port import probe_firmware
    except ImportError:
        return [Check("LED board", True, f"{port}: present (firmware check not available)")]
    try:
        version = probe_firmware(port, timeout)
    except Exception as exc:
        return [Check("LED board", True, f"{port}: present"),
                Check("firmware", False, f"no answer from the firmware on {port}: {exc}",
                      "flash it: `make -C firmware && avrdude -p m328p -c arduino -P " + port
                      + " -b 115200 -U flash:w:firmware/build/avr-250000/takboard.hex:i` "
                      "(old-bootloader Nanos: -b 57600)")]
    return [Check("LED board", True, f"{port}: present"),
            Check("firmware", True, f"firmware {version}")]


def check_disk(data: Path) -> Check:
    data = data.expanduser()
    target = data if data.exists() else next((p for p in data.parents if p.exists()), Path("/"))
    if data.exists() and not os.access(data, os.W_OK):
        return Check("disk", False, f"{data}: not writable",
                     f"`sudo chown -R $USER {data}` or pick another --data directory")
    free_mb = shutil.disk_usage(target).free // (1024 * 1024)
    if free_mb < MIN_FREE_MB:
        return Check("disk", False, f"{target}: {free_mb} MB free",
                     f"free at least {MIN_FREE_MB} MB "
                     "(old logs: `sudo journalctl --vacuum-size=50M`)")
    return Check("disk", True, f"{data}: {free_mb} MB free")


def run(args) -> int:
    try:
        settings = settings_from_args(args)
    except SettingsError as exc:
        print(f"takboard doctor: {exc}", file=sys.stderr)
        return 2
    camera, frame = check_camera(settings.camera)
    checks = [camera]
    if frame is not None:
        checks.append(check_mount(frame, settings.size))
    checks += [*check_serial(settings.serial, args.timeout), check_disk(settings.data_path)]
    width = max(len(c.name) for c in checks)
    for c in checks:
        mark = "ok  " if c.ok else "FIX "
        print(f"{mark} {c.name:<{width}}  {c.detail}")
        if not c.ok and c.fix:
            print(f"     {'':<{width}}  -> {c.fix}")
    bad = [c for c in checks if not c.ok and c.needed]
    print("\nall good" if not bad else f"\n{len(bad)} thing(s) to fix")
    return 0 if not bad else 1
