"""The control token: created once, kept private, reused, compared in constant time."""

from __future__ import annotations

import stat

from controller.service.token import load_or_create_token, token_matches


def test_first_start_creates_a_private_token_file_and_later_starts_reuse_it(tmp_path):
    token, created = load_or_create_token(tmp_path)
    assert created and len(token) >= 24
    path = tmp_path / "token"
    assert path.read_text().strip() == token
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    again, created_again = load_or_create_token(tmp_path)
    assert (again, created_again) == (token, False)


def test_configured_token_wins_and_is_stored(tmp_path):
    token, created = load_or_create_token(tmp_path, "a-configured-token-123")
    assert (token, created) == ("a-configured-token-123", False)
    assert (tmp_path / "token").read_text().strip() == token


def test_token_comparison():
    assert token_matches("abc", "abc")
    assert not token_matches("abc", "abd")
    assert not token_matches("abc", "")
