"""Rule sets by name: how a game is scored and which repetitions its ko rule forbids.

=====================  ========  =======================================
names                  scoring   ko
=====================  ========  =======================================
chinese, area, aga,    area      positional superko: no earlier position
tromp-taylor, nz and             may recur
KataGo's other area
names (bga, ing...)
japanese, korean,      territory simple ko: no immediate retake
territory, ancient-
territory
=====================  ========  =======================================

A name is read in any case, with or without hyphens, underscores and spaces (``tromp-taylor``,
``tromp_taylor`` and ``TrompTaylor`` are one name), as KataGo reads them.  Unknown names are
scored by area (Tromp-Taylor).
"""

from __future__ import annotations

MAX_KOMI = 150  # the largest komi (either sign) a game may have: KataGo's analysis engine's bound

AREA_RULES = {"chinese", "area", "tromptaylor", "aga", "nz", "newzealand", "chineseogs", "chinesekgs",
              "bga", "agabutton", "stonescoring", "french", "goe", "ing", "ancientarea"}
TERRITORY_RULES = {"japanese", "korean", "territory", "ancientterritory"}


def canonical(rules: str) -> str:
    """Return the rules name in its one spelling: lower case, without hyphens, underscores or spaces."""
    return "".join(c for c in rules.lower() if c not in "-_ \t")


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
