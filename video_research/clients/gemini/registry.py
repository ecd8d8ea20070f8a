"""What this server has created on Gemini's side: File API uploads and context caches.

One SQLite file, `gemini.db` in the data dir (WAL mode), so a restarted server still
knows which upload holds which file content, and which context caches are its own:
- `uploads`: a local file's content (SHA-256) -> the File API file holding it, until the
  file expires (48 h after upload). Keyed by account too: an upload made with one API key
  (or endpoint) is invisible to another.
- `context_caches`: the cachedContents this server created, what they hold (the cache
  key: video, clip and sampling, model), the session they belong to, and when they
  expire. infra_cache lists and clears them from here.

`account` is a fingerprint of (API key, endpoint), never the key itself. Every method is
synchronous and quick; callers run them with asyncio.to_thread.
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from video_research.config import Settings
from video_research.support import clock, migrations
from video_research.support.services import Resource, current_services

if TYPE_CHECKING:
    from video_research.support.schema_types.tools.infra_cache_output import (
        Context as CacheListing,
    )

_SCHEMA = """
CREATE TABLE IF NOT EXISTS uploads (
    account     TEXT NOT NULL,
    sha256      TEXT NOT NULL,
    mime_type   TEXT NOT NULL,
    size        INTEGER NOT NULL,
    name        TEXT NOT NULL,
    uri         TEXT NOT NULL,
    expires_at  REAL NOT NULL,
    uploaded_at REAL NOT NULL,
    PRIMARY KEY (account, sha256, mime_type)
);
CREATE TABLE IF NOT EXISTS context_caches (
    name        TEXT PRIMARY KEY,
    account     TEXT NOT NULL,
    cache_key   TEXT NOT NULL,
    model       TEXT NOT NULL,
    content_id  TEXT NOT NULL DEFAULT '',
    session_id  TEXT,
    token_count INTEGER NOT NULL DEFAULT 0,
    expires_at  REAL NOT NULL,
    created_at  REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS context_caches_key ON context_caches(account, cache_key);
CREATE INDEX IF NOT EXISTS context_caches_session ON context_caches(session_id);
"""


REGISTRY_SCHEMA = migrations.first_schema("Gemini upload and cache registry", _SCHEMA)


def registry_path(settings: Settings) -> Path:
    return settings.data_dir / "gemini.db"


def account_of(settings: Settings) -> str:
    """A fingerprint of the API key and endpoint (the key itself is never stored)."""
    key = settings.gemini_api_key.get_secret_value()
    return hashlib.sha256(f"{key}\n{settings.gemini_base_url}".encode()).hexdigest()[:16]


@dataclass(frozen=True)
class UploadRow:
    sha256: str
    mime_type: str
    size: int
    name: str
    uri: str
    expires_at: float
    uploaded_at: float


@dataclass(frozen=True)
class CacheRow:
    name: str
    cache_key: str
    model: str
    content_id: str
    session_id: str | None
    token_count: int
    expires_at: float
    created_at: float

    def to_json(self, now: float | None = None) -> CacheListing:
        now = clock.wall() if now is None else now
        return {
            "name": self.name,
            "model": self.model,
            "content_id": self.content_id,
            "session_id": self.session_id,
            "token_count": self.token_count,
            "expires_in_seconds": max(0, round(self.expires_at - now)),
            "expired": self.expires_at <= now,
        }


class Registry:
    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None, timeout=10)
        self._db.row_factory = sqlite3.Row
        try:
            # Before journal_mode: a newer file is refused without one byte written.
            migrations.migrate(self._db, REGISTRY_SCHEMA, str(path))
        except BaseException:
            self._db.close()
            raise
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # --- uploads ---
    def upload(self, account: str, sha256: str, mime_type: str) -> UploadRow | None:
        with self._lock:
            row = self._db.execute(
                "SELECT sha256, mime_type, size, name, uri, expires_at, uploaded_at FROM uploads"
                " WHERE account = ? AND sha256 = ? AND mime_type = ?",
                (account, sha256, mime_type),
            ).fetchone()
        return UploadRow(**dict(row)) if row else None

    def put_upload(self, account: str, row: UploadRow) -> None:
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO uploads (account, sha256, mime_type, size, name, uri,"
                " expires_at, uploaded_at) VALUES (?,?,?,?,?,?,?,?)",
                (
                    account,
                    row.sha256,
                    row.mime_type,
                    row.size,
                    row.name,
                    row.uri,
                    row.expires_at,
                    row.uploaded_at,
                ),
            )

    def drop_upload(self, account: str, sha256: str, mime_type: str) -> None:
        with self._lock:
            self._db.execute(
                "DELETE FROM uploads WHERE account = ? AND sha256 = ? AND mime_type = ?",
                (account, sha256, mime_type),
            )

    # --- context caches ---
    def put_cache(self, account: str, row: CacheRow) -> None:
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO context_caches (name, account, cache_key, model, content_id,"
                " session_id, token_count, expires_at, created_at) VALUES (?,?,?,?,?,?,?,?,?)",
                (
                    row.name,
                    account,
                    row.cache_key,
                    row.model,
                    row.content_id,
                    row.session_id,
                    row.token_count,
                    row.expires_at,
                    row.created_at,
                ),
            )

    def live_cache(self, account: str, cache_key: str, *, margin: float) -> CacheRow | None:
        """The newest cache holding `cache_key` that lives at least `margin` seconds more."""
        with self._lock:
            row = self._db.execute(
                f"SELECT {_CACHE_COLUMNS} FROM context_caches WHERE account = ? AND cache_key = ?"
                " AND expires_at > ? ORDER BY expires_at DESC LIMIT 1",
                (account, cache_key, clock.wall() + margin),
            ).fetchone()
        return CacheRow(**dict(row)) if row else None

    def cache(self, name: str) -> CacheRow | None:
        with self._lock:
            row = self._db.execute(
                f"SELECT {_CACHE_COLUMNS} FROM context_caches WHERE name = ?", (name,)
            ).fetchone()
        return CacheRow(**dict(row)) if row else None

    def touch_cache(self, name: str, expires_at: float) -> None:
        with self._lock:
            self._db.execute(
                "UPDATE context_caches SET expires_at = ? WHERE name = ?", (expires_at, name)
            )

    def drop_cache(self, name: str) -> None:
        with self._lock:
            self._db.execute("DELETE FROM context_caches WHERE name = ?", (name,))

    def caches(
        self, account: str | None = None, *, content_id: str | None = None
    ) -> list[CacheRow]:
        query = f"SELECT {_CACHE_COLUMNS} FROM context_caches WHERE 1=1"
        params: list[Any] = []
        if account is not None:
            query += " AND account = ?"
            params.append(account)
        if content_id is not None:
            query += " AND content_id = ?"
            params.append(content_id)
        with self._lock:
            # newest first by rowid, the order they were stored in: created_at is a wall
            # time, which a clock stepped back would put before older ones
            rows = self._db.execute(query + " ORDER BY rowid DESC", params).fetchall()
        return [CacheRow(**dict(r)) for r in rows]


_CACHE_COLUMNS = (
    "name, cache_key, model, content_id, session_id, token_count, expires_at, created_at"
)

GEMINI_REGISTRY: Resource[Registry] = Resource(
    "gemini-registry",
    key=lambda settings: settings.data_dir / "gemini.db",
    open=lambda settings: Registry(registry_path(settings)),
    close=Registry.close,
)


def get_registry(settings: Settings | None = None) -> Registry:
    """The registry of the data dir in force, opened on first use."""
    return current_services().get(GEMINI_REGISTRY, settings)
