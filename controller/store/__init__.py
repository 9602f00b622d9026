"""Game journal (SQLite, crash-safe) and PTN export.

    from controller.store import Journal, default_db_path
    journal = Journal(default_db_path())
"""

from __future__ import annotations

import os
from pathlib import Path

from controller.store.journal import (
    GameId,
    GameRecord,
    GameSummary,
    Journal,
    JournalError,
    JournalPly,
    UnknownGameError,
)
from controller.store.ptn_export import PlyNote, game_ptn, unsure_comment

DEFAULT_DB = Path("data") / "takboard.db"


def default_db_path() -> Path:
    """`$TAKBOARD_DB` if set, else `./data/takboard.db` (relative to the working directory)."""
    return Path(os.environ.get("TAKBOARD_DB") or DEFAULT_DB)


__all__ = [
    "DEFAULT_DB",
    "GameId",
    "GameRecord",
    "GameSummary",
    "Journal",
    "JournalError",
    "JournalPly",
    "PlyNote",
    "UnknownGameError",
    "default_db_path",
    "game_ptn",
    "unsure_comment",
]
