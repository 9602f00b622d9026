"""Game journal (SQLite, crash-safe) and PTN export."""
