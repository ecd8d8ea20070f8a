# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import Any, Literal, NotRequired

from typing_extensions import TypedDict

from ..common import defs, gemini


class Item(TypedDict):
    file_path: str
    file_name: str
    status: Literal["ok", "error"]
    result: NotRequired[dict[str, Any]]
    error: NotRequired[dict[str, Any]]


class ContentBatchAnalyzeOutput(TypedDict, closed=True):
    injections: NotRequired[defs.Injections]
    mode: str
    delivery: Literal["direct", "batch"]
    instruction: str
    directory: NotRequired[str]
    total_files: int
    succeeded: int
    failed: int
    skipped: list[str]
    items: list[Item]
    comparison: NotRequired[dict[str, Any]]
    model: NotRequired[str]
    batch_job: NotRequired[gemini.BatchJob]
