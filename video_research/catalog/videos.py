"""Videos in the catalog: upsert, remove, get, search (FTS5), categories and stats.

Every function takes an open connection inside a transaction (see `CatalogDB.read` /
`CatalogDB.write`), so a caller composes several of them into one atomic operation.

Search: `q` matches titles by word prefix through FTS5 ("fri 13" finds "Friday the
13th") and, for fragments inside a word, by a plain substring match. The user's text is
never handed to FTS5 as query syntax: it is split into words and each word is quoted, so
`"`, `*`, `NEAR`, `OR` or `:` in a query are just characters.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, TypedDict

from pydantic import BaseModel, Field, field_validator

from video_research.catalog import fields
from video_research.catalog.db import escape_like, now_iso, snapshot_id

if TYPE_CHECKING:
    from video_research.support.schema_types.common.catalog import Video

# The YouTube Data API's standard video categories (videoCategories.list, regionCode=US):
# a YouTube video enters the catalog under its category's name.
YOUTUBE_CATEGORIES: dict[str, str] = {
    "1": "Film & Animation",
    "2": "Autos & Vehicles",
    "10": "Music",
    "15": "Pets & Animals",
    "17": "Sports",
    "19": "Travel & Events",
    "20": "Gaming",
    "22": "People & Blogs",
    "23": "Comedy",
    "24": "Entertainment",
    "25": "News & Politics",
    "26": "Howto & Style",
    "27": "Education",
    "28": "Science & Technology",
    "29": "Nonprofits & Activism",
    "30": "Movies",
    "43": "Shows",
    "44": "Trailers",
}

_WORD = re.compile(r"\w+", re.UNICODE)


# Longest duration a catalog entry may have (about 115 days): keeps sums and end times
# of playlists and marathons far from any integer or date limit.
MAX_DURATION_SECONDS = 10_000_000


class VideoRecord(BaseModel):
    """One catalog entry as written; validated the same way from every source."""

    video_id: str = Field(min_length=1, max_length=200)
    title: str = Field(min_length=1, max_length=500)
    manifest_url: str = Field(min_length=1, max_length=2048)
    manifest_defaulted: bool = False
    """True when manifest_url was not given but derived (a YouTube ID's watch URL): an
    existing entry keeps its own manifest_url."""
    categories: list[str] | None = None
    """None when not given: an existing entry keeps its categories."""
    duration_seconds: int | None = Field(default=None, ge=0, le=MAX_DURATION_SECONDS)
    thumbnail_url: str | None = Field(default=None, max_length=2048)

    @field_validator("video_id", "title", mode="before")
    @classmethod
    def _strip(cls, value: Any) -> Any:
        return value.strip() if isinstance(value, str) else value

    # Control characters and URLs a player must not open are refused (catalog/fields.py).
    @field_validator("video_id", mode="after")
    @classmethod
    def _plain_id(cls, value: str) -> str:
        return fields.no_control(value, "video_id")

    @field_validator("title", mode="after")
    @classmethod
    def _one_line_title(cls, value: str) -> str:
        return fields.one_line_title(value)

    @field_validator("manifest_url", mode="after")
    @classmethod
    def _manifest_url(cls, value: str) -> str:
        return fields.media_url(value, "manifest_url")

    @field_validator("thumbnail_url", mode="after")
    @classmethod
    def _thumbnail_url(cls, value: str | None) -> str | None:
        return fields.media_url(value, "thumbnail_url") if value else None

    @field_validator("categories", mode="after")
    @classmethod
    def _clean_categories(cls, value: list[str] | None) -> list[str] | None:
        if value is None:
            return None
        seen: dict[str, str] = {}
        for name in value:
            name = fields.no_control(name.strip()[:100], "categories")
            if name and name.lower() not in seen:
                seen[name.lower()] = name
        return list(seen.values())


class VideoPage(TypedDict):
    """One page of `search`: the matching entries, how many match, the catalog snapshot."""

    items: list[Video]
    total: int
    snapshot_id: str


def _row_to_video(conn: sqlite3.Connection, row: sqlite3.Row) -> Video:
    return {
        "video_id": row["video_id"],
        "title": row["title"],
        "categories": categories_of(conn, row["video_id"]),
        "duration_seconds": row["duration_seconds"],
        "thumbnail_url": row["thumbnail_url"],
        "manifest_url": row["manifest_url"],
        "source": row["source"],
        "added_at": row["added_at"],
        "updated_at": row["updated_at"],
    }


def categories_of(conn: sqlite3.Connection, video_id: str) -> list[str]:
    rows = conn.execute(
        "SELECT category FROM video_categories WHERE video_id = ? ORDER BY category",
        (video_id,),
    ).fetchall()
    return [r["category"] for r in rows]


def upsert(
    conn: sqlite3.Connection,
    record: VideoRecord,
    *,
    source: str,
    fill_only: bool = False,
    extra_categories: Iterable[str] = (),
) -> bool:
    """Insert or refresh one video; True when it is new.

    An explicit add or import (`fill_only=False`) sets the title, the duration and
    thumbnail it gives, the manifest_url unless it was only derived from the ID, and the
    categories when it gives them (`record.categories` not None); `extra_categories` are
    added either way. A feed from YouTube tools (`fill_only=True`, any viewer can cause
    one) inserts new videos, and on an existing one only fills an unknown duration or
    thumbnail: curated titles, manifests and categories stay as they are.
    """
    now = now_iso()
    existed = (
        conn.execute("SELECT 1 FROM videos WHERE video_id = ?", (record.video_id,)).fetchone()
        is not None
    )
    if fill_only:
        update = (
            "duration_seconds = COALESCE(videos.duration_seconds, excluded.duration_seconds),"
            " thumbnail_url = COALESCE(videos.thumbnail_url, excluded.thumbnail_url),"
            " updated_at = excluded.updated_at"
            " WHERE (videos.duration_seconds IS NULL AND excluded.duration_seconds IS NOT NULL)"
            " OR (videos.thumbnail_url IS NULL AND excluded.thumbnail_url IS NOT NULL)"
        )
    else:
        manifest = "videos.manifest_url" if record.manifest_defaulted else "excluded.manifest_url"
        update = (
            "title = excluded.title,"
            " duration_seconds = COALESCE(excluded.duration_seconds, videos.duration_seconds),"
            " thumbnail_url = COALESCE(excluded.thumbnail_url, videos.thumbnail_url),"
            f" manifest_url = {manifest}, updated_at = excluded.updated_at"
            " WHERE videos.title IS NOT excluded.title"
            " OR videos.duration_seconds IS NOT"
            " COALESCE(excluded.duration_seconds, videos.duration_seconds)"
            " OR videos.thumbnail_url IS NOT COALESCE(excluded.thumbnail_url, videos.thumbnail_url)"
            f" OR videos.manifest_url IS NOT {manifest}"
        )
    conn.execute(
        "INSERT INTO videos (video_id, title, duration_seconds, thumbnail_url, manifest_url,"
        " source, added_at, updated_at) VALUES (?,?,?,?,?,?,?,?)"
        f" ON CONFLICT(video_id) DO UPDATE SET {update}",
        (
            record.video_id,
            record.title,
            record.duration_seconds,
            record.thumbnail_url,
            record.manifest_url,
            source,
            now,
            now,
        ),
    )
    wanted = list(extra_categories)
    if not existed or (record.categories is not None and not fill_only):
        wanted = [*(record.categories or []), *wanted]
        if existed:
            current = {c.lower() for c in categories_of(conn, record.video_id)}
            if current != {c.lower() for c in wanted}:
                conn.execute("DELETE FROM video_categories WHERE video_id = ?", (record.video_id,))
    conn.executemany(
        "INSERT OR IGNORE INTO video_categories (video_id, category) VALUES (?, ?)",
        [(record.video_id, name) for name in wanted],
    )
    return not existed


def remove(conn: sqlite3.Connection, video_ids: Iterable[str]) -> tuple[list[str], list[str]]:
    """Delete videos (and their playlist entries); (removed, not_found)."""
    removed: list[str] = []
    missing: list[str] = []
    for video_id in dict.fromkeys(video_ids):
        cursor = conn.execute("DELETE FROM videos WHERE video_id = ?", (video_id,))
        (removed if cursor.rowcount else missing).append(video_id)
    return removed, missing


def get(conn: sqlite3.Connection, video_id: str) -> Video | None:
    row = conn.execute("SELECT * FROM videos WHERE video_id = ?", (video_id,)).fetchone()
    return None if row is None else _row_to_video(conn, row)


def get_many(conn: sqlite3.Connection, video_ids: list[str]) -> dict[str, Video]:
    """The catalog entries among `video_ids`, by ID (missing ones are absent)."""
    found: dict[str, Video] = {}
    for video_id in dict.fromkeys(video_ids):
        video = get(conn, video_id)
        if video is not None:
            found[video_id] = video
    return found


def fts_query(q: str) -> str | None:
    """A safe FTS5 MATCH expression: every word of `q` quoted, as a prefix, all required."""
    words = _WORD.findall(q)
    if not words:
        return None
    return " ".join(f'"{word}"*' for word in words[:20])


def _like_pattern(q: str) -> str:
    return f"%{escape_like(q.strip())}%"


def search(
    conn: sqlite3.Connection,
    *,
    q: str | None,
    categories: list[str],
    limit: int,
    offset: int,
) -> VideoPage:
    """One page of matching videos, best first, with the total and the catalog snapshot."""
    where: list[str] = []
    params: list[Any] = []
    rank_join = ""
    order = "v.title COLLATE NOCASE, v.video_id"
    text = (q or "").strip()
    if text:
        match = fts_query(text)
        if match is not None:
            rank_join = (
                "LEFT JOIN (SELECT rowid AS rid, bm25(videos_fts) AS rank FROM videos_fts"
                " WHERE videos_fts MATCH ?) AS hits ON hits.rid = v.rowid"
            )
            params.append(match)
            where.append("(hits.rid IS NOT NULL OR v.title LIKE ? ESCAPE '\\')")
            order = "hits.rank IS NULL, hits.rank, " + order
        else:
            where.append("v.title LIKE ? ESCAPE '\\'")
        params.append(_like_pattern(text))
    if categories:
        marks = ",".join("?" * len(categories))
        where.append(
            "v.video_id IN (SELECT video_id FROM video_categories"
            f" WHERE category IN ({marks}) COLLATE NOCASE)"
        )
        params.extend(categories)
    clause = f"WHERE {' AND '.join(where)}" if where else ""
    base = f"FROM videos AS v {rank_join} {clause}"
    (total,) = conn.execute(f"SELECT COUNT(*) {base}", params).fetchone()
    rows = conn.execute(
        f"SELECT v.* {base} ORDER BY {order} LIMIT ? OFFSET ?", [*params, limit, offset]
    ).fetchall()
    return {
        "items": [_row_to_video(conn, row) for row in rows],
        "total": total,
        "snapshot_id": snapshot_id(conn),
    }


def all_categories(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    """Every category with how many videos carry it, alphabetically."""
    rows = conn.execute(
        "SELECT category, COUNT(*) AS videos FROM video_categories"
        " GROUP BY category COLLATE NOCASE ORDER BY category COLLATE NOCASE"
    ).fetchall()
    return [{"name": r["category"], "video_count": r["videos"]} for r in rows]


def category_names(conn: sqlite3.Connection, prefix: str = "", limit: int = 100) -> list[str]:
    escaped = escape_like(prefix)
    rows = conn.execute(
        "SELECT DISTINCT category FROM video_categories WHERE category LIKE ? ESCAPE '\\'"
        " ORDER BY category COLLATE NOCASE LIMIT ?",
        (escaped + "%", limit),
    ).fetchall()
    return [r["category"] for r in rows]


def stats(conn: sqlite3.Connection) -> dict[str, Any]:
    (videos, known, seconds) = conn.execute(
        "SELECT COUNT(*), COUNT(duration_seconds), COALESCE(SUM(duration_seconds), 0) FROM videos"
    ).fetchone()
    (categories,) = conn.execute(
        "SELECT COUNT(DISTINCT category COLLATE NOCASE) FROM video_categories"
    ).fetchone()
    (playlists,) = conn.execute("SELECT COUNT(*) FROM playlists").fetchone()
    (marathons,) = conn.execute("SELECT COUNT(*) FROM marathons").fetchone()
    by_source = {
        r["source"]: r["n"]
        for r in conn.execute("SELECT source, COUNT(*) AS n FROM videos GROUP BY source")
    }
    return {
        "video_count": videos,
        "videos_with_duration": known,
        "total_duration_seconds": seconds,
        "category_count": categories,
        "playlist_count": playlists,
        "marathon_count": marathons,
        "videos_by_source": by_source,
        "snapshot_id": snapshot_id(conn),
    }
