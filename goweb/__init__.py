"""The goweb Django project; importing it also loads the Celery app so shared tasks bind to it."""

from goweb.celery import app as celery_app

__all__ = ("celery_app",)
