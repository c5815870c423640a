"""KataGo's analysis engine on two streams: one JSON query a line in, one JSON response a line out.

A query's turns (``analyzeTurns``) are queued in ascending turn order and searched one at a time by
one worker thread, the highest ``priority`` (or ``priorities``, one per turn) first, the turns
queued first breaking ties, as KataGo takes them; the reading thread answers the ``action``
queries at once:

- ``query_version``: ``{"id", "action", "version", "git_hash"}``;
- ``clear_cache``: forgets the networks' evaluations kept so far (the networks stay loaded);
- ``terminate`` (``terminateId``, optionally ``turnNumbers``) and ``terminate_all`` (optionally
  ``turnNumbers``): the turns queued and not begun answer ``{"id", "turnNumber",
  "isDuringSearch": false, "noResults": true}`` at once (before the action's own answer), the one
  being searched stops and answers with the visits made; turns queued later are not touched.

With ``reportDuringSearchEvery``, a turn's search is reported every so many seconds with
``"isDuringSearch": true`` before its final response, each report with the ``policy`` and
``ownership`` asked, as KataGo's.  ``overrideSettings``' ``maxTime`` limits each turn's search
to that many seconds.  Every response is one line; an error is ``{"error", "field", "id"}`` (an
illegal move's begins with KataGo's ``Illegal move N: VERTEX``) and the engine goes on.  When
the input ends, the turns queued are searched and answered, then :meth:`AnalysisEngine.run`
returns.  Warnings are lines of their own, ``{"id", "field",
"warning"}``, written before the query's results and never inside one (KataGo's clients take a
result with a ``warning`` for a warning): a ``maxVisits`` above the cap, the ``overrideSettings``
not applied, and the fields of KataGo's not applied here (:data:`UNAPPLIED`).
"""

from __future__ import annotations

import heapq
import json
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, TextIO

from analysis.gtp.stream import MAX_LINE, TooLong
from analysis.katajson.answer import legal_moves, no_results, response, warnings
from analysis.katajson.query import (
    Job,
    Limits,
    QueryError,
    action_of,
    error,
    katago_illegal,
    parse,
    read_json,
    version_reply,
)
from analysis.mcts import NetEvaluator, Search
from analysis.nets import registry
from analysis.nets.zoo import Zoo, shipped
from analysis.review import networks
from analysis.review.analyze import answer_query

UNAPPLIED = ("includeOwnershipStdev", "includeMovesOwnership", "includePVVisits",
             "analysisPVLen")  # KataGo's fields read but not applied here


@dataclass(order=True)
class _Queued:
    """A turn waiting to be searched, in the order it is taken: the highest ``priority`` first, then
    the one queued first (``number``)."""

    rank: tuple[int, int]  # (-priority, number)
    job: Job = field(compare=False)


@dataclass
class _Running:
    """The turn being searched: its job, its search once made, and whether it was terminated
    (before its search was made, it stops as soon as it is)."""

    job: Job
    search: Search | None = None
    stopped: bool = False


class AnalysisEngine:
    """Answers KataGo analysis queries read from ``lines`` on ``out``, searching with the shipped
    networks (``zoo``) on ``device`` (None: this process's own) within ``limits``."""

    def __init__(
        self, out: TextIO, limits: Limits, zoo: Zoo | None = None, device: str | None = None
    ) -> None:
        self.out = out
        self.limits = limits
        self.zoo = zoo or shipped()
        self.device = device
        self._write_lock = threading.Lock()
        self._lock = threading.Lock()  # guards the queue, the turn running and the evaluators
        self._ready = threading.Condition(self._lock)  # a turn was queued, or the input ended
        self._queue: list[_Queued] = []  # a heap: the next turn to search first
        self._queued = 0  # turns queued so far
        self._ended = False  # the input ended: no turn will be queued
        self._running: _Running | None = None
        self._evaluators: dict[str, NetEvaluator] = {}

    def run(self, lines: Iterable[bytes | str]) -> None:
        """Answer every line of ``lines``, then the turns still queued; return when all are answered."""
        worker = threading.Thread(target=self._work, name="katajson-search", daemon=True)
        worker.start()
        try:
            for line in lines:
                if isinstance(line, TooLong):
                    self._write({"error": f"the line is longer than {MAX_LINE} bytes: not read"})
                elif line.strip():
                    self.handle(line)
        finally:
            with self._ready:
                self._ended = True
                self._ready.notify()
            worker.join()

    def handle(self, line: bytes | str) -> None:
        """Answer one input line: an action at once, a query's turns once searched (queued, after
        the query's warnings are written)."""
        query: Any = None
        try:
            query = read_json(line)
            action = action_of(query)
            if action is not None:
                self._write(self._act(action, query))
                return
            jobs = parse(query, self.limits, self._pick_name)
        except QueryError as e:
            self._write(error(katago_illegal(e, query), query))
            return
        for name in UNAPPLIED:
            if name in query:
                self._write({"id": query.get("id"), "warning": "not applied by this engine", "field": name})
        for warning in warnings(jobs[0], applies_max_time=True):  # the query's: its turns share them
            self._write(warning)
        with self._ready:
            for job in jobs:
                heapq.heappush(self._queue, _Queued((-job.priority, self._queued), job))
                self._queued += 1
            self._ready.notify()

    def _act(self, action: str, query: dict) -> dict:
        """Do ``action`` and return its answer; raises QueryError for a malformed one."""
        if action == "query_version":
            return version_reply(query)
        reply = {"id": query.get("id"), "action": action}
        if action == "clear_cache":
            with self._lock:
                self._evaluators.clear()
            return reply
        turns = _turn_numbers(query)
        if action == "terminate" and "terminateId" not in query:
            raise QueryError("'terminateId' is missing: the id of the query to terminate", "terminateId")
        if action == "terminate":
            reply["terminateId"] = query["terminateId"]

        def named(job: Job) -> bool:
            return ((action == "terminate_all" or job.id == query["terminateId"])
                    and (turns is None or job.turn in turns))

        with self._lock:
            dropped = [entry for entry in self._queue if named(entry.job)]
            if dropped:
                self._queue = [entry for entry in self._queue if not named(entry.job)]
                heapq.heapify(self._queue)
            running = self._running
            if running is not None and named(running.job):
                running.stopped = True
                if running.search is not None:
                    running.search.stop()
        for entry in sorted(dropped, key=lambda entry: entry.rank[1]):  # in the order they came
            self._write(no_results(entry.job))
        if turns is not None:
            reply["turnNumbers"] = sorted(turns)
        return reply

    def _work(self) -> None:
        """Search the queued turns, the highest priority first, until the input ended and none is left."""
        while (job := self._next()) is not None:
            try:
                self._write(self._answer(job))
            except Exception as e:  # a fault of ours: said, and the engine goes on
                self._write({"id": job.id, "turnNumber": job.turn, "error": f"analysis failed: {e}"})
            finally:
                with self._lock:
                    self._running = None

    def _next(self) -> Job | None:
        """Wait for a turn to search and return it, marked as running (None: the input ended and no
        turn is left)."""
        with self._ready:
            while not self._queue and not self._ended:
                self._ready.wait()
            if not self._queue:
                return None
            job = heapq.heappop(self._queue).job
            self._running = _Running(job)
            return job

    def _answer(self, job: Job) -> dict:
        """Search ``job``'s turn (marked running) and return its response; its ``maxTime`` stops the
        search once that many seconds have passed since it was made."""
        query = job.query
        search = registry.pick(query.network, "search", query.size, self.device, self.zoo)
        policy_net = None
        if search.asked:  # a network without a value head gives the candidates, the search's default the rest
            policy_net = networks.network(registry.pick(query.network, "next", query.size, self.device,
                                                        self.zoo).path, self.device)

        timers: list[threading.Timer] = []

        def searching(tree: Search) -> None:
            with self._lock:
                running = self._running
                assert running is not None and running.job is job
                running.search = tree
                if running.stopped:
                    tree.stop()
            if job.max_time is not None:
                timer = threading.Timer(job.max_time, tree.stop)
                timer.daemon = True
                timer.start()
                timers.append(timer)

        legal = legal_moves(job) if job.include_policy else None

        def report(analysis: dict) -> None:
            self._write(response(job, analysis, during_search=True, warn=False, legal=legal))

        progress = report if job.report_every is not None else None
        try:
            analysis = answer_query(query, self._evaluator(search.path), policy_net, searching=searching,
                                    progress=progress, every=job.report_every or 1.0)
        finally:
            for timer in timers:
                timer.cancel()
        return response(job, analysis, warn=False, legal=legal)

    def _evaluator(self, path: Any) -> NetEvaluator:
        """Return this engine's evaluator of the network at ``path``, with its cache of evaluations."""
        with self._lock:
            key = str(path)
            if key not in self._evaluators:
                self._evaluators[key] = NetEvaluator(networks.network(path, self.device))
            return self._evaluators[key]

    def _pick_name(self, name: str, size: int) -> str:
        """Return the name of the shipped network ``name`` (the next-move default if empty) for ``size``."""
        return registry.pick(name, "next", size, self.device, self.zoo).name

    def _write(self, message: dict) -> None:
        """Write ``message`` as one line of JSON and flush it."""
        with self._write_lock:
            self.out.write(json.dumps(message, allow_nan=False) + "\n")
            self.out.flush()


def _turn_numbers(query: dict) -> set[int] | None:
    """Return a terminate action's ``turnNumbers`` (None: all turns); raises QueryError."""
    turns = query.get("turnNumbers")
    if turns is None:
        return None
    if not isinstance(turns, list) or not all(isinstance(t, int) and not isinstance(t, bool) for t in turns):
        raise QueryError("'turnNumbers' must be a list of turn numbers", "turnNumbers")
    return set(turns)
