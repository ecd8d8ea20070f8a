# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import NotRequired

from typing_extensions import TypedDict

from ..common import defs, research


class ResearchAssessEvidenceOutput(TypedDict, closed=True):
    injections: NotRequired[defs.Injections]
    claim: str
    tier: research.EvidenceTier
    confidence: float
    reasoning: str
    supporting_sources: NotRequired[list[str]]
    contradicting_sources: NotRequired[list[str]]
    caveats: NotRequired[list[str]]
    sources_assessed: int
