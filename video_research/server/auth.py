"""Who is calling: turn a request's `_meta.session` claim (or its absence) into a Caller.

Rules:
- A call that claims a session (`_meta.session = {username, role, session_id}`) gets the
  claimed role only when the session registry confirms it; otherwise it gets `viewer`.
- A call with no session claim comes from the owner of the process (the local stdio
  user) and gets `VIDEO_RESEARCH_LOCAL_ROLE` (default admin).
- Over HTTP and SSE with VIDEO_RESEARCH_HTTP_TOKENS or VIDEO_RESEARCH_OAUTH_ISSUER set,
  the bearer token names the caller (`identity_from_request`): a static token its
  configured username and role, an OAuth access token its username claim and the role
  its scopes grant (oauth.py); a request without a valid token never reaches the
  server (401, see transports.py). A call that also claims a session is resolved as
  above but never gets more than its token's role: a bot's token caps its users.
- Without tokens, HTTP callers are the local user, like stdio (the listener binds to
  127.0.0.1 by default).

The registry is video_research/catalog/registry.py (SQLite, or NATS KV with NATS_URL).
"""

from __future__ import annotations

import hmac
import logging
from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from video_research.config import ROLE_RANK, Settings
from video_research.handlers.context import Caller

if TYPE_CHECKING:
    from video_research.catalog.registry import Grant

logger = logging.getLogger(__name__)


def session_claim(meta: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The `_meta.session` object of a request, or None when there is none.

    Only a missing `session` key means "no claim". A `session` that is present but not
    an object (`null` included) is a claim that cannot verify (an empty one), never a
    reason to fall back to the local user's role.
    """
    if not meta or "session" not in meta:
        return None
    claim = meta["session"]
    return claim if isinstance(claim, dict) else {}


async def verify_claim(claim: dict[str, Any], settings: Settings) -> Grant | None:
    """What the session registry grants this claim, or None when it cannot be verified.

    Fails closed: when the registry cannot be read (NATS down) the claim is unverified.
    """
    from video_research.catalog import registry
    from video_research.support.errors import ToolFailure

    try:
        return await registry.grant(claim, settings)
    except (ToolFailure, OSError, ValueError) as exc:
        logger.warning("session registry unavailable, claim not verified: %s", exc)
        return None


def bearer_token(headers: Mapping[str, str]) -> str | None:
    value = headers.get("authorization") or ""
    scheme, _, token = value.partition(" ")
    return token.strip() or None if scheme.lower() == "bearer" else None


def token_identity(token: str | None, settings: Settings) -> Caller | None:
    """The caller a bearer token names, or None when the token is unknown."""
    if not token:
        return None
    for known, (username, role) in settings.token_identities.items():
        if hmac.compare_digest(known.encode(), token.encode()):
            return Caller(username=username, role=role, verified=True)
    return None


async def identity_from_request(request: Any, settings: Settings) -> Caller | None:
    """The caller an HTTP transport authenticated, or None (stdio, or HTTP without auth).

    The transports verify the bearer token before MCP sees the request (static token or
    OAuth JWT, video_research/server/oauth.py) and leave the SDK's AuthenticatedUser on the
    request; its claims carry the username and role.
    """
    scope = getattr(request, "scope", None)
    user = scope.get("user") if isinstance(scope, dict) else None
    claims = getattr(getattr(user, "access_token", None), "claims", None)
    if isinstance(claims, dict) and claims.get("role") in ROLE_RANK:
        return Caller(
            username=str(claims.get("username") or "oauth-client")[:100],
            role=claims["role"],
            verified=True,
        )
    headers = getattr(request, "headers", None)
    if headers is None or not settings.token_identities:
        return None
    return token_identity(bearer_token(headers), settings)


async def resolve_caller(
    meta: Mapping[str, Any] | None,
    settings: Settings,
    *,
    transport_identity: Caller | None = None,
) -> Caller:
    claim = session_claim(meta)
    if claim is None:
        return transport_identity or Caller(
            username="local", role=settings.local_role, verified=True
        )
    caller = await _claimed_caller(claim, settings)
    if transport_identity is not None:
        caller = replace(caller, transport_user=transport_identity.username)
        if not transport_identity.has_role(caller.role):
            return replace(caller, role=transport_identity.role)
    return caller


async def _claimed_caller(claim: dict[str, Any], settings: Settings) -> Caller:
    username = str(claim.get("username") or "anonymous")[:100]
    session_id = claim.get("session_id")
    session_id = str(session_id)[:200] if session_id is not None else None
    claimed = claim.get("role")
    granted = await verify_claim(claim, settings)
    if granted is None or granted.role not in ROLE_RANK:
        if claimed not in (None, "viewer"):
            logger.warning(
                "unverified role claim %r for user %r: treated as viewer", claimed, username
            )
        return Caller(username=username, role="viewer", session_id=session_id, verified=False)
    return Caller(
        username=granted.username[:100],
        role=granted.role,  # type: ignore[arg-type]
        session_id=session_id,
        verified=True,
    )
