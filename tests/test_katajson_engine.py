"""The KataGo analysis engine on stdin and stdout (analysis.katajson): every turn asked is
answered on a line of its own, actions are answered at once, terminations stop what they name, bad
lines get KataGo's error and the engine goes on, and the end of the input waits for the turns
queued.  The searches are the review's, with the shipped default network, on small 9x9 budgets."""

from __future__ import annotations

import io
import json
import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Iterable
from dataclasses import replace

from analysis.gtp.stream import MAX_LINE, TooLong
from analysis.katajson.answer import response
from analysis.katajson.engine import AnalysisEngine
from analysis.katajson.query import Limits, parse

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
    assert got[0] == {"id": "v", "action": "query_version", "version": got[0]["version"],
                      "git_hash": got[0]["git_hash"]}
    assert isinstance(got[0]["git_hash"], str) and got[0]["git_hash"]  # KataGo's is a string
    turns = [(r["id"], r["turnNumber"], r["isDuringSearch"]) for r in got[1:]]
    assert turns == [("a", 0, False), ("a", 1, False), ("a", 3, False)]  # in turn order, as KataGo
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


class Driven:
    """An engine running in a thread on lines sent one at a time, its output read as it comes."""

    def __init__(self) -> None:
        self.out, self.lines = io.StringIO(), queue.Queue()
        lines = iter(self.lines.get, None)
        self.thread = threading.Thread(target=AnalysisEngine(self.out, LIMITS).run, args=(lines,))
        self.thread.start()

    def send(self, *lines: str) -> None:
        for line in lines:
            self.lines.put(line)

    def wait_for(self, text: str, times: int = 1) -> None:
        """Wait until ``text`` was written ``times`` times (the first search loads the network)."""
        deadline = time.monotonic() + 120
        while self.out.getvalue().count(text) < times and time.monotonic() < deadline:
            time.sleep(0.05)
        assert self.out.getvalue().count(text) >= times, self.out.getvalue()[-500:]

    def end(self) -> list[dict]:
        """End the input, wait for the engine and return everything it wrote."""
        self.lines.put(None)
        self.thread.join(120)
        assert not self.thread.is_alive()
        return [json.loads(line) for line in self.out.getvalue().splitlines()]


LONG = json.dumps({"id": "long", "boardXSize": 19, "maxVisits": 200_000, "reportDuringSearchEvery": 0.1})
RUNNING = '"isDuringSearch": true'  # a report of the long search: it is running


def test_terminate_stops_the_running_search_and_answers_turns_not_begun_with_no_results() -> None:
    engine = Driven()
    engine.send(LONG, query(id="queued", analyzeTurns=[1, 2]))
    engine.wait_for(RUNNING)
    first = '{"id": "t1", "action": "terminate", "terminateId": "long"}'
    second = '{"id": "t2", "action": "terminate", "terminateId": "queued", "turnNumbers": [2]}'
    engine.send(first, second)
    got = [r for r in engine.end() if not r.get("isDuringSearch")]
    by_id = {(r["id"], r.get("turnNumber")): r for r in got}
    assert by_id[("t1", None)] == {"id": "t1", "action": "terminate", "terminateId": "long"}
    assert by_id[("t2", None)] == {**json.loads(second), "turnNumbers": [2]}
    stopped = by_id[("long", 0)]
    assert 1 <= stopped["rootInfo"]["visits"] < 200_000
    assert by_id[("queued", 1)]["rootInfo"]["visits"] == 8  # not named: searched
    assert by_id[("queued", 2)] == {"id": "queued", "isDuringSearch": False, "turnNumber": 2,
                                    "noResults": True}


def test_terminate_all_names_only_what_was_queued_before_it_and_clear_cache_is_acknowledged() -> None:
    engine = Driven()
    engine.send(LONG, query(id="before"))
    engine.wait_for(RUNNING)
    stop, clear = '{"id": "all", "action": "terminate_all"}', '{"id": "c", "action": "clear_cache"}'
    engine.send(stop, query(id="after"), clear)
    by_id = {r["id"]: r for r in engine.end() if not r.get("isDuringSearch")}
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
    assert "Started, ready to begin handling requests" in done.stderr.splitlines()  # as KataGo says it


def test_reading_and_searching_run_side_by_side() -> None:
    engine = Driven()
    engine.send(LONG)
    engine.wait_for(RUNNING)
    engine.send('{"id": "v", "action": "query_version"}')
    engine.wait_for('"query_version"')  # answered while the search runs
    engine.send('{"id": "t", "action": "terminate_all"}')
    got = engine.end()
    version = next(i for i, r in enumerate(got) if r["id"] == "v")
    final = next(i for i, r in enumerate(got) if r["id"] == "long" and not r["isDuringSearch"])
    assert version < final


def test_a_search_asked_to_report_during_search_does_so_before_its_final_response() -> None:
    engine = Driven()
    engine.send(LONG)
    engine.wait_for(RUNNING, times=3)
    engine.send('{"id": "t", "action": "terminate", "terminateId": "long"}')
    live = [r for r in engine.end() if r["id"] == "long"]
    during, final = live[:-1], live[-1]
    assert len(during) >= 3 and all(r["isDuringSearch"] for r in during) and final["isDuringSearch"] is False
    visits = [r["rootInfo"]["visits"] for r in live]
    assert visits == sorted(visits) and visits[0] < visits[-1] < 200_000
    assert all(r["moveInfos"] and r["turnNumber"] == 0 for r in live)
    bad = answers([query(id="b", reportDuringSearchEvery=0)])
    assert bad[0]["field"] == "reportDuringSearchEvery"


# KaTrain's own query (katrain/core/engine.py): its reader takes any line with a "warning" for a
# warning, so a result carrying one would never be delivered.
KATRAIN = {"rules": "japanese", "priority": 0, "analyzeTurns": [2], "maxVisits": 10, "komi": 6.5,
           "boardXSize": 19, "boardYSize": 19, "includeOwnership": True, "includeMovesOwnership": True,
           "includePolicy": True, "initialStones": [], "initialPlayer": "B",
           "moves": [["B", "Q16"], ["W", "D4"]],
           "overrideSettings": {"reportAnalysisWinratesAs": "BLACK", "maxTime": 8.0, "wideRootNoise": 0.04},
           "id": "QUERY:1"}


def test_warnings_are_lines_of_their_own_before_the_results_which_never_carry_one() -> None:
    out = io.StringIO()
    capped = json.dumps({**KATRAIN, "id": "capped", "maxVisits": 12})
    limits = Limits(default_visits=8, max_visits=10, max_turns=100)
    AnalysisEngine(out, limits).run([json.dumps(KATRAIN), capped])
    got = [json.loads(line) for line in out.getvalue().splitlines()]
    results = [r for r in got if "turnNumber" in r]
    assert [(r["id"], r["turnNumber"]) for r in results] == [("QUERY:1", 2), ("capped", 2)]
    assert not any("warning" in r for r in results)
    assert all(len(r["policy"]) == 362 and len(r["ownership"]) == 361 for r in results)
    warned = {(r["id"], r["field"]): r["warning"] for r in got if "warning" in r}
    assert warned == {
        ("QUERY:1", "includeMovesOwnership"): "not applied by this engine",
        ("QUERY:1", "overrideSettings"): "overrideSettings not applied here: wideRootNoise",  # maxTime is
        ("capped", "includeMovesOwnership"): "not applied by this engine",
        ("capped", "maxVisits"): "maxVisits 12 is above this server's cap: searched 10 visits",
        ("capped", "overrideSettings"): "overrideSettings not applied here: wideRootNoise",
    }
    assert all(set(r) == {"id", "field", "warning"} for r in got if "warning" in r)
    for query_id in ("QUERY:1", "capped"):  # each warning before its query's result
        lines = [i for i, r in enumerate(got) if r.get("id") == query_id]
        assert all("warning" in got[i] for i in lines[:-1]) and "turnNumber" in got[lines[-1]]


def test_max_time_stops_the_search_in_time() -> None:
    engine = Driven()
    engine.send(json.dumps({"id": "t", "boardXSize": 19, "moves": [], "maxVisits": 200_000,
                            "overrideSettings": {"maxTime": 0.5}}))
    try:
        engine.wait_for('"isDuringSearch": false')  # within wait_for's time: not 200,000 visits
    finally:
        engine.send('{"id": "stop", "action": "terminate_all"}')  # were it not applied
        got = [r for r in engine.end() if r["id"] == "t"]
    assert len(got) == 1  # no warning: maxTime is applied
    assert 1 <= got[0]["rootInfo"]["visits"] < 200_000


def test_reports_during_the_search_carry_the_policy_and_ownership_asked() -> None:
    engine = Driven()
    engine.send(json.dumps({"id": "rp", "rules": "japanese", "komi": 6.5, "boardXSize": 19, "boardYSize": 19,
                            "moves": [["B", "Q16"]], "maxVisits": 200_000, "includePolicy": True,
                            "includeOwnership": True, "reportDuringSearchEvery": 0.05}))
    engine.wait_for(RUNNING, times=2)
    engine.send('{"id": "t", "action": "terminate", "terminateId": "rp"}')
    live = [r for r in engine.end() if r["id"] == "rp"]
    assert not any("error" in r for r in live), live[-1]
    assert len(live) >= 3 and live[-1]["isDuringSearch"] is False
    q16 = 3 * 19 + 15  # row-major from A19: Q16 is occupied
    for r in live:
        assert len(r["policy"]) == 362 and r["policy"][q16] == -1 and r["policy"][-1] >= 0
        assert isinstance(r["ownership"], list) and len(r["ownership"]) == 361
    assert all(r["ownership"] == live[-1]["ownership"] for r in live)  # the root's, all along


def test_the_highest_priority_is_searched_first_ties_in_the_order_queued() -> None:
    engine = Driven()
    engine.send(LONG)
    engine.wait_for(RUNNING)  # the worker is busy: what follows waits in the queue
    engine.send(query(id="low", priority=-100, analyzeTurns=[3, 1]),
                query(id="mid"),
                query(id="gone", priority=50),
                query(id="per", analyzeTurns=[0, 2], priorities=[5, 2000]),
                query(id="high", priority=1000),
                query(id="mid2", priority=0),
                '{"id": "t1", "action": "terminate", "terminateId": "gone"}',
                '{"id": "t2", "action": "terminate", "terminateId": "long"}')
    got = [r for r in engine.end() if not r.get("isDuringSearch") and "turnNumber" in r]
    order = [(r["id"], r["turnNumber"]) for r in got]
    assert order == [("gone", 3), ("long", 0), ("per", 2), ("high", 3), ("per", 0), ("mid", 3), ("mid2", 3),
                     ("low", 1), ("low", 3)]
    assert got[0] == {"id": "gone", "isDuringSearch": False, "turnNumber": 3, "noResults": True}
    assert all(r["rootInfo"]["visits"] == 8 for r in got[2:])


def test_an_illegal_move_is_refused_with_katagos_text_then_ours() -> None:
    (got,) = answers([json.dumps({"id": "m", "boardXSize": 9, "moves": [["B", "E5"], ["W", "e5"]]})])
    assert got["id"] == "m" and got["field"] == "moves"
    assert got["error"].startswith("Illegal move 1: E5: ")  # KataGo's text, which KaTrain looks for
    assert "the point is already occupied" in got["error"]  # and ours after it


def test_move_filters_and_komi_are_checked_as_katago_does() -> None:
    avoid_none = query(id="avoid", avoidMoves=[{"player": "B", "moves": [], "untilDepth": 1}])
    allow_none = query(id="allow", allowMoves=[{"player": "W", "moves": [], "untilDepth": 1}])
    both = query(id="both", avoidMoves=[{"player": "W", "moves": ["C7"], "untilDepth": 1}],
                 allowMoves=[{"player": "W", "moves": ["C3"], "untilDepth": 1}])
    got = {r["id"]: r for r in answers([avoid_none, allow_none, both, query(id="k", komi=7.3),
                                        query(id="whole", komi=7, analyzeTurns=[0])])}
    assert got["avoid"]["moveInfos"] and got["avoid"]["turnNumber"] == 3
    assert [info["move"] for info in got["allow"]["moveInfos"]] == ["pass"]  # nothing allowed: pass is kept
    assert got["both"] == {"id": "both", "field": "allowMoves",
                           "error": "Cannot specify both allowMoves and avoidMoves"}
    assert got["k"]["field"] == "komi" and got["k"]["error"].startswith("Must be a integer or half-integer")
    assert got["whole"]["moveInfos"]


def test_lcb_is_the_movers_lower_bound_seen_as_the_win_rates_are() -> None:
    (job,) = parse(json.loads(query(id="l", analyzeTurns=[1])), LIMITS, lambda name, size: name or "default")
    flipped = replace(job, perspective="BLACK")  # White is to move: Black's figures are the other side's
    move = {"move": "C3", "order": 0, "prior": 0.5, "visits": 5, "winrate": 0.0129, "score_lead": -3.0,
            "pv": ["C3"]}
    analysis = {"to_play": "W", "winrate": 0.02, "score_lead": -3.0, "visits": 6, "moves": [move],
                "ladders": None}
    (mover,) = response(job, analysis)["moveInfos"]
    (black,) = response(flipped, analysis)["moveInfos"]
    assert mover["lcb"] <= mover["winrate"] == 0.0129
    assert black["winrate"] == 0.9871 and black["lcb"] == round(1 - mover["lcb"], 4) >= black["winrate"]
