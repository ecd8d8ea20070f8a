# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import Any, Literal, NotRequired

from typing_extensions import TypedDict

from ..common import defs, gemini, tool_error


class Item(TypedDict):
    file_path: str
    file_name: str
    status: Literal["ok", "error"]
    result: NotRequired[dict[str, Any]]
    error: NotRequired[tool_error.ToolError]


class VideoBatchAnalyzeOutput(TypedDict, closed=True):
    injections: NotRequired[defs.Injections]
    directory: str
    instruction: str
    total_files: int
    succeeded: int
    failed: int
    skipped: NotRequired[list[str]]
    items: list[Item]
    delivery: NotRequired[Literal["direct", "batch"]]
    batch_job: NotRequired[gemini.BatchJob]
    usage: NotRequired[gemini.Usage]
