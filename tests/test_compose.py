"""docker-compose.yml, checked without a Docker daemon: Debian's ``docker-compose config`` validates it,
its commands are the ones the tests run (analysis.bench.webstack), every variable it sets is one
goweb/settings.py reads, its services have health checks, the migrations run once before the
web server and the workers, and ``check --deploy`` is clean with its settings."""

from __future__ import annotations

import ast
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from analysis.bench.webstack import QUEUES, daphne_command, migrate_command, worker_command
from goweb.envconfig import queue_names

ROOT = Path(__file__).resolve().parent.parent
COMPOSE = shutil.which("docker-compose")
pytestmark = pytest.mark.skipif(COMPOSE is None, reason="docker-compose is not installed (make system-deps)")

APP_SERVICES = {"migrate", "web", "worker-play", "worker"}
SECRET_FILE = "/data/secret_key"


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
    readers = {"env_str", "env_int", "env_bool", "env_list"}
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
    for name in ("worker", "worker-play"):
        assert "inspect ping" in " ".join(services[name]["healthcheck"]["test"])


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
