"""App configuration for the web front end."""

from django.apps import AppConfig


class FrontendConfig(AppConfig):
    """Pages, static assets and websocket consumers of the site."""

    name = "frontend"
    verbose_name = "Go analysis front end"
