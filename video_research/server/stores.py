"""Every SQLite store the server keeps, as backup and restore see them.

The HTTP event store (http_events.db) is left out: it starts empty with every process
(it only replays a live session's missed events), so there is nothing to keep.
"""

from __future__ import annotations

from pathlib import Path

from video_research.config import Settings
from video_research.support.backup import StoreFile


def store_files(settings: Settings) -> list[StoreFile]:
    from video_research.catalog.db import CATALOG_SCHEMA
    from video_research.clients.gemini.registry import REGISTRY_SCHEMA, registry_path
    from video_research.deepresearch.tasks import TASKS_SCHEMA
    from video_research.knowledge.backends.sqlite_store import KNOWLEDGE_SCHEMA_VERSION
    from video_research.video.session_store import SESSIONS_SCHEMA

    knowledge = Path(settings.knowledge_db)
    return [
        StoreFile("catalog", Path(settings.catalog_db), CATALOG_SCHEMA.version),
        StoreFile(
            "knowledge",
            knowledge,
            KNOWLEDGE_SCHEMA_VERSION,
            derived=(Path(str(knowledge) + ".ann"), Path(str(knowledge) + ".kw")),
        ),
        StoreFile("sessions", Path(settings.session_db), SESSIONS_SCHEMA.version),
        StoreFile("deep_research", Path(settings.deep_research_db), TASKS_SCHEMA.version),
        StoreFile("gemini", registry_path(settings), REGISTRY_SCHEMA.version),
    ]
