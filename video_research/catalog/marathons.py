"""Marathons: saved playlists scheduled back to back from a start time.

The end time is computed on every read from the playlists' current durations, so a
playlist that grows moves its marathon's end. A marathon is past once its end time has
gone by; videos of unknown duration count as zero and are reported.
"""

from __future__ import annotations

import secrets
import sqlite3
from datetime import datetime
from typing import TYPE_CHECKING, Literal

from video_research.catalog import playlists
from video_research.catalog.db import add_seconds, ids_by_prefix, iso, now_iso, parse_time
from video_research.support import clock
from video_research.support.errors import invalid_input, not_found

if TYPE_CHECKING:
    from video_research.support.schema_types.common.catalog import Marathon, Playlist
    from video_research.support.schema_types.tools import MarathonDeleteOutput


def _load(conn: sqlite3.Connection, row: sqlite3.Row) -> Marathon:
    # Stored start times were checked on the way in; read them without the year bounds
    # so an old row never breaks the listing.
    starts = parse_time(row["starts_at"], "starts_at", sane_range=False)
    schedule: list[Playlist] = []
    cursor = starts
    unknown = total = 0
    for entry in conn.execute(
        "SELECT playlist_id FROM marathon_playlists WHERE marathon_id = ? ORDER BY position",
        (row["marathon_id"],),
    ).fetchall():
        playlist = playlists.get(conn, entry["playlist_id"])
        ends = add_seconds(cursor, playlist["total_duration_seconds"])
        schedule.append(
            {
                "playlist_id": playlist["playlist_id"],
                "name": playlist["name"],
                "item_count": playlist["item_count"],
                "duration_seconds": playlist["total_duration_seconds"],
                "starts_at": iso(cursor),
                "ends_at": iso(ends),
            }
        )
        unknown += playlist["unknown_duration_count"]
        total += playlist["total_duration_seconds"]
        cursor = ends
    return {
        "marathon_id": row["marathon_id"],
        "name": row["name"],
        "description": row["description"],
        "starts_at": iso(starts),
        "ends_at": iso(cursor),
        "total_duration_seconds": total,
        "unknown_duration_count": unknown,
        "status": _status(starts, cursor),
        "playlists": schedule,
        "created_by": row["created_by"],
        "created_at": row["created_at"],
    }


def _status(starts: datetime, ends: datetime) -> Literal["scheduled", "running", "past"]:
    # The schedule is in wall time by its nature (a marathon starts at 20:00): its status
    # follows the wall clock, read where a test can step it; its order is the stored
    # start times', never the time a marathon was created.
    now = clock.now()
    if now < starts:
        return "scheduled"
    return "running" if now < ends else "past"


def list_all(conn: sqlite3.Connection, *, include_past: bool) -> list[Marathon]:
    rows = conn.execute("SELECT * FROM marathons ORDER BY starts_at, name").fetchall()
    loaded = [_load(conn, row) for row in rows]
    return [m for m in loaded if include_past or m["status"] != "past"]


def ids_matching(conn: sqlite3.Connection, prefix: str, limit: int = 100) -> list[str]:
    """Marathon IDs whose ID or name starts with `prefix` (for completions)."""
    return ids_by_prefix(conn, "marathons", "marathon_id", prefix, "starts_at", limit)


def get(conn: sqlite3.Connection, marathon_id: str) -> Marathon:
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
) -> Marathon:
    if not name.strip():
        raise invalid_input("The marathon name is blank.", hint="Give the marathon a name.")
    starts = parse_time(starts_at, "starts_at")
    for playlist_id in playlist_ids:
        playlists.get(conn, playlist_id)
    marathon_id = "mr_" + secrets.token_hex(5)
    conn.execute(
        "INSERT INTO marathons (marathon_id, name, description, starts_at, created_by,"
        " created_at) VALUES (?,?,?,?,?,?)",
        (marathon_id, name.strip(), description, iso(starts), created_by, now_iso()),
    )
    conn.executemany(
        "INSERT INTO marathon_playlists (marathon_id, position, playlist_id) VALUES (?,?,?)",
        [(marathon_id, position, pid) for position, pid in enumerate(playlist_ids)],
    )
    return get(conn, marathon_id)


def delete(conn: sqlite3.Connection, marathon_id: str) -> MarathonDeleteOutput:
    marathon = get(conn, marathon_id)
    conn.execute("DELETE FROM marathons WHERE marathon_id = ?", (marathon_id,))
    return {"marathon_id": marathon_id, "name": marathon["name"], "deleted": True}
