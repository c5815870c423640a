"""HTTP views: the home page and a health check."""

import importlib

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

ENGINE_MODULE = "analysis.go._board"


def engine_available() -> bool:
    """Return whether the compiled board engine can be imported (it may not be built yet)."""
    try:
        importlib.import_module(ENGINE_MODULE)
    except ImportError:
        return False
    return True


@require_safe
def home(request: HttpRequest) -> HttpResponse:
    """Render the landing page."""
    return render(request, "frontend/home.html")


@require_safe
def healthz(request: HttpRequest) -> JsonResponse:
    """Report that the site is up and whether the board engine is importable."""
    return JsonResponse({"status": "ok", "engine": engine_available()})
