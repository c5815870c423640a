"""Stored games and their analyses.

A :class:`Game` keeps its record as SGF text (the single source of truth for the moves) plus the
settings and state the pages need.  Games belong to the browser session that created them
(``owner`` is the session key).  An :class:`Analysis` holds the per-move results of a whole-game
analysis, filled in by ``frontend.tasks.analyze_game``.
"""

from __future__ import annotations

from django.db import models


class Game(models.Model):
    """One game: played against the bot (``kind="play"``) or uploaded for review (``"review"``)."""

    class Kind(models.TextChoices):
        PLAY = "play", "played against the bot"
        REVIEW = "review", "uploaded for review"

    class Rules(models.TextChoices):
        CHINESE = "chinese", "Chinese (area)"
        JAPANESE = "japanese", "Japanese (territory)"

    class Phase(models.TextChoices):
        PLAYING = "playing", "playing"
        SCORING = "scoring", "marking dead stones"
        FINISHED = "finished", "finished"

    owner = models.CharField(max_length=64, db_index=True, help_text="session key of the creator")
    kind = models.CharField(max_length=8, choices=Kind.choices, default=Kind.PLAY)
    sgf = models.TextField(help_text="the game record, UTF-8 SGF")
    black_player = models.CharField(max_length=100, blank=True)
    white_player = models.CharField(max_length=100, blank=True)
    size = models.PositiveSmallIntegerField(default=19)
    handicap = models.PositiveSmallIntegerField(default=0)
    komi = models.FloatField(default=7.5)
    rules = models.CharField(max_length=16, choices=Rules.choices, default=Rules.CHINESE)
    bot_level = models.CharField(max_length=32, blank=True)
    human_color = models.CharField(max_length=1, choices=[("B", "black"), ("W", "white")], default="B")
    phase = models.CharField(max_length=8, choices=Phase.choices, default=Phase.PLAYING)
    dead = models.JSONField(default=list, blank=True, help_text="dead stones (GTP) while scoring")
    result = models.CharField(max_length=32, blank=True)
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ("-updated",)

    def __str__(self) -> str:
        return f"{self.black_player or 'Black'} vs {self.white_player or 'White'} ({self.size}x{self.size})"

    @property
    def bot_color(self) -> str:
        """``"B"`` or ``"W"``: the bot's colour in a played game."""
        return "W" if self.human_color == "B" else "B"


class Analysis(models.Model):
    """Whole-game analysis of a game: one result per position, stored as JSON."""

    class Status(models.TextChoices):
        PENDING = "pending", "waiting for a worker"
        RUNNING = "running", "running"
        DONE = "done", "done"
        CANCELLED = "cancelled", "cancelled"
        FAILED = "failed", "failed"

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="analyses")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    cancel_requested = models.BooleanField(default=False)
    total = models.PositiveIntegerField(default=0, help_text="positions to analyse")
    results = models.JSONField(default=list, blank=True, help_text="one entry per analysed position")
    error = models.TextField(blank=True)
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ("-created",)
        verbose_name_plural = "analyses"

    def __str__(self) -> str:
        return f"analysis of game {self.game_id}: {self.status} {len(self.results)}/{self.total}"

    @property
    def active(self) -> bool:
        """Whether the analysis is still queued or running."""
        return self.status in (self.Status.PENDING, self.Status.RUNNING)
