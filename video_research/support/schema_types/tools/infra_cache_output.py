# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import Literal, NotRequired

from typing_extensions import TypedDict

from ..common import defs


class Stats(TypedDict, closed=True):
    cache_dir: str
    total_files: int
    total_size_bytes: int
    expired_files: int
    ttl_days: int


class Entry(TypedDict, closed=True):
    file: str
    content_id: str
    tool: str
    model: str
    cached_at: str
    size_bytes: int
    expired: bool


class Context(TypedDict, closed=True):
    name: str
    model: str
    content_id: str
    session_id: NotRequired[str | None]
    token_count: int
    expires_in_seconds: int
    expired: bool


class InfraCacheOutput(TypedDict, closed=True):
    injections: NotRequired[defs.Injections]
    action: Literal["stats", "list", "clear", "context_list", "context_clear"]
    stats: NotRequired[Stats]
    entries: NotRequired[list[Entry]]
    total: NotRequired[int]
    removed: NotRequired[int]
    content_id: NotRequired[str | None]
    contexts: NotRequired[list[Context]]
