"""The login throttle: failed logins counted per account and per client address in Django's cache.

After ``GOWEB_LOGIN_ACCOUNT_FAILURES`` failed logins to one account name, or
``GOWEB_LOGIN_ADDRESS_FAILURES`` from one address, no password is checked there until
``GOWEB_LOGIN_LOCKOUT`` seconds have passed since the first of those failures: guessing costs an
attacker the lockout every few tries, wherever the guesses come from.  A successful login clears
its account's count (not its address's, which one account of the attacker's own would clear).
"""

from __future__ import annotations

import hashlib
import math

from django.conf import settings
from django.core.cache import cache

from frontend.services import ratelimit


def _account_key(username: str) -> str:
    digest = hashlib.sha256(username.casefold().encode("utf-8", "surrogatepass")).hexdigest()
    return f"login-failures:account:{digest}"


def _address_key(address: str) -> str:
    return f"login-failures:address:{address}"


def message() -> str:
    """Return the message a throttled login gets."""
    minutes = math.ceil(settings.GOWEB_LOGIN_LOCKOUT / 60)
    plural = "minute" if minutes == 1 else "minutes"
    return (
        "Too many failed logins for this account or from this address: no password is checked for "
        f"now. Please try again in {minutes} {plural}."
    )


def blocked(username: str, address: str) -> bool:
    """Return whether logins to ``username`` or from ``address`` are locked out for now."""
    failures = cache.get_many([_account_key(username), _address_key(address)])
    return (
        failures.get(_account_key(username), 0) >= settings.GOWEB_LOGIN_ACCOUNT_FAILURES
        or failures.get(_address_key(address), 0) >= settings.GOWEB_LOGIN_ADDRESS_FAILURES
    )


def failed(username: str, address: str) -> None:
    """Count a failed login to ``username`` from ``address``."""
    for key in (_account_key(username), _address_key(address)):
        ratelimit.increment(key, settings.GOWEB_LOGIN_LOCKOUT)


def succeeded(username: str) -> None:
    """Clear the failures counted against ``username``."""
    cache.delete(_account_key(username))
