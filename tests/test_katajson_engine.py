"""The KataGo analysis engine on stdin and stdout (analysis.katajson): every turn asked is
answered on a line of its own, actions are answered at once, terminations stop what they name, bad
lines get KataGo's error and the engine goes on, and the end of the input waits for the turns
queued.  The searches are the review's, with the shipped default network, on small 9x9 budgets."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterable, Iterator

from analysis.gtp.stream import MAX_LINE, TooLong
from analysis.katajson.engine import AnalysisEngine
from analysis.katajson.query import Limits

LIMITS = Limits(default_visits=8, max_visits=200_000, max_turns=100)
OPENING = [["B", "E5"], ["W", "C3"], ["B", "G7"]]


def answers(lines: Iterable[str | bytes]) -> list[dict]:
    """Run an engine over ``lines`` and return its responses in the order written."""
    out = io.StringIO()
    AnalysisEngine(out, LIMITS).run(lines)
    return [json.loads(line) for line in out.getvalue().splitlines()]


def query(**fields: object) -> str:
    return json.dumps({"boardXSize": 9, "moves": OPENING, "maxVisits": 8, **fields})


def test_every_turn_asked_is_answered_on_its_own_line_and_actions_at_once() -> None:
    got = answers([query(id="a", analyzeTurns=[0, 3, 1]), '{"id": "v", "action": "query_version"}'])
    assert got[0] == {"id": "v", "action": "query_version", "version": got[0]["version"], "git_hash": None}
    turns = [(r["id"], r["turnNumber"], r["isDuringSearch"]) for r in got[1:]]
    assert turns == [("a", 0, False), ("a", 3, False), ("a", 1, False)]
    assert [r["rootInfo"]["currentPlayer"] for r in got[1:]] == ["B", "W", "W"]
    assert all(r["rootInfo"]["visits"] == 8 and r["moveInfos"] for r in got[1:])


def test_bad_lines_get_katagos_error_and_the_engine_goes_on() -> None:
    got = answers([
        "not json",
        '{"id": "n", "komi": NaN}',
        json.dumps({"id": "m", "boardXSize": 9, "moves": [["B", "E5"], ["W", "E5"]]}),
        json.dumps({"id": "t", "analyzeTurns": [9]}),
        TooLong(b"x" * 16),
        json.dumps({"id": "x", "action": "fly"}),
        query(id="ok", includePVVisits=True),
    ])
    assert got[0]["error"].startswith("the query is not valid JSON")
    assert got[1] == {"error": "the query is not valid JSON: NaN is not a JSON number"}
    assert got[2]["id"] == "m" and got[2]["field"] == "moves" and "illegal move" in got[2]["error"]
    assert got[3]["field"] == "analyzeTurns"
    assert got[4] == {"error": f"the line is longer than {MAX_LINE} bytes: not read"}
    assert got[5]["field"] == "action"
    assert got[6] == {"id": "ok", "warning": "not applied by this engine", "field": "includePVVisits"}
    assert got[7]["id"] == "ok" and got[7]["turnNumber"] == 3


def paced(*steps: str | float) -> Iterator[str]:
    """Yield the lines of ``steps``, sleeping where a step is a number of seconds."""
    for step in steps:
        if isinstance(step, str):
            yield step
        else:
            time.sleep(step)


def test_terminate_stops_the_running_search_and_answers_turns_not_begun_with_no_results() -> None:
    long = json.dumps({"id": "long", "boardXSize": 19, "maxVisits": 200_000, "analyzeTurns": [0]})
    queued = query(id="queued", analyzeTurns=[1, 2])
    started = time.monotonic()
    first = '{"id": "t1", "action": "terminate", "terminateId": "long"}'
    second = '{"id": "t2", "action": "terminate", "terminateId": "queued", "turnNumbers": [2]}'
    got = answers(paced(long, queued, 1.5, first, second))
    assert time.monotonic() - started < 60
    by_id = {(r["id"], r.get("turnNumber")): r for r in got}
    assert by_id[("t1", None)] == {"id": "t1", "action": "terminate", "terminateId": "long"}
    assert by_id[("t2", None)] == {**json.loads(second), "turnNumbers": [2]}
    stopped = by_id[("long", 0)]
    assert stopped["isDuringSearch"] is False and 1 <= stopped["rootInfo"]["visits"] < 200_000
    assert by_id[("queued", 1)]["rootInfo"]["visits"] == 8  # not named: searched
    assert by_id[("queued", 2)] == {"id": "queued", "isDuringSearch": False, "turnNumber": 2,
                                    "noResults": True}


def test_terminate_all_names_only_what_was_queued_before_it_and_clear_cache_is_acknowledged() -> None:
    long = json.dumps({"id": "long", "boardXSize": 19, "maxVisits": 200_000})
    got = answers(paced(long, query(id="before"), 1.0, '{"id": "all", "action": "terminate_all"}',
                        query(id="after"), '{"id": "c", "action": "clear_cache"}'))
    by_id = {r["id"]: r for r in got}
    assert by_id["all"] == {"id": "all", "action": "terminate_all"}
    assert by_id["c"] == {"id": "c", "action": "clear_cache"}
    assert by_id["long"]["rootInfo"]["visits"] < 200_000 and by_id["before"].get("noResults") is True
    assert by_id["after"]["rootInfo"]["visits"] == 8  # asked after the termination: searched


def test_the_command_answers_stdin_on_stdout_and_waits_for_the_turns_queued_at_the_end() -> None:
    lines = [query(id="q", analyzeTurns=[2, 3]), '{"id": "v", "action": "query_version"}']
    done = subprocess.run(
        [sys.executable, "-m", "analysis.katajson", "--default-visits", "4"],
        input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=300,
        env={**os.environ, "PYTHONPATH": "."},
    )
    assert done.returncode == 0, done.stderr
    got = [json.loads(line) for line in done.stdout.splitlines()]
    assert got[0]["action"] == "query_version"
    assert [(r["id"], r["turnNumber"]) for r in got[1:]] == [("q", 2), ("q", 3)]
    assert all(r["maxVisits"] == 8 for r in got[1:])  # the query's own maxVisits


def test_reading_and_searching_run_side_by_side() -> None:
    out = io.StringIO()
    engine = AnalysisEngine(out, LIMITS)
    done = threading.Event()
    long = json.dumps({"id": "long", "boardXSize": 19, "maxVisits": 200_000})
    version, stop = '{"id": "v", "action": "query_version"}', '{"id": "t", "action": "terminate_all"}'
    lines = paced(long, 0.5, version, 1.0, stop)
    thread = threading.Thread(target=lambda: (engine.run(lines), done.set()))
    thread.start()
    time.sleep(1.0)
    assert '"query_version"' in out.getvalue() and '"long"' not in out.getvalue()  # answered mid-search
    assert done.wait(60)


def test_a_search_asked_to_report_during_search_does_so_before_its_final_response() -> None:
    long = json.dumps({"id": "live", "boardXSize": 19, "maxVisits": 200_000, "reportDuringSearchEvery": 0.2})
    got = answers(paced(long, 1.5, '{"id": "t", "action": "terminate", "terminateId": "live"}'))
    live = [r for r in got if r["id"] == "live"]
    during, final = live[:-1], live[-1]
    assert len(during) >= 2 and all(r["isDuringSearch"] for r in during) and final["isDuringSearch"] is False
    visits = [r["rootInfo"]["visits"] for r in live]
    assert visits == sorted(visits) and visits[0] < visits[-1]
    assert all(r["moveInfos"] and r["turnNumber"] == 0 for r in live)
    bad = answers([query(id="b", reportDuringSearchEvery=0)])
    assert bad[0]["field"] == "reportDuringSearchEvery"
