"""Websocket URL routes, mounted by ``goweb.asgi``."""

from django.urls import path

from frontend.consumers import PingConsumer

websocket_urlpatterns = [
    path("ws/ping/", PingConsumer.as_asgi()),
]
