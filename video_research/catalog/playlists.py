"""Saved playlists: named, ordered lists of catalog videos.

Names are unique without regard to case ("Horror Night" and "horror night" are one
name); a second one is a `conflict`. Every video of a playlist must be in the catalog
when it is saved; removing a video from the catalog removes it from its playlists.
"""

from __future__ import annotations

import secrets
import sqlite3
from typing import TYPE_CHECKING, TypedDict

from video_research.catalog.db import ids_by_prefix, now_iso
from video_research.support.errors import ErrorCategory, ToolFailure, invalid_input, not_found

if TYPE_CHECKING:
    from video_research.support.schema_types.common.catalog import PlaylistSummary
    from video_research.support.schema_types.tools import (
        PlaylistCreateOutput,
        PlaylistDeleteOutput,
        PlaylistGetOutput,
        PlaylistUpdateOutput,
    )


def new_id() -> str:
    return "pl_" + secrets.token_hex(5)


class _Fields(TypedDict):
    """One playlist's own fields, every one present: what a summary and the view of one
    playlist share (a summary's contract leaves some of them optional, the view's not)."""

    playlist_id: str
    name: str
    description: str
    item_count: int
    total_duration_seconds: int
    created_by: str
    created_at: str
    updated_at: str


def _fields(row: sqlite3.Row) -> _Fields:
    return {
        "playlist_id": row["playlist_id"],
        "name": row["name"],
        "description": row["description"],
        "item_count": row["item_count"],
        "total_duration_seconds": row["total_duration_seconds"],
        "created_by": row["created_by"],
        "created_at": row["created_at"],
        "updated_at": row["updated_at"],
    }


_SUMMARY_SQL = """
SELECT p.*, COUNT(i.video_id) AS item_count,
       COALESCE(SUM(v.duration_seconds), 0) AS total_duration_seconds
FROM playlists AS p
LEFT JOIN playlist_items AS i ON i.playlist_id = p.playlist_id
LEFT JOIN videos AS v ON v.video_id = i.video_id
"""


def list_all(conn: sqlite3.Connection) -> list[PlaylistSummary]:
    rows = conn.execute(
        _SUMMARY_SQL + " GROUP BY p.playlist_id ORDER BY p.name COLLATE NOCASE"
    ).fetchall()
    return [{**_fields(r)} for r in rows]


def ids_matching(conn: sqlite3.Connection, prefix: str, limit: int = 100) -> list[str]:
    """Playlist IDs whose ID or name starts with `prefix` (for completions)."""
    return ids_by_prefix(conn, "playlists", "playlist_id", prefix, "name COLLATE NOCASE", limit)


def get(conn: sqlite3.Connection, playlist_id: str) -> PlaylistGetOutput:
    """The playlist with its items in order; not_found when it does not exist."""
    row = conn.execute(
        _SUMMARY_SQL + " WHERE p.playlist_id = ? GROUP BY p.playlist_id", (playlist_id,)
    ).fetchone()
    if row is None:
        raise not_found(
            f"No playlist {playlist_id!r}.",
            hint="Call playlist_list for the saved playlists and their IDs.",
        )
    items = conn.execute(
        "SELECT i.position, v.video_id, v.title, v.duration_seconds, v.manifest_url,"
        " v.thumbnail_url FROM playlist_items AS i JOIN videos AS v ON v.video_id = i.video_id"
        " WHERE i.playlist_id = ? ORDER BY i.position",
        (playlist_id,),
    ).fetchall()
    return {
        **_fields(row),
        "items": [
            {
                "video_id": r["video_id"],
                "title": r["title"],
                "duration_seconds": r["duration_seconds"],
                "manifest_url": r["manifest_url"],
                "thumbnail_url": r["thumbnail_url"],
            }
            for r in items
        ],
        "unknown_duration_count": sum(1 for r in items if r["duration_seconds"] is None),
    }


def _check_videos(conn: sqlite3.Connection, video_ids: list[str]) -> None:
    missing = [
        v
        for v in dict.fromkeys(video_ids)
        if conn.execute("SELECT 1 FROM videos WHERE video_id = ?", (v,)).fetchone() is None
    ]
    if missing:
        raise invalid_input(
            f"{len(missing)} video ID(s) are not in the catalog: {', '.join(missing[:10])}",
            hint="Find videos with catalog_search, or add them with catalog_add / catalog_import.",
            missing_video_ids=missing,
        )


def _set_items(conn: sqlite3.Connection, playlist_id: str, video_ids: list[str]) -> None:
    conn.execute("DELETE FROM playlist_items WHERE playlist_id = ?", (playlist_id,))
    conn.executemany(
        "INSERT INTO playlist_items (playlist_id, position, video_id) VALUES (?,?,?)",
        [(playlist_id, position, video_id) for position, video_id in enumerate(video_ids)],
    )


def _check_name_free(conn: sqlite3.Connection, name: str, playlist_id: str | None = None) -> None:
    row = conn.execute(
        "SELECT playlist_id FROM playlists WHERE name = ? COLLATE NOCASE", (name,)
    ).fetchone()
    if row is not None and row["playlist_id"] != playlist_id:
        raise ToolFailure(
            ErrorCategory.CONFLICT,
            f"A playlist named {name!r} already exists ({row['playlist_id']}).",
            hint="Choose another name, or change that playlist with playlist_update.",
            details={"playlist_id": row["playlist_id"]},
        )


def create(
    conn: sqlite3.Connection,
    *,
    name: str,
    video_ids: list[str],
    created_by: str,
    description: str = "",
) -> PlaylistCreateOutput:
    name = name.strip()
    if not name:
        raise invalid_input("The playlist name is blank.", hint="Give the playlist a name.")
    _check_name_free(conn, name)
    _check_videos(conn, video_ids)
    playlist_id = new_id()
    now = now_iso()
    conn.execute(
        "INSERT INTO playlists (playlist_id, name, description, created_by, created_at,"
        " updated_at) VALUES (?,?,?,?,?,?)",
        (playlist_id, name, description, created_by, now, now),
    )
    _set_items(conn, playlist_id, video_ids)
    return {"playlist_id": playlist_id, "name": name, "item_count": len(video_ids)}


def update(
    conn: sqlite3.Connection,
    playlist_id: str,
    *,
    name: str | None,
    description: str | None,
    video_ids: list[str] | None,
) -> PlaylistUpdateOutput:
    get(conn, playlist_id)  # not_found first
    changes: list[str] = []
    if name is not None:
        name = name.strip()
        if not name:
            raise invalid_input("The playlist name is blank.", hint="Give the playlist a name.")
        _check_name_free(conn, name, playlist_id)
        conn.execute("UPDATE playlists SET name = ? WHERE playlist_id = ?", (name, playlist_id))
        changes.append("name")
    if description is not None:
        conn.execute(
            "UPDATE playlists SET description = ? WHERE playlist_id = ?",
            (description, playlist_id),
        )
        changes.append("description")
    if video_ids is not None:
        _check_videos(conn, video_ids)
        _set_items(conn, playlist_id, video_ids)
        changes.append("video_ids")
    if changes:
        conn.execute(
            "UPDATE playlists SET updated_at = ? WHERE playlist_id = ?", (now_iso(), playlist_id)
        )
    playlist = get(conn, playlist_id)
    return {
        "playlist_id": playlist_id,
        "name": playlist["name"],
        "item_count": playlist["item_count"],
        "total_duration_seconds": playlist["total_duration_seconds"],
        "changed": changes,
    }


def delete(conn: sqlite3.Connection, playlist_id: str) -> PlaylistDeleteOutput:
    playlist = get(conn, playlist_id)
    used = [
        r["marathon_id"]
        for r in conn.execute(
            "SELECT DISTINCT marathon_id FROM marathon_playlists WHERE playlist_id = ?",
            (playlist_id,),
        )
    ]
    if used:
        raise ToolFailure(
            ErrorCategory.CONFLICT,
            f"Playlist {playlist_id} is scheduled in marathon(s) {', '.join(used)}.",
            hint="Delete those marathons first (marathon_delete), then the playlist.",
            details={"marathon_ids": used},
        )
    conn.execute("DELETE FROM playlists WHERE playlist_id = ?", (playlist_id,))
    return {"playlist_id": playlist_id, "name": playlist["name"], "deleted": True}
