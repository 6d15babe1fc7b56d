"""Who may upload: open by default; restricted by an e-mail allow-list (OIDC) and/or a token.

Configured in ``app/config.py``: ``SIGBOARD_UPLOAD_ALLOW``, comma-separated e-mails
of users who may upload once signed in with ``st.login`` (needs an ``[auth]``
section in Streamlit's secrets); ``SIGBOARD_UPLOAD_TOKEN``, a shared token that
unlocks uploading. With neither set, everyone may upload; with either set,
everyone else browses read-only. Token guesses are throttled per session: after
:data:`FREE_TRIES` wrong tokens, each further try waits twice as long as the last
(:data:`FIRST_WAIT` seconds first), and the message says when to retry.
"""

from __future__ import annotations

import hashlib
import hmac
import math
import time
from collections.abc import MutableMapping
from dataclasses import dataclass, field
from typing import Any

import streamlit as st

from app.config import Settings

_UNLOCK_KEY = "sigboard_upload_unlock"
_FAILS_KEY = "sigboard_token_failures"
_RETRY_KEY = "sigboard_token_retry_at"
_LAST_KEY = "sigboard_token_last_try"
#: Wrong tokens a session may try before it has to wait.
FREE_TRIES = 3
#: Seconds to wait after the first try beyond the free ones; doubles with each.
FIRST_WAIT = 5.0


def retry_in(state: MutableMapping[Any, Any], now: float) -> float:
    """Seconds this session must still wait before its next token try (0 = may try)."""
    return max(0.0, float(state.get(_RETRY_KEY, 0.0)) - now)


def record_failure(state: MutableMapping[Any, Any], now: float) -> float:
    """Count a wrong token; returns the seconds to wait before the next try."""
    fails = int(state.get(_FAILS_KEY, 0)) + 1
    state[_FAILS_KEY] = fails
    wait = FIRST_WAIT * 2 ** (fails - FREE_TRIES) if fails >= FREE_TRIES else 0.0
    state[_RETRY_KEY] = now + wait
    return wait


def _tried(state: MutableMapping[Any, Any], given: str) -> bool:
    """Whether ``given`` is the token this session tried last (a rerun is not a new try)."""
    digest = hashlib.sha256(given.encode()).hexdigest()
    if state.get(_LAST_KEY) == digest:
        return True
    state[_LAST_KEY] = digest
    return False


@dataclass(frozen=True)
class Policy:
    """The configured upload restriction."""

    token: str = field(repr=False)
    allow: frozenset[str]

    @property
    def open(self) -> bool:
        return not self.token and not self.allow

    @classmethod
    def from_settings(cls, settings: Settings) -> Policy:
        return cls(token=settings.upload_token, allow=settings.upload_allow)

    def token_ok(self, given: str) -> bool:
        """Constant-time comparison of a given token with the configured one."""
        return bool(self.token) and hmac.compare_digest(given.encode(), self.token.encode())

    def email_ok(self, email: str | None) -> bool:
        return bool(email) and str(email).strip().lower() in self.allow


def login_available() -> bool:
    """True when Streamlit's secrets configure OIDC (an ``[auth]`` section); never raises."""
    try:
        return "auth" in st.secrets
    except Exception:  # no secrets file at all
        return False


def signed_in_email() -> str | None:
    """The signed-in user's e-mail, or None (also when login is not configured)."""
    if not login_available():
        return None
    try:
        return st.user.email if st.user.is_logged_in else None  # type: ignore[return-value]
    except Exception:
        return None


def may_upload(policy: Policy) -> tuple[bool, str]:
    """Whether this session may upload, and who it is (for provenance)."""
    if policy.open:
        return True, ""
    email = signed_in_email()
    if policy.email_ok(email):
        return True, str(email)
    if policy.token_ok(st.session_state.get(_UNLOCK_KEY, "")):
        return True, "token holder"
    return False, ""


def sign_in_panel(policy: Policy) -> None:
    """The ways to unlock uploading that are configured: a login button and/or a token field."""
    st.info("Uploading is restricted on this server; you can browse everything read-only.",
            icon=":material/lock:")
    email = signed_in_email()
    if policy.allow and login_available():
        if email:
            st.warning(f"You are signed in as {email}, which is not on the upload allow-list.")
            st.button("Sign out", on_click=st.logout)
        else:
            st.button("Sign in to upload", on_click=st.login, type="primary")
    if policy.token:
        given = st.text_input("Upload token", type="password", key=f"{_UNLOCK_KEY}_field")
        if given:
            _check_token(policy, given)


def _check_token(policy: Policy, given: str) -> None:
    state, now = st.session_state, time.time()
    wait = retry_in(state, now)
    if _tried(state, given):  # the same try shown again on a rerun
        if wait > 0 or int(state.get(_FAILS_KEY, 0)):
            st.error(_refused(wait))
        return
    if wait > 0:
        state[_LAST_KEY] = None  # not checked: it may be tried again once the wait is over
        st.error(_refused(wait))
        return
    if policy.token_ok(given):
        state[_UNLOCK_KEY] = given
        state[_FAILS_KEY] = 0
        st.rerun()
    st.error(_refused(record_failure(state, now)))


def _refused(wait: float) -> str:
    if wait <= 0:
        return "That token is not valid."
    at = time.strftime("%H:%M:%S", time.localtime(time.time() + wait))
    return (f"That token is not valid. Too many wrong tokens from this session: try again "
            f"in {math.ceil(wait)} s (at {at}).")
