"""What a handler knows about the call it serves: who is calling, and how to report back.

Handlers are plain `async def handler(args: dict, ctx: CallContext) -> dict` functions;
`ctx` is their only window on the MCP session. The same handler runs under the stdio
server, the HTTP server and the in-process `video-research call` command, where there is
no session and progress goes nowhere.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from video_research.config import Role

logger = logging.getLogger(__name__)

ROLE_RANK: dict[str, int] = {"viewer": 0, "blessed": 1, "admin": 2}

ProgressFn = Callable[[float, float | None, str | None], Awaitable[None]]


@dataclass(frozen=True)
class Caller:
    """The person behind a call. `verified` says whether the role was checked."""

    username: str
    role: Role
    session_id: str | None = None
    verified: bool = False
    transport_user: str | None = None
    """Who the transport authenticated (a bearer token's user) when the call also claims a
    session; None on stdio and without tokens. The audit log records this user, not an
    unverified claim's name."""

    def has_role(self, required: str) -> bool:
        return ROLE_RANK[self.role] >= ROLE_RANK[required]


async def _no_progress(progress: float, total: float | None, message: str | None) -> None:
    return None


@dataclass
class CallContext:
    tool: str
    caller: Caller
    meta: dict[str, Any] = field(default_factory=dict)
    progress_fn: ProgressFn = _no_progress
    session: Any = None
    """The SDK's ServerSession, or None outside a server (CLI)."""

    async def report_progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        """Send an MCP progress notification when the client asked for progress.

        Never raises: a client that went away must not fail the work.
        """
        try:
            await self.progress_fn(progress, total, message)
        except Exception as exc:  # pragma: no cover - depends on the transport going away
            logger.debug("progress notification dropped: %s", exc)
