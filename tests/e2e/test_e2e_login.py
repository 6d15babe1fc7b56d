"""Real browser, real identity provider: uploads unlocked by signing in with ``st.login``.

The server runs with ``SIGBOARD_UPLOAD_ALLOW`` (one address and one whole domain) and an
``[auth]`` section in its secrets pointing at an OpenID Connect provider started here
(``oidc_provider.py``: Authlib's authorization server, authorization code flow with PKCE,
ID tokens signed with a JWKS key). The browser signs in through the provider's own form:
an allowed user uploads and commits (the upload records their e-mail) and signs out; a
user not on the allow-list is told so, gets no file field, and signs out.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from e2e_support import idle, open_context, title
from oidc_provider import CLIENT_ID, Provider

from engine.store import open_store

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

pytestmark = [pytest.mark.browser, pytest.mark.slow]

WAIT = 90_000  # ms
ALLOW = "alice@example.com,@team.example"
ROWS = "".join(f"login-bench,{s},e{i},acc,{(i + k) % 2}\n"
               for k, s in enumerate(["model-a", "model-b"]) for i in range(6))


STORES: list[Path] = []


def build_store(path: Path) -> None:
    """An empty store: the allowed user uploads into it."""
    open_store(f"sqlite:///{path}").close()
    STORES.append(path)


@pytest.fixture(scope="module")
def provider() -> Iterator[Provider]:
    started = Provider().start()
    yield started
    started.stop()


def server_options(request: pytest.FixtureRequest, url: str) -> tuple[dict[str, str], list[str]]:
    """The allow-list, and secrets whose ``[auth]`` section names the provider started here
    (the client registered with the app's callback address)."""
    provider: Provider = request.getfixturevalue("provider")
    provider.register(f"{url}/oauth2callback")
    folder = request.getfixturevalue("tmp_path_factory").mktemp("secrets")
    path = folder / "secrets.toml"
    path.write_text(
        "[auth]\n"
        f'redirect_uri = "{url}/oauth2callback"\n'
        f'cookie_secret = "{secrets.token_urlsafe(32)}"\n'
        f'client_id = "{CLIENT_ID}"\n'
        f'client_secret = "{provider.client.client_secret}"\n'
        f'server_metadata_url = "{provider.url}/.well-known/openid-configuration"\n')
    return {"SIGBOARD_UPLOAD_ALLOW": ALLOW}, ["--secrets.files", str(path)]


def _text(page: Page) -> str:
    """The main area's text, without the word joiners that keep addresses from linking."""
    return page.locator("[data-testid=stMain]").inner_text().replace("\u2060", "")


def _sign_in(page: Page, server: str, provider: Provider, email: str) -> None:
    """From the Upload page, through the provider's form, back to the Upload page."""
    page.goto(f"{server}/upload")
    title(page, "Upload results", timeout=WAIT)
    page.get_by_text("Uploading is restricted on this server").wait_for(timeout=WAIT)
    assert page.locator("input[type=file]").count() == 0
    page.get_by_role("button", name="Sign in to upload").click()
    page.wait_for_url(f"{provider.url}/authorize*", timeout=WAIT)
    page.get_by_label("E-mail").fill(email)
    page.get_by_role("button", name="Continue").click()
    page.wait_for_url(f"{server}/", timeout=WAIT)  # the callback sends the browser home
    page.goto(f"{server}/upload")
    title(page, "Upload results", timeout=WAIT)
    idle(page, timeout=WAIT)


def _sign_out(page: Page, server: str, provider: Provider) -> None:
    ended = provider.signed_out
    page.get_by_role("button", name="Sign out").click()
    # Streamlit clears its cookie, the provider ends its session and sends the browser home
    page.wait_for_url(f"{server}/", timeout=WAIT)
    assert provider.signed_out == ended + 1, "the provider's end-session endpoint was visited"
    page.goto(f"{server}/upload")
    title(page, "Upload results", timeout=WAIT)
    page.get_by_role("button", name="Sign in to upload").wait_for(timeout=WAIT)
    assert page.locator("input[type=file]").count() == 0


def test_an_allowed_user_signs_in_uploads_and_signs_out(
        browser: Browser, server: str, provider: Provider, tmp_path: Path) -> None:
    context, page, offline, _ = open_context(browser, 1400)
    _sign_in(page, server, provider, "alice@example.com")
    assert "alice@example.com" in provider.signed_in  # a real code exchange took place
    page.get_by_text("you may upload and delete").wait_for(timeout=WAIT)
    assert "Signed in as alice@example.com" in _text(page)
    csv = tmp_path / "login.csv"
    csv.write_text("benchmark,system,example_id,metric,value\n" + ROWS)
    page.locator("input[type=file]").set_input_files(str(csv))
    page.get_by_role("button", name="Commit to the store").click()
    page.get_by_text("stored as upload").wait_for(timeout=WAIT)
    uploads = open_store(f"sqlite:///{STORES[-1]}").uploads()
    assert list(uploads.loc[uploads["filename"] == "login.csv", "uploader"]) == [
        "alice@example.com"]
    _sign_out(page, server, provider)
    context.close()
    assert offline.blocked == []


def test_a_user_not_on_the_allow_list_is_refused_and_signs_out(
        browser: Browser, server: str, provider: Provider) -> None:
    context, page, offline, _ = open_context(browser, 1400)
    _sign_in(page, server, provider, "mallory@evil.example")
    assert "mallory@evil.example" in provider.signed_in
    page.get_by_text("which is not allowed to upload on this server").wait_for(timeout=WAIT)
    assert "You are signed in as mallory@evil.example" in _text(page)
    assert page.locator("input[type=file]").count() == 0
    assert page.get_by_role("button", name="Commit to the store").count() == 0
    _sign_out(page, server, provider)
    context.close()
    assert offline.blocked == []
