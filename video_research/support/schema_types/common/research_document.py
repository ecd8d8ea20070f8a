# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import Any, NotRequired, TypeAlias, TypedDict

from . import research

DocumentResearchShapes: TypeAlias = Any


Citation: TypeAlias = str


Citations: TypeAlias = list[Citation]


class Finding(TypedDict):
    claim: str
    evidence_tier: research.EvidenceTier
    confidence: NotRequired[float]
    reasoning: str
    citations: Citations
    contradicted_by: NotRequired[list[str]]


class Findings(TypedDict):
    findings: list[Finding]


class Insight(TypedDict):
    text: str
    citations: Citations


class Synthesis(TypedDict):
    executive_summary: str
    key_insights: list[Insight]
    open_questions: list[str]
    methodology_critique: str
    recommendations: NotRequired[list[str]]
