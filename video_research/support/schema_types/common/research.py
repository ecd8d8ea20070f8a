# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypeAlias, TypedDict

ResearchShapes: TypeAlias = Any


EvidenceTier: TypeAlias = Literal[
    "CONFIRMED", "STRONG INDICATOR", "INFERENCE", "SPECULATION", "UNKNOWN"
]


class Finding(TypedDict):
    claim: str
    evidence_tier: EvidenceTier
    confidence: NotRequired[float]
    supporting_evidence: NotRequired[list[str]]
    contradicting_evidence: NotRequired[list[str]]
    reasoning: str


class Findings(TypedDict):
    findings: list[Finding]


class Synthesis(TypedDict):
    executive_summary: str
    key_insights: list[str]
    open_questions: list[str]
    methodology_critique: str
    recommendations: NotRequired[list[str]]


class Phase(TypedDict):
    name: str
    objective: str
    tasks: list[str]
    agents: NotRequired[int]
    depends_on: NotRequired[list[str]]


class ModelAssignment(TypedDict):
    task: str
    model: str
    reason: NotRequired[str]


class Plan(TypedDict):
    phases: list[Phase]
    task_decomposition: list[str]
    model_assignments: list[ModelAssignment]
    success_criteria: NotRequired[list[str]]
    risks: NotRequired[list[str]]


class Assessment(TypedDict):
    tier: EvidenceTier
    confidence: float
    reasoning: str
    supporting_sources: NotRequired[list[str]]
    contradicting_sources: NotRequired[list[str]]
    caveats: NotRequired[list[str]]
