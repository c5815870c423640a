"""Django settings for goweb.

All configuration comes from environment variables, and every default works without any external
service (SQLite, in-memory channel layer, Celery tasks run eagerly in-process):

- ``DJANGO_SECRET_KEY``, ``DJANGO_DEBUG`` (default on), ``DJANGO_ALLOWED_HOSTS`` and
  ``DJANGO_CSRF_TRUSTED_ORIGINS`` (comma-separated), ``DJANGO_STATIC_ROOT``;
- ``DATABASE_URL`` (``postgres://user@host:port/name``), default ``db.sqlite3`` in the repository root;
- ``REDIS_URL`` for the channel layer and the cache (which holds the API rate limits), also the
  default Celery broker;
- ``CELERY_BROKER_URL`` and ``CELERY_RESULT_BACKEND``; ``GOWEB_TASK_QUEUE``, the Celery queue
  (default ``celery``);
- ``GOWEB_TASK_VISIBILITY_TIMEOUT``: seconds after which Redis hands a task that no worker
  acknowledged (its worker died) to another worker (default 300; every task message must finish
  well within it, which is why a whole-game analysis runs in chunks);
- ``GOWEB_MAX_UPLOAD_BYTES`` caps request bodies held in memory (default 2 MB);
- ``GOWEB_SQLITE_PATH`` moves the default SQLite file (ignored with ``DATABASE_URL``);
- ``GOWEB_MAX_SGF_BYTES`` caps uploaded or pasted SGF files (default 512 kB);
- ``GOWEB_API_RATE_LIMIT`` and ``GOWEB_API_RATE_WINDOW``: requests allowed per client per window
  (seconds) on ``/api/analyze`` (default 60 per 60 s; 0 turns the limit off);
- ``GOWEB_ANALYSIS_THREADS``: threads running analysis in-process when there is no broker (default 2);
- ``GOWEB_TORCH_THREADS``: torch threads per analysing process (default 1: one core per worker);
- ``GOWEB_REVIEW_VISITS``: search visits per position in game review and on the board's position
  analysis (default 200), ``GOWEB_REVIEW_CHUNK``: positions per whole-game task message (default 10);
- ``GOWEB_API_MAX_VISITS``: the cap on ``maxVisits`` of ``/api/analyze`` (default 2000) and
  ``GOWEB_API_TIMEOUT``: seconds it waits for a worker's answer (default 120);
- ``GOWEB_WEIGHTS_DIR``: the shipped networks, listed with their roles and figures in its
  ``zoo.json`` (default ``weights/``); the manifest names the default network of each role.
"""

from pathlib import Path

from goweb.envconfig import (
    broker_transport_options,
    caches_config,
    channel_layers_config,
    database_config,
    env_bool,
    env_int,
    env_list,
    env_str,
)

BASE_DIR = Path(__file__).resolve().parent.parent

SECRET_KEY = env_str("DJANGO_SECRET_KEY", "django-insecure-goweb-local-development-key")
DEBUG = env_bool("DJANGO_DEBUG", True)
ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]"])
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS", [])

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
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "goweb.urls"
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
CELERY_TASK_DEFAULT_QUEUE = env_str("GOWEB_TASK_QUEUE", "celery")
CELERY_BROKER_TRANSPORT_OPTIONS = broker_transport_options(env_int("GOWEB_TASK_VISIBILITY_TIMEOUT", 300))

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

DATA_UPLOAD_MAX_MEMORY_SIZE = env_int("GOWEB_MAX_UPLOAD_BYTES", 2 * 1024 * 1024)
FILE_UPLOAD_MAX_MEMORY_SIZE = DATA_UPLOAD_MAX_MEMORY_SIZE

GOWEB_MAX_SGF_BYTES = env_int("GOWEB_MAX_SGF_BYTES", 512 * 1024)
GOWEB_API_RATE_LIMIT = env_int("GOWEB_API_RATE_LIMIT", 60)
GOWEB_API_RATE_WINDOW = env_int("GOWEB_API_RATE_WINDOW", 60)
GOWEB_ANALYSIS_THREADS = env_int("GOWEB_ANALYSIS_THREADS", 2)
GOWEB_TORCH_THREADS = env_int("GOWEB_TORCH_THREADS", 1)
GOWEB_REVIEW_VISITS = env_int("GOWEB_REVIEW_VISITS", 200)
GOWEB_REVIEW_CHUNK = env_int("GOWEB_REVIEW_CHUNK", 10)
GOWEB_API_MAX_VISITS = env_int("GOWEB_API_MAX_VISITS", 2000)
GOWEB_API_TIMEOUT = env_int("GOWEB_API_TIMEOUT", 120)
GOWEB_WEIGHTS_DIR = Path(env_str("GOWEB_WEIGHTS_DIR", str(BASE_DIR / "weights")))
