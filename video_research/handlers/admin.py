"""Admin tools: the audit log and the session registry."""

from __future__ import annotations

from typing import TYPE_CHECKING

from video_research.catalog import audit, registry
from video_research.catalog.db import get_db, iso, parse_time
from video_research.handlers.context import CallContext

if TYPE_CHECKING:
    from video_research.support.schema_types.tools import (
        AuditLogInput,
        AuditLogOutput,
        SessionListInput,
        SessionListOutput,
        SessionRegisterInput,
        SessionRegisterOutput,
        SessionRevokeInput,
        SessionRevokeOutput,
    )


async def audit_log(args: AuditLogInput, ctx: CallContext) -> AuditLogOutput:
    since = args.get("since")
    if since:
        since = iso(parse_time(since, "since"))
    return await get_db().read(
        lambda conn: audit.query(
            conn,
            tool=args.get("tool"),
            username=args.get("username"),
            since=since,
            failed_only=args["failed_only"],
            limit=args["limit"],
            before_id=args.get("before_id"),
        )
    )


async def session_register(args: SessionRegisterInput, ctx: CallContext) -> SessionRegisterOutput:
    session = await registry.register(
        args["session_id"],
        username=args["username"].strip(),
        role=args["role"],
        ttl_seconds=args.get("ttl_seconds"),
        created_by=ctx.caller.username,
    )
    return {**session}  # as the tool's output type (which adds `injections`)


async def session_revoke(args: SessionRevokeInput, ctx: CallContext) -> SessionRevokeOutput:
    revoked = await registry.revoke(args["session_id"])
    return {"revoked": revoked, "fingerprint": registry.fingerprint(args["session_id"])}


async def session_list(args: SessionListInput, ctx: CallContext) -> SessionListOutput:
    return {
        "sessions": await registry.list_all(),
        "registry": "nats" if ctx.settings.nats_url else "sqlite",
    }
