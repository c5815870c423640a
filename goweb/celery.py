"""Celery application for goweb, configured from the ``CELERY_*`` Django settings."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "goweb.settings")

app = Celery("goweb")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
