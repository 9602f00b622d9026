"""Simulated camera: renders a board state through a pinhole camera into realistic frames."""
