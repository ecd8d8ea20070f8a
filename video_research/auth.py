"""Who is calling: turn a request's `_meta.session` claim (or its absence) into a Caller.

Rules (seed 004 section 5):
- A call that claims a session (`_meta.session = {username, role, session_id}`) gets the
  claimed role only when the session registry confirms it; otherwise it gets `viewer`.
- A call with no session claim comes from the owner of the process (the local stdio
  user) and gets `VIDEO_RESEARCH_LOCAL_ROLE` (default admin).
- Over HTTP the bearer token decides the identity instead (see the transport).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from video_research.config import Settings
from video_research.context import ROLE_RANK, Caller

logger = logging.getLogger(__name__)


def session_claim(meta: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The `_meta.session` object of a request, or None when absent or malformed."""
    if not meta:
        return None
    claim = meta.get("session")
    return claim if isinstance(claim, dict) else None


async def verify_claim(claim: dict[str, Any], settings: Settings) -> str | None:
    """The role the session registry grants this claim, or None when it cannot be verified.

    The session registry arrives with the catalog tools; until then no claim verifies.
    """
    return None


async def identity_from_request(request: Any, settings: Settings) -> Caller | None:
    """The caller an HTTP transport authenticated (bearer token), or None (stdio, no auth)."""
    return None


async def resolve_caller(
    meta: Mapping[str, Any] | None,
    settings: Settings,
    *,
    transport_identity: Caller | None = None,
) -> Caller:
    if transport_identity is not None:
        return transport_identity
    claim = session_claim(meta)
    if claim is None:
        return Caller(username="local", role=settings.local_role, verified=True)
    username = str(claim.get("username") or "anonymous")[:100]
    session_id = claim.get("session_id")
    session_id = str(session_id)[:200] if session_id is not None else None
    claimed = claim.get("role")
    role = await verify_claim(claim, settings)
    if role is None or role not in ROLE_RANK:
        if claimed not in (None, "viewer"):
            logger.warning(
                "unverified role claim %r for user %r: treated as viewer", claimed, username
            )
        return Caller(username=username, role="viewer", session_id=session_id, verified=False)
    return Caller(username=username, role=role, session_id=session_id, verified=True)  # type: ignore[arg-type]
