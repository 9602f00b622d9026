"""Suite-wide rules: an unexpected ERROR log fails the test, and randomness is always seeded."""

from __future__ import annotations

import logging

import pytest


class _FailOnErrorLog(logging.Handler):
    def __init__(self) -> None:
        super().__init__(level=logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture(autouse=True)
def fail_on_error_log(request):
    """Any ERROR logged during a test fails it, unless the test is marked `allow_error_log`."""
    handler = _FailOnErrorLog()
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        yield handler
    finally:
        root.removeHandler(handler)
    if handler.records and not request.node.get_closest_marker("allow_error_log"):
        messages = "; ".join(r.getMessage() for r in handler.records)
        pytest.fail(f"unexpected ERROR log: {messages}")
