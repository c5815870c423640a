"""KataGo's analysis engine on two streams: one JSON query a line in, one JSON response a line out.

A query's turns (``analyzeTurns``) are searched one after another, in the order the queries came,
by one worker thread, while the reading thread answers the ``action`` queries at once:

- ``query_version``: ``{"id", "action", "version", "git_hash"}``;
- ``clear_cache``: forgets the networks' evaluations kept so far (the networks stay loaded);
- ``terminate`` (``terminateId``, optionally ``turnNumbers``) and ``terminate_all`` (optionally
  ``turnNumbers``): the turns not begun answer ``{"id", "turnNumber", "isDuringSearch": false,
  "noResults": true}``, the one being searched stops and answers with the visits made.

With ``reportDuringSearchEvery``, a turn's search is reported every so many seconds with
``"isDuringSearch": true`` before its final response.  Every response is one line; an error is
``{"error", "field", "id"}`` and the engine goes on.  When
the input ends, the turns queued are searched and answered, then :meth:`AnalysisEngine.run`
returns.  Fields of KataGo's that are not applied here get a ``{"id", "warning", "field"}`` line.
"""

from __future__ import annotations

import json
import queue
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, TextIO

from analysis.gtp.stream import MAX_LINE, TooLong
from analysis.katajson.answer import no_results, response
from analysis.katajson.query import Job, Limits, QueryError, action_of, error, parse, read_json, version_reply
from analysis.mcts import NetEvaluator, Search
from analysis.nets import registry
from analysis.nets.zoo import Zoo, shipped
from analysis.review import networks
from analysis.review.analyze import answer_query

UNAPPLIED = ("priority", "priorities", "includeOwnershipStdev", "includeMovesOwnership", "includePVVisits",
             "analysisPVLen")  # KataGo's fields read but not applied here


Span = tuple[int, set[int] | None]  # a termination: the last turn queued it covers, its turn numbers or None


@dataclass
class _Terminated:
    """The terminations asked so far, each of the turns queued before it (numbered in order): by
    query id, or all, each of some turns or of all (None)."""

    queries: dict[Any, list[Span]] = field(default_factory=dict)  # by query id
    everything: list[Span] = field(default_factory=list)  # terminate_all's

    def add(self, upto: int, turns: set[int] | None, query_id: Any = None, every: bool = False) -> None:
        """Terminate the turns queued up to ``upto`` (``turns`` of them, None: all) of the query
        ``query_id``, or of every query."""
        (self.everything if every else self.queries.setdefault(query_id, [])).append((upto, turns))

    def forget_before(self, number: int) -> None:
        """Forget the terminations of turns queued before the ``number``-th (all searched or skipped:
        the turns are taken in the order they were queued), so that what is kept stays small."""
        self.everything = [span for span in self.everything if span[0] >= number]
        for query_id in [q for q, spans in self.queries.items() if all(upto < number for upto, _ in spans)]:
            del self.queries[query_id]

    def covers(self, number: int, job: Job) -> bool:
        """Whether the turn ``job``, queued ``number``-th, is terminated."""
        return any(number <= upto and (turns is None or job.turn in turns)
                   for upto, turns in (*self.everything, *self.queries.get(job.id, ())))


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
        self._jobs: queue.Queue[tuple[int, Job] | None] = queue.Queue()
        self._queued = 0  # turns queued so far
        self._lock = threading.Lock()  # guards the terminations, the search running and the evaluators
        self._terminated = _Terminated()
        self._running: tuple[int, Job, Search] | None = None
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
            self._jobs.put(None)
            worker.join()

    def handle(self, line: bytes | str) -> None:
        """Answer one input line: an action at once, a query's turns once searched (queued)."""
        query: Any = None
        try:
            query = read_json(line)
            action = action_of(query)
            if action is not None:
                self._write(self._act(action, query))
                return
            jobs = parse(query, self.limits, self._pick_name)
        except QueryError as e:
            self._write(error(e, query))
            return
        for name in UNAPPLIED:
            if name in query:
                self._write({"id": query.get("id"), "warning": "not applied by this engine", "field": name})
        with self._lock:
            for job in jobs:
                self._jobs.put((self._queued, job))
                self._queued += 1

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
        with self._lock:
            upto = self._queued - 1
            if action == "terminate":
                self._terminated.add(upto, turns, query["terminateId"])
                reply["terminateId"] = query["terminateId"]
            else:
                self._terminated.add(upto, turns, every=True)
            if self._running is not None and self._terminated.covers(*self._running[:2]):
                self._running[2].stop()
        if turns is not None:
            reply["turnNumbers"] = sorted(turns)
        return reply

    def _work(self) -> None:
        """Search the queued turns in order until the end of the input is queued."""
        while (item := self._jobs.get()) is not None:
            number, job = item
            with self._lock:
                self._terminated.forget_before(number)
                skipped = self._terminated.covers(number, job)
            if skipped:
                self._write(no_results(job))
                continue
            try:
                self._write(self._answer(number, job))
            except Exception as e:  # a fault of ours: said, and the engine goes on
                self._write({"id": job.id, "turnNumber": job.turn, "error": f"analysis failed: {e}"})
            finally:
                with self._lock:
                    self._running = None

    def _answer(self, number: int, job: Job) -> dict:
        """Search ``job``'s turn (queued ``number``-th) and return its response."""
        query = job.query
        search = registry.pick(query.network, "search", query.size, self.device, self.zoo)
        policy_net = None
        if search.asked:  # a network without a value head gives the candidates, the search's default the rest
            policy_net = networks.network(registry.pick(query.network, "next", query.size, self.device,
                                                        self.zoo).path, self.device)

        def searching(tree: Search) -> None:
            with self._lock:
                self._running = (number, job, tree)
                if self._terminated.covers(number, job):
                    tree.stop()

        def report(analysis: dict) -> None:
            self._write(response(job, analysis, during_search=True))

        progress = report if job.report_every is not None else None
        analysis = answer_query(query, self._evaluator(search.path), policy_net, searching=searching,
                                progress=progress, every=job.report_every or 1.0)
        return response(job, analysis)

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
