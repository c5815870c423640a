"""Reading game records the process has not kept parsed costs a page request's client address
(frontend.services.parsed, frontend.middleware.ParsingBudget): opening large games in turn, more
than the cache keeps, buys no more than the address's budget, and past it the page says why."""

from __future__ import annotations

import asyncio

import pytest
from django.core.cache import cache
from django.test import AsyncClient

from frontend.models import Game
from frontend.services import parsed, ratelimit
from frontend.services.recent import Recent

pytestmark = pytest.mark.django_db(transaction=True)

REFUSED = "too many milliseconds spent reading game records: at most 2 every 3600 seconds from one address"


@pytest.fixture
def cold_records(settings, monkeypatch) -> None:
    settings.GOWEB_PARSE_BUDGET_MS, settings.GOWEB_PARSE_WINDOW = 2, 3600
    monkeypatch.setattr(parsed, "_records", Recent(parsed.KEPT))


def uploaded(client, count: int) -> list[int]:
    for n in range(count):
        client.post("/review", {"text": f"(;SZ[9]KM[{n}.5];B[ee];W[cc])"})
    return list(Game.objects.order_by("pk").values_list("pk", flat=True))


def test_pages_that_read_records_past_the_addresss_budget_are_refused_and_kept_ones_still_open(
    client, cold_records, monkeypatch
) -> None:
    games = uploaded(client, 3)
    monkeypatch.setattr(parsed, "_records", Recent(parsed.KEPT))  # the uploads' reads forgotten
    here = {"REMOTE_ADDR": "10.8.0.1"}
    assert [client.get(f"/game/{pk}/review", **here).status_code for pk in games[:2]] == [200, 200]
    refused = client.get(f"/game/{games[2]}/review", **here)
    assert refused.status_code == 429 and REFUSED in refused.content.decode()
    assert client.get(f"/game/{games[0]}/review", **here).status_code == 200  # kept: nothing to read
    assert client.get(f"/game/{games[2]}/review", REMOTE_ADDR="10.8.0.2").status_code == 200


def test_the_budget_is_charged_under_asgi_too(client, cold_records, monkeypatch) -> None:
    games = uploaded(client, 3)
    monkeypatch.setattr(parsed, "_records", Recent(parsed.KEPT))
    browser = AsyncClient()
    browser.cookies = client.cookies

    async def pages() -> list[int]:
        return [(await browser.get(f"/game/{pk}/review", REMOTE_ADDR="10.8.0.3")).status_code for pk in games]

    assert asyncio.run(pages()) == [200, 200, 429]


def test_reads_outside_a_page_request_are_charged_to_no_one(client, cold_records) -> None:
    (pk,) = uploaded(client, 1)
    game = Game.objects.get(pk=pk)
    counter = ratelimit._key("parse_ms", "127.0.0.1", 3600)
    charged = cache.get(counter)
    for n in range(5):  # a worker's reads, or a socket's (whose work socket_budget charges)
        parsed.record(pk, game.sgf.replace("KM[0.5]", f"KM[{n}]"))
    assert cache.get(counter) == charged
