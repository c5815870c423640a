"""Which weights a checkpoint file holds, whatever its name: a short digest of its bytes.

Free of torch, so that the web process can name the networks its bot levels play with without
loading them.
"""

from __future__ import annotations

import hashlib
import os
import re

DIGITS = 12
_FOUND = re.compile(r"\bsha256:[0-9a-f]+")


def fingerprint(path: str | os.PathLike) -> str:
    """Return ``sha256:`` and the first :data:`DIGITS` hex digits of the SHA-256 of the checkpoint
    file's bytes (a split checkpoint's index names each part's SHA-256, so its own digest covers
    the parts).  Raises OSError for an unreadable file.
    """
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(2**20), b""):
            digest.update(block)
    return f"sha256:{digest.hexdigest()[:DIGITS]}"


def find(text: str) -> str | None:
    """Return the first fingerprint written in ``text`` (as a GTP ``version`` reply names one), or None."""
    found = _FOUND.search(text)
    return found.group() if found else None
