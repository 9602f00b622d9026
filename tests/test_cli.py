"""The `takboard` command line: every subcommand answers --help."""

from __future__ import annotations

import subprocess
import sys

import pytest

from controller import cli


def subcommand_names() -> list[str]:
    parser = cli.build_parser()
    action = next(a for a in parser._actions if a.dest == "command")
    return sorted(action.choices)


def test_top_level_help_lists_every_subcommand(capsys):
    with pytest.raises(SystemExit) as stop:
        cli.main(["--help"])
    assert stop.value.code == 0
    out = capsys.readouterr().out
    for name in subcommand_names():
        assert name in out


@pytest.mark.parametrize("name", subcommand_names())
def test_every_subcommand_has_help(name, capsys):
    with pytest.raises(SystemExit) as stop:
        cli.main([name, "--help"])
    assert stop.value.code == 0
    assert "usage: takboard" in capsys.readouterr().out


def test_console_script_runs():
    done = subprocess.run(
        [sys.executable, "-m", "controller.cli", "--version"], capture_output=True, text=True
    )
    assert done.returncode == 0
    assert done.stdout.startswith("takboard ")


def test_bench_lists_scripts(capsys):
    assert cli.main(["bench"]) == 0
    assert "benchmarks:" in capsys.readouterr().out


def test_unknown_bench_is_a_clear_error(capsys):
    assert cli.main(["bench", "no-such-bench"]) == 2
    assert "no benchmark 'no-such-bench'" in capsys.readouterr().err
