"""``python manage.py gtp ...``: the same engine as ``python -m analysis.gtp``.

GUIs such as Sabaki (which starts engines in the directory of their executable)
and Lizzie cannot run ``python -m analysis.gtp`` from outside this repository;
``manage.py`` puts its own directory on ``sys.path``, so
``/path/to/repo/.venv/bin/python /path/to/repo/manage.py gtp --level mcts-2s`` works from anywhere.
"""

from __future__ import annotations

import sys

from django.core.management.base import BaseCommand

from analysis.gtp.__main__ import main


class Command(BaseCommand):
    """Forwards its arguments unchanged to the GTP engine; stdout carries only GTP."""

    help = "Speak GTP on stdin/stdout: the arguments of `python -m analysis.gtp` (see --help)."

    def run_from_argv(self, argv: list[str]) -> None:
        """Run the engine with everything after ``manage.py gtp``; exit with its status."""
        sys.exit(main(argv[2:]))
