"""Who may upload: open by default; restricted by an e-mail allow-list (OIDC) and/or a token.

Configured in ``app/config.py``: ``SIGBOARD_UPLOAD_ALLOW``, a comma-separated allow-list
of e-mail addresses (``alice@example.com``) and whole domains (``@example.com``) whose
users may upload and delete once signed in with ``st.login`` (OpenID Connect; needs an
``[auth]`` section in Streamlit's secrets, and the provider must not say the address is
unverified: ``email_verified`` false is refused); ``SIGBOARD_UPLOAD_TOKEN``, a shared
token that unlocks uploading (kept for servers without an identity provider). With
neither set, everyone may upload; with either set, everyone else browses read-only.
Token guesses are throttled per session: after :data:`FREE_TRIES` wrong tokens, each
further try waits twice as long as the last (:data:`FIRST_WAIT` seconds first), and the
message says when to retry.

A fresh session starts that count again, so the server also throttles across sessions
(:data:`GUESSES`, one per process): per client address (:data:`FREE_TRIES` free, then the
same doubling wait up to an hour) and overall (:data:`GLOBAL_FREE_TRIES` free, then a
doubling wait up to a minute, so one attacker cannot lock the team out for long). A count
is forgotten :data:`FORGET_AFTER` seconds after its last wrong token. Every wrong token
is logged (logger ``sigboard.auth``: the client address and the counts, never the token).
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import math
import os
import threading
import time
from collections.abc import MutableMapping
from dataclasses import dataclass, field
from typing import Any

import streamlit as st

from app.config import Settings
from engine.app_support import md_text

_UNLOCK_KEY = "sigboard_upload_unlock"
_FAILS_KEY = "sigboard_token_failures"
_RETRY_KEY = "sigboard_token_retry_at"
_LAST_KEY = "sigboard_token_last_try"
#: Wrong tokens a session may try before it has to wait.
FREE_TRIES = 3
#: Seconds to wait after the first try beyond the free ones; doubles with each.
FIRST_WAIT = 5.0
#: Wrong tokens from all clients together before every client has to wait.
GLOBAL_FREE_TRIES = 20
#: Longest waits: per client address, and for everyone (the overall limit).
CLIENT_MAX_WAIT, GLOBAL_MAX_WAIT = 3600.0, 60.0
#: Seconds after its last wrong token when a count starts again from zero.
FORGET_AFTER = 900.0
LOG = logging.getLogger("sigboard.auth")


@dataclass
class _Count:
    fails: int = 0
    retry_at: float = 0.0
    last: float = 0.0


class Throttle:
    """Wrong tokens counted per key (a client address, and ``"*"`` for all clients) in this
    server process, shared by every session and thread; waits double after the free tries."""

    def __init__(self, *, free: int = FREE_TRIES, global_free: int = GLOBAL_FREE_TRIES,
                 max_wait: float = CLIENT_MAX_WAIT, global_max_wait: float = GLOBAL_MAX_WAIT,
                 max_clients: int = 100_000) -> None:
        self._lock = threading.Lock()
        self._counts: dict[str, _Count] = {}
        self._rules = {"client": (free, max_wait), "*": (global_free, global_max_wait)}
        self._max_clients = max_clients

    def _count(self, key: str, now: float) -> _Count:
        count = self._counts.get(key)
        if count is None or now - count.last > FORGET_AFTER:
            if len(self._counts) >= self._max_clients:  # bounded memory: forget the oldest
                del self._counts[min(self._counts, key=lambda k: self._counts[k].last)]
            count = self._counts[key] = _Count()
        return count

    def retry_in(self, client: str, now: float) -> float:
        """Seconds ``client`` must still wait (its own limit or the overall one)."""
        with self._lock:
            return max(0.0, self._count(client, now).retry_at - now,
                       self._count("*", now).retry_at - now)

    def record_failure(self, client: str, now: float) -> float:
        """Count a wrong token from ``client`` (and overall); log it; the wait that follows."""
        with self._lock:
            waits = []
            for key, (free, longest) in ((client, self._rules["client"]),
                                         ("*", self._rules["*"])):
                count = self._count(key, now)
                count.fails += 1
                count.last = now
                wait = min(longest, FIRST_WAIT * 2.0 ** min(count.fails - free, 30)) \
                    if count.fails >= free else 0.0
                count.retry_at = now + wait
                waits.append(wait)
            mine, everyone = self._counts[client].fails, self._counts["*"].fails
        LOG.warning("wrong upload token from %s (%d from this address, %d from all in the last "
                    "%d min); next try in %.0f s", client, mine, everyone, FORGET_AFTER // 60,
                    max(waits))
        return max(waits)

    def record_success(self, client: str) -> None:
        with self._lock:
            self._counts.pop(client, None)


#: The server's one throttle (Streamlit runs every session in this process).
GUESSES = Throttle()


def client_address() -> str:
    """The connecting client's address as Streamlit sees it ("unknown" when it cannot say)."""
    try:
        address = st.context.ip_address
    except Exception:
        return "unknown"
    return address if isinstance(address, str) and address else "unknown"  # not a test double


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
        """Whether ``email`` is on the allow-list: the address itself, or ``@`` and its domain.

        >>> p = Policy(token="", allow=frozenset({"alice@x.org", "@team.example"}))
        >>> [p.email_ok(e) for e in ("Alice@X.org", "bob@team.example", "bob@x.org",
        ...                          "eve@evil.team.example", "@team.example", None)]
        [True, True, False, False, False, False]
        """
        address = str(email or "").strip().lower()
        user, at, domain = address.rpartition("@")
        if not (user and at and domain):  # not an address (an empty name, no domain)
            return False
        return address in self.allow or f"@{domain}" in self.allow


def login_available() -> bool:
    """True when Streamlit's secrets configure OIDC (an ``[auth]`` section); never raises."""
    try:
        return "auth" in st.secrets
    except Exception:  # no secrets file at all
        return False


def signed_in_email() -> str | None:
    """The signed-in user's e-mail, or None (also when login is not configured, and when
    the identity provider says the address is not verified: anyone could have typed it)."""
    if not login_available():
        return None
    try:
        if not st.user.is_logged_in or st.user.get("email_verified") is False:
            return None
        email = st.user.get("email")
    except Exception:
        return None
    return email if isinstance(email, str) and email else None


def signed_in_name() -> str | None:
    """Who is signed in as the provider names them (e-mail, else name), verified or not."""
    if not login_available():
        return None
    try:
        if not st.user.is_logged_in:
            return None
        who = st.user.get("email") or st.user.get("name") or st.user.get("sub")
    except Exception:
        return None
    return str(who) if who else None


def may_upload(policy: Policy) -> tuple[bool, str]:
    """Whether this session may upload, and who it is (for provenance); a session that may
    is remembered for the upload endpoint's guard (:func:`upload_session_allowed`)."""
    allowed, who = _may_upload(policy)
    if allowed and not policy.open:
        _remember_session()
    return allowed, who


def _may_upload(policy: Policy) -> tuple[bool, str]:
    if policy.open:
        return True, ""
    email = signed_in_email()
    if policy.email_ok(email):
        return True, str(email)
    if policy.token_ok(st.session_state.get(_UNLOCK_KEY, "")):
        return True, "token holder"
    return False, ""


#: Sessions that unlocked uploading (the token or an allowed login), for the upload
#: endpoint's guard (app.fast_start.Guard), which sees only the session id in the address.
_UNLOCKED: dict[str, float] = {}
_UNLOCKED_LOCK = threading.Lock()
_MAX_UNLOCKED = 10_000


def _remember_session() -> None:
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    if ctx is None:
        return
    with _UNLOCKED_LOCK:
        if len(_UNLOCKED) >= _MAX_UNLOCKED:
            del _UNLOCKED[min(_UNLOCKED, key=_UNLOCKED.__getitem__)]
        _UNLOCKED[ctx.session_id] = time.time()


def upload_session_allowed(session_id: str, settings: Settings | None = None) -> bool:
    """Whether the upload endpoint may take a file for ``session_id``: the server is open
    (no token, no allow-list), or that session unlocked uploading."""
    from app.config import Settings as _Settings

    policy = Policy.from_settings(settings or _Settings.from_env(os.environ))
    if policy.open:
        return True
    with _UNLOCKED_LOCK:
        return session_id in _UNLOCKED


def sign_in_panel(policy: Policy) -> None:
    """The ways to unlock uploading that are configured: a login button and/or a token field."""
    st.info("Uploading is restricted on this server; you can browse everything read-only.",
            icon=":material/lock:")
    who = signed_in_name()
    if policy.allow and login_available():
        if who:
            LOG.warning("signed-in user %s is not on the upload allow-list (from %s)", who,
                        client_address())
            st.warning(f"You are signed in as {md_text(who)}, which is not allowed to upload on "
                       "this server (not on its allow-list, or the identity provider has not "
                       "verified the address). Sign out to use another account, or ask the "
                       "server's administrator to add you to SIGBOARD_UPLOAD_ALLOW.",
                       icon=":material/block:")
            st.button("Sign out", on_click=st.logout, key="sigboard-sign-out")
        else:
            st.button("Sign in to upload", on_click=st.login, type="primary")
    if policy.token:
        given = st.text_input("Upload token", type="password", key=f"{_UNLOCK_KEY}_field")
        if given:
            _check_token(policy, given)


def signed_in_bar(uploader: str) -> None:
    """For a user allowed by the login: who they are signed in as, and a way to sign out."""
    if uploader and uploader == signed_in_email():
        left, right = st.columns([4, 1], vertical_alignment="center")
        left.caption(f"Signed in as {md_text(uploader)}: you may upload and delete.")
        right.button("Sign out", on_click=st.logout, key="sigboard-sign-out")


def _check_token(policy: Policy, given: str) -> None:
    state, now, client = st.session_state, time.time(), client_address()
    wait = max(retry_in(state, now), GUESSES.retry_in(client, now))
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
        GUESSES.record_success(client)
        st.rerun()
    st.error(_refused(max(record_failure(state, now), GUESSES.record_failure(client, now))))


def _refused(wait: float) -> str:
    if wait <= 0:
        return "That token is not valid."
    at = time.strftime("%H:%M:%S", time.localtime(time.time() + wait))
    return (f"That token is not valid. Too many wrong tokens (from this session, this address "
            f"or in all): try again in {math.ceil(wait)} s (at {at}).")
