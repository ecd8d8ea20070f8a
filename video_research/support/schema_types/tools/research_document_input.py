# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import NotRequired, TypeAlias

from typing_extensions import TypedDict

from ..common import defs

Url: TypeAlias = str


class ResearchDocumentInput(TypedDict, closed=True):
    question: str
    file_paths: NotRequired[list[defs.FilePath]]
    urls: NotRequired[list[Url]]
    knowledge_passages: NotRequired[int]
    scope: NotRequired[defs.Scope]
    thinking_level: NotRequired[defs.ThinkingLevel]
