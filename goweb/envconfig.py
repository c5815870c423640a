"""Helpers that turn environment variables into Django settings values.

Every function here is pure apart from reading ``os.environ``, so the parsing rules can be tested
without reloading the settings module.
"""

import os
import secrets
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

from django.core.exceptions import ImproperlyConfigured
from django.core.management.utils import get_random_secret_key
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff
from redis.exceptions import ConnectionError as RedisConnectionError

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}
_POSTGRES_SCHEMES = {"postgres", "postgresql"}
# Several processes (web server, workers) and threads share the SQLite file: write-ahead logging
# lets readers go on during a write, and transactions that will write take the lock when they
# begin (a read lock upgraded later fails at once instead of waiting its turn).
SQLITE_OPTIONS = {"init_command": "PRAGMA journal_mode=WAL;", "transaction_mode": "IMMEDIATE", "timeout": 20}


def env_str(name: str, default: str | None = None) -> str | None:
    """Return the variable ``name``, or ``default`` when it is unset or empty."""
    value = os.environ.get(name, "").strip()
    return value or default


def env_bool(name: str, default: bool) -> bool:
    """Return the variable ``name`` read as a boolean (1/0, true/false, yes/no, on/off)."""
    value = env_str(name)
    if value is None:
        return default
    if value.lower() in _TRUE:
        return True
    if value.lower() in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name}={value!r} is not a boolean")


def env_int(name: str, default: int) -> int:
    """Return the variable ``name`` read as an integer."""
    value = env_str(name)
    if value is None:
        return default
    try:
        return int(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={value!r} is not an integer") from None


def env_float(name: str, default: float, zero: bool = False) -> float:
    """Return the variable ``name`` read as a positive number (or 0, with ``zero``: a setting that
    0 turns off)."""
    value = env_str(name)
    if value is None:
        return default
    try:
        number = float(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={value!r} is not a number") from None
    if not (number > 0 or (zero and number == 0)):
        raise ImproperlyConfigured(f"{name}={value!r} must be a positive number" + (" or 0" if zero else ""))
    return number


def env_list(name: str, default: list[str]) -> list[str]:
    """Return the variable ``name`` split on commas, ignoring blank items."""
    value = env_str(name)
    if value is None:
        return default
    return [item.strip() for item in value.split(",") if item.strip()]


def database_config(url: str | None, sqlite_path: Path) -> dict[str, Any]:
    """Return one ``DATABASES`` entry: SQLite at ``sqlite_path`` (``SQLITE_OPTIONS``) without a URL,
    else PostgreSQL.

    The URL has the form ``postgres://user[:password]@host[:port]/name[?option=value...]``;
    query parameters become connection ``OPTIONS`` (for example ``sslmode=require``).
    """
    if not url:
        return {"ENGINE": "django.db.backends.sqlite3", "NAME": str(sqlite_path), "OPTIONS": SQLITE_OPTIONS}
    parts = urlsplit(url)
    if parts.scheme not in _POSTGRES_SCHEMES:
        raise ImproperlyConfigured(f"DATABASE_URL scheme {parts.scheme!r} is not supported; use postgres://")
    name = unquote(parts.path.lstrip("/"))
    if not name:
        raise ImproperlyConfigured("DATABASE_URL has no database name")
    config: dict[str, Any] = {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": name,
        "USER": unquote(parts.username or ""),
        "PASSWORD": unquote(parts.password or ""),
        "HOST": parts.hostname or "",
        "PORT": str(parts.port or ""),
    }
    options = dict(parse_qsl(parts.query))
    if options:
        config["OPTIONS"] = options
    return config


def redis_host(redis_url: str) -> dict[str, Any]:
    """Return a channels_redis host entry for ``redis_url`` whose socket timeout (30 s) outlasts its
    blocking pops, and whose connections try a command again (twice at most) after a connection
    error: a pooled connection that Redis dropped (it restarted) reconnects at its next use instead
    of failing it."""
    retry = Retry(ExponentialBackoff(cap=0.5, base=0.05), 2, supported_errors=(RedisConnectionError,))
    return {"address": redis_url, "socket_timeout": 30, "retry": retry}


def channel_layers_config(redis_url: str | None) -> dict[str, Any]:
    """Return ``CHANNEL_LAYERS``: Redis when ``redis_url`` is given (``goweb.layers``: its sockets
    wait out an outage of Redis), else the in-process layer.

    channels_redis waits for messages with a blocking pop of ``brpop_timeout`` (5 s), and redis-py 8
    gives every connection a 5 s socket timeout by default: the two race, and a receive on an idle
    channel then fails with "Timeout reading". The socket timeout is raised well above the pop's.
    """
    if redis_url:
        return {
            "default": {
                "BACKEND": "goweb.layers.OutageTolerantRedisChannelLayer",
                "CONFIG": {"hosts": [redis_host(redis_url)]},
            }
        }
    return {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}


def caches_config(redis_url: str | None) -> dict[str, Any]:
    """Return ``CACHES``: Redis when ``redis_url`` is given (shared by every web process, so rate
    limits hold across them), else the process's local memory."""
    if redis_url:
        return {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": redis_url}}
    return {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}


def broker_transport_options(visibility_timeout: int) -> dict[str, Any]:
    """Return Celery's Redis transport options: a message unacknowledged for ``visibility_timeout``
    seconds (its worker died) goes back to the queue, checked for every tenth of that time."""
    return {
        "visibility_timeout": visibility_timeout,
        "unacked_restore_interval": max(1, visibility_timeout // 10),
        "unacked_restore_throttle": 1,
    }


def secret_key(value: str | None, path: Path | None) -> str | None:
    """Return the secret key: ``value`` when set, else the key kept in the file ``path``.

    A missing file is created with a new random key (mode 0600) and kept for every later start:
    each deployment gets a key of its own. Processes starting at once agree on one key, since the
    file appears whole or not at all. Returns None when neither is given.
    """
    if value:
        return value
    if path is None:
        return None
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        draft = path.with_name(f".{path.name}.{secrets.token_hex(8)}")
        fd = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(get_random_secret_key())
        try:
            os.link(draft, path)  # fails if another process was first: its key stands
        except FileExistsError:
            pass
        finally:
            draft.unlink()
    key = path.read_text().strip()
    if not key:
        raise ImproperlyConfigured(f"the secret key file {path} is empty")
    return key


def queue_names(prefix: str) -> dict[str, str]:
    """Return the Celery queue of each kind of work, named with ``prefix``: ``play`` (bot moves),
    ``analysis`` (position analyses: the board's and the API's) and ``review`` (whole-game analyses)."""
    return {kind: f"{prefix}{kind}" for kind in ("play", "analysis", "review")}


def task_routes(queues: dict[str, str]) -> dict[str, dict[str, str]]:
    """Return ``CELERY_TASK_ROUTES``: each task of ``frontend.tasks`` on the queue of its kind of work."""
    return {
        "frontend.tasks.bot_move": {"queue": queues["play"]},
        "frontend.tasks.analyze_position": {"queue": queues["analysis"]},
        "frontend.tasks.analyze_game": {"queue": queues["review"]},
    }
