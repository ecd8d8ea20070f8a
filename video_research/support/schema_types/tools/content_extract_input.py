# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import Any

from typing_extensions import TypedDict


class ContentExtractInput(TypedDict, closed=True):
    content: str
    schema: dict[str, Any]
