"""Who this program is: its name, its version (pyproject.toml's) and the commit it runs, as the GTP
engine, the KataGo JSON engine and the records of games played on the site give them."""

from __future__ import annotations

import functools
import re
import subprocess
import tomllib
from pathlib import Path

NAME = "goweb"
ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = ROOT / "pyproject.toml"
NO_GIT_HASH = "<omitted>"  # KataGo's git_hash when it was built without git


@functools.cache
def version() -> str:
    """Return the engine's version, its pyproject.toml's."""
    with PYPROJECT.open("rb") as f:
        return tomllib.load(f)["project"]["version"]


@functools.cache
def git_hash() -> str:
    """Return the commit this code was checked out at, or KataGo's ``<omitted>`` when git cannot
    say (no git, or no repository: an installed copy)."""
    try:
        done = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                              timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return NO_GIT_HASH
    commit = done.stdout.strip()
    return commit if done.returncode == 0 and re.fullmatch(r"[0-9a-f]{40,64}", commit) else NO_GIT_HASH
