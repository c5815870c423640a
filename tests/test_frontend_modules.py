"""The front end's native ES modules: the graphs ``board.js`` (the board pages) and ``new-game.js``
(the new-game page) import, served by staticfiles.

There is no build step: the browser follows the relative imports itself, so every one must name a
file that Django's static files finders serve, and every module must be reachable from an entry.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.contrib.staticfiles import finders

STATIC = Path(__file__).resolve().parent.parent / "frontend" / "static" / "frontend"
ENTRY = STATIC / "board.js"
NEW_GAME = STATIC / "new-game.js"
IMPORT = re.compile(r'^import\s+(?:[^;]*?\s+from\s+)?"([^"]+)";', re.M)
TEMPLATES = STATIC.parent.parent / "templates" / "frontend"


def imports_of(module: Path) -> list[str]:
    return IMPORT.findall(module.read_text())


def module_graph(entry: Path) -> set[Path]:
    """Every module ``entry`` imports, directly or not, and itself."""
    seen, todo = set(), [entry]
    while todo:
        module = todo.pop()
        if module in seen:
            continue
        seen.add(module)
        todo.extend((module.parent / name).resolve() for name in imports_of(module))
    return seen


def test_every_import_is_relative_and_names_a_static_file() -> None:
    for module in STATIC.rglob("*.js"):
        for name in imports_of(module):
            assert name.startswith(("./", "../")) and name.endswith(".js"), f"{module.name}: {name}"
            target = (module.parent / name).resolve()
            static_path = target.relative_to(STATIC.parent).as_posix()
            assert finders.find(static_path) == str(target), f"{module.name} imports missing {name}"


def test_the_entries_reach_every_module() -> None:
    assert module_graph(ENTRY) | module_graph(NEW_GAME) == set(STATIC.rglob("*.js"))


def test_the_new_game_page_loads_its_entry_as_a_module() -> None:
    html = (TEMPLATES / "new_game.html").read_text()
    assert "<script type=\"module\" src=\"{% static 'frontend/new-game.js' %}\"></script>" in html


MODULES = sorted(STATIC.rglob("*.js"))


@pytest.mark.parametrize("module", MODULES, ids=lambda p: p.relative_to(STATIC).as_posix())
def test_each_module_opens_with_a_jsdoc_saying_what_it_holds(module: Path) -> None:
    assert module.read_text().startswith("/**")


@pytest.mark.parametrize("page", ["play", "review"])
def test_both_board_pages_load_the_entry_as_a_module(page: str) -> None:
    html = (TEMPLATES / f"{page}.html").read_text()
    assert """<script type="module" src="{% static 'frontend/board.js' %}"></script>""" in html


def test_the_pages_classes_of_loss_are_the_game_summarys() -> None:
    """candidates.js colours the candidates by the classes analysis/review/summary.py counts."""
    from analysis.review.summary import POINT_BOUNDS, WINRATE_BOUNDS

    source = (STATIC / "js" / "candidates.js").read_text()
    found = re.search(r"LOSS_BOUNDS = \{ score: \[([^\]]*)\], winrate: \[([^\]]*)\] \}", source)
    assert found, "candidates.js names its LOSS_BOUNDS"
    score, winrate = ([float(x) for x in group.split(",")] for group in found.groups())
    assert (score, winrate) == (list(POINT_BOUNDS), list(WINRATE_BOUNDS))
