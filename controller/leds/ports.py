"""Finding the LED board's serial port by its USB VID:PID when the user gives none."""

from __future__ import annotations

from dataclasses import dataclass

from serial.tools import list_ports

# USB-serial chips found on Nano/Uno-class boards: (vid, pid or None for any, what it is).
KNOWN_CHIPS: tuple[tuple[int, int | None, str], ...] = (
    (0x1A86, 0x7523, "CH340 (Nano clones)"),
    (0x0403, 0x6001, "FTDI FT232R (older Nanos)"),
    (0x2341, None, "Arduino (Uno, Nano Every, ...)"),
)


class NoBoardFoundError(LookupError):
    """No serial port with a known USB-serial chip: says what was looked for and what was seen."""


@dataclass(frozen=True)
class Candidate:
    device: str
    vid: int
    pid: int
    chip: str
    description: str


def matching_ports(ports=None) -> list[Candidate]:
    """Serial ports whose VID:PID is a known board chip, in a stable order (by device name).

    `ports` defaults to pyserial's `list_ports.comports()`; tests pass their own list of objects
    with `device`, `vid`, `pid` and `description` attributes.
    """
    found = []
    for port in ports if ports is not None else list_ports.comports():
        if port.vid is None:
            continue
        for vid, pid, chip in KNOWN_CHIPS:
            if port.vid == vid and (pid is None or port.pid == pid):
                found.append(Candidate(port.device, port.vid, port.pid, chip, port.description))
                break
    return sorted(found, key=lambda c: c.device)


def find_board_port(ports=None) -> str:
    """The device path of the one LED board; a clear error when there is none or several."""
    listed = list(ports if ports is not None else list_ports.comports())
    found = matching_ports(listed)
    if len(found) == 1:
        return found[0].device
    wanted = ", ".join(
        f"{vid:04x}:{pid:04x}" if pid is not None else f"{vid:04x}:*" for vid, pid, _ in KNOWN_CHIPS
    )
    if not found:
        seen = ", ".join(
            f"{p.device} ({p.vid:04x}:{p.pid:04x})" if p.vid is not None else p.device
            for p in listed
        )
        raise NoBoardFoundError(
            f"no LED board found: looked for USB VID:PID {wanted}; serial ports seen: "
            f"{seen or 'none'}. Plug the board in or give --port PATH (or --port sim)."
        )
    several = ", ".join(f"{c.device} ({c.chip})" for c in found)
    raise NoBoardFoundError(f"several possible LED boards: {several}; choose one with --port PATH")
