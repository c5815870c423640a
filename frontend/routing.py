"""Websocket URL routes, mounted by ``goweb.asgi``: any other path gets an error and a 4404 close."""

from django.urls import path, re_path

from frontend.consumers import BoardConsumer, NoSuchSocketConsumer, PingConsumer, SharedBoardConsumer

websocket_urlpatterns = [
    path("ws/ping/", PingConsumer.as_asgi()),
    path("ws/board/<int:game_id>/", BoardConsumer.as_asgi()),
    path("ws/shared/<str:token>/", SharedBoardConsumer.as_asgi()),
    re_path(r"", NoSuchSocketConsumer.as_asgi()),
]
