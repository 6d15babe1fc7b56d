"""Who may upload: open by default; restricted by an e-mail allow-list (OIDC) and/or a token.

Configured in ``app/config.py``: ``SIGBOARD_UPLOAD_ALLOW``, comma-separated e-mails
of users who may upload once signed in with ``st.login`` (needs an ``[auth]``
section in Streamlit's secrets); ``SIGBOARD_UPLOAD_TOKEN``, a shared token that
unlocks uploading. With neither set, everyone may upload; with either set,
everyone else browses read-only.
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass, field

import streamlit as st

from app.config import Settings

_UNLOCK_KEY = "sigboard_upload_unlock"


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
            if policy.token_ok(given):
                st.session_state[_UNLOCK_KEY] = given
                st.rerun()
            st.error("That token is not valid.")
