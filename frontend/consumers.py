"""Websocket consumers speaking JSON messages of the form ``{"type": ..., ...}``.

Malformed or unknown messages get an ``{"type": "error", "message": ...}`` reply and the
connection stays open.  The board protocol is documented in ``docs/protocol.md``; the work is
done in :mod:`frontend.services`.
"""

import contextlib
import functools
import json
import logging
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.conf import settings

from analysis.sgf import GameRecord
from frontend import tasks
from frontend.models import Game
from frontend.services import (
    board,
    client,
    dispatch,
    games,
    jobs,
    notify,
    outage,
    protocol,
    socket_budget,
    variations,
)
from frontend.services import depth as depths
from frontend.services.requester import Requester
from frontend.services.requester import from_scope as requester_of

log = logging.getLogger(__name__)
BUG = "the server could not handle this message (a fault of ours, logged): the board is as it was"
UNSENDABLE = "the server made a message with a number that is not one (a fault of ours, logged): not sent"


@functools.cache
def board_pool() -> ThreadPoolExecutor:
    """Return the process's pool of ``GOWEB_BOARD_THREADS`` threads for the board sockets' work."""
    return ThreadPoolExecutor(max_workers=settings.GOWEB_BOARD_THREADS, thread_name_prefix="board")


class JsonConsumer(AsyncJsonWebsocketConsumer):
    """Decodes text frames as JSON and answers bad input with an error message instead of closing;
    its client address's budget (:mod:`frontend.services.socket_budget`) bounds the sockets open and
    the messages read."""

    address: str | None = None  # the client address this socket is counted against while open
    work_seconds = 0.0  # the pool's thread time on the message being read, charged to its address

    def in_pool(self, func: Callable[..., Any]) -> Callable[..., Any]:
        """Return ``func`` to await, run as Channels' ``database_sync_to_async`` runs it (its
        database connection closed when old) but on :func:`board_pool`, not on the one thread every
        socket of the process would share, so that one socket's slow message (a large game's tree)
        holds up no other; its thread time counts in :attr:`work_seconds`."""
        def timed(*args: Any, **kwargs: Any) -> Any:
            started = time.thread_time()
            try:
                return func(*args, **kwargs)
            finally:
                self.work_seconds += time.thread_time() - started

        return database_sync_to_async(timed, thread_sensitive=False, executor=board_pool())

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        """Run the consumer; however it ends (a disconnect, or a fault that ends it without one),
        its socket stops counting against its address."""
        try:
            await super().__call__(scope, receive, send)
        finally:
            self.release_address()

    async def websocket_connect(self, message: dict) -> None:
        """Connect, or refuse a socket past its address's budget: accept it, say why and close it,
        with 4429 (too many open: the page does not try again) or 1013 (its messages spent: the page
        tries again later).  Opening costs a message, and the work of opening comes out of the
        address's budget as a message's does."""
        address = client.of_scope(self.scope)
        if not socket_budget.open_socket(address):
            await self.refuse(socket_budget.too_many_sockets(), socket_budget.SOCKETS_CLOSE_CODE)
            return
        self.address = address
        if wait := socket_budget.spend_message(address):
            self.release_address()
            await self.refuse(socket_budget.too_many_openings(wait), socket_budget.TRY_LATER_CLOSE_CODE)
            return
        self.work_seconds = 0.0
        try:
            await super().websocket_connect(message)
        except BaseException:
            self.release_address()
            raise
        finally:
            self.charge_work()

    async def refuse(self, message: str, code: int) -> None:
        """Accept the socket, send the error ``message`` and close it with ``code``."""
        await self.accept()
        await self.send_error(message)
        await self.close(code=code)

    def charge_work(self) -> None:
        """Take the pool's thread time counted since :attr:`work_seconds` was last zeroed out of the
        address's budget, and zero it."""
        if self.address is not None and self.work_seconds:
            socket_budget.spend_work(self.address, self.work_seconds)
        self.work_seconds = 0.0

    async def websocket_disconnect(self, message: dict) -> None:
        """Stop counting this socket against its address, then disconnect."""
        self.release_address()
        await super().websocket_disconnect(message)

    def release_address(self) -> None:
        """Stop counting this socket against its address (once)."""
        if self.address is not None:
            socket_budget.close_socket(self.address)
            self.address = None

    async def receive(
        self, text_data: str | None = None, bytes_data: bytes | None = None, **kwargs: Any
    ) -> None:
        """Decode a text frame as JSON, replying with an error instead of raising on bad input, or
        instead of reading it when the address has sent more than its budget.

        ``ValueError`` covers malformed JSON and oversized integers, ``RecursionError`` deep nesting.
        """
        if self.address is not None and (wait := socket_budget.spend_message(self.address)):
            await self.send_error(socket_budget.too_many_messages(wait))
            return
        if text_data is None:
            await self.send_error("binary frames are not supported; send JSON text")
            return
        try:
            content = await self.decode_json(text_data)
        except (ValueError, RecursionError):
            await self.send_error("message is not valid JSON")
            return
        self.work_seconds = 0.0  # the message's own work from here
        try:
            await self.receive_json(content, **kwargs)
        finally:  # the work it cost comes out of the address's budget
            self.charge_work()

    @classmethod
    async def encode_json(cls, content: Any) -> str:
        """Return ``content`` as JSON text that a browser's ``JSON.parse`` reads: a message holding
        NaN or an infinity (which Python writes and browsers refuse, so that the page would drop
        it unread) is logged and replaced by an error saying it was not sent."""
        try:
            return json.dumps(content, allow_nan=False)
        except ValueError:
            log.error("not sent, a number that is not one in: %.500r", content)
            return json.dumps({"type": "error", "message": UNSENDABLE})

    async def send_error(self, message: str) -> None:
        """Send an error message to the client without closing the connection."""
        await self.send_json({"type": "error", "message": message})


class PingConsumer(JsonConsumer):
    """Answers ``{"type": "ping"}`` with ``{"type": "pong"}``."""

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        """Dispatch a decoded message on its ``type`` field."""
        if not isinstance(content, dict):
            await self.send_error("message must be a JSON object")
        elif "type" not in content:
            await self.send_error("message has no 'type' field")
        elif content["type"] == "ping":
            await self.send_json({"type": "pong"})
        else:
            await self.send_error(f"unknown message type {content['type']!r}")


class NoSuchSocketConsumer(JsonConsumer):
    """Every websocket path that the site does not serve: accepted, told so, and closed with 4404
    (the page does not reconnect), where the router would fail the handshake with a server error."""

    async def connect(self) -> None:
        await self.accept()
        await self.send_error(f"there is no websocket at {self.scope['path'][:100]!r}: "
                              "boards are at /ws/board/<game id>/ and /ws/shared/<token>/")
        await self.close(code=4404)


class BoardConsumer(JsonConsumer):
    """One game's board: play against the bot, review, analysis and feature planes, for its owner."""

    read_only = False
    game_id: int
    requester: Requester
    private: GameRecord | None = None  # the variations a viewer explores (frontend.services.variations)
    opened = False  # whether the board opened: the messages of a socket refused are left unread

    def find_game(self) -> Game:
        """Return the game of this socket's URL if the requester owns it; raises Game.DoesNotExist
        (closed with 4404) or PermissionError (closed with 4403)."""
        return games.owned_game(self.scope["url_route"]["kwargs"]["game_id"], self.requester)

    def missing(self) -> str:
        """Return the error message when there is no such game."""
        return f"there is no game {self.scope['url_route']['kwargs']['game_id']}"

    async def connect(self) -> None:
        """Accept, then close with 4404/4403 and an error message unless the game may be opened here,
        or with 1013 (try again later) when Redis cannot be reached."""
        await self.accept()
        self.requester = requester_of(self.scope)
        try:
            game = await self.in_pool(self.find_game)()
        except Game.DoesNotExist:
            await self.send_error(self.missing())
            await self.close(code=4404)
            return
        except PermissionError as e:
            await self.send_error(str(e))
            await self.close(code=4403)
            return
        try:
            await self.open_board(game.pk)
        except outage.UNAVAILABLE:
            await self.send_error(outage.CONNECT)
            await self.close(code=1013)
            return
        self.opened = True

    async def open_board(self, game_id: int) -> None:
        """Join the board's group and send its state (asking for the bot's move if it is its turn)
        and its saved analysis."""
        self.game_id = game_id
        await dispatch.forget_the_earlier_process()  # before telling the state of its analyses
        await self.channel_layer.group_add(notify.board_group(self.game_id), self.channel_name)
        outcome = await self.in_pool(board.current)(self.game_id)
        await self.send_outcome(outcome, broadcast=outcome.changed)
        saved = await self.in_pool(board.analysis_state)(self.game_id)
        if saved is not None:
            await self.send_json(saved)

    def groups_joined(self) -> list[str]:
        """Return the channel-layer groups this socket joined when it opened."""
        return [notify.board_group(self.game_id)] if hasattr(self, "game_id") else []

    async def disconnect(self, code: int) -> None:
        """Leave the groups joined (while Redis is away, they forget the socket when they expire)."""
        with contextlib.suppress(*outage.UNAVAILABLE):
            for group in self.groups_joined():
                await self.channel_layer.group_discard(group, self.channel_name)

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        """Validate the message, then run its handler; errors go back as error messages.  A refused
        socket's messages (sent before its close arrived) are left unread."""
        if not self.opened or not await self.still_open():
            return
        try:
            kind, fields = protocol.parse(content)
            if self.read_only and kind not in protocol.READ_ONLY:
                raise protocol.ProtocolError(f"this shared review is read-only: {kind!r} is not allowed")
            if kind not in protocol.LOCAL:  # a change or a request to queue: all or nothing
                await outage.check(self.channel_layer)
            await getattr(self, f"on_{kind}")(**fields)
        except (ValueError, Game.DoesNotExist) as e:
            await self.send_error(str(e))
        except outage.UNAVAILABLE:
            await self.send_error(outage.NOT_QUEUED)
        except Exception:  # a fault of ours: said and logged, and the socket stays open
            log.exception("board message %.200r of game %s", content, getattr(self, "game_id", None))
            await self.send_error(BUG)

    async def still_open(self) -> bool:
        """Return whether this socket may still be used (the owner's always may)."""
        return True

    async def board_message(self, event: dict) -> None:
        """Forward a message sent to this board through the channel layer; the analysis of a
        variation's position asked by the owner is saved in the game first."""
        message = event["message"]
        if not self.read_only and message.get("type") == "analysis" and message.get("node"):
            await self.in_pool(variations.keep_analysis)(self.game_id, message)
        await self.send_json(message)

    async def send_outcome(self, outcome: board.Outcome, broadcast: bool = True) -> None:
        """Send the new state (to every viewer when ``broadcast``) and ask for the bot's move if it
        is its turn (not from a read-only viewer)."""
        if broadcast:
            await self.channel_layer.group_send(
                notify.board_group(self.game_id), {"type": "board.message", "message": outcome.state}
            )
        else:
            await self.send_json(outcome.state)
        if outcome.bot_expected_moves is None or self.read_only:
            return
        expected = outcome.bot_expected_moves
        ask = self.in_pool(board.request_bot_move)
        try:
            ticket = await ask(self.game_id, expected, self.requester.address)
        except jobs.AddressCapReached as e:
            await self.send_error(str(e))
            return
        if ticket is not None and ticket.new:
            await dispatch.submit_job(ticket.job, tasks.bot_move, self.game_id, expected, ticket.job)

    async def act(self, action: Any, *args: Any) -> None:
        """Run a state-changing action of :mod:`frontend.services.board` and send its outcome; if
        Redis is lost after the change, this socket still gets the new state, and says what failed."""
        outcome = await self.in_pool(action)(self.game_id, *args)
        try:
            await self.send_outcome(outcome)
        except outage.UNAVAILABLE:
            await self.send_json(outcome.state)
            await self.send_error(outage.MADE_UNTOLD)

    async def on_ping(self) -> None:
        await self.send_json({"type": "pong"})

    async def on_state(self) -> None:
        outcome = await self.in_pool(board.current)(self.game_id)
        await self.send_outcome(outcome, broadcast=outcome.changed)

    async def on_play(self, move: str) -> None:
        await self.act(board.human_move, move, self.requester.address)

    async def on_pass(self) -> None:
        await self.act(board.human_move, "pass", self.requester.address)

    async def on_undo(self) -> None:
        await self.act(board.undo)

    async def on_resign(self) -> None:
        await self.act(board.resign)

    async def on_pause(self) -> None:
        await self.act(board.pause)

    async def on_resume(self) -> None:
        await self.act(board.resume)

    async def on_toggle_dead(self, point: str) -> None:
        await self.act(board.toggle_dead, point)

    async def on_accept_score(self) -> None:
        await self.act(board.accept_score)

    async def on_analyze(
        self, move_number: int, ladders: bool = True, backpred: bool = True, network: str = "",
        backpred_network: str = "", ownership: bool = False, depth: str = depths.NORMAL, node: str = "",
    ) -> None:
        ask = self.in_pool(board.request_analysis)
        query, ticket = await ask(
            self.game_id, self.requester.key, self.channel_name, move_number, self.requester.address,
            ladders=ladders,
            backpred=backpred, network=network, backpred_network=backpred_network, ownership=ownership,
            depth=depth, node=node,
        )
        if ticket.new:
            task = tasks.analyze_position
            await dispatch.submit_job(ticket.job, task, query, self.channel_name, ticket.job)

    async def on_estimate(self, move_number: int | None = None) -> None:
        ask = self.in_pool(board.request_estimate)
        query, ticket = await ask(self.game_id, self.requester.key, move_number, self.requester.address)
        await dispatch.submit_job(ticket.job, tasks.estimate_position, query, self.channel_name, ticket.job)

    async def on_analyze_game(self, depth: str = depths.NORMAL) -> None:
        start = self.in_pool(board.start_game_analysis)
        analysis_id, job = await start(self.game_id, self.requester.key, depth, self.requester.address)
        started = await self.in_pool(board.started_message)(analysis_id)  # every viewer's too
        await self.channel_layer.group_send(
            notify.board_group(self.game_id), {"type": "board.message", "message": started}
        )
        await dispatch.submit_job(job, tasks.analyze_game, analysis_id, job, time.time())

    async def on_compare(self, a: str, b: str) -> None:
        ask = self.in_pool(board.request_comparison)
        names, ticket = await ask(self.requester.key, a, b, self.requester.address)
        await dispatch.submit_job(
            ticket.job, tasks.compare_networks, self.game_id, names, self.channel_name, ticket.job
        )

    async def on_cancel_analysis(self) -> None:
        analysis_id = await self.in_pool(board.cancel_game_analysis)(self.game_id)
        await self.send_json({"type": "cancelling", "analysis": analysis_id})

    async def on_features(self, move_number: int, set: str, plane: str, node: str = "") -> None:
        await self.send_json(
            await self.in_pool(board.feature_plane)(self.game_id, move_number, set, plane, node)
        )

    async def explore(self, action: Any, *args: Any) -> None:
        """Run a change of the game tree (:mod:`frontend.services.variations`) and send the tree; a
        change of the owner's tree is told to the game's other sockets (:meth:`board_tree_changed`)."""
        message, self.private = await self.in_pool(action)(
            self.game_id, self.read_only, self.private, *args
        )
        await self.send_json(message)
        if action is not variations.show and not self.read_only:
            event = {"type": "board.tree_changed", "sender": self.channel_name,
                     "main_line_changed": bool(message.get("main_line_changed"))}
            with contextlib.suppress(*outage.UNAVAILABLE):  # the change is made: the others reload to see it
                await self.channel_layer.group_send(notify.board_group(self.game_id), event)

    async def board_tree_changed(self, event: dict) -> None:
        """Another socket of the owner changed the game tree: tell the page (``tree_changed``), which
        asks for it again.  A shared review's viewer is not told: the variations it explores are its own."""
        if not self.read_only and event["sender"] != self.channel_name:
            await self.send_json({"type": "tree_changed", "main_line_changed": event["main_line_changed"]})

    async def on_tree(self) -> None:
        await self.explore(variations.show)

    async def on_branch(self, node: str, moves: list) -> None:
        await self.explore(variations.branch, node, moves)

    async def on_delete_branch(self, node: str) -> None:
        await self.explore(variations.delete_branch, node)

    async def on_promote_branch(self, node: str) -> None:
        await self.explore(variations.promote_branch, node)

    async def on_comment(self, node: str, comment: str) -> None:
        await self.explore(variations.set_comment, node, comment)


class SharedBoardConsumer(BoardConsumer):
    """A game's review opened with its read-only share link, by anyone: it shows the game and its
    analysis and answers position analyses (counted against the viewer), and changes nothing."""

    read_only = True

    def find_game(self) -> Game:
        """Return the game shared with this socket's token; raises Game.DoesNotExist."""
        return games.shared_game(self.token)

    def missing(self) -> str:
        return "this share link is not valid (the owner may have withdrawn it)"

    @property
    def token(self) -> str:
        """The share link's token, from the socket's URL."""
        return self.scope["url_route"]["kwargs"]["token"]

    async def open_board(self, game_id: int) -> None:
        """Open the shared board as the owner's, and join the link's group: its withdrawal closes
        the socket.  A link withdrawn while the socket opened closes it at once."""
        await super().open_board(game_id)
        await self.channel_layer.group_add(notify.share_group(self.token), self.channel_name)
        await self.still_open()

    def groups_joined(self) -> list[str]:
        return [*super().groups_joined(), notify.share_group(self.token)]

    async def still_open(self) -> bool:
        """Return whether the link still opens this game; if not, say so and close with 4404."""
        if await self.in_pool(games.is_shared)(self.game_id, self.token):
            return True
        await self.share_withdrawn({})
        return False

    async def share_withdrawn(self, event: dict) -> None:
        """The owner withdrew the link: say so and close with 4404."""
        await self.send_error(self.missing())
        await self.close(code=4404)
