"""Multi-turn video sessions, kept in SQLite so they survive a server restart (seed 000 s8).

A session remembers which video it is about (a YouTube URL, or the File API URI of an
uploaded local file), its title, and the conversation so far as plain JSON turns. Rules:
- a session idle longer than GEMINI_SESSION_TIMEOUT_HOURS has expired (checked on every
  create and get); at GEMINI_MAX_SESSIONS the least recently active one is evicted;
- history keeps the last GEMINI_SESSION_MAX_TURNS turns (a sliding window). The video
  part is not stored in the history: it is attached to the first turn of every request,
  so trimming never loses the video.

The database is GEMINI_SESSION_DB (default `sessions.db` in the data dir, WAL mode);
`:memory:` keeps sessions for the life of the process only.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import sqlite3
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from video_research import lifecycle
from video_research.config import Settings, get_config

_SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (
    session_id   TEXT PRIMARY KEY,
    source       TEXT NOT NULL,
    video_uri    TEXT NOT NULL,
    mime_type    TEXT NOT NULL,
    video_title  TEXT NOT NULL,
    description  TEXT NOT NULL DEFAULT '',
    history      TEXT NOT NULL DEFAULT '[]',
    turn_count   INTEGER NOT NULL DEFAULT 0,
    created_at   REAL NOT NULL,
    last_active  REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS sessions_last_active ON sessions(last_active);
"""


@dataclass
class Session:
    session_id: str
    source: str
    """What the user passed, normalised: a YouTube URL or a local path."""
    video_uri: str
    """What Gemini is shown: the YouTube URL or the File API URI."""
    mime_type: str
    video_title: str
    description: str = ""
    history: list[dict[str, Any]] = field(default_factory=list)
    """[{role: user|model, text}] oldest first."""
    turn_count: int = 0
    created_at: float = 0.0
    last_active: float = 0.0


class SessionStore:
    """Sessions in one SQLite database; every method is safe to call from the event loop."""

    def __init__(
        self, path: str, *, timeout_hours: float, max_sessions: int, max_turns: int
    ) -> None:
        self.path = path
        self.timeout_seconds = timeout_hours * 3600
        self.max_sessions = max_sessions
        self.max_turns = max_turns
        self._lock = threading.Lock()
        if path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None, timeout=10)
        self._db.row_factory = sqlite3.Row
        if path != ":memory:":
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(_SCHEMA)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # --- sync core (runs in a worker thread) ---
    def _evict_expired(self, now: float) -> None:
        self._db.execute(
            "DELETE FROM sessions WHERE last_active < ?", (now - self.timeout_seconds,)
        )

    def _create(self, session: Session) -> Session:
        now = time.time()
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._evict_expired(now)
                (count,) = self._db.execute("SELECT COUNT(*) FROM sessions").fetchone()
                excess = count - self.max_sessions + 1
                if excess > 0:
                    self._db.execute(
                        "DELETE FROM sessions WHERE session_id IN "
                        "(SELECT session_id FROM sessions ORDER BY last_active ASC LIMIT ?)",
                        (excess,),
                    )
                session.session_id = session.session_id or secrets.token_hex(6)
                session.created_at = session.last_active = now
                self._db.execute(
                    "INSERT INTO sessions (session_id, source, video_uri, mime_type, video_title, description,"
                    " history, turn_count, created_at, last_active) VALUES (?,?,?,?,?,?,?,?,?,?)",
                    (
                        session.session_id,
                        session.source,
                        session.video_uri,
                        session.mime_type,
                        session.video_title,
                        session.description,
                        json.dumps(session.history),
                        session.turn_count,
                        now,
                        now,
                    ),
                )
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        return session

    def _get(self, session_id: str) -> Session | None:
        now = time.time()
        with self._lock:
            self._evict_expired(now)
            row = self._db.execute(
                "SELECT * FROM sessions WHERE session_id = ?", (session_id,)
            ).fetchone()
        if row is None:
            return None
        return Session(
            session_id=row["session_id"],
            source=row["source"],
            video_uri=row["video_uri"],
            mime_type=row["mime_type"],
            video_title=row["video_title"],
            description=row["description"],
            history=json.loads(row["history"]),
            turn_count=row["turn_count"],
            created_at=row["created_at"],
            last_active=row["last_active"],
        )

    def _add_turn(self, session_id: str, prompt: str, response: str) -> Session | None:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                row = self._db.execute(
                    "SELECT history, turn_count FROM sessions WHERE session_id = ?", (session_id,)
                ).fetchone()
                if row is None:
                    self._db.execute("ROLLBACK")
                    return None
                history = json.loads(row["history"])
                history += [{"role": "user", "text": prompt}, {"role": "model", "text": response}]
                history = history[-2 * self.max_turns :]
                self._db.execute(
                    "UPDATE sessions SET history = ?, turn_count = ?, last_active = ? WHERE session_id = ?",
                    (json.dumps(history), row["turn_count"] + 1, time.time(), session_id),
                )
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        return self._get(session_id)

    # --- async API ---
    async def create(self, session: Session) -> Session:
        return await asyncio.to_thread(self._create, session)

    async def get(self, session_id: str) -> Session | None:
        """The live session, or None when it never existed or has expired."""
        return await asyncio.to_thread(self._get, session_id)

    async def add_turn(self, session_id: str, prompt: str, response: str) -> Session | None:
        """Append one exchange, trim the window, bump turn_count; None if the session is gone."""
        return await asyncio.to_thread(self._add_turn, session_id, prompt, response)


_stores: dict[tuple[Any, ...], SessionStore] = {}


def get_store(settings: Settings | None = None) -> SessionStore:
    """The session store for the current settings, opened on first use."""
    settings = settings or get_config()
    key = (
        settings.session_db,
        settings.session_timeout_hours,
        settings.max_sessions,
        settings.session_max_turns,
    )
    store = _stores.get(key)
    if store is None:
        store = SessionStore(
            settings.session_db,
            timeout_hours=settings.session_timeout_hours,
            max_sessions=settings.max_sessions,
            max_turns=settings.session_max_turns,
        )
        _stores[key] = store
        lifecycle.on_shutdown("sessions", close_all)
    return store


def close_all() -> None:
    for store in _stores.values():
        store.close()
    _stores.clear()
