"""``python manage.py train ...``: the same command as ``python -m analysis.train``."""

from __future__ import annotations

import sys

from django.core.management.base import BaseCommand

from analysis.train.__main__ import main


class Command(BaseCommand):
    """Forwards its arguments unchanged to the engine's training command."""

    help = "Train a network: the arguments of `python -m analysis.train` (see --help)."

    def run_from_argv(self, argv: list[str]) -> None:
        """Run training with everything after ``manage.py train``; exit with its status."""
        sys.exit(main(argv[2:]))
