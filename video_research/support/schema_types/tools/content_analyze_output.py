# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypeAlias, TypedDict

from ..common import defs
from ..common.content_result import ContentResult


class ContentAnalyzeOutput1(ContentResult):
    source: str
    source_type: Literal["file", "url", "text"]
    retrieved_urls: NotRequired[list[dict[str, Any]]]
    injections: NotRequired[defs.Injections]


class ContentAnalyzeOutput2(TypedDict):
    injections: NotRequired[defs.Injections]


ContentAnalyzeOutput: TypeAlias = ContentAnalyzeOutput1 | ContentAnalyzeOutput2
