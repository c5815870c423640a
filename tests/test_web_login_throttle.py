"""Failed logins are throttled per account and per client address, counted in the cache: 30 wrong
passwords, then the right one, no longer log anyone in."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client

PASSWORD = "a long Go proverb 19x19"
LOGIN = "/accounts/login/"
THROTTLED = "Too many failed logins for this account or from this address"


def log_in(client: Client, username: str, password: str, address: str, path: str = LOGIN) -> int:
    """Post the login form from ``address``; return the status (302: logged in)."""
    return client.post(path, {"username": username, "password": password}, REMOTE_ADDR=address).status_code


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.mark.django_db
def test_wrong_passwords_from_many_addresses_lock_the_account_even_against_the_right_one() -> None:
    User.objects.create_user("throttle-sai", password=PASSWORD)
    client = Client()
    wrong = [log_in(client, "throttle-sai", f"guess {i}", f"10.71.0.{i}") for i in range(30)]
    assert wrong[:5] == [200] * 5 and set(wrong[5:]) == {429}  # five tries, then no password is checked
    refused = client.post(LOGIN, {"username": "throttle-sai", "password": PASSWORD}, REMOTE_ADDR="10.71.1.1")
    assert refused.status_code == 429
    assert THROTTLED in refused.content.decode() and "try again in 15 minutes" in refused.content.decode()
    assert "_auth_user_id" not in client.session
    User.objects.filter(username="throttle-sai").update(is_staff=True)
    admin = Client().post("/admin/login/", {"username": "throttle-sai", "password": PASSWORD})
    assert THROTTLED in admin.content.decode()  # nor does the admin's login


@pytest.mark.django_db
def test_wrong_passwords_on_many_accounts_lock_out_their_address() -> None:
    User.objects.create_user("throttle-akira", password=PASSWORD)
    client = Client()
    wrong = [log_in(client, f"throttle-name-{i}", "guess", "10.72.0.1") for i in range(25)]
    assert wrong[:20] == [200] * 20 and set(wrong[20:]) == {429}
    assert log_in(client, "throttle-akira", PASSWORD, "10.72.0.1") == 429
    assert log_in(Client(), "throttle-akira", PASSWORD, "10.72.0.2") == 302  # another address logs in


@pytest.mark.django_db
def test_a_login_clears_its_accounts_failures(settings) -> None:
    User.objects.create_user("throttle-kaga", password=PASSWORD)
    for round_ in range(3):  # 4 failures each round: under the account's limit of 5 every time
        failures = [log_in(Client(), "throttle-kaga", "guess", f"10.73.{round_}.{i}") for i in range(4)]
        assert failures == [200] * 4
        assert log_in(Client(), "throttle-kaga", PASSWORD, f"10.73.{round_}.9") == 302


@pytest.mark.django_db
def test_passwords_hashed_for_one_address_are_limited_over_sign_ups_and_successful_logins(settings) -> None:
    settings.GOWEB_PASSWORD_RATE_LIMIT, settings.GOWEB_PASSWORD_RATE_WINDOW = 3, 3600
    refused = ("too many logins, sign-ups and password changes: at most 3 every 3600 seconds "
               "from one address; try later")
    here = {"REMOTE_ADDR": "10.74.0.1"}
    data = {"username": "throttle-cho", "password1": PASSWORD, "password2": PASSWORD}
    assert Client().post("/accounts/signup/", data, **here).status_code == 302
    assert [log_in(Client(), "throttle-cho", PASSWORD, "10.74.0.1") for _ in range(2)] == [302, 302]
    again = Client().post("/accounts/signup/", {**data, "username": "throttle-cho-2"}, **here)
    assert again.status_code == 429 and refused in again.content.decode()
    assert 'value="throttle-cho-2"' in again.content.decode()  # the form keeps what was entered
    login = Client().post(LOGIN, {"username": "throttle-cho", "password": PASSWORD}, **here)
    assert login.status_code == 429 and refused in login.content.decode()
    assert User.objects.count() == 1
    assert Client().get("/accounts/signup/", **here).status_code == 200  # the form itself is not counted
    assert log_in(Client(), "throttle-cho", PASSWORD, "10.74.0.2") == 302  # another address logs in


@pytest.mark.django_db
def test_wrong_old_passwords_on_the_password_change_page_lock_the_account_as_failed_logins_do() -> None:
    user = User.objects.create_user("throttle-dosaku", password=PASSWORD)
    client = Client()
    client.force_login(user)
    change = {"new_password1": "another long proverb 9x9", "new_password2": "another long proverb 9x9"}
    tries = [client.post("/accounts/password/", {"old_password": f"guess {i}", **change},
                         REMOTE_ADDR=f"10.74.0.{i}").status_code for i in range(8)]
    assert tries[:5] == [200] * 5 and set(tries[5:]) == {429}
    right = {"old_password": PASSWORD, **change}
    refused = client.post("/accounts/password/", right, REMOTE_ADDR="10.74.1.1")
    assert refused.status_code == 429 and THROTTLED in refused.content.decode()
    user.refresh_from_db()
    assert user.check_password(PASSWORD)  # unchanged
    assert log_in(Client(), "throttle-dosaku", PASSWORD, "10.74.2.1") == 429  # and logins are refused too


@pytest.mark.django_db
def test_the_password_change_page_counts_against_the_addresss_passwords_checked(settings) -> None:
    settings.GOWEB_PASSWORD_RATE_LIMIT, settings.GOWEB_PASSWORD_RATE_WINDOW = 2, 3600
    user = User.objects.create_user("throttle-jowa", password=PASSWORD)
    client = Client()
    client.force_login(user)
    new = "another long proverb 9x9"
    form = {"new_password1": new, "new_password2": new}
    here = {"REMOTE_ADDR": "10.75.0.1"}
    codes = [client.post("/accounts/password/", {"old_password": old, **form}, **here).status_code
             for old in ("guess", "guess", PASSWORD)]
    assert codes == [200, 200, 429]
    user.refresh_from_db()
    assert user.check_password(PASSWORD)
