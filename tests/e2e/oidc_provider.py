"""A real OpenID Connect provider for the login tests (a helper module, not a test module).

Built on Authlib's authorization server (its Flask integration, the authorization-code
grant with the OpenID Connect extension and PKCE) and served by Werkzeug on 127.0.0.1 in
a thread: a discovery document (``/.well-known/openid-configuration``), a JWKS with one
RSA key made at start, an authorization endpoint whose sign-in form takes any e-mail
address (the test types who it is), a token endpoint that returns an ID token signed
with that key, and an end-session endpoint. One registered client, the app under test.
Nothing here is mocked: Streamlit's ``st.login`` fetches the discovery document and the
keys, exchanges the code over HTTP and checks the token's signature, issuer, audience
and nonce as it would against Google or Okta.
"""

from __future__ import annotations

import html
import secrets
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from authlib.integrations.flask_oauth2 import AuthorizationServer
from authlib.oauth2.rfc6749 import grants
from authlib.oauth2.rfc7636 import CodeChallenge
from authlib.oidc.core import UserInfo
from authlib.oidc.core.grants import OpenIDCode
from flask import Flask, redirect, request
from joserfc.jwk import RSAKey
from werkzeug.serving import WSGIRequestHandler, make_server

CLIENT_ID = "sigboard-test"


@dataclass(frozen=True)
class User:
    """Who signed in at the provider: the e-mail is the subject too."""

    email: str

    def get_user_id(self) -> str:
        return self.email


@dataclass
class Client:
    """The one registered client (the app), with its secret and redirect address."""

    client_id: str
    client_secret: str
    redirect_uri: str

    def get_client_id(self) -> str:
        return self.client_id

    def get_default_redirect_uri(self) -> str:
        return self.redirect_uri

    def get_allowed_scope(self, scope: str) -> str:
        return " ".join(s for s in scope.split() if s in ("openid", "email", "profile"))

    def check_redirect_uri(self, redirect_uri: str) -> bool:
        return redirect_uri == self.redirect_uri

    def check_client_secret(self, client_secret: str) -> bool:
        return secrets.compare_digest(client_secret, self.client_secret)

    def check_endpoint_auth_method(self, method: str, endpoint: str) -> bool:
        return method in ("client_secret_basic", "client_secret_post")

    def check_response_type(self, response_type: str) -> bool:
        return response_type == "code"

    def check_grant_type(self, grant_type: str) -> bool:
        return grant_type == "authorization_code"


@dataclass
class Code:
    """An issued authorization code and what it was issued for."""

    code: str
    client_id: str
    redirect_uri: str
    scope: str
    user: User
    nonce: str | None
    code_challenge: str | None
    code_challenge_method: str | None
    auth_time: int = field(default_factory=lambda: int(time.time()))

    def get_redirect_uri(self) -> str:
        return self.redirect_uri

    def get_scope(self) -> str:
        return self.scope

    def get_nonce(self) -> str | None:
        return self.nonce

    def get_auth_time(self) -> int:
        return self.auth_time

    def get_acr(self) -> None:
        return None

    def get_amr(self) -> None:
        return None


class Provider:
    """The provider: ``start()`` serves it on a free loopback port; ``url`` is its issuer.

    ``register(redirect_uri)`` sets the app's callback address (known once the app's
    port is); ``signed_in`` lists the e-mails of every completed code exchange,
    ``signed_out`` counts the visits to the end-session endpoint.
    """

    def __init__(self) -> None:
        self.key = RSAKey.generate_key(2048, parameters={"kid": "test-key", "use": "sig"})
        self.client = Client(CLIENT_ID, secrets.token_urlsafe(24), "")
        self.codes: dict[str, Code] = {}
        self.signed_in: list[str] = []
        self.signed_out = 0
        self.app = self._flask_app()
        self._server = make_server("127.0.0.1", 0, self.app, threaded=True,
                                   request_handler=_Quiet)
        self.url = f"http://127.0.0.1:{self._server.server_port}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def register(self, redirect_uri: str) -> None:
        self.client.redirect_uri = redirect_uri

    def start(self) -> Provider:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._thread.join(10)

    # ------------------------------------------------------------------ the Flask app

    def _flask_app(self) -> Flask:
        app = Flask("oidc_provider")
        server = AuthorizationServer(app, query_client=self._query_client,
                                     save_token=lambda token, req: None)
        server.register_grant(self._code_grant(),
                              [self._openid_extension(), CodeChallenge(required=True)])

        @app.get("/.well-known/openid-configuration")
        def discovery() -> dict[str, Any]:
            return self.metadata()

        @app.get("/jwks")
        def jwks() -> dict[str, Any]:
            return {"keys": [self.key.as_dict(private=False)]}

        @app.route("/authorize", methods=["GET", "POST"])
        def authorize() -> Any:
            if request.method == "GET":
                server.get_consent_grant(end_user=None)  # a bad request fails here
                return _sign_in_form(request.full_path)
            user = User(request.form.get("email", "").strip())
            grant = server.get_consent_grant(end_user=user)
            return server.create_authorization_response(grant=grant, grant_user=user)

        @app.post("/token")
        def token() -> Any:
            return server.create_token_response()

        @app.get("/logout")
        def logout() -> Any:
            self.signed_out += 1
            target = request.args.get("post_logout_redirect_uri") or "/"
            return redirect(target if target == self.client.redirect_uri else "/")

        return app

    def metadata(self) -> dict[str, Any]:
        """The discovery document (OpenID Connect Discovery 1.0, section 3)."""
        return {
            "issuer": self.url,
            "authorization_endpoint": f"{self.url}/authorize",
            "token_endpoint": f"{self.url}/token",
            "jwks_uri": f"{self.url}/jwks",
            "end_session_endpoint": f"{self.url}/logout",
            "response_types_supported": ["code"],
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": ["RS256"],
            "scopes_supported": ["openid", "email", "profile"],
            "token_endpoint_auth_methods_supported": ["client_secret_basic",
                                                      "client_secret_post"],
            "code_challenge_methods_supported": ["S256"],
            "claims_supported": ["sub", "email", "email_verified", "name"],
        }

    def _query_client(self, client_id: str) -> Client | None:
        return self.client if client_id == self.client.client_id else None

    def _code_grant(self) -> type[grants.AuthorizationCodeGrant]:
        provider = self

        class CodeGrant(grants.AuthorizationCodeGrant):  # type: ignore[misc]
            TOKEN_ENDPOINT_AUTH_METHODS = ["client_secret_basic", "client_secret_post"]

            def save_authorization_code(self, code: str, req: Any) -> None:
                data = req.payload.data
                provider.codes[code] = Code(
                    code=code, client_id=req.client.client_id,
                    redirect_uri=req.payload.redirect_uri, scope=req.payload.scope,
                    user=req.user, nonce=data.get("nonce"),
                    code_challenge=data.get("code_challenge"),
                    code_challenge_method=data.get("code_challenge_method"))

            def query_authorization_code(self, code: str, client: Client) -> Code | None:
                found = provider.codes.get(code)
                return found if found and found.client_id == client.client_id else None

            def delete_authorization_code(self, authorization_code: Code) -> None:
                provider.codes.pop(authorization_code.code, None)

            def authenticate_user(self, authorization_code: Code) -> User:
                provider.signed_in.append(authorization_code.user.email)
                return authorization_code.user

        return CodeGrant

    def _openid_extension(self) -> OpenIDCode:
        provider = self

        class Extension(OpenIDCode):  # type: ignore[misc]
            def exists_nonce(self, nonce: str, req: Any) -> bool:
                return any(c.nonce == nonce for c in provider.codes.values())

            def resolve_client_private_key(self, client: Client) -> RSAKey:
                return provider.key

            def get_client_algorithm(self, client: Client) -> str:
                return "RS256"

            def get_encode_header(self, client: Client) -> dict[str, str]:
                return {"alg": "RS256", "kid": "test-key"}

            def get_client_claims(self, client: Client) -> dict[str, Any]:
                return {"iss": provider.url, "aud": client.client_id}

            def generate_user_info(self, user: User, scope: str) -> UserInfo:
                name = user.email.split("@", 1)[0]
                return UserInfo(sub=user.email, email=user.email, email_verified=True,
                                name=name)

        return Extension(require_nonce=True)


class _Quiet(WSGIRequestHandler):
    """Werkzeug's handler without its line per request on stderr."""

    def log_request(self, *args: Any, **kwargs: Any) -> None:
        pass


def _sign_in_form(action: str) -> str:
    """The provider's sign-in page: one e-mail field (a test identity provider)."""
    return ("<!doctype html><title>Test identity provider</title><h1>Sign in</h1>"
            f"<form method=post action=\"{html.escape(action)}\">"
            "<label>E-mail <input name=email type=email></label>"
            "<button type=submit>Continue</button></form>")

