"""`takboard tei`: takboard's engine speaking TEI on stdin/stdout (match runners, PTN editors)."""

from __future__ import annotations

import argparse


def add_parser(subparsers) -> argparse.ArgumentParser:
    return subparsers.add_parser(
        "tei",
        help="run the engine as a TEI engine on stdin/stdout",
        description="Speak the Tak Engine Interface on stdin/stdout (v0, and v1 size/halfkomi "
        "negotiation). Type 'tei' to start; 'quit' to leave.",
    )


def run(args) -> int:
    from controller.engine.tei_server import serve

    return serve()
