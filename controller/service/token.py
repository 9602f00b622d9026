"""The control token: anyone on the network may watch, only token holders may change the game.

The token lives in `<data_dir>/token` (mode 0600). On first start it is created from the OS random
source and the caller prints it once; later starts reuse it, so a phone that remembered it keeps
working.
"""

from __future__ import annotations

import hmac
import os
import secrets
from pathlib import Path

TOKEN_FILE = "token"


def load_or_create_token(data_dir: Path, configured: str = "") -> tuple[str, bool]:
    """-> (token, created_now). A token from the settings wins and is written to the file."""
    data_dir.mkdir(parents=True, exist_ok=True)
    path = data_dir / TOKEN_FILE
    if configured:
        _write_private(path, configured)
        return configured, False
    if path.exists():
        token = path.read_text(encoding="ascii").strip()
        if len(token) >= 16:
            return token, False
    token = secrets.token_urlsafe(24)
    _write_private(path, token)
    return token, True


def token_matches(expected: str, offered: str) -> bool:
    """Constant-time comparison, so response timing says nothing about the token."""
    return hmac.compare_digest(expected.encode(), offered.encode())


def _write_private(path: Path, token: str) -> None:
    tmp = path.with_suffix(".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="ascii") as handle:
        handle.write(token + "\n")
    os.replace(tmp, path)
