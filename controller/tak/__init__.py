"""Rules engine: position, plies, PTN, TPS, perft. Standard library only; imports nothing from the project."""
