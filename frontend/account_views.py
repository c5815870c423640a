"""Account pages: sign up, log in and out, change the password (Django's auth, the site's templates).

Signing up or logging in moves the games this browser made anonymously to the account: the
session key they belong to changes at login, so it is read before.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.forms import AuthenticationForm
from django.core.exceptions import NON_FIELD_ERRORS
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from frontend.forms import THROTTLED, LoginForm, SignupForm, ThrottledPasswordChangeForm
from frontend.services import accounts, client, ratelimit


def _welcome(request: HttpRequest, adopted: int) -> None:
    if adopted:
        plural = "game" if adopted == 1 else "games"
        messages.info(request, f"{adopted} {plural} of this browser moved to your account.")


class LoginView(auth_views.LoginView):
    """Django's login, throttled after failures (429 while locked out), which also adopts the
    session's games."""

    form_class = LoginForm

    def form_invalid(self, form: AuthenticationForm) -> HttpResponse:
        """Show the form with its errors: 429 when the login throttle refused it."""
        response = super().form_invalid(form)
        if form.has_error(NON_FIELD_ERRORS, THROTTLED):
            response.status_code = 429
        return response

    def form_valid(self, form: AuthenticationForm) -> HttpResponse:
        """Log the user in, then move the anonymous session's games to the account."""
        anonymous = self.request.session.session_key
        response = super().form_valid(form)
        _welcome(self.request, accounts.adopt(anonymous, form.get_user().pk))
        return response


class LogoutView(auth_views.LogoutView):
    """Django's logout (a POST, which the header's button sends), that answers a GET (a typed or
    followed link) with a page holding the logout button, where Django's gives a blank 405."""

    http_method_names = ("get", "head", "post", "options")

    def get(self, request: HttpRequest, *args: object, **kwargs: object) -> HttpResponse:
        """Show the logout button (or say that nobody is logged in)."""
        return render(request, "accounts/logout.html", {"next": request.GET.get("next", "")})


class PasswordChangeView(auth_views.PasswordChangeView):
    """Django's password change, its old password checked as a login's password is (429 when
    refused unchecked: :class:`~frontend.forms.ThrottledPasswordChangeForm`)."""

    form_class = ThrottledPasswordChangeForm

    def get_form(self, form_class: type | None = None) -> ThrottledPasswordChangeForm:
        """Return the form, knowing the request (its client address)."""
        form = super().get_form(form_class)
        form.request = self.request
        return form

    def form_invalid(self, form: ThrottledPasswordChangeForm) -> HttpResponse:
        """Show the form with its errors: 429 when the throttle refused to check the old password."""
        response = super().form_invalid(form)
        if form.has_error("old_password", THROTTLED):
            response.status_code = 429
        return response


@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    """Show the sign-up form; on a valid POST create the account, log in, adopt the session's games
    and go to "My games".  A POST past its address's limit of passwords hashed (``ratelimit``'s
    ``password`` scope) gets the form back with a 429, and no account is made."""
    form = SignupForm(request.POST if request.method == "POST" else None)
    if request.method == "POST" and not ratelimit.allow("password", client.of_request(request)):
        form.is_valid()  # the fields as entered, with their own errors if any
        form.add_error(None, ratelimit.refusal("password"))
        return render(request, "accounts/signup.html", {"form": form}, status=429)
    if request.method == "POST" and form.is_valid():
        anonymous = request.session.session_key
        user = form.save()
        login(request, user)
        _welcome(request, accounts.adopt(anonymous, user.pk))
        return redirect("frontend:games")
    return render(request, "accounts/signup.html", {"form": form}, status=400 if form.errors else 200)
