"""KataGo's analysis-engine responses: the review search's ``analysis`` message of a
:class:`~analysis.katajson.query.Job` in KataGo's field names, seen from the side the query asks
(``reportAnalysisWinratesAs``)."""

from __future__ import annotations

from analysis.katajson.query import Job
from analysis.stats import wilson_interval

MOVE_FIELDS = {"move": "move", "order": "order", "prior": "prior", "visits": "visits", "winrate": "winrate",
               "scoreLead": "score_lead", "pv": "pv"}  # KataGo's name: ours


def response(job: Job, analysis: dict, during_search: bool = False) -> dict:
    """Return the KataGo-style answer to ``job`` from the task's ``analysis`` message.

    ``maxVisits`` is the budget searched; ``warning`` says when it was capped below the request,
    or when settings were not applied.  Win rates, ``scoreLead`` (and ``ownership``) are those of
    the side ``job.perspective`` names (the player to move by default), and the leads and
    ownership null for a network without a score (or ownership) head.  ``lcb`` is the lower end of
    the 95% Wilson interval of a move's win rate over its visits, ``utility`` its win value on the
    -1..1 scale (as ``kata-analyze`` reports them).
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
    warnings = []
    if job.requested_visits > job.query.visits:
        warnings.append(f"maxVisits {job.requested_visits} is above this server's cap: "
                        f"searched {job.query.visits} visits")
    if job.ignored:
        warnings.append(f"overrideSettings not applied here: {', '.join(job.ignored)}")
    if warnings:
        answer["warning"] = "; ".join(warnings)
    if job.query.ownership:
        owned = analysis.get("ownership")
        answer["ownership"] = None if owned is None else [-v if flip else v for v in owned]
    if job.include_policy:
        legal = [*job.position.legal_points().tolist(), True]
        answer["policy"] = [p if ok else -1 for p, ok in zip(analysis["policy"], legal, strict=True)]
    return answer


def _move_info(info: dict, flip: bool) -> dict:
    """Return one searched move in KataGo's names, seen from the other side when ``flip``."""
    entry = {name: info[ours] for name, ours in MOVE_FIELDS.items()}
    visits, winrate = info["visits"], _rate(info["winrate"], flip)
    lead = _lead(info["score_lead"], flip)
    lcb = wilson_interval(min(max(winrate * visits, 0.0), visits), visits)[0] if visits else 0.0
    entry.update(winrate=winrate, scoreLead=lead, scoreMean=lead, utility=round(2 * winrate - 1, 4),
                 lcb=round(lcb, 4))
    return entry


def _rate(winrate: float, flip: bool) -> float:
    """Return ``winrate``, or the other side's when ``flip``."""
    return round(1.0 - winrate, 4) if flip else winrate


def _lead(lead: float | None, flip: bool) -> float | None:
    """Return ``lead`` (None stays None), or the other side's when ``flip``."""
    return None if lead is None else (-lead if flip else lead)


def no_results(job: Job) -> dict:
    """Return KataGo's response for a turn terminated before its search began."""
    return {"id": job.id, "isDuringSearch": False, "turnNumber": job.turn, "noResults": True}
