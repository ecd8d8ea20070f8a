"""The 401 of the HTTP transports, in words that say what to do.

The SDK's `RequireAuthMiddleware` answers every refused request "Authentication
required", whether no token was sent, a wrong one, or one that has expired: three
different fixes. Here the bearer backend (the SDK's, extended) notes why it refused a
token (`oauth.Rejection`, set by the verifier that refused it) in the request scope,
and `RequireToken` answers 401 with that reason: the standard `WWW-Authenticate:
Bearer` challenge (`resource_metadata` included, so OAuth clients still discover the
authorization server) and a JSON body. The token itself is never echoed.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Any

from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser, BearerAuthBackend

from video_research.config import Settings
from video_research.server import oauth
from video_research.server.http_json import send_json

SCOPE_KEY = "video_research.token_rejection"


class ExplainingBearerBackend(BearerAuthBackend):
    """The SDK's bearer backend, which also records why a request got no user."""

    async def authenticate(self, conn: Any) -> Any:
        header = conn.headers.get("authorization") or ""
        if not header.lower().startswith("bearer ") or not header[7:].strip():
            conn.scope[SCOPE_KEY] = oauth.Rejection("missing")
            return None
        oauth.rejection.set(None)
        result = await super().authenticate(conn)
        if result is None:
            noted = oauth.rejection.get()
            conn.scope[SCOPE_KEY] = noted or oauth.Rejection("invalid")
        return result


def describe(rejection: oauth.Rejection, settings: Settings, now: float | None = None) -> str:
    """The 401's error_description: what was wrong and what to send instead."""
    where = _token_sources(settings)
    if rejection.reason == "missing":
        return f"No bearer token was sent. Send the header 'Authorization: Bearer <token>' with {where}."
    if rejection.reason == "expired":
        when = ""
        if rejection.expired_at is not None:
            at = datetime.fromtimestamp(rejection.expired_at, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
            ago = int((now or time.time()) - rejection.expired_at)
            when = f" at {at} ({ago} s ago)"
        return f"The bearer token has expired{when}. Get a new access token from {settings.oauth_issuer} and retry."
    why = f": {rejection.detail}" if rejection.detail else ""
    return (
        f"The bearer token is not valid for this server{why}. It is neither a configured token "
        f"nor a current access token for this server; send {where}."
    )


def _token_sources(settings: Settings) -> str:
    sources = []
    if settings.token_identities:
        sources.append("a token configured in VIDEO_RESEARCH_HTTP_TOKENS")
    if settings.oauth_issuer:
        sources.append(f"an access token from {settings.oauth_issuer} for this server")
    return " or ".join(sources) or "a valid token"


class RequireToken:
    """401 for a request without an authenticated user, saying why; others pass on."""

    def __init__(self, app: Any, settings: Settings, metadata_url: str | None) -> None:
        self.app = app
        self.settings = settings
        self.metadata_url = metadata_url

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if isinstance(scope.get("user"), AuthenticatedUser):
            await self.app(scope, receive, send)
            return
        rejection = scope.get(SCOPE_KEY) or oauth.Rejection("missing")
        description = describe(rejection, self.settings).replace('"', "'")
        # RFC 6750 section 3.1: a request without credentials gets no error code
        error = None if rejection.reason == "missing" else "invalid_token"
        parts = [f'error="{error}"'] if error else []
        parts.append(f'error_description="{description}"')
        if self.metadata_url:
            parts.append(f'resource_metadata="{self.metadata_url}"')
        await send_json(
            send,
            401,
            {
                "error": "invalid_token",  # what clients of the SDK's answer already read
                "reason": rejection.reason,
                "error_description": description,
            },
            [(b"www-authenticate", ("Bearer " + ", ".join(parts)).encode())],
        )
