"""HTTP views: pages, SGF download, share links, the JSON analysis API and a health check.

A game belongs to its account, or to the session that made it without one: anyone else gets 403
with a message.  Its owner may share its review read-only: the link opens for anyone.
"""

import importlib

from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.exceptions import PermissionDenied, RequestDataTooBig
from django.core.paginator import Paginator
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from analysis.features import FEATURE_SETS
from analysis.review.report import annotate
from analysis.sgf import write_sgf
from analysis.sgf.read import root_text
from frontend import tasks
from frontend.forms import GameFilterForm, NewGameForm, ReviewForm
from frontend.models import Game
from frontend.services import (
    api,
    client,
    depth,
    dispatch,
    engine,
    game_analysis,
    games,
    jobs,
    notify,
    ratelimit,
    requester,
    strength,
)

GAMES_PER_PAGE = 20

ENGINE_MODULE = "analysis.go._board"


def engine_available() -> bool:
    """Return whether the compiled board engine can be imported (it may not be built yet)."""
    try:
        importlib.import_module(ENGINE_MODULE)
    except ImportError:
        return False
    return True


def session_key(request: HttpRequest) -> str:
    """Return the request's session key, creating the session if needed."""
    if not request.session.session_key:
        request.session.save()
    return request.session.session_key


def user_id(request: HttpRequest) -> int | None:
    """Return the signed-in account's id, or None."""
    return request.user.pk if request.user.is_authenticated else None


def session_game(request: HttpRequest, pk: int) -> Game:
    """Return the game ``pk`` if the requester owns it (ended on time if its player on the move has
    run out since it was last opened); 404 if missing, 403 otherwise."""
    try:
        return games.settle_clock(games.owned_game(pk, requester.from_request(request)))
    except Game.DoesNotExist:
        raise Http404(f"There is no game {pk}.") from None
    except PermissionError as e:
        raise PermissionDenied(f"{str(e).capitalize()}.") from None


@require_safe
def home(request: HttpRequest) -> HttpResponse:
    """Render the landing page."""
    return render(request, "frontend/home.html")


@require_http_methods(["GET", "POST"])
def new_game(request: HttpRequest) -> HttpResponse:
    """Show the new-game form; on a valid POST create the game and go to its board (an invalid
    one shows the form again with its errors, as a 400, like the upload form).

    Each POST counts against the client address's limit (``GOWEB_NEW_GAME_RATE_LIMIT`` per
    ``GOWEB_NEW_GAME_RATE_WINDOW`` seconds): over it, the form comes back as filled in, saying so,
    as a 429, and no game is made.
    """
    form = NewGameForm(request.POST if request.method == "POST" else None)
    if request.method == "POST" and not ratelimit.allow("new_game", client.of_request(request)):
        form.is_valid()  # the fields as entered, with their own errors if any
        form.add_error(None, ratelimit.refusal("new_game"))
        return render(request, "frontend/new_game.html", {"form": form}, status=429)
    if request.method == "POST" and form.is_valid():
        player = request.user.get_username() if request.user.is_authenticated else "You"
        game = games.new_game(session_key(request), user_id=user_id(request), player=player,
                              **form.cleaned_data)
        return redirect("frontend:play", pk=game.pk)
    return render(request, "frontend/new_game.html", {"form": form}, status=400 if form.errors else 200)


@require_safe
def my_games(request: HttpRequest) -> HttpResponse:
    """List the requester's games (the account's, else the session's), filtered and a page at a time;
    400 with the form's errors for a bad filter."""
    form = GameFilterForm(request.GET)
    mine = games.owned_by(requester.from_request(request))
    valid = form.is_valid()
    listed = form.filter(mine) if valid else mine.none()
    page = Paginator(listed, GAMES_PER_PAGE).get_page(request.GET.get("page"))
    shown = [games.settle_clock(game) for game in page.object_list]
    context = {"form": form, "page": page, "games": shown, "rows": [(game, details(game)) for game in shown],
               "kept_days": settings.SESSION_COOKIE_AGE // 86400}
    return render(request, "frontend/games.html", context, status=200 if valid else 400)


LISTED_DETAILS = ("GN", "EV", "RO", "DT")  # what tells records apart besides their players


def details(game: Game) -> str:
    """Return what the game's record says of it beyond its players, for the list of games: its name
    (GN), event (EV) and round (RO), and date (DT), joined by " · " (empty when it says none).  Only
    the record's root node is read."""
    found = root_text(game.sgf, LISTED_DETAILS)
    if found.get("GN") and found.get("EV") and found["EV"] in found["GN"]:
        del found["EV"]  # GN[Kisei, game 3] EV[Kisei]
    if found.get("RO", "").isdigit():
        found["RO"] = f"round {found['RO']}"
    parts = [games.shown_text(found.get(ident), 60) for ident in LISTED_DETAILS]
    return " · ".join(part for part in parts if part)


@require_safe
def play(request: HttpRequest, pk: int) -> HttpResponse:
    """The board of a game against the bot (drawn from the websocket's state messages)."""
    game = session_game(request, pk)
    if game.kind != Game.Kind.PLAY:
        return redirect("frontend:review", pk=pk)
    context = {"game": game, "handicap_bonus": games.handicap_bonus(game),
               "bot_strength": strength.describe(game.bot_level)}
    return render(request, "frontend/play.html", context)


@require_safe
def review(request: HttpRequest, pk: int) -> HttpResponse:
    """The review board of a game: navigation, analysis, overlays and feature planes.

    Only this page gets the replay (``timeline``) and the feature sets' planes.  The networks
    menus offer the shipped networks of each role, the default first.
    """
    game = session_game(request, pk)
    return render_review(request, game, socket=f"/ws/board/{game.pk}/", shared=False)


def render_review(request: HttpRequest, game: Game, socket: str, shared: bool) -> HttpResponse:
    """Render the review page of ``game`` over the websocket path ``socket``; ``shared``: the
    read-only page of a share link."""
    record = games.record_of(game)
    link = None
    if game.share_token and not shared:
        link = request.build_absolute_uri(reverse("frontend:shared", args=[game.share_token]))
    context = {
        "game": game,
        "handicap_bonus": games.handicap_bonus(game, record),
        "socket": socket,
        "shared": shared,
        "share_link": link,
        "timeline": {**games.timeline(record), "record": game_analysis.record_key(game, record)},
        "networks": _by_default("next", record.size),
        "depths": depth.choices(),
        "backpred_networks": _by_default("previous", record.size),
        "feature_sets": {
            name: [{"name": p.name, "description": p.description} for p in fs.planes]
            for name, fs in FEATURE_SETS.items()
        },
    }
    return render(request, "frontend/review.html", context)


def _by_default(role: str, size: int) -> list[str]:
    """Return the names of the shipped networks of ``role`` that read ``size`` boards, the default
    on the site's device first."""
    names = engine.zoo().names(role, size)
    default = engine.pick(None, role, size).name if names else None
    return sorted(names, key=lambda name: name != default)


@require_safe
def compare(request: HttpRequest, pk: int) -> HttpResponse:
    """Two next-move networks side by side on a game (``?a=NAME&b=NAME``; by default the first two
    shipped): their top 10 at every move, the moves both rank highly, the per-game table of each
    network's top-1/5/10 on the moves played, and the game's surprising moves."""
    game = session_game(request, pk)
    names = engine.zoo().names("next")
    a = request.GET.get("a") if request.GET.get("a") in names else (names[0] if names else "")
    others = [n for n in names if n != a]
    b = request.GET.get("b") if request.GET.get("b") in others else (others[0] if others else "")
    context = {
        "game": game,
        "timeline": games.timeline(games.record_of(game)),
        "networks": [engine.zoo().entry(n).to_json() for n in names],
        "a": a,
        "b": b,
    }
    return render(request, "frontend/compare.html", context)


@require_safe
def shared_review(request: HttpRequest, token: str) -> HttpResponse:
    """The read-only review of a game shared with ``token``, for anyone; for an unknown token (a
    link withdrawn) the site's plain 404 page, saying so, even with DEBUG on (whose technical page
    is for developers' mistakes, not a visitor's stale link).

    The viewer gets a session, so that the position analyses asked count against it, unless its
    client address made ``GOWEB_SESSION_RATE_LIMIT`` of them in the last
    ``GOWEB_SESSION_RATE_WINDOW`` seconds: then they count against the address.
    """
    try:
        game = games.shared_game(token)
    except Game.DoesNotExist:
        return withdrawn_link(request)
    if request.session.session_key or ratelimit.allow("session", client.of_request(request)):
        session_key(request)
    return render_review(request, game, socket=f"/ws/shared/{token}/", shared=True)


def withdrawn_link(request: HttpRequest) -> HttpResponse:
    """The site's plain 404 page for a share link that opens nothing, saying so."""
    message = "This share link is not valid (the owner may have withdrawn it)."
    return render(request, "404.html", {"exception": message}, status=404)


@require_POST
def share(request: HttpRequest, pk: int) -> HttpResponse:
    """Give the game a read-only share link (kept if it has one) and go back to its review."""
    game = session_game(request, pk)
    if not game.share_token:
        game.share_token = games.new_share_token()
        game.save(update_fields=["share_token"])
    return redirect("frontend:review", pk=pk)


@require_http_methods(["GET", "POST"])
def unshare(request: HttpRequest, pk: int) -> HttpResponse:
    """Ask whether to withdraw the game's share link (GET: the review's "Stop sharing" leads here,
    since a withdrawn link cannot be had back), and withdraw it (POST): it no longer opens
    anything, and the sockets open on it close."""
    game = session_game(request, pk)
    if request.method == "GET":
        if not game.share_token:
            return redirect("frontend:review", pk=pk)
        link = request.build_absolute_uri(reverse("frontend:shared", args=[game.share_token]))
        return render(request, "frontend/unshare.html", {"game": game, "share_link": link})
    token, game.share_token = game.share_token, None
    game.save(update_fields=["share_token"])
    if token:
        notify.share_withdrawn(token)
    return redirect("frontend:review", pk=pk)


def upload_page(request: HttpRequest, form: ReviewForm, refusal: str | None = None, status: int = 200
                ) -> HttpResponse:
    """Render the upload form, with its errors or the ``refusal`` of the whole request."""
    return render(request, "frontend/upload.html", {"form": form, "refusal": refusal}, status=status)


@require_http_methods(["GET", "POST"])
def upload(request: HttpRequest) -> HttpResponse:
    """Upload or paste an SGF; a valid one becomes a review game, with the analysis it carries when
    it is an analysed SGF of this site.

    Each upload or paste counts against the client address's limit (``GOWEB_UPLOAD_RATE_LIMIT`` per
    ``GOWEB_UPLOAD_RATE_WINDOW`` seconds): 429 over it, before the SGF is read, the pasted text
    kept in the form to send again.
    """
    address = requester.from_request(request).address or "unknown"
    if request.method == "POST" and not ratelimit.allow("upload", address):
        refusal = ratelimit.refusal("upload")
        if request.FILES.get("file"):
            refusal += "; your browser cannot keep the file chosen: choose it again then"
        kept = ReviewForm(initial={"text": request.POST.get("text", "")})  # unbound: nothing is read
        return upload_page(request, kept, refusal, status=429)
    form = ReviewForm(*((request.POST, request.FILES) if request.method == "POST" else ()))
    if request.method == "POST" and form.is_valid():
        record = form.record
        with transaction.atomic():  # the game and the analysis it carries, or neither
            game = Game.objects.create(
                owner=session_key(request),
                user_id=user_id(request),
                kind=Game.Kind.REVIEW,
                sgf=write_sgf(record).decode(),
                black_player=games.shown_text(record.players[1], 100),
                white_player=games.shown_text(record.players[-1], 100),
                size=record.size,
                handicap=record.handicap,
                komi=record.komi,
                rules=form.rules,
                phase=Game.Phase.FINISHED,
                result=games.shown_text(record.result, 32),
            )
            game_analysis.restore(game, record)  # an analysed SGF downloaded here shows its analysis again
        return redirect("frontend:review", pk=game.pk)
    return upload_page(request, form, status=400 if form.errors else 200)


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    """The site's answer to a request Django could not read (``handler400``): 413 with the limit for a
    body over ``GOWEB_MAX_UPLOAD_BYTES`` (on the upload form, with the SGF limit, when it was sent
    there), else 400."""
    if not isinstance(exception, RequestDataTooBig):
        return render(request, "400.html", {"exception": "The request could not be read."}, status=400)
    message = f"the request is larger than the limit of {settings.DATA_UPLOAD_MAX_MEMORY_SIZE} bytes"
    if request.path == reverse("frontend:upload"):
        message += f"; an SGF file or text may have at most {settings.GOWEB_MAX_SGF_BYTES} bytes"
        return upload_page(request, ReviewForm(), message, status=413)
    return render(request, "400.html", {"exception": message[0].upper() + message[1:] + "."}, status=413)


@require_safe
def download_sgf(request: HttpRequest, pk: int) -> HttpResponse:
    """Download the game's SGF: the stored record as it is, or with ``?analysis=1`` the latest
    analysis of the game as it stands added as comments and SBKV (the record parsed, annotated and
    written again, which a large tree makes costly)."""
    game = session_game(request, pk)
    name, text = f"game-{game.pk}", game.sgf.encode()
    if request.GET.get("analysis"):
        record = games.editable_record(game)
        latest = game_analysis.latest_of(game, record, with_results=True)
        if latest is not None:
            annotate(record, latest.results)
            name += "-analysed"
            text = write_sgf(record)
    return sgf_attachment(text, name)


def sgf_attachment(text: bytes, name: str) -> HttpResponse:
    """Return the SGF ``text`` as the download ``name``.sgf."""
    response = HttpResponse(text, content_type="application/x-go-sgf; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{name}.sgf"'
    return response


@require_safe
def shared_sgf(request: HttpRequest, token: str) -> HttpResponse:
    """Download the SGF of a game shared with ``token``, for anyone with the link: the stored record
    as it is, as the owner's plain download sends it; an unknown token (a link withdrawn) gets the
    shared page's 404."""
    try:
        game = games.shared_game(token)
    except Game.DoesNotExist:
        return withdrawn_link(request)
    return sgf_attachment(game.sgf.encode(), f"game-{game.pk}")


@require_http_methods(["GET", "POST"])
def delete_game(request: HttpRequest, pk: int) -> HttpResponse:
    """Ask whether to delete one of this session's games (GET), and delete it (POST)."""
    game = session_game(request, pk)
    if request.method == "GET":
        return render(request, "frontend/delete.html", {"game": game})
    game.delete()
    return redirect("frontend:games")


@csrf_exempt
@require_POST
async def api_analyze(request: HttpRequest) -> JsonResponse:
    """KataGo-analysis-style JSON query in, search analysis out (see docs/api.md).

    Only ``Content-Type: application/json`` is read (415 otherwise), so that no other site's page
    can send a query from its visitors' browsers without a preflight, which fails.  The search
    runs as ``frontend.tasks.analyze_position`` (on a worker when there is a broker), so the web
    process only waits: 504 when no answer comes within ``GOWEB_API_TIMEOUT`` seconds.  Its visits
    come out of the client address's ``api_visits`` budget, and it counts against the address's
    cap of position analyses until its search ends: 429 over either.  When the client hangs up (or
    the wait times out) before a worker took the query, the query is withdrawn and its task skips
    it; a search already running keeps its slot until it ends.
    """
    address = client.of_request(request)
    if not await sync_to_async(ratelimit.allow)("api", address):
        return JsonResponse({"error": "rate limit exceeded; try again later"}, status=429)
    if request.content_type != "application/json":
        return JsonResponse({"error": api.NOT_JSON}, status=415)
    try:
        body = api.read_json(request.body)
    except api.QueryError as e:
        return JsonResponse(api.error(e), status=400)
    try:
        reply = api.action_reply(body)
        if reply is not None:
            return JsonResponse(reply)
        job = api.parse(body)
    except api.QueryError as e:
        return JsonResponse(api.error(e, body), status=400)
    if not await sync_to_async(ratelimit.allow)("api_visits", address, job.query.visits):
        return JsonResponse({"id": job.id, "error": ratelimit.refusal("api_visits")}, status=429)
    query = job.query.to_json()
    try:
        ask = sync_to_async(jobs.request)
        ticket = await ask(f"client:{address}", jobs.Kind.POSITION, query, address=address)
    except jobs.CapReached as e:
        return JsonResponse({"id": job.id, "error": str(e)}, status=429)
    try:
        analysis = await dispatch.ask(tasks.analyze_position, query, settings.GOWEB_API_TIMEOUT, ticket.job)
    except TimeoutError:
        late = "no analysis came back in time; try fewer visits or later"
        return JsonResponse({"id": job.id, "error": late}, status=504)
    finally:  # the task frees the slot when it ends; one not started yet is skipped
        await sync_to_async(jobs.withdraw)(ticket.job)
    if analysis["type"] == "error":
        return JsonResponse({"id": job.id, "error": analysis["message"]}, status=500)
    return JsonResponse(api.response(job, analysis))


@require_safe
def api_networks(request: HttpRequest) -> JsonResponse:
    """The shipped networks with their papers and model-card figures, each role's default on the
    site's device, and the choice of each role and bot level on 19x19 with its reason."""
    choices = engine.choices()
    default = {role: choice["name"] for role, choice in choices["roles"].items() if choice}
    networks = [e.to_json() for e in engine.zoo().entries]
    return JsonResponse({"networks": networks, "default": default, "choices": choices})


@require_safe
def healthz(request: HttpRequest) -> JsonResponse:
    """Report that the site is up and whether the board engine is importable."""
    return JsonResponse({"status": "ok", "engine": engine_available()})

