"""The audit log: every write operation, who made it and what came of it.

Each entry goes to the `audit_log` table of the catalog database (read back by the
`audit_log` tool) and, as one JSON line, to VIDEO_RESEARCH_AUDIT_LOG when set or to
stderr otherwise:

    {"event": "audit", "timestamp": "2024-12-20T10:30:00Z", "tool": "queue_apply_playlist",
     "username": "someuser", "claimed_username": null, "role": "blessed",
     "session": "3f2a9c1b7e04", "verified": true, "ok": true, "category": null,
     "input": {...}, "result": {...}}

`username` is who really called: a verified session's user, else the transport's
(the bearer token's user, or `local`); an unverified claim's name is only kept as
`claimed_username` (see `who_called`).

Session IDs never appear: `session` is a fingerprint, and any `session_id` argument is
replaced by its fingerprint. Writing the entry never fails the call it records.
"""

from __future__ import annotations

import json
import logging
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from video_research.catalog.db import get_db, now_iso
from video_research.catalog.registry import fingerprint
from video_research.support import printable
from video_research.support.redact import redact
from video_research.support.services import current_settings

if TYPE_CHECKING:
    from video_research.support.schema_types.common.catalog import AuditEntry
    from video_research.support.schema_types.tools import AuditLogOutput

logger = logging.getLogger(__name__)

MAX_RESULT_CHARS = 16_000
_file_lock = threading.Lock()


def _scrub(arguments: dict[str, Any]) -> dict[str, Any]:
    return {
        key: fingerprint(value) if key == "session_id" and isinstance(value, str) else value
        for key, value in arguments.items()
    }


def _bounded(result: dict[str, Any] | None) -> dict[str, Any] | None:
    """`result` itself, or a short summary of it when its JSON exceeds MAX_RESULT_CHARS
    (inputs are bounded the same way: a refused call's arguments were never validated)."""
    text = json.dumps(result, default=str)
    if result is None or len(text) <= MAX_RESULT_CHARS:
        return result
    return {"truncated": True, "chars": len(text), "keys": sorted(result)}


LOCAL_USER = "local"
"""Who calls over stdio or HTTP without tokens: the owner of the server process."""


def who_called(caller: Any) -> tuple[str, str | None]:
    """(the user who really made the call, the name an unverified session claimed or None).

    A verified caller is recorded as themself. An unverified claim proves nothing about
    its name: the entry names who the transport authenticated (the bearer token's user,
    or the local user on stdio) and keeps the claimed name beside it, marked unverified.
    """
    if caller.verified:
        return caller.username, None
    return caller.transport_user or LOCAL_USER, caller.username


def make_entry(
    *,
    tool: str,
    caller: Any,
    arguments: dict[str, Any],
    result: dict[str, Any] | None,
    error: dict[str, Any] | None,
) -> dict[str, Any]:
    username, claimed = who_called(caller)
    return {
        "event": "audit",
        "timestamp": now_iso(),
        "tool": tool,
        "username": username,
        "claimed_username": claimed,
        "role": caller.role,
        "session": fingerprint(caller.session_id) if caller.session_id else None,
        "verified": caller.verified,
        "ok": error is None,
        "category": error["category"] if error else None,
        "input": _bounded(_scrub(arguments)),
        "result": _bounded(result if error is None else error),
    }


def _emit(line: str) -> None:
    path = current_settings().audit_log_path
    if not path:
        sys.stderr.write(line + "\n")
        sys.stderr.flush()
        return
    with _file_lock:
        Path(path).expanduser().parent.mkdir(parents=True, exist_ok=True)
        with open(Path(path).expanduser(), "a", encoding="utf-8") as handle:
            handle.write(line + "\n")


async def record(entry: dict[str, Any]) -> None:
    """Store and emit one entry; failures are logged, never raised.

    Every string in the entry is made encodable first (printable.data): a file name that
    is not UTF-8 in a result would otherwise fail both the UTF-8 log file and SQLite, and
    the call would be missing from the audit log although it changed things."""
    entry = printable.data(entry)
    line = redact(json.dumps(entry, default=str, ensure_ascii=False))
    try:
        _emit(line)
    except (OSError, ValueError) as exc:
        logger.error("could not write the audit line: %s", exc)
    try:
        await get_db().write(
            lambda conn: conn.execute(
                "INSERT INTO audit_log (timestamp, tool, username, claimed_username, role,"
                " session, verified, ok, category, input, result) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                (
                    entry["timestamp"],
                    entry["tool"],
                    entry["username"],
                    entry["claimed_username"],
                    entry["role"],
                    entry["session"],
                    int(entry["verified"]),
                    int(entry["ok"]),
                    entry["category"],
                    redact(json.dumps(entry["input"], default=str)),
                    redact(json.dumps(entry["result"], default=str)),
                ),
            )
        )
    except Exception as exc:
        logger.error("could not store the audit entry for %s: %s", entry["tool"], exc)


def query(
    conn: Any,
    *,
    tool: str | None,
    username: str | None,
    since: str | None,
    failed_only: bool,
    limit: int,
    before_id: int | None,
) -> AuditLogOutput:
    where: list[str] = []
    params: list[str | int] = []
    for column, value in (("tool", tool), ("username", username)):
        if value:
            where.append(f"{column} = ?")
            params.append(value)
    if since:
        where.append("timestamp >= ?")
        params.append(since)
    if failed_only:
        where.append("ok = 0")
    if before_id:
        where.append("id < ?")
        params.append(before_id)
    clause = f"WHERE {' AND '.join(where)}" if where else ""
    rows = conn.execute(
        f"SELECT * FROM audit_log {clause} ORDER BY id DESC LIMIT ?", [*params, limit + 1]
    ).fetchall()
    entries: list[AuditEntry] = [
        {
            "id": r["id"],
            "timestamp": r["timestamp"],
            "tool": r["tool"],
            "username": r["username"],
            "claimed_username": r["claimed_username"],
            "role": r["role"],
            "session": r["session"],
            "verified": bool(r["verified"]),
            "ok": bool(r["ok"]),
            "category": r["category"],
            "input": json.loads(r["input"]),
            "result": json.loads(r["result"]),
        }
        for r in rows[:limit]
    ]
    return {"entries": entries, "has_more": len(rows) > limit}
