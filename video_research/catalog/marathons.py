"""Marathons: saved playlists scheduled back to back from a start time.

The end time is computed on every read from the playlists' current durations, so a
playlist that grows moves its marathon's end. A marathon is past once its end time has
gone by; videos of unknown duration count as zero and are reported.
"""

from __future__ import annotations

import secrets
import sqlite3
from datetime import UTC, datetime, timedelta
from typing import Any

from video_research.catalog import playlists
from video_research.catalog.db import ids_by_prefix, now_iso
from video_research.errors import invalid_input, not_found


def parse_time(value: str, field: str = "starts_at") -> datetime:
    """An RFC 3339 timestamp as an aware UTC datetime (a naive one is taken as UTC)."""
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise invalid_input(
            f"{field} {value!r} is not an RFC 3339 timestamp.",
            hint="Use a timestamp such as 2025-10-31T20:00:00Z.",
        ) from None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.astimezone(UTC)


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def _load(conn: sqlite3.Connection, row: sqlite3.Row) -> dict[str, Any]:
    starts = parse_time(row["starts_at"])
    schedule = []
    cursor = starts
    unknown = 0
    for entry in conn.execute(
        "SELECT playlist_id FROM marathon_playlists WHERE marathon_id = ? ORDER BY position",
        (row["marathon_id"],),
    ).fetchall():
        playlist = playlists.get(conn, entry["playlist_id"])
        ends = cursor + timedelta(seconds=playlist["total_duration_seconds"])
        schedule.append(
            {
                "playlist_id": playlist["playlist_id"],
                "name": playlist["name"],
                "item_count": playlist["item_count"],
                "duration_seconds": playlist["total_duration_seconds"],
                "starts_at": _iso(cursor),
                "ends_at": _iso(ends),
            }
        )
        unknown += playlist["unknown_duration_count"]
        cursor = ends
    return {
        "marathon_id": row["marathon_id"],
        "name": row["name"],
        "description": row["description"],
        "starts_at": _iso(starts),
        "ends_at": _iso(cursor),
        "total_duration_seconds": int((cursor - starts).total_seconds()),
        "unknown_duration_count": unknown,
        "status": _status(starts, cursor),
        "playlists": schedule,
        "created_by": row["created_by"],
        "created_at": row["created_at"],
    }


def _status(starts: datetime, ends: datetime) -> str:
    now = datetime.now(UTC)
    if now < starts:
        return "scheduled"
    return "running" if now < ends else "past"


def list_all(conn: sqlite3.Connection, *, include_past: bool) -> list[dict[str, Any]]:
    rows = conn.execute("SELECT * FROM marathons ORDER BY starts_at, name").fetchall()
    loaded = [_load(conn, row) for row in rows]
    return [m for m in loaded if include_past or m["status"] != "past"]


def ids_matching(conn: sqlite3.Connection, prefix: str, limit: int = 100) -> list[str]:
    """Marathon IDs whose ID or name starts with `prefix` (for completions)."""
    return ids_by_prefix(conn, "marathons", "marathon_id", prefix, "starts_at", limit)


def get(conn: sqlite3.Connection, marathon_id: str) -> dict[str, Any]:
    row = conn.execute("SELECT * FROM marathons WHERE marathon_id = ?", (marathon_id,)).fetchone()
    if row is None:
        raise not_found(
            f"No marathon {marathon_id!r}.",
            hint="Call marathon_list (include_past: true for finished ones) for the IDs.",
        )
    return _load(conn, row)


def create(
    conn: sqlite3.Connection,
    *,
    name: str,
    starts_at: str,
    playlist_ids: list[str],
    description: str,
    created_by: str,
) -> dict[str, Any]:
    if not name.strip():
        raise invalid_input("The marathon name is blank.", hint="Give the marathon a name.")
    starts = parse_time(starts_at)
    for playlist_id in playlist_ids:
        playlists.get(conn, playlist_id)
    marathon_id = "mr_" + secrets.token_hex(5)
    conn.execute(
        "INSERT INTO marathons (marathon_id, name, description, starts_at, created_by,"
        " created_at) VALUES (?,?,?,?,?,?)",
        (marathon_id, name.strip(), description, _iso(starts), created_by, now_iso()),
    )
    conn.executemany(
        "INSERT INTO marathon_playlists (marathon_id, position, playlist_id) VALUES (?,?,?)",
        [(marathon_id, position, pid) for position, pid in enumerate(playlist_ids)],
    )
    return get(conn, marathon_id)


def delete(conn: sqlite3.Connection, marathon_id: str) -> dict[str, Any]:
    marathon = get(conn, marathon_id)
    conn.execute("DELETE FROM marathons WHERE marathon_id = ?", (marathon_id,))
    return {"marathon_id": marathon_id, "name": marathon["name"], "deleted": True}
