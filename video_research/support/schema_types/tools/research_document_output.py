# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import Any, NotRequired

from typing_extensions import TypedDict

from ..common import defs


class Finding(TypedDict):
    claim: str
    evidence_tier: str
    confidence: NotRequired[float]
    reasoning: str
    citations: list[str]
    contradicted_by: NotRequired[list[str]]


class KeyInsight(TypedDict):
    text: str
    citations: list[str]


class ResearchDocumentOutput(TypedDict, closed=True):
    injections: NotRequired[defs.Injections]
    question: str
    scope: str
    scope_definition: str
    executive_summary: str
    findings: list[Finding]
    key_insights: list[KeyInsight]
    open_questions: list[str]
    methodology_critique: str
    recommendations: NotRequired[list[str]]
    sources: list[dict[str, Any]]
    consulted: dict[str, Any]
    uncited_dropped: int
    passages_trimmed: NotRequired[int]
    model: str
