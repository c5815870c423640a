"""Forms of the new-game, review and "My games" pages, of signing up and of logging in."""

from __future__ import annotations

from typing import Any, ClassVar

from django import forms
from django.conf import settings
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth.forms import AuthenticationForm, PasswordChangeForm, UserCreationForm
from django.core.validators import ProhibitNullCharactersValidator
from django.db.models import Q, QuerySet
from django.http import HttpRequest

from analysis.bot.levels import LEVELS, Level
from analysis.go.handicap import max_fixed_handicap
from analysis.go.position import Position
from analysis.go.ruled import handicap_stones
from analysis.go.rules import MAX_KOMI, default_komi, known, komi_in_range, rules_kind, white_handicap_bonus
from analysis.nets.zoo import UnknownNetwork
from analysis.play.clock import MAX_MAIN, MAX_PERIOD, MAX_PERIODS, TimeControl, TimeControlError
from analysis.sgf import GameRecord, SgfError, read_sgf, replay
from frontend.models import Game
from frontend.services import client, engine, games, login_throttle, ratelimit, strength


class NewGameForm(forms.Form):
    """Settings of a game against the bot."""

    HANDICAP_KOMI = 0.5  # the usual komi of a handicap game

    human_color = forms.ChoiceField(label="Your colour", choices=[("B", "Black"), ("W", "White")])
    size = forms.TypedChoiceField(
        label="Board size", choices=[(9, "9×9"), (13, "13×13"), (19, "19×19")], coerce=int, initial=9
    )
    handicap = forms.IntegerField(label="Handicap", min_value=0, max_value=9, initial=0)
    komi = forms.FloatField(
        label="Komi", min_value=-50, max_value=50, initial=7.5,
        help_text="7.5 or 6.5 for an even game; a handicap game usually takes 0.5, and White also gets "
                  "a point for each handicap stone at the count under Chinese rules (one less under AGA)",
    )
    rules = forms.ChoiceField(label="Rules", choices=Game.Rules.choices)
    bot_level = forms.ChoiceField(label="Bot level", initial="policy")
    time_system = forms.ChoiceField(
        label="Clock", initial="none", required=False,
        choices=[("none", "No clock"),
                 ("byoyomi", "Byo-yomi: main time, then periods (0 periods of 0 s: absolute time)"),
                 ("canadian", "Canadian: main time, then a number of moves in each period"),
                 ("fischer", "Fischer: main time, and an increment after each move")],
    )
    time_main = forms.IntegerField(
        label="Main time (minutes)", min_value=0, max_value=MAX_MAIN // 60, initial=10, required=False
    )
    time_period = forms.IntegerField(
        label="Period or increment (seconds)", min_value=0, max_value=MAX_PERIOD, initial=30, required=False,
    )
    time_periods = forms.IntegerField(
        label="Byo-yomi periods, or moves in a Canadian period", min_value=0, max_value=MAX_PERIODS,
        initial=5, required=False,
    )

    def __init__(self, *args: object, **kwargs: object) -> None:
        """Offer the levels whose network is shipped."""
        super().__init__(*args, **kwargs)
        self.fields["bot_level"].choices = [
            (name, f"{name} ({strength.word(name)}): {level.description}")
            for name, level in LEVELS.items()
            if _playable(level)
        ]

    def level_strengths(self) -> list[tuple[str, str]]:
        """Return (level, its measured strength in words) for each level the form offers."""
        return [(name, strength.describe(name)) for name, _ in self.fields["bot_level"].choices]

    def komi_defaults(self) -> dict:
        """Return the komi the page proposes when the handicap or the rules change (new-game.js):
        ``even`` by rules (:func:`analysis.go.rules.default_komi`), and ``handicap``."""
        even = {rules: default_komi(rules) for rules in Game.Rules.values}
        return {"even": even, "handicap": self.HANDICAP_KOMI}

    def clean(self) -> dict:
        """Check that the handicap fits the board (one stone is no handicap: use 0 and komi 0.5) and
        that the komi is a whole or half point, as on OGS and KataGo."""
        data = super().clean()
        komi = data.get("komi")
        if komi is not None and (2 * komi) % 1:
            self.add_error("komi", f"komi must be a whole or half point (7.5, 6, 0.5...), not {komi}")
        size, handicap = data.get("size"), data.get("handicap")
        if size and handicap is not None:
            top = max_fixed_handicap(size)
            if handicap == 1 or handicap > top:
                self.add_error("handicap", f"on {size}×{size} the handicap must be 0 or 2 to {top}")
        self._clean_time_control(data)
        return data

    def _clean_time_control(self, data: dict) -> None:
        """Replace the clock's fields by the game's ``time_control``; the fields the chosen clock
        does not use (the page hides them) are left out, errors and all, and a clock with no time
        is an error, as is byo-yomi with periods of no seconds or seconds but no period (absolute
        time is byo-yomi with neither): the clock asked for is never quietly another."""
        names = ("time_system", "time_main", "time_period", "time_periods")
        values = {name: data.pop(name, None) for name in names}
        system = values["time_system"] or "none"
        used = {"byoyomi": names, "canadian": names, "fischer": names[:3]}.get(system, names[:1])
        for hidden in set(names) - set(used):
            self.errors.pop(hidden, None)
        if any(name in self.errors for name in names):
            return  # the field's own error says what is wrong
        minutes, period, periods = (values[n] if n in used and values[n] is not None else 0
                                    for n in names[1:])
        if system == "byoyomi" and bool(period) != bool(periods):  # one given, the other none
            if not period:
                self.add_error("time_period", f"byo-yomi needs some seconds in each period for its {periods} "
                                              "period(s) (for absolute time, set the periods to 0 too)")
            else:
                self.add_error("time_periods", f"byo-yomi needs at least one period of {period} s (for "
                                               "absolute time, set the period's seconds to 0 too)")
            return
        if system == "canadian" and not period * periods:
            empty = "time_period" if not period else "time_periods"
            self.add_error(empty, "a Canadian period needs some seconds and at least one move (for absolute "
                                  "time, choose byo-yomi without periods)")
            return
        try:
            data["time_control"] = TimeControl(system, minutes * 60, period, periods)
        except TimeControlError as e:
            self.add_error("time_system", str(e))


NO_RULES_HINT = ("; the record names no rules, so Chinese rules (positional superko) apply: add RU[Japanese]"
                 " if it was played under a simple ko rule")


class SgfTextField(forms.CharField):
    """Pasted SGF text.  A NUL in it is left to the SGF reader, which refuses it with the message an
    uploaded file gets (Django's text fields refuse it with a message of their own)."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.validators = [v for v in self.validators if not isinstance(v, ProhibitNullCharactersValidator)]


class ReviewForm(forms.Form):
    """An SGF file to review: uploaded or pasted."""

    file = forms.FileField(label="SGF file", required=False, error_messages={
        "empty": "the file is empty: choose the SGF file of a game, or paste its text",
    })
    text = SgfTextField(label="or paste SGF", required=False, widget=forms.Textarea(attrs={"rows": 6}))

    def clean(self) -> dict:
        """Read the SGF (within :func:`frontend.services.games.record_limits`, refused at the first
        node or value over them) and replay its main line under the rules the game will be stored
        with, so size errors, syntax errors, binary data, a record too large, illegal moves (a
        repetition its ko rule forbids among them), setup the review cannot show, an absurd komi
        and a handicap the record does not place (:func:`check_handicap`) show."""
        data = super().clean()
        if self.errors:
            return data  # the field's own error (an empty file) says what is wrong
        upload, text = data.get("file"), data.get("text", "").strip()
        limit = settings.GOWEB_MAX_SGF_BYTES
        if upload is None and not text:
            raise forms.ValidationError("choose an SGF file or paste SGF text")
        if upload is not None:
            if upload.size > limit:
                raise forms.ValidationError(f"the file is {upload.size} bytes; the limit is {limit} bytes")
            raw: bytes | str = upload.read()
            source = upload.name
        else:
            if len(text.encode()) > limit:
                raise forms.ValidationError(f"the text is longer than the limit of {limit} bytes")
            raw, source = text, "pasted SGF"
        try:
            record = read_sgf(raw, source=source, limits=games.record_limits())
            rules = stored_rules(record)
            if not komi_in_range(record.komi):
                raise SgfError(f"komi {record.komi:g} is out of range: at most {MAX_KOMI} either way",
                               kind="bad_property", source=source, where="root node")
            check_handicap(record, replay(record, check_setup=True, rules=rules))
        except SgfError as e:
            message = str(e)
            if e.kind == "illegal_move" and "reason: superko" in message and not record.rules:
                message += NO_RULES_HINT
            raise forms.ValidationError(message) from None
        data["record"], data["rules"] = record, rules
        return data

    @property
    def record(self) -> GameRecord:
        """The parsed game (after validation)."""
        return self.cleaned_data["record"]

    @property
    def rules(self) -> str:
        """The rules the game is stored with (after validation): ``stored_rules``."""
        return self.cleaned_data["rules"]


def _playable(level: Level) -> bool:
    """Whether ``level`` has a network to play with on the site's device (the rules level needs
    none)."""
    try:
        engine.level_choice(level)
    except UnknownNetwork:
        return False
    return True


def check_handicap(record: GameRecord, position: Position) -> None:
    """Raise SgfError (kind ``"bad_property"``) when the record's HA is more than the fixed handicap
    of its board (9 on 19×19, as the new-game form allows; at least 1, which some servers write for
    an even game without komi) and more than the black stones the record places: its setup before
    the first move, or Black's opening moves before White's first (``position``: the record
    replayed).  Records of handicap servers with 13 or 25 stones placed are kept; HA[100] over an
    empty board, which would list as "H100", is not."""
    handicap, size = record.handicap, record.size
    top = max(max_fixed_handicap(size), 1)
    if handicap <= top:
        return
    placed = max(len(record.initial_setup().black), handicap_stones(position))
    if handicap > placed:
        raise SgfError(f"HA[{handicap}] says {handicap} handicap stones, but the record places {placed}: "
                       f"without the stones placed, at most {top} on {size}×{size} (correct HA, or add the "
                       "stones with AB)", kind="bad_property", source=record.source, where="root node")


def stored_rules(record: GameRecord) -> str:
    """Return the site's rules of an uploaded record, by what its RU means for the count
    (:mod:`analysis.go.rules`): Japanese for territory scoring; for area scoring, AGA where White
    gets N-1 points for N handicap stones (AGA, BGA, French), Tromp-Taylor where it gets none
    (Tromp-Taylor, NZ, Ing...), and Chinese where it gets N, for a name the table does not know and
    without RU."""
    rules = record.rules or ""
    if rules_kind(rules) == "territory":
        return Game.Rules.JAPANESE
    if not known(rules):
        return Game.Rules.CHINESE
    by_bonus = {0: Game.Rules.TROMP_TAYLOR, 2: Game.Rules.AGA}  # White's points for 3 stones
    return by_bonus.get(white_handicap_bonus(rules, 3), Game.Rules.CHINESE)


class GameFilterForm(forms.Form):
    """The filter of "My games": kind, result and the dates the games were last changed."""

    WON: ClassVar[dict[str, Q]] = {
        "B": Q(result__istartswith="B+"),
        "W": Q(result__istartswith="W+"),
        "draw": Q(result="0") | Q(result__iexact="draw") | Q(result__iexact="jigo"),
    }
    # Every game falls in exactly one category, whatever the case of its RE (b+R is Black's win on
    # SQLite and PostgreSQL alike): the last holds the rest, a game still going and a record whose
    # result names no winner (RE[Void], RE[?], none at all) or that the site cannot read.
    RESULTS: ClassVar[dict[str, tuple[str, Q]]] = {
        "B": ("Black won", WON["B"]),
        "W": ("White won", WON["W"]),
        "draw": ("a draw", WON["draw"]),
        "none": ("no winner: not finished, void or unknown", ~(WON["B"] | WON["W"] | WON["draw"])),
    }

    kind = forms.ChoiceField(label="Kind", required=False, choices=[("", "all"), *Game.Kind.choices])
    result = forms.ChoiceField(
        label="Result",
        required=False,
        choices=[("", "any"), *((key, label) for key, (label, _) in RESULTS.items())],
    )
    since = forms.DateField(label="From", required=False, widget=forms.DateInput(attrs={"type": "date"}))
    until = forms.DateField(label="To", required=False, widget=forms.DateInput(attrs={"type": "date"}))

    def clean(self) -> dict:
        """Check that the dates are in order."""
        data = super().clean()
        since, until = data.get("since"), data.get("until")
        if since and until and since > until:
            raise forms.ValidationError("the 'from' date is after the 'to' date")
        return data

    def filter(self, games: QuerySet[Game]) -> QuerySet[Game]:
        """Return ``games`` narrowed to the (valid) filter."""
        data = self.cleaned_data
        if data.get("kind"):
            games = games.filter(kind=data["kind"])
        if data.get("result"):
            games = games.filter(self.RESULTS[data["result"]][1])
        if data.get("since"):
            games = games.filter(updated__date__gte=data["since"])
        if data.get("until"):
            games = games.filter(updated__date__lte=data["until"])
        return games


class SignupForm(UserCreationForm):
    """A new account: a user name and a password typed twice (Django's validators apply)."""


THROTTLED = "throttled"  # the code of a login's error when the throttle refused it


class ThrottledLogin:
    """Mixed into a login form (before Django's): no password is checked while the login throttle
    (:mod:`frontend.services.login_throttle`) locks out the account or the client address, or past
    the address's limit of passwords checked (``ratelimit``'s ``password`` scope, which every login
    checking one counts); each failed login counts against both, and a successful one clears the
    account's count."""

    def clean(self) -> dict[str, Any]:
        """Return the cleaned data; raises ValidationError (code ``throttled`` when locked out)."""
        username, password = self.cleaned_data.get("username"), self.cleaned_data.get("password")
        if username is None or not password:
            return super().clean()
        address = client.of_request(self.request)
        if login_throttle.blocked(username, address):
            raise forms.ValidationError(login_throttle.message(), code=THROTTLED)
        if not ratelimit.allow("password", address):
            raise forms.ValidationError(ratelimit.refusal("password"), code=THROTTLED)
        try:
            cleaned = super().clean()
        except forms.ValidationError:
            login_throttle.failed(username, address)
            raise
        login_throttle.succeeded(username)
        return cleaned


class LoginForm(ThrottledLogin, AuthenticationForm):
    """The site's login."""


class AdminLoginForm(ThrottledLogin, AdminAuthenticationForm):
    """The admin's login (staff only), throttled like the site's."""


class ThrottledPasswordChangeForm(PasswordChangeForm):
    """Django's password change, whose old password is checked as a login's is: not while the login
    throttle locks out the account or the address, nor past the address's limit of passwords
    checked (``ratelimit``'s ``password`` scope); a wrong one counts as a failed login.  The view
    sets ``request``."""

    request: HttpRequest

    def clean_old_password(self) -> str:
        """Return the old password; raises ValidationError (code ``throttled`` when refused unchecked)."""
        username, address = self.user.get_username(), client.of_request(self.request)
        if login_throttle.blocked(username, address):
            raise forms.ValidationError(login_throttle.message(), code=THROTTLED)
        if not ratelimit.allow("password", address):
            raise forms.ValidationError(ratelimit.refusal("password"), code=THROTTLED)
        try:
            return super().clean_old_password()
        except forms.ValidationError:
            login_throttle.failed(username, address)
            raise
