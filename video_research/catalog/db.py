"""The catalog database: one SQLite file for videos, playlists, marathons, the SQLite
queue, the session registry and the audit log (VIDEO_RESEARCH_CATALOG_DB, default
catalog.db in the data dir).

sqlite3 blocks, so every operation runs in a worker thread (`CatalogDB.read` /
`CatalogDB.write`) on one connection guarded by a lock. Writes run in
`BEGIN IMMEDIATE` transactions: two server processes sharing the file serialise their
writes instead of losing one, and a failure rolls the whole operation back. WAL mode lets
readers in other processes carry on while one process writes.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import threading
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from video_research.support import clock, migrations
from video_research.support.errors import invalid_input
from video_research.support.services import Resource, current_services

if TYPE_CHECKING:
    from video_research.config import Settings

logger = logging.getLogger(__name__)

T = TypeVar("T")

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS catalog_meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS videos (
    video_id         TEXT PRIMARY KEY,
    title            TEXT NOT NULL,
    duration_seconds INTEGER,
    thumbnail_url    TEXT,
    manifest_url     TEXT NOT NULL,
    source           TEXT NOT NULL,
    added_at         TEXT NOT NULL,
    updated_at       TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS video_categories (
    video_id TEXT NOT NULL REFERENCES videos(video_id) ON DELETE CASCADE,
    category TEXT NOT NULL COLLATE NOCASE,
    PRIMARY KEY (video_id, category)
);
CREATE INDEX IF NOT EXISTS video_categories_by_name ON video_categories(category);

CREATE VIRTUAL TABLE IF NOT EXISTS videos_fts USING fts5(
    title,
    content='videos',
    content_rowid='rowid',
    tokenize="unicode61 remove_diacritics 2",
    prefix='1 2 3'
);

CREATE TRIGGER IF NOT EXISTS videos_fts_insert AFTER INSERT ON videos BEGIN
    INSERT INTO videos_fts(rowid, title) VALUES (new.rowid, new.title);
END;
CREATE TRIGGER IF NOT EXISTS videos_fts_delete AFTER DELETE ON videos BEGIN
    INSERT INTO videos_fts(videos_fts, rowid, title) VALUES ('delete', old.rowid, old.title);
END;
CREATE TRIGGER IF NOT EXISTS videos_fts_update AFTER UPDATE OF title ON videos BEGIN
    INSERT INTO videos_fts(videos_fts, rowid, title) VALUES ('delete', old.rowid, old.title);
    INSERT INTO videos_fts(rowid, title) VALUES (new.rowid, new.title);
END;

-- Every catalog change moves the generation on: snapshot_id tells a paging client
-- whether the catalog changed between two pages.
CREATE TRIGGER IF NOT EXISTS videos_gen_insert AFTER INSERT ON videos BEGIN
    UPDATE catalog_meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'generation';
END;
CREATE TRIGGER IF NOT EXISTS videos_gen_update AFTER UPDATE ON videos BEGIN
    UPDATE catalog_meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'generation';
END;
CREATE TRIGGER IF NOT EXISTS videos_gen_delete AFTER DELETE ON videos BEGIN
    UPDATE catalog_meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'generation';
END;
CREATE TRIGGER IF NOT EXISTS categories_gen_insert AFTER INSERT ON video_categories BEGIN
    UPDATE catalog_meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'generation';
END;
CREATE TRIGGER IF NOT EXISTS categories_gen_delete AFTER DELETE ON video_categories BEGIN
    UPDATE catalog_meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'generation';
END;

CREATE TABLE IF NOT EXISTS playlists (
    playlist_id TEXT PRIMARY KEY,
    name        TEXT NOT NULL UNIQUE COLLATE NOCASE,
    description TEXT NOT NULL DEFAULT '',
    created_by  TEXT NOT NULL,
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS playlist_items (
    playlist_id TEXT NOT NULL REFERENCES playlists(playlist_id) ON DELETE CASCADE,
    position    INTEGER NOT NULL,
    video_id    TEXT NOT NULL REFERENCES videos(video_id) ON DELETE CASCADE,
    PRIMARY KEY (playlist_id, position)
);
CREATE INDEX IF NOT EXISTS playlist_items_by_video ON playlist_items(video_id);

CREATE TABLE IF NOT EXISTS marathons (
    marathon_id TEXT PRIMARY KEY,
    name        TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    starts_at   TEXT NOT NULL,
    created_by  TEXT NOT NULL,
    created_at  TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS marathon_playlists (
    marathon_id TEXT NOT NULL REFERENCES marathons(marathon_id) ON DELETE CASCADE,
    position    INTEGER NOT NULL,
    playlist_id TEXT NOT NULL REFERENCES playlists(playlist_id),
    PRIMARY KEY (marathon_id, position)
);
CREATE INDEX IF NOT EXISTS marathon_playlists_by_playlist ON marathon_playlists(playlist_id);

CREATE TABLE IF NOT EXISTS queue_state (
    name     TEXT PRIMARY KEY,
    revision INTEGER NOT NULL,
    value    TEXT NOT NULL
);

-- Keyed by sha256(session_id): the registry never stores the credential itself.
CREATE TABLE IF NOT EXISTS sessions (
    session_key TEXT PRIMARY KEY,
    username   TEXT NOT NULL,
    role       TEXT NOT NULL,
    expires_at TEXT,
    created_by TEXT NOT NULL,
    created_at TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS audit_log (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    timestamp  TEXT NOT NULL,
    tool       TEXT NOT NULL,
    username   TEXT NOT NULL,
    claimed_username TEXT,
    role       TEXT NOT NULL,
    session    TEXT,
    verified   INTEGER NOT NULL,
    ok         INTEGER NOT NULL,
    category   TEXT,
    input      TEXT NOT NULL,
    result     TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS audit_log_by_tool ON audit_log(tool, id);
CREATE INDEX IF NOT EXISTS audit_log_by_user ON audit_log(username, id);
"""


# Timestamps a caller passes in must fall in these years (a marathon in the year 9999
# would leave no room for its end time).
EARLIEST_YEAR, LATEST_YEAR = 1970, 2200
_LATEST_MOMENT = datetime.max.replace(tzinfo=UTC)
_TIME_HINT = "Use a timestamp such as 2025-10-31T20:00:00Z."


def iso(moment: datetime) -> str:
    """An aware datetime as every table stores it: RFC 3339, UTC, whole seconds, Z suffix."""
    return moment.astimezone(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def now_iso() -> str:
    """The current UTC time as an RFC 3339 string with a Z suffix (what every table stores)."""
    return iso(clock.now())


def parse_time(value: Any, field: str = "time", *, sane_range: bool = True) -> datetime:
    """An RFC 3339 timestamp as an aware UTC datetime (a naive one is taken as UTC).

    Anything else raises invalid_input: a value that is not a string or not a timestamp,
    one that falls outside datetime's range once moved to UTC, and, with `sane_range`
    (for what callers pass in), a year outside EARLIEST_YEAR..LATEST_YEAR.
    """
    if not isinstance(value, str):
        raise invalid_input(f"{field} must be an RFC 3339 timestamp string.", hint=_TIME_HINT)
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
        if parsed.tzinfo is None:
            parsed = parsed.replace(tzinfo=UTC)
        parsed = parsed.astimezone(UTC)
    except (ValueError, OverflowError):
        raise invalid_input(
            f"{field} {value[:60]!r} is not an RFC 3339 timestamp.", hint=_TIME_HINT
        ) from None
    if sane_range and not EARLIEST_YEAR <= parsed.year <= LATEST_YEAR:
        raise invalid_input(
            f"{field} {value[:60]!r} is outside the years {EARLIEST_YEAR}..{LATEST_YEAR}.",
            hint=_TIME_HINT,
        )
    return parsed


def add_seconds(moment: datetime, seconds: float) -> datetime:
    """`moment` plus `seconds`, held at the last representable moment instead of overflowing."""
    try:
        return moment + timedelta(seconds=seconds)
    except OverflowError:
        return _LATEST_MOMENT


class CatalogDB:
    """One catalog database file, opened on first use; `close` ends the connection."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._conn: sqlite3.Connection | None = None
        self._lock = threading.Lock()

    def _open(self) -> sqlite3.Connection:
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(
            self.path, check_same_thread=False, isolation_level=None, timeout=10.0
        )
        conn.row_factory = sqlite3.Row
        conn.execute("PRAGMA busy_timeout = 10000")
        try:
            # Before journal_mode: a newer file is refused without one byte written.
            migrations.migrate(conn, CATALOG_SCHEMA, self.path)
        except BaseException:
            conn.close()
            raise
        conn.execute("PRAGMA foreign_keys = ON")
        if self.path != ":memory:":
            conn.execute("PRAGMA journal_mode = WAL")
        return conn

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            self._conn = self._open()
        return self._conn

    def _run(self, fn: Callable[..., T], args: tuple[Any, ...], write: bool) -> T:
        with self._lock:
            conn = self._connection()
            conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")
            try:
                result = fn(conn, *args)
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
            return result

    async def read(self, fn: Callable[..., T], *args: Any) -> T:
        """Run `fn(conn, *args)` in a read transaction, in a worker thread."""
        return await asyncio.to_thread(self._run, fn, args, False)

    async def write(self, fn: Callable[..., T], *args: Any) -> T:
        """Run `fn(conn, *args)` in one write transaction: all of it commits, or none."""
        return await asyncio.to_thread(self._run, fn, args, True)

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None


_ADDED_COLUMNS = {"claimed_username": "TEXT"}
"""audit_log columns added before schema versions were recorded (an unversioned older
file gets them when it is stamped)."""


def _create(conn: sqlite3.Connection) -> None:
    migrations.run_script(conn, _SCHEMA)
    migrations.add_missing_columns(conn, "audit_log", _ADDED_COLUMNS)
    conn.execute(
        "INSERT OR IGNORE INTO catalog_meta(key, value) VALUES ('generation', '0'), "
        "('instance', ?), ('schema_version', ?)",
        (uuid.uuid4().hex[:8], str(SCHEMA_VERSION)),
    )


def _unversioned(conn: sqlite3.Connection) -> int:
    _create(conn)  # every statement is idempotent: fills in what an older file lacks
    return 1


CATALOG_SCHEMA = migrations.Schema(
    "catalog", SCHEMA_VERSION, create=_create, unversioned=_unversioned
)
"""The catalog's schema history. A future change adds `steps={1: ...}`, bumps
SCHEMA_VERSION, and also updates catalog_meta.schema_version (the step's last statement)."""


CATALOG_DB: Resource[CatalogDB] = Resource(
    "catalog-db",
    key=lambda settings: settings.catalog_db,
    open=lambda settings: CatalogDB(settings.catalog_db),  # connects on first use
    close=CatalogDB.close,
)


def get_db(settings: Settings | None = None) -> CatalogDB:
    """The catalog database of `settings` (default: the settings in force)."""
    return current_services().get(CATALOG_DB, settings)


def snapshot_id(conn: sqlite3.Connection) -> str:
    """Names this exact state of the catalog: changes whenever a video or category changes."""
    rows = dict(conn.execute("SELECT key, value FROM catalog_meta").fetchall())
    return f"{rows['instance']}-{rows['generation']}"


def escape_like(text: str) -> str:
    """`text` with LIKE's wildcards escaped (use with ESCAPE '\\')."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def ids_by_prefix(
    conn: sqlite3.Connection, table: str, id_column: str, prefix: str, order: str, limit: int
) -> list[str]:
    """IDs of `table` rows whose ID or name starts with `prefix` (for completions).

    `table`, `id_column` and `order` are the callers' constants, never user input.
    """
    pattern = escape_like(prefix) + "%"
    rows = conn.execute(
        f"SELECT {id_column} FROM {table} WHERE {id_column} LIKE ? ESCAPE '\\'"
        f" OR name LIKE ? ESCAPE '\\' ORDER BY {order} LIMIT ?",
        (pattern, pattern, limit),
    ).fetchall()
    return [row[id_column] for row in rows]
