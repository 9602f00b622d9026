"""Settings: TOML file, CLI overrides, and refusals that name the file and the key."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.commands import serve
from controller.service.config import Settings, SettingsError, load_settings


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "takboard.toml"
    path.write_text(text)
    return path


def test_defaults_without_a_file():
    s = load_settings(None)
    assert (s.port, s.size, s.camera, s.serial) == (8000, 6, "auto", "auto")


def test_file_values_then_command_line_overrides(tmp_path):
    path = write(tmp_path, '[board]\nsize = 5\n[service]\nport = 9000\ndata_dir = "/tmp/x"\n'
                 '[camera]\nsource = "/dev/video2"\n[leds]\nserial = "/dev/ttyUSB1"\n')
    s = load_settings(path)
    assert (s.size, s.port, s.camera, s.serial, s.data_dir) == (
        5, 9000, "/dev/video2", "/dev/ttyUSB1", Path("/tmp/x"))
    s2 = s.with_overrides(port=8123, size=None, sim=True)
    assert (s2.port, s2.size, s2.sim) == (8123, 5, True)


def test_unknown_key_is_named_with_the_file(tmp_path):
    path = write(tmp_path, "[board]\nsise = 5\n")
    with pytest.raises(SettingsError, match=r"takboard.toml: unknown setting board.sise"):
        load_settings(path)


def test_out_of_range_value_names_file_key_and_limit(tmp_path):
    path = write(tmp_path, "[board]\nsize = 9\n")
    with pytest.raises(SettingsError, match=r"takboard.toml: size = 9: board size must be 3..8"):
        load_settings(path)


def test_bad_toml_says_so(tmp_path):
    path = write(tmp_path, "[board\n")
    with pytest.raises(SettingsError, match="not valid TOML"):
        load_settings(path)


def test_short_token_is_refused():
    with pytest.raises(SettingsError, match="token"):
        Settings(token="short")


def test_serve_flags_override_the_file(tmp_path):
    path = write(tmp_path, "[service]\nport = 9000\n")
    parser = serve.add_parser(__import__("argparse").ArgumentParser().add_subparsers())
    args = parser.parse_args(["--config", str(path), "--port", "8111", "--size", "4", "--sim",
                              "--data", str(tmp_path)])
    s = serve.settings_from_args(args)
    assert (s.port, s.size, s.sim, s.data_dir) == (8111, 4, True, tmp_path)


def test_serve_flag_out_of_range_is_blamed_on_the_command_line(tmp_path):
    parser = serve.add_parser(__import__("argparse").ArgumentParser().add_subparsers())
    args = parser.parse_args(["--size", "12", "--data", str(tmp_path)])
    with pytest.raises(SettingsError, match="command line: size = 12"):
        serve.settings_from_args(args)
