"""Tests of the Django/Channels skeleton: pages, health check, websocket consumer and settings."""

import asyncio
import os
import uuid
from pathlib import Path

import pytest
import redis
from asgiref.testing import ApplicationCommunicator
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.contrib.staticfiles import finders
from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler
from django.core.exceptions import ImproperlyConfigured

from frontend import views
from goweb.asgi import application
from goweb.celery import app as celery_app
from goweb.envconfig import (
    broker_transport_options,
    caches_config,
    channel_layers_config,
    database_config,
    env_bool,
    redis_host,
)

ORIGIN = (b"origin", b"http://localhost")
REDIS_URL = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")


def test_home_page_renders_with_stylesheet(client) -> None:
    response = client.get("/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "<title>Go analysis</title>" in html
    assert 'href="/static/frontend/site.css"' in html
    assert finders.find("frontend/site.css") is not None


async def _http_get(app, path: str) -> tuple[int, bytes]:
    """Send one GET through an ASGI app and collect the status and the (possibly streamed) body."""
    scope = {"type": "http", "method": "GET", "path": path, "query_string": b"", "headers": []}
    communicator = ApplicationCommunicator(app, scope)
    await communicator.send_input({"type": "http.request", "body": b""})
    start = await communicator.receive_output(timeout=5)
    body = b""
    while True:
        message = await communicator.receive_output(timeout=5)
        body += message.get("body", b"")
        if not message.get("more_body", False):
            return start["status"], body


def test_static_stylesheet_is_served_like_runserver() -> None:
    """``manage.py runserver`` (daphne) wraps the ASGI app in Django's static files handler."""
    status, body = asyncio.run(_http_get(ASGIStaticFilesHandler(application), "/static/frontend/site.css"))
    assert status == 200
    assert b"--board" in body


def test_healthz_reports_status_and_engine(client) -> None:
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    body = response.json()
    assert body["status"] == "ok"
    assert isinstance(body["engine"], bool)


def test_healthz_reports_missing_engine(client, monkeypatch) -> None:
    monkeypatch.setattr(views, "ENGINE_MODULE", "analysis.go._no_such_module")
    assert client.get("/healthz").json() == {"status": "ok", "engine": False}


async def _connect() -> WebsocketCommunicator:
    communicator = WebsocketCommunicator(application, "/ws/ping/", headers=[ORIGIN])
    connected, _ = await communicator.connect()
    assert connected
    return communicator


def test_ping_consumer_replies_and_survives_bad_messages() -> None:
    async def scenario() -> None:
        communicator = await _connect()
        await communicator.send_json_to({"type": "ping"})
        assert await communicator.receive_json_from() == {"type": "pong"}

        await communicator.send_json_to({"type": "x"})
        reply = await communicator.receive_json_from()
        assert reply == {"type": "error", "message": "unknown message type 'x'"}

        await communicator.send_to(text_data="{not json")
        reply = await communicator.receive_json_from()
        assert reply == {"type": "error", "message": "message is not valid JSON"}

        for hostile in ("1" * 5000, "[" * 100_000):
            await communicator.send_to(text_data=hostile)
            assert await communicator.receive_json_from() == reply

        await communicator.send_json_to(["ping"])
        assert (await communicator.receive_json_from())["type"] == "error"

        await communicator.send_to(bytes_data=b"\x00")
        assert (await communicator.receive_json_from())["type"] == "error"

        await communicator.send_json_to({"type": "ping"})
        assert await communicator.receive_json_from() == {"type": "pong"}
        await communicator.disconnect()

    asyncio.run(scenario())


def test_websocket_rejects_foreign_origin() -> None:
    async def scenario() -> None:
        communicator = WebsocketCommunicator(
            application, "/ws/ping/", headers=[(b"origin", b"http://evil.test")]
        )
        connected, _ = await communicator.connect()
        assert not connected

    asyncio.run(scenario())


def _redis_reachable() -> bool:
    try:
        return bool(redis.Redis.from_url(REDIS_URL, socket_connect_timeout=1, socket_timeout=1).ping())
    except redis.RedisError:
        return False


@pytest.mark.skipif(not _redis_reachable(), reason=f"Redis not reachable at {REDIS_URL}")
def test_ping_consumer_over_redis_channel_layer(settings) -> None:
    settings.CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {"hosts": [redis_host(REDIS_URL)], "prefix": f"goweb-test-{uuid.uuid4().hex}"},
        }
    }

    async def scenario() -> None:
        layer = get_channel_layer()
        assert type(layer).__name__ == "RedisChannelLayer"
        try:
            communicator = await _connect()
            await communicator.send_json_to({"type": "ping"})
            assert await communicator.receive_json_from() == {"type": "pong"}

            channel = await layer.new_channel()
            await layer.group_add("analysis", channel)
            await layer.group_send("analysis", {"type": "analysis.update", "move": "D4"})
            assert await asyncio.wait_for(layer.receive(channel), timeout=5) == {
                "type": "analysis.update",
                "move": "D4",
            }
            await layer.group_discard("analysis", channel)
            await communicator.disconnect()
        finally:
            await layer.flush()
            await layer.close_pools()

    asyncio.run(scenario())


def test_database_url_parses_to_postgres_config() -> None:
    assert database_config("postgres://postgres@127.0.0.1:5432/test", Path("/unused")) == {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": "test",
        "USER": "postgres",
        "PASSWORD": "",
        "HOST": "127.0.0.1",
        "PORT": "5432",
    }


def test_database_url_with_password_and_options() -> None:
    config = database_config("postgresql://go%40user:p%3Ass@db/go?sslmode=require", Path("/unused"))
    assert config["USER"] == "go@user"
    assert config["PASSWORD"] == "p:ss"
    assert config["HOST"] == "db"
    assert config["PORT"] == ""
    assert config["OPTIONS"] == {"sslmode": "require"}


def test_database_defaults_to_sqlite(tmp_path: Path) -> None:
    assert database_config(None, tmp_path / "db.sqlite3") == {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": str(tmp_path / "db.sqlite3"),
        "OPTIONS": {
            "init_command": "PRAGMA journal_mode=WAL;",
            "transaction_mode": "IMMEDIATE",
            "timeout": 20,
        },
    }


@pytest.mark.parametrize("url", ["mysql://u@h/db", "postgres://u@h:5432/"])
def test_database_url_rejects_unsupported(url: str) -> None:
    with pytest.raises(ImproperlyConfigured):
        database_config(url, Path("/unused"))


def test_channel_layer_config_follows_redis_url() -> None:
    assert channel_layers_config(None)["default"]["BACKEND"] == "channels.layers.InMemoryChannelLayer"
    redis_layer = channel_layers_config("redis://r:6379/0")["default"]
    assert redis_layer["BACKEND"] == "goweb.layers.OutageTolerantRedisChannelLayer"
    (host,) = redis_layer["CONFIG"]["hosts"]
    assert host["address"] == "redis://r:6379/0" and host["socket_timeout"] == 30
    assert host["retry"].get_retries() == 2  # a connection Redis dropped reconnects at its next use


@pytest.mark.skipif(not _redis_reachable(), reason=f"Redis not reachable at {REDIS_URL}")
def test_an_idle_receive_on_the_redis_layer_outlasts_its_blocking_pops() -> None:
    from channels_redis.core import RedisChannelLayer

    layer = RedisChannelLayer(**channel_layers_config(REDIS_URL)["default"]["CONFIG"])

    async def scenario() -> dict:
        channel = await layer.new_channel()

        async def later() -> None:
            await asyncio.sleep(layer.brpop_timeout + 3)  # past a blocking pop and redis-py's 5 s default
            await layer.send(channel, {"type": "late"})

        sender = asyncio.create_task(later())
        try:
            return await asyncio.wait_for(layer.receive(channel), timeout=30)
        finally:
            await sender
            await layer.close_pools()

    assert asyncio.run(scenario()) == {"type": "late"}


def test_cache_follows_redis_url_so_rate_limits_hold_across_web_processes() -> None:
    assert caches_config(None)["default"]["BACKEND"].endswith("LocMemCache")
    assert caches_config("redis://r:6379/0") == {
        "default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": "redis://r:6379/0"}
    }


def test_unacknowledged_tasks_come_back_after_the_visibility_timeout() -> None:
    assert broker_transport_options(300) == {
        "visibility_timeout": 300,
        "unacked_restore_interval": 30,
        "unacked_restore_throttle": 1,
    }
    assert broker_transport_options(4)["unacked_restore_interval"] == 1


def test_env_bool(monkeypatch) -> None:
    monkeypatch.setenv("GOWEB_TEST_FLAG", "off")
    assert env_bool("GOWEB_TEST_FLAG", True) is False
    monkeypatch.setenv("GOWEB_TEST_FLAG", "maybe")
    with pytest.raises(ImproperlyConfigured):
        env_bool("GOWEB_TEST_FLAG", True)
    monkeypatch.delenv("GOWEB_TEST_FLAG")
    assert env_bool("GOWEB_TEST_FLAG", True) is True


def test_celery_uses_json_only() -> None:
    conf = celery_app.conf
    assert conf.task_serializer == "json"
    assert conf.result_serializer == "json"
    assert list(conf.accept_content) == ["json"]
    assert list(conf.result_accept_content) == ["json"]
