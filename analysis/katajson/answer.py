"""KataGo's analysis-engine responses: the review search's ``analysis`` message of a
:class:`~analysis.katajson.query.Job` in KataGo's field names, seen from the side the query asks
(``reportAnalysisWinratesAs``), and the query's warnings (:func:`warnings`)."""

from __future__ import annotations

from collections.abc import Sequence

from analysis.katajson.query import Job
from analysis.stats import wilson_interval

MOVE_FIELDS = {"move": "move", "order": "order", "prior": "prior", "visits": "visits", "winrate": "winrate",
               "scoreLead": "score_lead", "pv": "pv"}  # KataGo's name: ours


def warnings(job: Job, applies_max_time: bool = False) -> list[dict]:
    """Return KataGo's warnings about ``job``'s query, each ``{"id", "field", "warning"}``: its
    ``maxVisits`` capped below the request, and the ``overrideSettings`` not applied (``maxTime``
    among them unless ``applies_max_time``).  The stdin engine writes each on a line of its own
    before the query's results, as KataGo does; ``POST /api/analyze`` puts them in its one body."""
    found = []
    if job.requested_visits > job.query.visits:
        found.append({"id": job.id, "field": "maxVisits",
                      "warning": f"maxVisits {job.requested_visits} is above this server's cap: "
                                 f"searched {job.query.visits} visits"})
    unapplied_time = job.max_time is not None and not applies_max_time
    ignored = sorted({*job.ignored, *(("maxTime",) if unapplied_time else ())})
    if ignored:
        found.append({"id": job.id, "field": "overrideSettings",
                      "warning": f"overrideSettings not applied here: {', '.join(ignored)}"})
    return found


def response(job: Job, analysis: dict, during_search: bool = False, warn: bool = True,
             legal: Sequence[bool] | None = None) -> dict:
    """Return the KataGo-style answer to ``job`` from the task's ``analysis`` message.

    ``maxVisits`` is the budget searched.  With ``warn`` (``POST /api/analyze``'s single body),
    ``warning`` joins the query's :func:`warnings`; the stdin engine writes those on lines of their
    own (``warn`` False), as KataGo does, whose clients take a result with a ``warning`` for a
    warning.  Win rates, ``scoreLead`` (and ``ownership``) are those of
    the side ``job.perspective`` names (the player to move by default), and the leads and
    ownership null for a network without a score (or ownership) head.  ``lcb`` is KataGo's: a
    lower confidence bound of the win rate of the player making the move (the lower end of the 95%
    Wilson interval over its visits: the search keeps no variance of its values, from which
    KataGo builds its own), seen as the win rates are, so that when they are the other side's it
    is ``1 - lcb`` (above the win rate), as KataGo reports it.  ``utility`` is the win value on
    the -1..1 scale.  ``legal`` (the position's legal points and pass, as the policy is laid out)
    spares building the position anew for the policy.
    """
    flip = job.perspective == ("WHITE" if analysis["to_play"] == "B" else "BLACK")
    answer = {
        "id": job.id,
        "isDuringSearch": during_search,
        "turnNumber": len(job.query.moves),
        "network": job.query.network,
        "maxVisits": job.query.visits,
        "moveInfos": [_move_info(info, flip) for info in analysis["moves"]],
        "rootInfo": {
            "currentPlayer": analysis["to_play"],
            "winrate": _rate(analysis["winrate"], flip),
            "utility": round(2 * _rate(analysis["winrate"], flip) - 1, 4),
            "scoreLead": _lead(analysis["score_lead"], flip),
            "scoreStdev": analysis.get("score_stdev"),
            "visits": analysis["visits"],
        },
        "ladders": analysis.get("ladders"),
    }
    said = warnings(job) if warn else []
    if said:
        answer["warning"] = "; ".join(w["warning"] for w in said)
    if job.query.ownership:
        owned = analysis.get("ownership")
        answer["ownership"] = None if owned is None else [-v if flip else v for v in owned]
    if job.include_policy:
        legal = legal if legal is not None else legal_moves(job)
        answer["policy"] = [p if ok else -1 for p, ok in zip(analysis["policy"], legal, strict=True)]
    return answer


def legal_moves(job: Job) -> list[bool]:
    """Return whether each point of ``job``'s position, then pass, is a legal move (the policy's
    layout)."""
    return [*job.position.legal_points().tolist(), True]


def _move_info(info: dict, flip: bool) -> dict:
    """Return one searched move in KataGo's names, seen from the other side when ``flip``."""
    entry = {name: info[ours] for name, ours in MOVE_FIELDS.items()}
    visits, winrate = info["visits"], _rate(info["winrate"], flip)
    lead = _lead(info["score_lead"], flip)
    entry.update(winrate=winrate, scoreLead=lead, scoreMean=lead, utility=round(2 * winrate - 1, 4),
                 lcb=_rate(round(_lower_bound(info["winrate"], visits), 4), flip))
    return entry


def _lower_bound(winrate: float, visits: int) -> float:
    """Return the lower end of the 95% Wilson interval of the mover's ``winrate`` over ``visits``
    (0 without visits)."""
    return wilson_interval(min(max(winrate * visits, 0.0), visits), visits)[0] if visits else 0.0


def _rate(winrate: float, flip: bool) -> float:
    """Return ``winrate``, or the other side's when ``flip``."""
    return round(1.0 - winrate, 4) if flip else winrate


def _lead(lead: float | None, flip: bool) -> float | None:
    """Return ``lead`` (None stays None), or the other side's when ``flip``."""
    return None if lead is None else (-lead if flip else lead)


def no_results(job: Job) -> dict:
    """Return KataGo's response for a turn terminated before its search began."""
    return {"id": job.id, "isDuringSearch": False, "turnNumber": job.turn, "noResults": True}
