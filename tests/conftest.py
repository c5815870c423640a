"""Suite-wide fixtures."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture(scope="session", autouse=True)
def _remove_the_test_databases_journal() -> Iterator[None]:
    """Remove the write-ahead log that the file test database (goweb/settings.py) leaves beside it.

    The engine's tests run without Django too (a lent GPU machine has none): then there is none.
    """
    yield
    try:
        from django.conf import settings
    except ImportError:
        return
    name = settings.DATABASES["default"].get("TEST", {}).get("NAME")
    if name:
        for suffix in ("-wal", "-shm"):
            Path(name + suffix).unlink(missing_ok=True)


@pytest.fixture(autouse=True)
def _no_sockets_counted_open(monkeypatch: pytest.MonkeyPatch) -> None:
    """Start each test with no websocket counted against any client address: the test client's
    sockets all come from one, and a test that ends without closing its sockets would otherwise
    leave them counted (:mod:`frontend.services.socket_budget`, once the web tests imported it)."""
    budget = sys.modules.get("frontend.services.socket_budget")
    if budget is not None:
        monkeypatch.setattr(budget, "_addresses", {})


@pytest.fixture(autouse=True)
def _no_requests_counted() -> None:
    """Start each test with no request counted against any client's limits: the rate limits, the
    visit and parsing budgets and the login throttle keep their counters in Django's cache (the
    process's own memory in the tests), and the test client's requests all come from one address,
    so one test's requests would otherwise count in the next one's (once the web tests imported
    :mod:`frontend.services.ratelimit`)."""
    ratelimit = sys.modules.get("frontend.services.ratelimit")
    if ratelimit is not None:
        ratelimit.cache.clear()
