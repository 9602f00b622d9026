"""Service settings: one TOML file, then command-line overrides, checked once.

    [board]    size = 6, layout = "/etc/takboard/leds.toml" (the LED chain layout; default: the
               repository's hardware/leds.toml)
    [camera]   source = "auto" | "sim" | "/dev/video0" | a video file;  fps = 5
    [leds]     serial = "auto" | "sim" | "none" | "/dev/ttyUSB0" | a pyserial URL;  brightness = 64
    [service]  data_dir = "~/.local/share/takboard", host = "0.0.0.0", port = 8000, token = ""

Every key is optional. A bad value raises `SettingsError` naming the file, the key and what is
wrong,
so a typo never silently starts the board with a default.
"""

from __future__ import annotations

import shlex
import tomllib
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

DEFAULT_DATA_DIR = Path("~/.local/share/takboard")
DEFAULT_PORT = 8000
MIN_SIZE, MAX_SIZE = 3, 8
TOKEN_MIN_LENGTH = 16


class SettingsError(ValueError):
    """A setting is missing, misspelt or out of range; the message says which and where."""


@dataclass(frozen=True)
class Settings:
    size: int = 6
    layout: str = ""  # path of the LED layout file (leds.toml); "" = hardware/leds.toml
    camera: str = "auto"
    fps: float = 5.0
    serial: str = "auto"
    brightness: int = 64
    data_dir: Path = DEFAULT_DATA_DIR
    host: str = "0.0.0.0"
    port: int = DEFAULT_PORT
    token: str = ""  # empty: read or create `<data_dir>/token`
    sim: bool = False
    max_body_bytes: int = 64 * 1024
    engine: str = ""  # an external TEI engine's command line for hints; "" = the built-in engine

    def __post_init__(self) -> None:
        check(self, "<settings>")

    def with_overrides(self, **overrides: Any) -> Settings:
        """A copy with every override that is not None applied (None = not given on the CLI)."""
        given = {k: v for k, v in overrides.items() if v is not None}
        if "data_dir" in given:
            given["data_dir"] = Path(given["data_dir"])
        return replace(self, **given)

    @property
    def data_path(self) -> Path:
        return Path(self.data_dir).expanduser()


# TOML table.key -> Settings field
_TOML_KEYS: dict[tuple[str, str], str] = {
    ("board", "size"): "size",
    ("board", "layout"): "layout",
    ("camera", "source"): "camera",
    ("camera", "fps"): "fps",
    ("leds", "serial"): "serial",
    ("leds", "brightness"): "brightness",
    ("service", "data_dir"): "data_dir",
    ("service", "host"): "host",
    ("service", "port"): "port",
    ("service", "token"): "token",
    ("service", "sim"): "sim",
    ("service", "max_body_bytes"): "max_body_bytes",
    ("engine", "command"): "engine",
}


def check(s: Settings, where: str) -> None:
    def bad(key: str, why: str) -> SettingsError:
        return SettingsError(f"{where}: {key} = {getattr(s, key)!r}: {why}")

    types = {f.name: f.type for f in fields(Settings)}
    for name in ("size", "brightness", "port", "max_body_bytes"):
        value = getattr(s, name)
        if not isinstance(value, int) or isinstance(value, bool):
            raise bad(name, f"must be an integer ({types[name]})")
    if not MIN_SIZE <= s.size <= MAX_SIZE:
        raise bad("size", f"board size must be {MIN_SIZE}..{MAX_SIZE}")
    if not isinstance(s.layout, str):
        raise bad("layout", "must be the path of an LED layout file (leds.toml)")
    if not isinstance(s.fps, int | float) or not 0.5 <= s.fps <= 30:
        raise bad("fps", "must be a number between 0.5 and 30")
    if not 0 <= s.brightness <= 255:
        raise bad("brightness", "must be 0..255")
    if not 1 <= s.port <= 65535:
        raise bad("port", "must be 1..65535")
    if not 1024 <= s.max_body_bytes <= 16 * 1024 * 1024:
        raise bad("max_body_bytes", "must be 1 KiB..16 MiB")
    for name in ("camera", "serial", "host"):
        if not isinstance(getattr(s, name), str) or not getattr(s, name):
            raise bad(name, "must be a non-empty string")
    if not isinstance(s.token, str):
        raise bad("token", "must be a string")
    if s.token and (len(s.token) < TOKEN_MIN_LENGTH or not s.token.isprintable() or " " in s.token):
        raise bad("token", f"needs at least {TOKEN_MIN_LENGTH} printable characters, no spaces")
    if not isinstance(s.sim, bool):
        raise bad("sim", "must be true or false")
    if not isinstance(s.engine, str):
        raise bad("engine", "must be the command line of a TEI engine, e.g. \"tiltak tei\"")
    try:
        shlex.split(s.engine)
    except ValueError as exc:
        raise bad("engine", f"cannot split it into a command line ({exc})") from None


def load_settings(path: Path | None) -> Settings:
    """Read the TOML file (None or a missing default file: all defaults)."""
    if path is None:
        return Settings()
    try:
        raw = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise SettingsError(f"{path}: no such settings file") from exc
    except tomllib.TOMLDecodeError as exc:
        raise SettingsError(f"{path}: not valid TOML: {exc}") from exc
    values: dict[str, Any] = {}
    for table, content in raw.items():
        if not isinstance(content, dict):
            raise SettingsError(f"{path}: top-level key {table!r} must be a table like [{table}]")
        for key, value in content.items():
            field_name = _TOML_KEYS.get((table, key))
            if field_name is None:
                known = ", ".join(f"{t}.{k}" for t, k in _TOML_KEYS)
                raise SettingsError(f"{path}: unknown setting {table}.{key} (known: {known})")
            values[field_name] = Path(value) if field_name == "data_dir" else value
    try:
        return Settings(**values)
    except SettingsError as exc:
        raise SettingsError(str(exc).replace("<settings>", str(path))) from None
