"""ASGI entry point: Django serves HTTP, Channels routes websockets to the frontend consumers (from the
site's own pages only: :mod:`frontend.websocket_origin`)."""

import os

from channels.auth import AuthMiddlewareStack
from channels.routing import ProtocolTypeRouter, URLRouter
from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "goweb.settings")
django_asgi_app = get_asgi_application()

from frontend.routing import websocket_urlpatterns  # noqa: E402  (needs the app registry loaded above)
from frontend.websocket_origin import OriginValidator  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": OriginValidator(AuthMiddlewareStack(URLRouter(websocket_urlpatterns))),
    }
)
