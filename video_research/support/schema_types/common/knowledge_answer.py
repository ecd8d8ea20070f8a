# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import Any, NotRequired, TypeAlias, TypedDict

from . import defs

GroundedAnswers: TypeAlias = Any


class Answer(TypedDict):
    answer: str
    cited: list[int]
    answerable: bool


class Source(TypedDict):
    n: int
    collection: str
    object_id: str
    kind: str
    label: str
    url: str | None
    score: NotRequired[float]
    relevance: NotRequired[defs.Relevance]
    weak: NotRequired[defs.Weak]
