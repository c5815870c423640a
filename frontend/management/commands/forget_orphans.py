"""``python manage.py forget_orphans``: delete the games no one can open any more."""

from __future__ import annotations

import argparse

from django.core.management.base import BaseCommand

from frontend.services.orphans import forget_orphans, orphans


class Command(BaseCommand):
    """Deletes expired sessions and the games of expired sessions without an account or share link."""

    help = ("Delete the expired browser sessions and the games only they owned (no account, no share "
            "link, unchanged for SESSION_COOKIE_AGE); --dry-run counts them.")

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--dry-run", action="store_true", help="count the games, delete nothing")

    def handle(self, *args: object, dry_run: bool = False, **options: object) -> None:
        """Delete (or count) the orphaned games and say how many."""
        if dry_run:
            self.stdout.write(f"{orphans().count()} games would be deleted")
            return
        self.stdout.write(f"{forget_orphans()} games deleted")
