"""Suite-wide fixtures."""

from __future__ import annotations

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
