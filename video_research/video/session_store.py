"""Multi-turn video sessions, kept in SQLite so they survive a server restart.

A session remembers which video it is about (a YouTube URL, or the File API URI of an
uploaded local file), the clip and sampling it was opened with, the model it talks to,
its title, its context cache, and the conversation so far. Rules:
- a session idle longer than GEMINI_SESSION_TIMEOUT_HOURS has expired (checked on every
  create and get); at GEMINI_MAX_SESSIONS the least recently active one is evicted. An
  ended session's context cache is deleted (`ended_caches` hands the names to the caller);
- history keeps the last GEMINI_SESSION_MAX_TURNS turns (a sliding window);
- history is faithful: each turn stores the user Content as sent and the model's whole
  Content as Gemini returned it (thought parts and thought signatures included, bytes as
  base64), so a resumed session, after a restart too, sends Gemini exactly what it
  produced. The video is not in the history: it lives in the context cache, or is
  attached to the start of every request, so trimming never loses it.

The database is GEMINI_SESSION_DB (default `sessions.db` in the data dir, WAL mode);
`:memory:` keeps sessions for the life of the process only. Rows written by an earlier
version (history as {role, text}) are read as text parts.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import sqlite3
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from video_research.config import Settings
from video_research.support import clock, migrations
from video_research.support.services import Resource, current_services

logger = logging.getLogger(__name__)

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

# Columns added after the first release; ALTERed into older databases on open.
_ADDED_COLUMNS = {
    "content_id": "TEXT NOT NULL DEFAULT ''",
    "model": "TEXT NOT NULL DEFAULT ''",
    "sampling": "TEXT NOT NULL DEFAULT '{}'",
    "cache_name": "TEXT NOT NULL DEFAULT ''",
    "cache_expires_at": "REAL NOT NULL DEFAULT 0",
    "cache_state": "TEXT NOT NULL DEFAULT ''",
}


SESSIONS_SCHEMA = migrations.first_schema("video sessions", _SCHEMA, {"sessions": _ADDED_COLUMNS})


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
    """Gemini Contents ({role, parts}) as exchanged, oldest first."""
    turn_count: int = 0
    created_at: float = 0.0
    last_active: float = 0.0
    content_id: str = ""
    model: str = ""
    """The model of every turn ("" for sessions from before this was stored)."""
    sampling: dict[str, Any] = field(default_factory=dict)
    """video_input.Sampling.to_json() of the session's clip and sampling."""
    cache_name: str = ""
    cache_expires_at: float = 0.0
    cache_state: str = ""
    """"" (try caching), or "unavailable: <reason>" once Gemini refused for good."""


def _legacy_turn(turn: dict[str, Any]) -> dict[str, Any]:
    if "parts" in turn:
        return turn
    return {"role": turn.get("role", "user"), "parts": [{"text": str(turn.get("text", ""))}]}


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
        self._ended: list[str] = []
        if path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None, timeout=10)
        self._db.row_factory = sqlite3.Row
        try:
            # Before journal_mode: a newer file is refused without one byte written.
            migrations.migrate(self._db, SESSIONS_SCHEMA, path)
        except BaseException:
            self._db.close()
            raise
        if path != ":memory:":
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # --- sync core (runs in a worker thread) ---
    def _remove(self, where: str, params: tuple[Any, ...]) -> None:
        """Delete sessions matching `where`, remembering their context caches."""
        for row in self._db.execute(
            f"SELECT cache_name FROM sessions WHERE {where} AND cache_name != ''", params
        ):
            self._ended.append(row["cache_name"])
        self._db.execute(f"DELETE FROM sessions WHERE {where}", params)

    def _now(self) -> float:
        """The wall time to stamp a session's activity with: never below the newest stamp
        stored, so a clock stepped back cannot make the session used now the least
        recently used one, evicted first (expiry then waits for the clock to catch up: a
        session lives longer, never shorter)."""
        (newest,) = self._db.execute("SELECT MAX(last_active) FROM sessions").fetchone()
        return max(clock.wall(), newest or 0.0)

    def _evict_expired(self, now: float) -> None:
        self._remove("last_active < ?", (now - self.timeout_seconds,))

    def _create(self, session: Session) -> Session:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                now = self._now()
                self._evict_expired(now)
                (count,) = self._db.execute("SELECT COUNT(*) FROM sessions").fetchone()
                excess = count - self.max_sessions + 1
                if excess > 0:
                    self._remove(
                        "session_id IN (SELECT session_id FROM sessions ORDER BY last_active ASC LIMIT ?)",
                        (excess,),
                    )
                session.session_id = session.session_id or secrets.token_hex(6)
                session.created_at = session.last_active = now
                self._db.execute(
                    "INSERT INTO sessions (session_id, source, video_uri, mime_type, video_title,"
                    " description, history, turn_count, created_at, last_active, content_id, model,"
                    " sampling, cache_name, cache_expires_at, cache_state)"
                    " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
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
                        session.content_id,
                        session.model,
                        json.dumps(session.sampling),
                        session.cache_name,
                        session.cache_expires_at,
                        session.cache_state,
                    ),
                )
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        return session

    def _get(self, session_id: str) -> Session | None:
        with self._lock:
            self._evict_expired(clock.wall())
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
            history=[_legacy_turn(t) for t in json.loads(row["history"])],
            turn_count=row["turn_count"],
            created_at=row["created_at"],
            last_active=row["last_active"],
            content_id=row["content_id"],
            model=row["model"],
            sampling=json.loads(row["sampling"] or "{}"),
            cache_name=row["cache_name"],
            cache_expires_at=row["cache_expires_at"],
            cache_state=row["cache_state"],
        )

    def _add_turn(
        self, session_id: str, user: dict[str, Any], model: dict[str, Any]
    ) -> Session | None:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                row = self._db.execute(
                    "SELECT history, turn_count FROM sessions WHERE session_id = ?", (session_id,)
                ).fetchone()
                if row is None:
                    self._db.execute("ROLLBACK")
                    return None
                history = [_legacy_turn(t) for t in json.loads(row["history"])]
                history += [user, model]
                history = history[-2 * self.max_turns :]
                self._db.execute(
                    "UPDATE sessions SET history = ?, turn_count = ?, last_active = ? WHERE session_id = ?",
                    (json.dumps(history), row["turn_count"] + 1, self._now(), session_id),
                )
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        return self._get(session_id)

    def _set_cache(self, session_id: str, name: str, expires_at: float, state: str) -> None:
        with self._lock:
            self._db.execute(
                "UPDATE sessions SET cache_name = ?, cache_expires_at = ?, cache_state = ?"
                " WHERE session_id = ?",
                (name, expires_at, state, session_id),
            )

    def _take_ended(self) -> list[str]:
        with self._lock:
            ended, self._ended = self._ended, []
        return ended

    # --- async API ---
    async def create(self, session: Session) -> Session:
        made = await asyncio.to_thread(self._create, session)
        await self._end_caches()
        return made

    async def get(self, session_id: str) -> Session | None:
        """The live session, or None when it never existed or has expired."""
        found = await asyncio.to_thread(self._get, session_id)
        await self._end_caches()
        return found

    async def add_turn(
        self, session_id: str, user: dict[str, Any], model: dict[str, Any]
    ) -> Session | None:
        """Append one exchange (user Content as sent, the model's Content as returned), trim
        the window, bump turn_count; None if the session is gone."""
        return await asyncio.to_thread(self._add_turn, session_id, user, model)

    async def set_cache(
        self, session_id: str, name: str = "", expires_at: float = 0.0, state: str = ""
    ) -> None:
        await asyncio.to_thread(self._set_cache, session_id, name, expires_at, state)

    async def _end_caches(self) -> None:
        """Delete the context caches of sessions that just ended (best effort)."""
        ended = self._take_ended()
        if not ended:
            return
        from video_research.clients.gemini import caching as gemini_caching

        for name in ended:
            try:
                await gemini_caching.delete(name)
            except Exception as exc:  # never fail a call over a cache's clean-up
                logger.warning("could not delete context cache %s: %s", name, exc)


SESSION_STORE: Resource[SessionStore] = Resource(
    "sessions",
    key=lambda settings: (
        settings.session_db,
        settings.session_timeout_hours,
        settings.max_sessions,
        settings.session_max_turns,
    ),
    open=lambda settings: SessionStore(
        settings.session_db,
        timeout_hours=settings.session_timeout_hours,
        max_sessions=settings.max_sessions,
        max_turns=settings.session_max_turns,
    ),
    close=SessionStore.close,
)


def get_store(settings: Settings | None = None) -> SessionStore:
    """The session store for the settings in force, opened on first use."""
    return current_services().get(SESSION_STORE, settings)
