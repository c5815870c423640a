"""Rule sets by name: how a game is scored, which repetitions its ko rule forbids, and what White
gets for Black's handicap stones.

=====================  ========  ===================================  ==================
names                  scoring   ko                                   White's handicap
                                                                      bonus (N stones)
=====================  ========  ===================================  ==================
chinese, chinese-ogs,  area      positional superko: no earlier       N
chinese-kgs                      position may recur
aga, aga-button,       area      positional superko                   N - 1
bga, french
tromp-taylor, nz,      area      positional superko                   0
ing, goe, stone-
scoring, ancient-area,
area
japanese, korean,      territory simple ko: no immediate retake       0
territory, ancient-
territory
=====================  ========  ===================================  ==================

The handicap bonus is KataGo's ``whiteHandicapBonus``: under area scoring every stone counts, so
rules that give Black free stones give White a point back for each (Chinese), or for each but
the first, which stands for the first move White gives up (AGA).

A name is read in any case, with or without hyphens, underscores and spaces (``tromp-taylor``,
``tromp_taylor`` and ``TrompTaylor`` are one name), as KataGo reads them.  Unknown names are
scored by area (Tromp-Taylor).
"""

from __future__ import annotations

import argparse

MAX_KOMI = 150  # the largest komi (either sign) a game may have: KataGo's analysis engine's bound

AREA_RULES = {"chinese", "area", "tromptaylor", "aga", "nz", "newzealand", "chineseogs", "chinesekgs",
              "bga", "agabutton", "stonescoring", "french", "goe", "ing", "ancientarea"}
TERRITORY_RULES = {"japanese", "korean", "territory", "ancientterritory"}
BONUS_N_RULES = {"chinese", "chineseogs", "chinesekgs"}
BONUS_N_MINUS_ONE_RULES = {"aga", "agabutton", "bga", "french"}


def canonical(rules: str) -> str:
    """Return the rules name in its one spelling: lower case, without hyphens, underscores or
    white space (spaces, tabs, line breaks)."""
    return "".join(c for c in rules.lower() if c not in "-_" and not c.isspace())


def known(rules: str) -> bool:
    """Return whether ``rules`` names a rule set of the table above."""
    return canonical(rules) in AREA_RULES | TERRITORY_RULES


def rules_kind(rules: str) -> str:
    """Return ``"area"`` or ``"territory"`` for a rules name (SGF RU values, any spelling).

    Unknown names are scored by area (Tromp-Taylor).
    """
    name = canonical(rules)
    if name in TERRITORY_RULES or name.startswith(("jap", "kor")):
        return "territory"
    return "area"


def uses_superko(rules: str) -> bool:
    """Return whether ``rules`` forbid any repetition of a position (area rules) or only simple ko."""
    return rules_kind(rules) == "area"


HANDICAP_BONUSES = ("0", "N", "N-1")  # KataGo's names of White's handicap bonus


def bonus_of_rules(rules: str) -> str:
    """Return the name of White's handicap bonus under ``rules`` (one of :data:`HANDICAP_BONUSES`)."""
    name = canonical(rules)
    if name in BONUS_N_RULES:
        return "N"
    if name in BONUS_N_MINUS_ONE_RULES:
        return "N-1"
    return "0"


def white_handicap_bonus(rules: str, stones: int, bonus: str | None = None) -> int:
    """Return the points White gets under ``rules`` for ``stones`` handicap stones (the table above),
    or under ``bonus`` (one of :data:`HANDICAP_BONUSES`, KataGo's ``whiteHandicapBonus``) instead
    when it is given.

    ``stones`` is 0 for an even game; the bonus is never negative.  Raises ValueError for an
    unknown ``bonus``.
    """
    kind = bonus_of_rules(rules) if bonus is None else bonus
    if kind == "N":
        return stones
    if kind == "N-1":
        return max(0, stones - 1)
    if kind == "0":
        return 0
    raise ValueError(f"unknown handicap bonus {kind[:20]!r}: one of {', '.join(HANDICAP_BONUSES)}")


def default_komi(rules: str) -> float:
    """Return the usual komi of an even game under ``rules``, KataGo's: 6.5 under territory
    scoring, 7.5 under area scoring (7.0 with AGA's button)."""
    if rules_kind(rules) == "territory":
        return 6.5
    return 7.0 if canonical(rules) == "agabutton" else 7.5


def komi_in_range(komi: float) -> bool:
    """Return whether ``komi`` is at most MAX_KOMI points either way (never for NaN).  A huge
    integer is compared as it is, never turned into a float that would overflow."""
    return -MAX_KOMI <= komi <= MAX_KOMI


def komi_option(text: str) -> float:
    """Return the komi a command-line option gives (argparse's ``type``); raises
    argparse.ArgumentTypeError if ``text`` is not a number within MAX_KOMI points either way."""
    try:
        komi = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not komi_in_range(komi):
        raise argparse.ArgumentTypeError(f"must be between -{MAX_KOMI} and {MAX_KOMI}, got {text}")
    return komi
