"""The join between the engine and the web app: analysis/ never imports the web side, and the
web process imports torch only where a task runs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

IMPORT_EVERY_ANALYSIS_MODULE = """
import importlib, json, pkgutil, sys

WEB = {"django", "frontend", "goweb", "channels", "channels_redis", "celery", "daphne", "asgiref"}


class RefuseTheWebSide:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in WEB:
            raise ImportError(f"analysis must not import {name}")


sys.meta_path.insert(0, RefuseTheWebSide())
import analysis

names = [m.name for m in pkgutil.walk_packages(analysis.__path__, "analysis.")
         if not m.name.endswith("__main__")]
for name in names:
    importlib.import_module(name)
print(json.dumps(names))
"""

WEB_PROCESS_MODULES = """
import json, sys
import django

django.setup()
import goweb.asgi, goweb.urls, frontend.views, frontend.consumers, frontend.tasks, frontend.services.api
from frontend.services import strength
strength.records()  # the levels' records name the weights their networks are, without loading them
print(json.dumps({"torch": "torch" in sys.modules}))
from frontend.services import engine
engine.network()
print(json.dumps({"torch": "torch" in sys.modules}))
"""


def run_python(code: str, **env: str) -> list:
    """Run ``code`` in a fresh interpreter at the repository root; return its JSON output lines."""
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300,
                          env={**os.environ, **env})
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def test_every_analysis_module_imports_without_django_or_the_web_app() -> None:
    (names,) = run_python(IMPORT_EVERY_ANALYSIS_MODULE)
    assert "analysis.review.analyze" in names and "analysis.nets.inference" in names and len(names) > 80


def test_the_web_process_loads_torch_only_when_a_task_needs_a_network() -> None:
    broker = "redis://127.0.0.1:6379/15"
    before, after = run_python(WEB_PROCESS_MODULES, DJANGO_SETTINGS_MODULE="goweb.settings",
                               CELERY_BROKER_URL=broker, REDIS_URL=broker)
    assert before == {"torch": False}
    assert after == {"torch": True}
