"""The session registry: which chat sessions may claim which role.

A bot (kryten-llm) passes each user's session in the request's `_meta.session`
({username, role, session_id}). The claim is trusted only when the registry holds that
session for that username; the caller then gets the lower of the claimed and the
registered role. Anything else is a viewer.

Where it lives: the `sessions` table of the catalog database, or, when NATS_URL is set,
the KV bucket NATS_SESSIONS_BUCKET, so a bot can register sessions itself:

    key   = sha256(session_id) as 64 lower-case hex digits
    value = {"username": "...", "role": "viewer|blessed|admin",
             "expires_at": "2025-01-01T00:00:00Z" | null, "created_by": "...", "created_at": "..."}

Only the hash of a session ID is ever stored or logged (its first 12 digits are the
"fingerprint" that tools and the audit log show).
"""

from __future__ import annotations

import hashlib
import logging
from datetime import timedelta
from typing import TYPE_CHECKING, Any, NamedTuple

from video_research.catalog.db import get_db, iso, now_iso, parse_time
from video_research.config import ROLE_RANK, Settings
from video_research.support import clock
from video_research.support.errors import ToolFailure
from video_research.support.services import current_settings

if TYPE_CHECKING:
    from video_research.support.schema_types.common.catalog import Session

logger = logging.getLogger(__name__)


def session_key(session_id: str) -> str:
    return hashlib.sha256(session_id.encode()).hexdigest()


def fingerprint(session_id: str) -> str:
    return session_key(session_id)[:12]


class Grant(NamedTuple):
    """What a verified claim earns: the role, and the username as registered."""

    role: str
    username: str


def _malformed(record: Any) -> str | None:
    """Why a stored registration cannot be trusted (a bot may write NATS records), or None.

    A naive `expires_at` is taken as UTC, like every timestamp here.
    """
    if not isinstance(record, dict):
        return "not an object"
    if not isinstance(record.get("username"), str):
        return "username is not a string"
    role = record.get("role")
    if not isinstance(role, str) or role not in ROLE_RANK:
        return "role is not viewer, blessed or admin"
    expires = record.get("expires_at")
    if expires is not None:
        try:
            parse_time(expires, "expires_at", sane_range=False)
        except ToolFailure as failure:
            return failure.message
    return None


def _expired(record: dict[str, Any]) -> bool:
    expires = record.get("expires_at")
    if expires is None:
        return False
    return parse_time(expires, "expires_at", sane_range=False) <= clock.now()


def _public(key: str, record: dict[str, Any]) -> Session:
    expires = record.get("expires_at")
    return {
        "fingerprint": key[:12],
        "username": record["username"],
        "role": record["role"],
        "expires_at": None if expires is None else iso(parse_time(expires, sane_range=False)),
        "created_by": record.get("created_by", ""),
        "created_at": record.get("created_at", ""),
    }


async def _nats_bucket(settings: Settings) -> Any:
    from video_research.catalog import nats_kv

    return await nats_kv.bucket(settings.nats_sessions_bucket, settings, history=1)


async def _nats_record(kv: Any, key: str, settings: Settings) -> Any:
    """The value stored under `key` (None when absent); text that is not JSON comes back
    as itself, which `_malformed` then rejects."""
    from video_research.catalog import nats_kv

    try:
        record, _ = await nats_kv.read_json(kv, key, settings)
    except ValueError as exc:
        return f"undecodable: {type(exc).__name__}"
    return record


async def register(
    session_id: str, *, username: str, role: str, ttl_seconds: int | None, created_by: str
) -> Session:
    settings = current_settings()
    expires = iso(clock.now() + timedelta(seconds=ttl_seconds)) if ttl_seconds else None
    record = {
        "username": username,
        "role": role,
        "expires_at": expires,
        "created_by": created_by,
        "created_at": now_iso(),
    }
    key = session_key(session_id)
    if settings.nats_url:
        from video_research.catalog import nats_kv

        kv = await _nats_bucket(settings)
        await nats_kv.update_json(kv, key, lambda _old: record, settings)
    else:
        await get_db().write(
            lambda conn: conn.execute(
                "INSERT OR REPLACE INTO sessions (session_key, username, role, expires_at,"
                " created_by, created_at) VALUES (?,?,?,?,?,?)",
                (key, username, role, expires, created_by, record["created_at"]),
            )
        )
    return _public(key, record)


async def revoke(session_id: str) -> bool:
    settings = current_settings()
    key = session_key(session_id)
    if settings.nats_url:
        from video_research.catalog import nats_kv

        kv = await _nats_bucket(settings)
        if await _nats_record(kv, key, settings) is None:
            return False
        try:
            await kv.delete(key)
        except Exception as exc:
            raise nats_kv.nats_failure(exc, settings, what="revoking a session") from None
        return True
    cursor = await get_db().write(
        lambda conn: conn.execute("DELETE FROM sessions WHERE session_key = ?", (key,))
    )
    return cursor.rowcount > 0


async def list_all() -> list[Session]:
    settings = current_settings()
    if settings.nats_url:
        from video_research.catalog import nats_kv

        kv = await _nats_bucket(settings)
        try:
            keys = await kv.keys()
        except Exception as exc:
            if type(exc).__name__ == "NoKeysError":
                return []
            raise nats_kv.nats_failure(exc, settings, what="listing sessions") from None
        records = []
        for key in keys:
            record = await _nats_record(kv, key, settings)
            if record is not None:
                records.append((key, record))
    else:
        rows = await get_db().read(lambda conn: conn.execute("SELECT * FROM sessions").fetchall())
        records = [(row["session_key"], dict(row)) for row in rows]
    found: list[Session] = []
    for key, record in records:
        problem = _malformed(record)
        if problem is None:
            found.append(_public(key, record))
        else:
            logger.warning(
                "session registration %s is malformed (%s): not listed", key[:12], problem
            )
    return sorted(found, key=lambda s: (s["username"], s["fingerprint"]))


async def lookup(session_id: str, settings: Settings) -> dict[str, Any] | None:
    """The live registration of a session, or None (unknown, expired or malformed)."""
    key = session_key(session_id)
    if settings.nats_url:
        record = await _nats_record(await _nats_bucket(settings), key, settings)
    else:
        row = await get_db().read(
            lambda conn: conn.execute(
                "SELECT * FROM sessions WHERE session_key = ?", (key,)
            ).fetchone()
        )
        record = dict(row) if row is not None else None
    if record is None:
        return None
    problem = _malformed(record)
    if problem is not None:
        logger.warning("session registration %s is malformed (%s): not trusted", key[:12], problem)
        return None
    return None if _expired(record) else record


async def grant(claim: dict[str, Any], settings: Settings) -> Grant | None:
    """What a `_meta.session` claim earns, or None when the registry does not back it.

    The role is the lower of the claimed and the registered one; the username is the
    registered spelling (audit entries and queue items name the registered user).
    """
    session_id, username = claim.get("session_id"), claim.get("username")
    if not isinstance(session_id, str) or not session_id or not isinstance(username, str):
        return None
    record = await lookup(session_id, settings)
    if record is None or record["username"].casefold() != username.strip().casefold():
        return None
    claimed = claim.get("role")
    registered = record["role"]
    if isinstance(claimed, str) and ROLE_RANK.get(claimed, 99) < ROLE_RANK[registered]:
        return Grant(claimed, record["username"])
    return Grant(registered, record["username"])
