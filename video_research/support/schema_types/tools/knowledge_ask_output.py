# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import Literal, NotRequired

from typing_extensions import TypedDict

from ..common import defs
from ..common.knowledge_answer import Source as Source_1


class Source(Source_1):
    passage: NotRequired[str]


class KnowledgeAskOutput(TypedDict, closed=True):
    injections: NotRequired[defs.Injections]
    question: str
    answer: str | None
    answered_by: Literal["gemini", "retrieval", "none"]
    model: NotRequired[str]
    sources: list[Source]
    collections_searched: list[str]
    passages_considered: int
    notes: list[str]
