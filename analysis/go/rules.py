"""Rule sets by name: how a game is scored and which repetitions its ko rule forbids.

=====================  ========  =======================================
names (any case)       scoring   ko
=====================  ========  =======================================
chinese, area, aga,    area      positional superko: no earlier position
tromp-taylor, nz,                may recur
KataGo's area names
(chinese-ogs, bga...)
japanese, korean,      territory simple ko: no immediate retake
territory
=====================  ========  =======================================

Unknown names are scored by area (Tromp-Taylor).
"""

from __future__ import annotations

AREA_RULES = {"chinese", "area", "tromp-taylor", "aga", "nz", "new zealand",
              "chinese-ogs", "chinese-kgs", "new-zealand", "bga", "aga-button"}  # the last: KataGo's
TERRITORY_RULES = {"japanese", "korean", "territory"}


def rules_kind(rules: str) -> str:
    """Return ``"area"`` or ``"territory"`` for a rules name (SGF RU values, any case).

    Unknown names are scored by area (Tromp-Taylor).
    """
    name = rules.strip().lower()
    if name in TERRITORY_RULES or name.startswith(("jap", "kor")):
        return "territory"
    return "area"


def uses_superko(rules: str) -> bool:
    """Return whether ``rules`` forbid any repetition of a position (area rules) or only simple ko."""
    return rules_kind(rules) == "area"
