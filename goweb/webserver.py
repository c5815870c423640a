"""The web server: daphne's command line (``python -m goweb.webserver`` takes daphne's arguments),
whose websockets close with a closing handshake where daphne drops the connection.

daphne refuses a websocket message over ``--websocket-max-message-size`` (1 MiB by default) by
dropping the TCP connection: the client sees 1006 and no reason.  Here autobahn, which speaks
daphne's websockets, fails a connection with a close frame instead: such a message gets 1009
("message too big", RFC 6455) with its reason, as ``docs/protocol.md`` documents.
"""

from __future__ import annotations

from typing import Any

from daphne.cli import CommandLineInterface
from daphne.server import Server


class ClosingServer(Server):
    """daphne's server, its websocket connections failed by a closing handshake, not a dropped TCP
    connection (autobahn's ``failByDrop``)."""

    def listen_success(self, port: Any) -> None:
        """Set the websocket option once the factory exists, as the server starts listening (before
        any connection is accepted), then record the port as daphne does."""
        self.ws_factory.setProtocolOptions(failByDrop=False)
        super().listen_success(port)


class WebServerCommand(CommandLineInterface):
    """daphne's command line, serving with :class:`ClosingServer`."""

    server_class = ClosingServer


if __name__ == "__main__":
    WebServerCommand.entrypoint()
