# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypeAlias

from typing_extensions import TypedDict

Category: TypeAlias = Literal[
    "invalid_input",
    "unsupported_format",
    "too_large",
    "not_found",
    "conflict",
    "unauthorized",
    "forbidden",
    "rate_limited",
    "network",
    "timeout",
    "unavailable",
    "store_error",
    "config_error",
    "internal_error",
    "cancelled",
]


class ToolError(TypedDict, closed=True):
    error: str
    message: str
    category: Category
    hint: str
    retryable: bool
    retry_after_seconds: NotRequired[int | None]
    details: NotRequired[dict[str, Any]]
