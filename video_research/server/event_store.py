"""Resumable streamable HTTP: every event a client was sent, kept so it can be sent again.

The SDK's streamable-HTTP transport gives each SSE event an id from this store, opens
each stream with a priming event (an id, no data, and the `retry` field), and answers a
client that reconnects with `Last-Event-ID` by replaying what it missed: the
notifications and, for a long call whose stream dropped, its result.

One SQLite file in the data dir (http_events.db), WAL, bounded to the newest
`max_events` rows. It starts empty with each process (the sessions whose events it held
are gone), so it never grows past the bound and never serves a stale session.

Event ids are `<session key>.<sequence>`: the SDK numbers a session's streams by JSON-RPC
request id, which repeats across sessions, so each event is filed under the session it
belongs to and replayed only to that session. The key is a random value per session,
carried in a context variable set by `SessionKeys` (ASGI middleware) for every request
of the session, which the session's own tasks inherit.
"""

from __future__ import annotations

import contextvars
import logging
import secrets
import sqlite3
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any

from mcp.server.streamable_http import EventCallback, EventId, EventMessage, EventStore, StreamId

logger = logging.getLogger(__name__)

SESSION_HEADER = b"mcp-session-id"
_NO_SESSION = "0"
EVENTS_SCHEMA_VERSION = 1

_session_key: contextvars.ContextVar[str] = contextvars.ContextVar(
    "video_research_event_session", default=_NO_SESSION
)


class SqliteEventStore(EventStore):
    """The SDK's EventStore interface over one bounded SQLite table."""

    def __init__(self, path: Path, max_events: int = 10_000) -> None:
        self.max_events = max_events
        self._lock = threading.Lock()
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("DROP TABLE IF EXISTS events")
        self._db.execute(
            "CREATE TABLE events (seq INTEGER PRIMARY KEY AUTOINCREMENT, session TEXT NOT NULL, "
            "stream TEXT NOT NULL, message TEXT)"
        )
        self._db.execute("CREATE INDEX events_stream ON events (session, stream, seq)")
        # Scratch per process (dropped above, whatever release wrote it), so it is never
        # migrated, refused or backed up; the stamp only says which layout it holds.
        self._db.execute(f"PRAGMA user_version = {EVENTS_SCHEMA_VERSION}")
        self._writes = 0

    async def store_event(self, stream_id: StreamId, message: Any) -> EventId:
        session = _session_key.get()
        text = (
            None if message is None else message.model_dump_json(by_alias=True, exclude_unset=True)
        )
        with self._lock:
            cursor = self._db.execute(
                "INSERT INTO events (session, stream, message) VALUES (?, ?, ?)",
                (session, str(stream_id), text),
            )
            seq = cursor.lastrowid
            self._writes += 1
            if self._writes % 100 == 0 or self.max_events < 100:
                self._db.execute("DELETE FROM events WHERE seq <= ?", (seq - self.max_events,))
        return f"{session}.{seq}"

    async def replay_events_after(
        self, last_event_id: EventId, send_callback: EventCallback
    ) -> StreamId | None:
        from mcp_types import jsonrpc_message_adapter

        session, _, raw_seq = last_event_id.rpartition(".")
        if not raw_seq.isdigit() or session != _session_key.get():
            logger.info("Last-Event-ID %r is not one of this session's events", last_event_id[:80])
            return None
        with self._lock:
            row = self._db.execute(
                "SELECT stream FROM events WHERE seq = ? AND session = ?", (int(raw_seq), session)
            ).fetchone()
            if row is None:
                return None
            rows = self._db.execute(
                "SELECT seq, message FROM events WHERE session = ? AND stream = ? AND seq > ? "
                "ORDER BY seq",
                (session, row[0], int(raw_seq)),
            ).fetchall()
        for seq, text in rows:
            if text is None:  # a priming event: nothing to resend
                continue
            message = jsonrpc_message_adapter.validate_json(text)
            await send_callback(EventMessage(message, f"{session}.{seq}"))
        return row[0]

    def count(self) -> int:
        with self._lock:
            return self._db.execute("SELECT COUNT(*) FROM events").fetchone()[0]

    def close(self) -> None:
        with self._lock:
            self._db.close()


class SessionKeys:
    """ASGI middleware: the random key of the MCP session each request belongs to.

    A request without an `mcp-session-id` (an initialize) gets a new key, and the
    session id the server answers with is remembered against it; later requests of the
    session find their key by that id. The session's own tasks are started while its
    first request is served, so they carry its key too.
    """

    def __init__(self, app: Any, max_sessions: int = 10_000) -> None:
        self.app = app
        self.max_sessions = max_sessions
        self._keys: OrderedDict[str, str] = OrderedDict()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        session_id = _header(scope.get("headers") or [], SESSION_HEADER)
        if session_id is not None:
            key = self._keys.get(session_id)
            if key is None:
                await self.app(scope, receive, send)  # unknown session: the SDK answers 404
                return
            token = _session_key.set(key)
            try:
                await self.app(scope, receive, send)
            finally:
                _session_key.reset(token)
                if scope.get("method") == "DELETE":
                    self._keys.pop(session_id, None)
            return
        key = secrets.token_hex(8)

        async def remember(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                answered = _header(message.get("headers") or [], SESSION_HEADER)
                if answered is not None:
                    self._keys[answered] = key
                    while len(self._keys) > self.max_sessions:
                        self._keys.popitem(last=False)
            await send(message)

        token = _session_key.set(key)
        try:
            await self.app(scope, receive, remember)
        finally:
            _session_key.reset(token)


def _header(headers: list[tuple[bytes, bytes]], name: bytes) -> str | None:
    for key, value in headers:
        if key.lower() == name:
            return value.decode("latin-1")
    return None
