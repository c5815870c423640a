"""ASGI entry point: Django serves HTTP, Channels routes websockets to the frontend consumers."""

import os

from channels.auth import AuthMiddlewareStack
from channels.routing import ProtocolTypeRouter, URLRouter
from channels.security.websocket import AllowedHostsOriginValidator
from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "goweb.settings")
django_asgi_app = get_asgi_application()

from frontend.routing import websocket_urlpatterns  # noqa: E402  (needs the app registry loaded above)

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": AllowedHostsOriginValidator(AuthMiddlewareStack(URLRouter(websocket_urlpatterns))),
    }
)
