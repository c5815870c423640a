"""Stored games and their analyses.

A :class:`Game` keeps its record as SGF text (the single source of truth for the moves) plus the
settings and state the pages need.  A game belongs to an account (``user``) or, when it was made
without one, to the browser session that created it (``owner`` is the session key); its owner may
share its review read-only through ``share_token``.  An :class:`Analysis` holds the per-move results
of a whole-game analysis, filled in by ``frontend.tasks.analyze_game``.  A :class:`Job` is one
piece of work queued or running for someone: the ledger of the per-user cap
(:mod:`frontend.services.jobs`).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone

from analysis.play.clock import SYSTEMS, TimeControl


class Game(models.Model):
    """One game: played against the bot (``kind="play"``) or uploaded for review (``"review"``)."""

    class Kind(models.TextChoices):
        PLAY = "play", "played against the bot"
        REVIEW = "review", "uploaded for review"

    class Rules(models.TextChoices):
        CHINESE = "chinese", "Chinese (area)"
        JAPANESE = "japanese", "Japanese (territory)"
        AGA = "aga", "AGA (area)"
        TROMP_TAYLOR = "tromp-taylor", "Tromp-Taylor (area)"

    class Phase(models.TextChoices):
        PLAYING = "playing", "playing"
        SCORING = "scoring", "marking dead stones"
        FINISHED = "finished", "finished"

    owner = models.CharField(max_length=64, db_index=True, help_text="session key of the creator")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="games",
        help_text="the account that owns the game; none for a game of an anonymous session",
    )
    share_token = models.CharField(
        max_length=32, unique=True, null=True, blank=True, help_text="the read-only review link's token"
    )
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
    time_system = models.CharField(
        max_length=8, choices=[(s, s) for s in SYSTEMS], default="none",
        help_text="the clock (analysis.play.clock): none, byoyomi (with no periods: absolute), canadian "
                  "or fischer",
    )
    time_main = models.PositiveIntegerField(default=0, help_text="main time, seconds")
    time_period = models.PositiveIntegerField(
        default=0, help_text="a byo-yomi or Canadian period, or Fischer's increment, seconds"
    )
    time_periods = models.PositiveSmallIntegerField(
        default=0, help_text="byo-yomi periods, or the moves to make in a Canadian period"
    )
    clock = models.JSONField(
        default=dict, blank=True,
        help_text='each player\'s time left, {"B": [main seconds, periods], "W": [...]} (Canadian '
                  'overtime: the period\'s seconds and moves left), "turn": the colour '
                  'whose clock runs, and "since": when its turn started (Unix seconds; both null while no '
                  "clock runs)",
    )
    result = models.CharField(max_length=32, blank=True)
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ("-updated",)

    def __str__(self) -> str:
        return f"{self.black_player or 'Black'} vs {self.white_player or 'White'} ({self.size}x{self.size})"

    @property
    def time_control(self) -> TimeControl:
        """The game's time control."""
        return TimeControl(self.time_system, self.time_main, self.time_period, self.time_periods)

    @property
    def bot_color(self) -> str:
        """``"B"`` or ``"W"``: the bot's colour in a played game."""
        return other(self.human_color)


def other(color: str) -> str:
    """Return the other colour's letter (``"B"`` or ``"W"``)."""
    return "W" if color == "B" else "B"


def review_visits() -> int:
    """Return ``GOWEB_REVIEW_VISITS``: the visits of an analysis that names none (the normal depth)."""
    return settings.GOWEB_REVIEW_VISITS


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
    visits = models.PositiveIntegerField(default=review_visits, help_text="search visits per position")
    record_fingerprint = models.CharField(
        max_length=64, blank=True, help_text="the analysed record's GameRecord.fingerprint(), or empty"
    )
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


class Job(models.Model):
    """One piece of work queued or running for a requester: a bot move, a position analysis or a
    whole-game analysis.

    ``owner`` is whom the work counts against (``user:ID``, ``session:KEY``, ``client:ADDRESS``, or
    ``game:ID`` for a game's bot moves); each of its slots ``0 .. cap - 1`` holds at most one job of
    a kind, which makes the cap hold however many processes take slots at once.  The client
    ``address`` that asked (blank: none known) has slots of its own, ``address_slot``, for all its
    owners' jobs of every kind together (null: not counted).  ``payload`` is the
    task's input, which a newer request replaces while the job is still pending.  ``dispatched``
    and ``broker_run`` say when, and under which run of the broker, its task was last queued: a
    pending job whose task may have been lost is queued again (:func:`frontend.services.jobs.request`).
    """

    class Kind(models.TextChoices):
        BOT = "bot", "bot move"
        POSITION = "position", "position analysis"
        GAME = "game", "whole-game analysis"

    class State(models.TextChoices):
        PENDING = "pending", "queued"
        RUNNING = "running", "running"

    owner = models.CharField(max_length=80)
    kind = models.CharField(max_length=8, choices=Kind.choices)
    slot = models.PositiveSmallIntegerField()
    game = models.ForeignKey(Game, null=True, blank=True, on_delete=models.CASCADE, related_name="jobs")
    state = models.CharField(max_length=8, choices=State.choices, default=State.PENDING)
    payload = models.JSONField(default=dict, blank=True)
    reply_channel = models.CharField(max_length=200, blank=True)
    created = models.DateTimeField(auto_now_add=True)
    heartbeat = models.DateTimeField(auto_now=True, help_text="last sign of life: queued, started, progress")
    dispatched = models.DateTimeField(default=timezone.now, help_text="when its task was last queued")
    broker_run = models.CharField(
        max_length=64, blank=True, help_text="the broker's run its task was queued under (Redis's run_id)"
    )
    address = models.CharField(
        max_length=64, blank=True, help_text="the client address it also counts against"
    )
    address_slot = models.PositiveSmallIntegerField(null=True, blank=True)

    class Meta:
        ordering = ("created",)
        constraints = (
            models.UniqueConstraint(fields=["owner", "kind", "slot"], name="one_job_per_slot"),
            models.UniqueConstraint(fields=["address", "address_slot"], name="one_job_per_address_slot"),
        )
        indexes = (models.Index(fields=["owner", "kind", "game", "state"]),)

    def __str__(self) -> str:
        return f"{self.get_kind_display()} of {self.owner} (slot {self.slot}): {self.state}"
