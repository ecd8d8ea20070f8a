"""Deep Research tasks in one SQLite database, so they outlive the server process.

A task is one Deep Research interaction: its ID (the interaction's), the topic and prompt
it was started with, who started it, the last status seen, and once it has finished the
report, its sources and usage, so a finished task is answered from here without asking
the API again. Follow-up questions are kept with their answers, and the interaction ID
the next follow-up continues from.

The database is DEEP_RESEARCH_DB (default `deep_research.db` in the data dir, WAL mode);
`:memory:` keeps tasks for the life of the process only.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from video_research.config import Settings
from video_research.support import migrations
from video_research.support.services import Resource, current_services

if TYPE_CHECKING:
    from video_research.support.schema_types.common.deep_research import Source

_SCHEMA = """
CREATE TABLE IF NOT EXISTS tasks (
    task_id       TEXT PRIMARY KEY,
    topic         TEXT NOT NULL,
    prompt        TEXT NOT NULL,
    agent         TEXT NOT NULL,
    started_by    TEXT NOT NULL DEFAULT '',
    status        TEXT NOT NULL,
    created_at    REAL NOT NULL,
    updated_at    REAL NOT NULL,
    finished_at   REAL,
    report        TEXT,
    sources       TEXT NOT NULL DEFAULT '[]',
    usage         TEXT NOT NULL DEFAULT '{}',
    error         TEXT,
    followups     TEXT NOT NULL DEFAULT '[]',
    last_interaction_id TEXT
);
CREATE INDEX IF NOT EXISTS tasks_created ON tasks(created_at);
"""

TERMINAL = frozenset({"completed", "failed", "cancelled", "incomplete", "budget_exceeded"})
"""Statuses after which an interaction never changes again."""


TASKS_SCHEMA = migrations.first_schema("deep-research tasks", _SCHEMA)


@dataclass
class Task:
    task_id: str
    topic: str
    prompt: str
    agent: str
    status: str
    started_by: str = ""
    created_at: float = 0.0
    updated_at: float = 0.0
    finished_at: float | None = None
    report: str | None = None
    sources: list[Source] = field(default_factory=list)
    usage: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    followups: list[dict[str, Any]] = field(default_factory=list)
    last_interaction_id: str | None = None

    @property
    def done(self) -> bool:
        return self.status in TERMINAL


_COLUMNS = [
    "task_id", "topic", "prompt", "agent", "started_by", "status", "created_at", "updated_at",
    "finished_at", "report", "sources", "usage", "error", "followups", "last_interaction_id",
]  # fmt: skip
_JSON = {"sources", "usage", "followups"}


class TaskStore:
    """Tasks in one SQLite database; every method is safe to call from the event loop."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._lock = threading.Lock()
        if path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None, timeout=10)
        self._db.row_factory = sqlite3.Row
        try:
            # Before journal_mode: a newer file is refused without one byte written.
            migrations.migrate(self._db, TASKS_SCHEMA, path)
        except BaseException:
            self._db.close()
            raise
        if path != ":memory:":
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def _save(self, task: Task) -> Task:
        values = [
            json.dumps(getattr(task, c)) if c in _JSON else getattr(task, c) for c in _COLUMNS
        ]
        with self._lock:
            self._db.execute(
                f"INSERT OR REPLACE INTO tasks ({', '.join(_COLUMNS)}) "
                f"VALUES ({', '.join('?' for _ in _COLUMNS)})",
                values,
            )
        return task

    def _get(self, task_id: str) -> Task | None:
        with self._lock:
            row = self._db.execute("SELECT * FROM tasks WHERE task_id = ?", (task_id,)).fetchone()
        if row is None:
            return None
        return Task(**{c: json.loads(row[c]) if c in _JSON else row[c] for c in _COLUMNS})

    async def add(self, task: Task) -> Task:
        task.created_at = task.updated_at = time.time()
        return await asyncio.to_thread(self._save, task)

    async def save(self, task: Task) -> Task:
        task.updated_at = time.time()
        if task.done and task.finished_at is None:
            task.finished_at = task.updated_at
        return await asyncio.to_thread(self._save, task)

    async def get(self, task_id: str) -> Task | None:
        return await asyncio.to_thread(self._get, task_id)


TASK_STORE: Resource[TaskStore] = Resource(
    "deep-research",
    key=lambda settings: settings.deep_research_db,
    open=lambda settings: TaskStore(settings.deep_research_db),
    close=TaskStore.close,
)


def get_store(settings: Settings | None = None) -> TaskStore:
    """The task store for the settings in force, opened on first use."""
    return current_services().get(TASK_STORE, settings)
