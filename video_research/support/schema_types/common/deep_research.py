# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import Any, NotRequired, TypeAlias, TypedDict

DeepResearchShapes: TypeAlias = Any


TaskId: TypeAlias = str


class Source(TypedDict):
    url: str
    title: NotRequired[str | None]


class Task(TypedDict):
    task_id: str
    status: str
    done: bool
    topic: str
    agent: str
    created_at: str
    finished_at: str | None
    elapsed_seconds: int
    report: str | None
    sources: list[Source]
    usage: dict[str, Any]
    error: str | None
    followups: list[dict[str, Any]]
    hint: NotRequired[str]
