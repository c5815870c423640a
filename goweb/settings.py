"""Django settings for goweb.

All configuration comes from environment variables, and every default works without any external
service (SQLite, in-memory channel layer, Celery tasks run eagerly in-process):

- ``GOWEB_ENV``: ``development`` (the default: ``make run``, the tests) or ``production`` (the
  compose file), which turns DEBUG off by default, requires a secret key of the deployment's own,
  sets the cookie and ``SECURE_*`` settings of Django's deployment checklist for a site behind a
  TLS proxy that sets ``X-Forwarded-Proto``, opens websockets only from the site's own scheme,
  host and port, and serves compressed, hashed static files from ``DJANGO_STATIC_ROOT`` (filled by
  ``collectstatic``);
- ``DJANGO_SECRET_KEY``, or ``GOWEB_SECRET_KEY_FILE``: a file holding the key, created with a
  random key on first start when missing (production refuses to start with neither; development
  falls back to a fixed local key);
- ``DJANGO_DEBUG`` (default on in development, off in production), ``DJANGO_ALLOWED_HOSTS`` and
  ``DJANGO_CSRF_TRUSTED_ORIGINS`` (comma-separated), ``DJANGO_STATIC_ROOT``;
- in production, ``GOWEB_HSTS_SECONDS`` (default one year; 0 turns HSTS off) and
  ``GOWEB_SSL_REDIRECT`` (default on: plain HTTP is redirected to HTTPS);
- ``DATABASE_URL`` (``postgres://user@host:port/name``), default ``db.sqlite3`` in the repository root;
- ``REDIS_URL`` for the channel layer and the cache (which holds the API rate limits), also the
  default Celery broker;
- ``CELERY_BROKER_URL`` and ``CELERY_RESULT_BACKEND``; ``GOWEB_QUEUE_PREFIX`` (default empty) starts
  the names of the three Celery queues: ``play`` (bot moves), ``analysis`` (position analyses)
  and ``review`` (whole-game analyses), so that a bot move never waits behind an analysis;
- ``GOWEB_WORKER_NICE``: the niceness a worker process takes when it starts (default 0; the
  compose file's analysis workers take 10, so that on shared cores the bot's worker goes first);
- ``GOWEB_WORKER_HEARTBEAT_FILE``: a file a Celery worker touches every
  ``GOWEB_WORKER_HEARTBEAT_INTERVAL`` seconds (default 10) from a thread of its own, busy or not,
  which the compose file's health check reads (``python -m frontend.heartbeat``); unset (the
  default), the worker keeps no heartbeat;
- ``GOWEB_MAX_GAME_ANALYSES`` and ``GOWEB_MAX_POSITION_ANALYSES``: the work one user (an account,
  else a browser session; an address on the API) may have queued or running at once (default 1
  whole-game analysis and 4 position analyses), and ``GOWEB_MAX_ADDRESS_JOBS`` what one client
  address may, all its users' analyses and its games' bot moves together (default 10; 0: no cap);
- ``GOWEB_TASK_VISIBILITY_TIMEOUT``: seconds after which Redis hands a task that no worker
  acknowledged (its worker died) to another worker (default 300; every task message must finish
  well within it, which is why a whole-game analysis runs in chunks);
- ``GOWEB_TASK_START_TIMEOUT``: seconds a queued job may wait for a worker to start it; a new
  request for it after that (a reconnection, a ``state``) queues its task again, in case the broker
  lost it (default 60; a job queued before the broker restarted is queued again at once);
- ``GOWEB_MAX_UPLOAD_BYTES`` caps request bodies held in memory (default 2 MB);
- ``GOWEB_SQLITE_PATH`` moves the default SQLite file (ignored with ``DATABASE_URL``);
- ``GOWEB_MAX_SGF_BYTES`` caps uploaded or pasted SGF files (default 512 kB); what one such record
  may hold is bounded too, and a record over a bound is refused as soon as the reader meets it
  (:class:`analysis.sgf.SgfLimits`): ``GOWEB_MAX_SGF_NODES`` nodes (default 10000),
  ``GOWEB_MAX_SGF_VALUES`` values in one property (default 1000), ``GOWEB_MAX_GAME_MOVES`` moves
  in a line of play (default 1000; also the most moves a review page shows) and
  ``GOWEB_MAX_PASSES_IN_A_ROW`` passes in a row (default 4) and ``GOWEB_MAX_SGF_POINTS`` points
  that its setup stones and territory marks span in all, a rectangle such as ``aa:ss`` counted by
  its area (default 500000: a few hundredths of a second to expand, where 7-byte rectangles could
  make a 518 KB file of 18 million points, seconds of a core for every page and message of it);
- ``GOWEB_UPLOAD_RATE_LIMIT`` and ``GOWEB_UPLOAD_RATE_WINDOW``: SGF uploads and pastes allowed per
  client address per window (seconds) (default 10 per 60 s in production, 0 in development: 0 turns
  the limit off);
- ``GOWEB_NEW_GAME_RATE_LIMIT`` and ``GOWEB_NEW_GAME_RATE_WINDOW``: games against the bot started
  per client address per window (seconds), and ``GOWEB_SESSION_RATE_LIMIT`` and
  ``GOWEB_SESSION_RATE_WINDOW``: browser sessions a share link's page gives one address per window
  (a viewer past it counts against its address); each 30 per 600 s in production, 0 in development;
- ``GOWEB_PASSWORD_RATE_LIMIT`` and ``GOWEB_PASSWORD_RATE_WINDOW``: requests that hash a password
  (sign-ups, logins and password changes that check one, failed or not) per client address per
  window (seconds), each costing a third of a second of a core (default 30 per 600 s in production,
  0 in development);
- ``GOWEB_API_RATE_LIMIT`` and ``GOWEB_API_RATE_WINDOW``: requests allowed per client per window
  (seconds) on ``/api/analyze`` (default 60 per 60 s; 0 turns the limit off), and
  ``GOWEB_API_VISIT_BUDGET``: the visits its queries may search together in that window (default
  10,000: about half a core of a 2-core CPU's time; 0 turns it off);
- ``GOWEB_PARSE_BUDGET_MS`` and ``GOWEB_PARSE_WINDOW``: the milliseconds of a thread a client
  address's page requests may spend reading game records the process has not kept parsed, per
  window (seconds; default 10,000 per 60 s, 0 turns it off): past it a page that would read one
  is a 429 (:mod:`frontend.services.parsed`);
- ``GOWEB_WS_PER_ADDRESS``: websockets one client address may hold open at once (default 16), and
  ``GOWEB_WS_MESSAGE_RATE`` and ``GOWEB_WS_MESSAGE_BURST``: the messages its sockets may send
  together, a second (default 10) and in a burst (default 40), opening a socket counting as one;
  past them a socket is refused and a message answered with an error, unread
  (:mod:`frontend.services.socket_budget`, counted in each server process; 0 turns a limit off);
- ``GOWEB_LOGIN_ACCOUNT_FAILURES`` and ``GOWEB_LOGIN_ADDRESS_FAILURES``: failed logins to one
  account (default 5) or from one client address (default 20) after which no password is checked
  there for ``GOWEB_LOGIN_LOCKOUT`` seconds from the first of them (default 900), counted in the cache;
- ``GOWEB_TRUSTED_PROXIES``: how many reverse proxies in front of the site append the address they
  took the connection from to ``X-Forwarded-For`` (default 1 in production, behind the TLS proxy;
  0 in development). The client address that rate limits count is the entry the outermost of them
  added (:mod:`frontend.services.client`); entries the client sent itself are never believed. An
  IPv6 client counts as its /64 (an IPv4-mapped one as its IPv4 address);
- ``GOWEB_ANALYSIS_THREADS``: threads running tasks in-process for each queue when there is no
  broker (default 2);
- ``GOWEB_BOARD_THREADS``: threads of each web process that run the board sockets' database and
  board work, each socket's messages in turn (default 4): one socket's slow message no longer
  holds up every other socket of the process, as on Channels' one shared thread;
- ``GOWEB_TORCH_THREADS``: torch threads per analysing process (default 1: one core per worker);
- ``GOWEB_REVIEW_VISITS``: search visits per position in game review and on the board's position
  analysis at the normal depth (default 200; ``fast`` is a quarter of it, ``deep`` four times it,
  capped by ``GOWEB_API_MAX_VISITS``), ``GOWEB_REVIEW_CHUNK``: positions per whole-game task
  message (default 10);
- ``GOWEB_API_MAX_VISITS``: the cap on ``maxVisits`` of ``/api/analyze`` (default 2000) and
  ``GOWEB_API_TIMEOUT``: seconds it waits for a worker's answer (default 120);
- ``GOWEB_WEIGHTS_DIR``: the shipped networks, listed with their roles and figures in its
  ``zoo.json`` (default ``weights/``); the manifest names the default network of each role, per
  device kind where they differ (:mod:`analysis.nets.registry` picks);
- ``GOWEB_DEVICE``: where the networks run and which defaults apply: ``cpu``, ``cuda``, or
  ``auto`` (the default: CUDA when the process's torch sees a GPU, which imports torch to find
  out).  Set it in a web process that only queues tasks, to the workers' kind, so that it picks
  their defaults without torch (the compose files do).
"""

import os
import tempfile
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

from goweb.envconfig import (
    broker_transport_options,
    caches_config,
    channel_layers_config,
    database_config,
    env_bool,
    env_float,
    env_int,
    env_list,
    env_str,
    queue_names,
    secret_key,
    task_routes,
)

BASE_DIR = Path(__file__).resolve().parent.parent

ENVIRONMENTS = ("development", "production")
GOWEB_ENV = env_str("GOWEB_ENV", "development")
if GOWEB_ENV not in ENVIRONMENTS:
    raise ImproperlyConfigured(f"GOWEB_ENV={GOWEB_ENV!r}: use one of {', '.join(ENVIRONMENTS)}")
PRODUCTION = GOWEB_ENV == "production"

_key_file = env_str("GOWEB_SECRET_KEY_FILE")
SECRET_KEY = secret_key(env_str("DJANGO_SECRET_KEY"), Path(_key_file) if _key_file else None)
if SECRET_KEY is None:
    if PRODUCTION:
        raise ImproperlyConfigured(
            "GOWEB_ENV=production needs a secret key of its own: set DJANGO_SECRET_KEY, or "
            "GOWEB_SECRET_KEY_FILE to a file kept across restarts (created on first start)"
        )
    SECRET_KEY = "django-insecure-goweb-local-development-key"
DEBUG = env_bool("DJANGO_DEBUG", not PRODUCTION)
ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]"])
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS", [])

# Behind a TLS proxy (production): the proxy says the request was HTTPS; cookies travel over
# HTTPS only, and browsers are told to use HTTPS from then on.
if PRODUCTION:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = env_bool("GOWEB_SSL_REDIRECT", True)
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = env_int("GOWEB_HSTS_SECONDS", 365 * 24 * 3600)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
# Production websockets open only from the site's own scheme, host and port (frontend.websocket_origin).
GOWEB_WEBSOCKET_EXACT_ORIGIN = PRODUCTION

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "channels",
    "frontend",
]

MIDDLEWARE = [
    "frontend.middleware.HealthCheck",
    "django.middleware.security.SecurityMiddleware",
    "frontend.middleware.ContentSecurityPolicy",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "frontend.middleware.SessionKeptAlive",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "frontend.middleware.ApiErrorsAsJson",
    "frontend.middleware.ParsingBudget",
]

ROOT_URLCONF = "goweb.urls"
# Database sessions that take a cookie's key only in the form Django makes (a NUL in one was a 500 on
# PostgreSQL): frontend.sessions.
SESSION_ENGINE = "frontend.sessions"
ASGI_APPLICATION = "goweb.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

SQLITE_PATH = Path(env_str("GOWEB_SQLITE_PATH", str(BASE_DIR / "db.sqlite3")))
DATABASES = {"default": database_config(env_str("DATABASE_URL"), SQLITE_PATH)}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # The tests' database is a file too (one per test run): threads running tasks then wait for the
    # write lock as they do on the site, where a shared in-memory database refuses them at once.
    TEST_SQLITE_PATH = Path(tempfile.gettempdir()) / f"goweb-test-{os.getpid()}.sqlite3"
    DATABASES["default"]["TEST"] = {"NAME": str(TEST_SQLITE_PATH)}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = env_str("REDIS_URL")
CHANNEL_LAYERS = channel_layers_config(REDIS_URL)
CACHES = caches_config(REDIS_URL)

CELERY_BROKER_URL = env_str("CELERY_BROKER_URL", REDIS_URL)
CELERY_RESULT_BACKEND = env_str("CELERY_RESULT_BACKEND")
CELERY_TASK_ALWAYS_EAGER = CELERY_BROKER_URL is None
CELERY_TASK_EAGER_PROPAGATES = CELERY_TASK_ALWAYS_EAGER
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_RESULT_ACCEPT_CONTENT = ["json"]
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
GOWEB_QUEUES = queue_names(env_str("GOWEB_QUEUE_PREFIX", ""))
CELERY_TASK_DEFAULT_QUEUE = GOWEB_QUEUES["analysis"]
CELERY_TASK_ROUTES = task_routes(GOWEB_QUEUES)
GOWEB_TASK_VISIBILITY_TIMEOUT = env_int("GOWEB_TASK_VISIBILITY_TIMEOUT", 300)
CELERY_BROKER_TRANSPORT_OPTIONS = broker_transport_options(GOWEB_TASK_VISIBILITY_TIMEOUT)
GOWEB_TASK_START_TIMEOUT = env_int("GOWEB_TASK_START_TIMEOUT", 60)

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = Path(env_str("DJANGO_STATIC_ROOT", str(BASE_DIR / "staticfiles")))
# WhiteNoise serves the static files from the web process itself, DEBUG or not: in production the
# compressed files with hashed names that collectstatic wrote, otherwise the apps' files as they are.
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "goweb.storage.CompressedStaticStorage"
            if PRODUCTION
            else "django.contrib.staticfiles.storage.StaticFilesStorage"
        )
    },
}
WHITENOISE_USE_FINDERS = not PRODUCTION
WHITENOISE_AUTOREFRESH = not PRODUCTION

# A form refused by the CSRF check (the session changed in another tab) gets the site's page, which
# shows back what was entered.
CSRF_FAILURE_VIEW = "frontend.csrf_failure.csrf_failure"

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "frontend:games"
LOGOUT_REDIRECT_URL = "frontend:home"

# Errors go to the process's standard error, DEBUG or not: Django's own default sends its loggers
# (a request's 500 and its traceback, on django.request) to the console only while DEBUG is on, and
# nowhere else without ADMINS.  Every logger's warnings and errors reach the root's handler; Django's
# own messages while DEBUG is on from INFO, as its default shows them, and only its errors otherwise.
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "{asctime} {levelname} {name} {process}: {message}", "style": "{"}},
    "handlers": {"stderr": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["stderr"], "level": "WARNING"},
    "loggers": {"django": {"handlers": [], "level": "INFO" if DEBUG else "ERROR", "propagate": True}},
}

DATA_UPLOAD_MAX_MEMORY_SIZE = env_int("GOWEB_MAX_UPLOAD_BYTES", 2 * 1024 * 1024)
FILE_UPLOAD_MAX_MEMORY_SIZE = DATA_UPLOAD_MAX_MEMORY_SIZE

GOWEB_MAX_SGF_BYTES = env_int("GOWEB_MAX_SGF_BYTES", 512 * 1024)
GOWEB_MAX_SGF_NODES = env_int("GOWEB_MAX_SGF_NODES", 10_000)
GOWEB_MAX_SGF_VALUES = env_int("GOWEB_MAX_SGF_VALUES", 1000)
GOWEB_MAX_GAME_MOVES = env_int("GOWEB_MAX_GAME_MOVES", 1000)
GOWEB_MAX_SGF_POINTS = env_int("GOWEB_MAX_SGF_POINTS", 500_000)
GOWEB_MAX_PASSES_IN_A_ROW = env_int("GOWEB_MAX_PASSES_IN_A_ROW", 4)
GOWEB_UPLOAD_RATE_LIMIT = env_int("GOWEB_UPLOAD_RATE_LIMIT", 10 if PRODUCTION else 0)
GOWEB_UPLOAD_RATE_WINDOW = env_int("GOWEB_UPLOAD_RATE_WINDOW", 60)
GOWEB_NEW_GAME_RATE_LIMIT = env_int("GOWEB_NEW_GAME_RATE_LIMIT", 30 if PRODUCTION else 0)
GOWEB_NEW_GAME_RATE_WINDOW = env_int("GOWEB_NEW_GAME_RATE_WINDOW", 600)
GOWEB_SESSION_RATE_LIMIT = env_int("GOWEB_SESSION_RATE_LIMIT", 30 if PRODUCTION else 0)
GOWEB_SESSION_RATE_WINDOW = env_int("GOWEB_SESSION_RATE_WINDOW", 600)
GOWEB_PASSWORD_RATE_LIMIT = env_int("GOWEB_PASSWORD_RATE_LIMIT", 30 if PRODUCTION else 0)
GOWEB_PASSWORD_RATE_WINDOW = env_int("GOWEB_PASSWORD_RATE_WINDOW", 600)
GOWEB_API_RATE_LIMIT = env_int("GOWEB_API_RATE_LIMIT", 60)
GOWEB_API_RATE_WINDOW = env_int("GOWEB_API_RATE_WINDOW", 60)
GOWEB_API_VISIT_BUDGET = env_int("GOWEB_API_VISIT_BUDGET", 10_000)
GOWEB_PARSE_BUDGET_MS = env_int("GOWEB_PARSE_BUDGET_MS", 10_000)
GOWEB_PARSE_WINDOW = env_int("GOWEB_PARSE_WINDOW", 60)
GOWEB_WS_PER_ADDRESS = env_int("GOWEB_WS_PER_ADDRESS", 16)
GOWEB_WS_MESSAGE_RATE = env_float("GOWEB_WS_MESSAGE_RATE", 10.0, zero=True)
GOWEB_WS_MESSAGE_BURST = env_int("GOWEB_WS_MESSAGE_BURST", 40)
GOWEB_LOGIN_ACCOUNT_FAILURES = env_int("GOWEB_LOGIN_ACCOUNT_FAILURES", 5)
GOWEB_LOGIN_ADDRESS_FAILURES = env_int("GOWEB_LOGIN_ADDRESS_FAILURES", 20)
GOWEB_LOGIN_LOCKOUT = env_int("GOWEB_LOGIN_LOCKOUT", 15 * 60)
GOWEB_TRUSTED_PROXIES = env_int("GOWEB_TRUSTED_PROXIES", 1 if PRODUCTION else 0)
GOWEB_ANALYSIS_THREADS = env_int("GOWEB_ANALYSIS_THREADS", 2)
GOWEB_BOARD_THREADS = env_int("GOWEB_BOARD_THREADS", 4)
GOWEB_WORKER_NICE = env_int("GOWEB_WORKER_NICE", 0)
GOWEB_WORKER_HEARTBEAT_FILE = env_str("GOWEB_WORKER_HEARTBEAT_FILE")
GOWEB_WORKER_HEARTBEAT_INTERVAL = env_float("GOWEB_WORKER_HEARTBEAT_INTERVAL", 10.0)
GOWEB_MAX_GAME_ANALYSES = env_int("GOWEB_MAX_GAME_ANALYSES", 1)
GOWEB_MAX_POSITION_ANALYSES = env_int("GOWEB_MAX_POSITION_ANALYSES", 4)
GOWEB_MAX_ADDRESS_JOBS = env_int("GOWEB_MAX_ADDRESS_JOBS", 10)
GOWEB_TORCH_THREADS = env_int("GOWEB_TORCH_THREADS", 1)
GOWEB_REVIEW_VISITS = env_int("GOWEB_REVIEW_VISITS", 200)
GOWEB_REVIEW_CHUNK = env_int("GOWEB_REVIEW_CHUNK", 10)
GOWEB_API_MAX_VISITS = env_int("GOWEB_API_MAX_VISITS", 2000)
GOWEB_API_TIMEOUT = env_int("GOWEB_API_TIMEOUT", 120)
GOWEB_WEIGHTS_DIR = Path(env_str("GOWEB_WEIGHTS_DIR", str(BASE_DIR / "weights")))
DEVICES = ("auto", "cpu", "cuda")
GOWEB_DEVICE = env_str("GOWEB_DEVICE", "auto")
if GOWEB_DEVICE not in DEVICES:
    raise ImproperlyConfigured(f"GOWEB_DEVICE={GOWEB_DEVICE!r}: use one of {', '.join(DEVICES)}")
