# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import NotRequired

from typing_extensions import TypedDict

from ..common import defs, transcripts


class Chapter(TypedDict, closed=True):
    title: str
    start: float
    end: float
    evidence: str


class SemanticSearchTranscriptsOutput(TypedDict, closed=True):
    injections: NotRequired[defs.Injections]
    query: str
    result_count: int
    results: list[transcripts.Moment]
    chapters: NotRequired[dict[str, list[Chapter]]]
    indexing: transcripts.Batch
    notes: NotRequired[list[str]]
