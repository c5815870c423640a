"""Websocket URL routes, mounted by ``goweb.asgi``."""

from django.urls import path

from frontend.consumers import BoardConsumer, PingConsumer, SharedBoardConsumer

websocket_urlpatterns = [
    path("ws/ping/", PingConsumer.as_asgi()),
    path("ws/board/<int:game_id>/", BoardConsumer.as_asgi()),
    path("ws/shared/<str:token>/", SharedBoardConsumer.as_asgi()),
]
