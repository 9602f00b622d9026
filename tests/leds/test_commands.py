"""`takboard leds test|demo|button` end to end on the emulated board, and their clear errors."""

from __future__ import annotations

from controller import cli


def test_wiring_test_walks_every_square_on_the_emulated_board(capsys, firmware_built, tmp_path):
    config = tmp_path / "leds.toml"
    config.write_text("[board]\nsize = 4\n")
    status = cli.main(["leds", "test", "--port", "sim", "--config", str(config), "--seconds", "0"])
    out = capsys.readouterr().out
    assert status == 0, out
    assert "square a1: LED 0" in out and "square a2: LED 7" in out  # serpentine: a2 ends rank 2
    assert "square d4: LED 12" in out
    assert "17 frames acked, 0 retries" in out  # 16 squares and the final all-off
    # the picture is what the emulated LEDs latched: d4 lit white in its step
    assert "\x1b[48;2;200;200;200m" in out


def test_a_bad_config_or_port_is_a_clear_error(capsys, tmp_path):
    bad = tmp_path / "leds.toml"
    bad.write_text('[chain]\nwiring = "zigzag"\n')
    assert cli.main(["leds", "test", "--config", str(bad)]) == 2
    assert "chain.wiring must be one of 'row-major', 'serpentine', got 'zigzag'" in (
        capsys.readouterr().err
    )
    assert cli.main(["leds", "demo", "--port", str(tmp_path / "ttyNONE")]) == 2
    assert "no such port" in capsys.readouterr().err


def test_demo_cycles_every_scene_on_the_emulated_board(capsys, firmware_built, tmp_path):
    config = tmp_path / "leds.toml"
    config.write_text("[board]\nsize = 5\n")
    status = cli.main(
        ["leds", "demo", "--port", "sim", "--config", str(config), "--seconds", "0", "--no-picture"]
    )
    out = capsys.readouterr().out
    assert status == 0, out
    for title in (
        "idle",
        "last move 2a1>11",
        "hint 3a1>21",
        "illegal move",
        "resync",
        "setup",
        "road win for player 1",
        "road win for player 2",
        "all off",
    ):
        assert title in out
    assert "frames acked, 0 retries, 0 errors" in out


def test_button_prints_the_presses_of_the_emulated_button(capsys, firmware_built, tmp_path):
    config = tmp_path / "leds.toml"
    config.write_text("[board]\nsize = 5\n")
    status = cli.main(
        ["leds", "button", "--port", "sim", "--config", str(config), "--seconds", "20",
         "--presses", "2"]
    )
    out = capsys.readouterr().out
    assert status == 0, out
    assert "firmware 1.1.0" in out
    assert " s  press 1" in out and " s  press 2" in out and "2 presses" in out
