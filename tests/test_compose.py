"""docker-compose.yml, checked without a Docker daemon: Debian's ``docker-compose config`` validates it,
its commands are the ones the tests run (analysis.bench.webstack), every variable it sets is one
goweb/settings.py reads, its services have health checks, the migrations run once before the
web server and the workers, and ``check --deploy`` is clean with its settings."""

from __future__ import annotations

import ast
import json
import os
import shlex
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
import redis
import yaml
from celery import Celery

from analysis.bench.webstack import QUEUES, daphne_command, migrate_command, worker_command
from goweb.envconfig import queue_names

ROOT = Path(__file__).resolve().parent.parent
COMPOSE = shutil.which("docker-compose")
pytestmark = pytest.mark.skipif(COMPOSE is None, reason="docker-compose is not installed (make system-deps)")

APP_SERVICES = {"migrate", "web", "worker-play", "worker"}
SECRET_FILE = "/data/secret_key"
REDIS_URL = "redis://127.0.0.1:6379/15"


def _redis_reachable() -> bool:
    try:
        return bool(redis.Redis.from_url(REDIS_URL, socket_connect_timeout=1, socket_timeout=1).ping())
    except redis.RedisError:
        return False


def config(*files: str) -> dict:
    """Return the compose configuration that ``docker-compose config`` resolves from ``files``."""
    args = [arg for name in files for arg in ("-f", name)]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "GOWEB_"))}
    done = subprocess.run(
        [COMPOSE, *args, "config"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return yaml.safe_load(done.stdout)


@pytest.fixture(scope="module")
def services() -> dict[str, dict]:
    return config("docker-compose.yml")["services"]


def command(service: dict) -> list[str]:
    value = service["command"]
    return shlex.split(value) if isinstance(value, str) else value


def settings_variables() -> set[str]:
    """Return the environment variables that goweb/settings.py reads (through goweb.envconfig)."""
    tree = ast.parse((ROOT / "goweb" / "settings.py").read_text())
    readers = {"env_str", "env_int", "env_bool", "env_float", "env_list"}
    return {
        node.args[0].value
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) in readers
    }


def test_the_compose_files_are_valid() -> None:
    assert set(config("docker-compose.yml")["services"]) == APP_SERVICES | {"redis", "postgres"}
    gpu = config("docker-compose.yml", "docker-compose.gpu.yml")["services"]
    for name in ("worker", "worker-play"):
        (device,) = gpu[name]["deploy"]["resources"]["reservations"]["devices"]
        assert device["capabilities"] == ["gpu"]
        assert gpu[name]["healthcheck"]["test"] == ["CMD-SHELL", "python -m frontend.heartbeat"]


def test_the_web_server_and_the_workers_pick_for_the_same_device() -> None:
    """The web server picks the workers' networks without torch: it is told their device."""
    gpu = ("docker-compose.yml", "docker-compose.gpu.yml")
    for files, kind in ((("docker-compose.yml",), "cpu"), (gpu, "cuda")):
        services = config(*files)["services"]
        devices = {services[name]["environment"]["GOWEB_DEVICE"] for name in ("web", "worker", "worker-play")}
        assert devices == {kind}


def test_each_command_is_the_one_the_tests_run(services: dict[str, dict]) -> None:
    assert command(services["migrate"]) == migrate_command()
    assert command(services["web"]) == daphne_command("0.0.0.0", 8000)
    assert services["web"]["ports"][0].startswith("127.0.0.1:8000:8000")
    assert command(services["worker-play"]) == worker_command(["play"])
    assert command(services["worker"]) == worker_command(["analysis", "review"])
    assert tuple(queue_names("")) == QUEUES  # the queues the settings route the tasks to


def test_the_site_believes_only_the_x_forwarded_for_entry_its_proxy_added(services: dict[str, dict]) -> None:
    """daphne's ``--proxy-headers`` would take the first entry, the client's own; the documented nginx
    block replaces the client's header instead of appending to it."""
    assert "--proxy-headers" not in daphne_command("0.0.0.0", 8000)
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert f"CMD {json.dumps(daphne_command('0.0.0.0', 8000))}" in dockerfile
    assert services["web"]["environment"]["GOWEB_TRUSTED_PROXIES"] == "1"
    readme = (ROOT / "README.md").read_text()
    assert "proxy_set_header X-Forwarded-For $remote_addr;" in readme
    assert "$proxy_add_x_forwarded_for" not in readme


def test_a_bot_move_has_workers_of_its_own(services: dict[str, dict]) -> None:
    """The play queue has a worker taking nothing else; the others take every other queue."""
    workers = {name: command(services[name]) for name in ("worker-play", "worker")}
    taken = {name: argv[argv.index("-Q") + 1] for name, argv in workers.items()}
    assert taken == {"worker-play": "play", "worker": "analysis,review"}
    assert services["worker"]["environment"]["GOWEB_WORKER_NICE"] == 10
    assert "GOWEB_WORKER_NICE" not in services["worker-play"]["environment"]


def test_every_variable_it_sets_is_read_by_the_settings(services: dict[str, dict]) -> None:
    read = settings_variables()
    for name in APP_SERVICES:
        environment = services[name]["environment"]
        unread = sorted(set(environment) - read)
        assert not unread, f"{name} sets {unread}, which goweb/settings.py does not read"
        assert environment["GOWEB_ENV"] == "production"
        assert environment["GOWEB_SECRET_KEY_FILE"] == SECRET_FILE
        assert "DJANGO_DEBUG" not in environment
        assert any(volume.startswith("secrets:/data") for volume in services[name]["volumes"])


def test_services_have_health_checks(services: dict[str, dict]) -> None:
    for name, service in services.items():
        if name == "migrate":
            assert service["restart"] == "no"  # runs once, then exits
            continue
        assert service["healthcheck"]["test"], name
        assert service["restart"] == "unless-stopped", name
    assert "/healthz" in " ".join(services["web"]["healthcheck"]["test"])
    for name in ("worker", "worker-play"):  # the heartbeat a busy solo worker keeps, not inspect ping
        assert "python -m frontend.heartbeat" in " ".join(services[name]["healthcheck"]["test"])


BUSY_SECONDS = 12


def health_check(test: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    """Run a compose ``CMD-SHELL`` health check with ``env``, as compose runs it in the container."""
    assert test[0] == "CMD-SHELL"
    shell = ["sh", "-c", test[1].replace("$$", "$")]
    return subprocess.run(shell, cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)


@pytest.mark.skipif(not _redis_reachable(), reason=f"Redis not reachable at {REDIS_URL}")
def test_the_worker_health_check_passes_promptly_while_a_solo_worker_runs_a_long_task(
    services: dict[str, dict], tmp_path: Path
) -> None:
    """The compose health check, run as compose runs it in the worker's container (its environment, a
    heartbeat every half second here), answers 0 within 5 s while the solo worker is busy for 12 s;
    ``celery inspect ping`` waited for the task to end, and failed on a long one."""
    assert services["worker-play"]["healthcheck"] == services["worker"]["healthcheck"]
    service = services["worker"]
    queue = f"goweb-test-health-{uuid.uuid4().hex}"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "GOWEB_"))}
    env.update({k: str(v) for k, v in service["environment"].items()})
    env.update({
        "GOWEB_ENV": "development", "DATABASE_URL": "", "REDIS_URL": REDIS_URL,
        "GOWEB_SQLITE_PATH": str(tmp_path / "worker.sqlite3"), "GOWEB_SECRET_KEY_FILE": str(tmp_path / "key"),
        "GOWEB_WORKER_HEARTBEAT_FILE": str(tmp_path / "heartbeat"), "GOWEB_WORKER_HEARTBEAT_INTERVAL": "0.5",
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",  # python, as in the image
    })  # fmt: skip
    celery = command(service)[: command(service).index("-Q") + 1]  # the service's worker, a queue of its own
    argv = [sys.executable, "-m", *celery, queue, "--include", "tests.worker_busy_tasks", "--loglevel=info"]
    check = service["healthcheck"]["test"]
    log = (tmp_path / "worker.log").open("w")
    worker = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    client = Celery("goweb-test", broker=REDIS_URL)
    try:
        started = tmp_path / "started"
        client.send_task("tests.busy", args=[BUSY_SECONDS, str(started)], queue=queue)
        deadline = time.monotonic() + 120
        while not started.exists():
            assert worker.poll() is None and time.monotonic() < deadline, "the worker took no task"
            time.sleep(0.2)
        busy_since = time.monotonic()
        for _ in range(2):
            time.sleep(2)
            t0 = time.monotonic()
            done = health_check(check, env)
            answered = time.monotonic()
            assert done.returncode == 0, done.stdout + done.stderr
            assert answered - t0 < 5 and answered - busy_since < BUSY_SECONDS  # the task still runs
    finally:
        worker.terminate()
        worker.wait(timeout=20)
        log.close()
        client.close()
        redis.Redis.from_url(REDIS_URL).delete(queue)
    assert not (tmp_path / "heartbeat").exists()  # a stopped worker leaves no fresh beat behind
    stale = health_check(check, env)
    assert stale.returncode == 1 and "no heartbeat" in stale.stdout + stale.stderr


def test_migrations_run_once_before_the_web_server_and_the_workers(services: dict[str, dict]) -> None:
    for name in ("web", "worker-play", "worker"):
        depends = services[name]["depends_on"]
        assert depends["migrate"] == {"condition": "service_completed_successfully"}, name
        assert "migrate" not in " ".join(command(services[name]))
    assert services["migrate"]["depends_on"]["postgres"] == {"condition": "service_healthy"}


def test_check_deploy_is_clean_with_the_compose_settings(services: dict[str, dict], tmp_path: Path) -> None:
    """The web service's environment as it is, but the secret key file on this machine."""
    environment = {k: str(v) for k, v in services["web"]["environment"].items()}
    environment["GOWEB_SECRET_KEY_FILE"] = str(tmp_path / "secret_key")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "GOWEB_"))}
    env.update(environment)
    checked = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "no issues" in checked.stdout
    assert (tmp_path / "secret_key").exists()  # made on first start, kept in the volume
