"""The work one requester may have queued or running: a ledger of jobs in the database.

Each kind of work has a cap per owner: ``GOWEB_MAX_POSITION_ANALYSES`` position analyses and
``GOWEB_MAX_GAME_ANALYSES`` whole-game analyses per user (an account, a browser session, or an
address on the API), and two bot moves per game (one thinking, one waiting).  The client address
that asked has a cap of its own, ``GOWEB_MAX_ADDRESS_JOBS`` jobs of every kind and owner together,
so that a client cannot multiply its caps by opening sessions or games.  A job takes one of its
owner's numbered slots, and one of its address's, each unique in the database, so the caps hold
across web processes and Celery workers alike.  A newer request of the same owner for the same
game replaces the request of a job that has not started: the queued task runs the newest request
when a worker takes it, so a flood of requests leaves one job waiting, never hundreds.

A job is deleted when its task ends.  One whose task was lost (no sign of life for twice the
broker's visibility timeout) no longer counts.  A waiting job whose task may have been lost (queued
under an earlier run of the broker, or longer ago than ``GOWEB_TASK_START_TIMEOUT``) has its task
queued again by the next request for it: the first of its tasks to run does the work, and a later
one finds the job gone (or the game moved on) and skips it, so the work is done once.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from frontend.models import Job
from frontend.services import broker

Kind = Job.Kind
State = Job.State
BOT_MOVES_PER_GAME = 2  # the move being thought about, and the one asked for since (after an undo)


class CapReached(ValueError):
    """The requester (or its address) already has as much of this kind of work queued or running as
    allowed."""


class AddressCapReached(CapReached):
    """The requester's client address already has ``GOWEB_MAX_ADDRESS_JOBS`` jobs queued or running."""


@dataclass(frozen=True)
class Ticket:
    """A request taken: its ``job`` id, and whether it is ``new`` (its task must be queued) or
    replaced the request of a job still waiting (whose task is queued already)."""

    job: int
    new: bool


def cap(kind: str) -> int:
    """Return how many jobs of ``kind`` one owner may have queued or running."""
    if kind == Kind.POSITION:
        return settings.GOWEB_MAX_POSITION_ANALYSES
    if kind == Kind.GAME:
        return settings.GOWEB_MAX_GAME_ANALYSES
    return BOT_MOVES_PER_GAME


def cap_message(kind: str) -> str:
    """Return what a requester over the cap of ``kind`` is told."""
    limit = cap(kind)
    if kind == Kind.GAME:
        what = "whole-game analysis" if limit == 1 else "whole-game analyses"
        return (
            f"too much work queued: you already have {limit} {what} queued or running; "
            "wait for it to finish or cancel it"
        )
    what = "position analysis" if limit == 1 else "position analyses"
    return f"too much work queued: you already have {limit} {what} queued or running; wait for one to finish"


def address_cap_message() -> str:
    """Return what a requester over its address's cap is told."""
    return (f"too much work queued from your address (at most {settings.GOWEB_MAX_ADDRESS_JOBS} analyses "
            "or bot moves at once); wait for one to finish")


def lease() -> timedelta:
    """Return how long a job may go without a sign of life before it stops counting (its task was lost)."""
    return timedelta(seconds=2 * settings.GOWEB_TASK_VISIBILITY_TIMEOUT)


def request(
    owner: str,
    kind: str,
    payload: dict,
    *,
    game_id: int | None = None,
    reply_channel: str = "",
    replace: bool = True,
    address: str | None = None,
) -> Ticket:
    """Take a slot of ``owner``'s cap of ``kind`` for ``payload``, and one of its client
    ``address``'s (None: not counted), or, with ``replace``, give ``payload`` to the job of the same
    owner, kind and game that is still waiting.

    Returns the Ticket (``new`` too when the waiting job's task may have been lost: see
    :func:`maybe_lost`); raises CapReached (with the message for the requester) when every slot of
    the owner or the address is taken, and redis.RedisError when the broker cannot be reached.
    """
    run = broker.current_run()
    with transaction.atomic():
        if replace and game_id is not None:
            waiting = Job.objects.filter(owner=owner, kind=kind, game_id=game_id, state=State.PENDING)
            replaced = waiting.select_for_update().order_by("pk").first()  # one request requeues it
            if replaced is not None:
                now = timezone.now()
                fields = {"payload": payload, "reply_channel": reply_channel, "heartbeat": now}
                lost = maybe_lost(replaced, run, now)
                if lost:
                    fields.update(dispatched=now, broker_run=run)
                waiting.update(**fields)
                return Ticket(replaced.pk, new=lost)
        mine = Job.objects.filter(owner=owner, kind=kind)
        mine.filter(heartbeat__lt=timezone.now() - lease()).delete()
        taken = set(mine.values_list("slot", flat=True))
        free = [slot for slot in range(cap(kind)) if slot not in taken]
        if not free:
            raise CapReached(cap_message(kind))
        fields = {"owner": owner, "kind": kind, "game_id": game_id, "payload": payload,
                  "reply_channel": reply_channel, "broker_run": run, "address": address or ""}
        address_slots = free_address_slots(address)
        for slot in free:
            for address_slot in address_slots:
                try:
                    with transaction.atomic():
                        job = Job.objects.create(slot=slot, address_slot=address_slot, **fields)
                except IntegrityError:  # another process took one of these slots meanwhile
                    continue
                return Ticket(job.pk, new=True)
    raise CapReached(cap_message(kind))


def free_address_slots(address: str | None) -> list[int | None]:
    """Return the slots of ``address``'s cap that no live job holds (``[None]``, no slot, for no
    address or no cap: ``GOWEB_MAX_ADDRESS_JOBS`` 0); raises CapReached when every one is taken."""
    limit = settings.GOWEB_MAX_ADDRESS_JOBS
    if not address or limit <= 0:
        return [None]
    held = Job.objects.filter(address=address)
    held.filter(heartbeat__lt=timezone.now() - lease()).delete()
    taken = set(held.exclude(address_slot=None).values_list("address_slot", flat=True))
    free: list[int | None] = [slot for slot in range(limit) if slot not in taken]
    if not free:
        raise AddressCapReached(address_cap_message())
    return free


def maybe_lost(job: Job, run: str, now: datetime) -> bool:
    """Return whether the task of the waiting ``job`` may have been lost: it was queued under
    another run of the broker than ``run`` (one that forgot its queues when it restarted), or no
    worker has started it in ``GOWEB_TASK_START_TIMEOUT`` seconds up to ``now``."""
    waited = now - job.dispatched
    return job.broker_run != run or waited > timedelta(seconds=settings.GOWEB_TASK_START_TIMEOUT)


def claim(job_id: int) -> Job | None:
    """Mark the job running (a sign of life) and return it with its newest request, or None when it
    is gone (cancelled, or forgotten as lost)."""
    with transaction.atomic():
        job = Job.objects.select_for_update().filter(pk=job_id).first()
        if job is None:
            return None
        job.state = State.RUNNING
        job.save(update_fields=["state", "heartbeat"])
        return job


def release(job_id: int) -> None:
    """Free the job's slot: its work is over."""
    Job.objects.filter(pk=job_id).delete()


def withdraw(job_id: int) -> bool:
    """Withdraw the request of a job whose requester has gone: a job no task has started yet is
    deleted (its task, when a worker takes it, finds it gone and skips it); a running one keeps its
    slot until its task ends and frees it.  Returns whether the job was deleted."""
    return Job.objects.filter(pk=job_id, state=State.PENDING).delete()[0] > 0


def release_game_analyses(game_id: int, analysis_ids: list[int]) -> int:
    """Free the slots of the whole-game analyses ``analysis_ids`` of game ``game_id`` (cancelled
    outright: their tasks find their job gone at their next chunk); return how many."""
    held = Job.objects.filter(kind=Kind.GAME, game_id=game_id, payload__analysis__in=analysis_ids)
    return held.delete()[0]


def forget_before(moment: datetime) -> int:
    """Delete the jobs queued before ``moment`` and return how many there were: the in-process
    runner's jobs die with the process that ran them, so a new process forgets the earlier ones."""
    return Job.objects.filter(created__lt=moment).delete()[0]
