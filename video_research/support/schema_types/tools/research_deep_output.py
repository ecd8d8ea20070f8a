# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import NotRequired

from typing_extensions import TypedDict

from ..common import defs, research


class ResearchDeepOutput(TypedDict, closed=True):
    injections: NotRequired[defs.Injections]
    topic: str
    scope: str
    scope_definition: str
    executive_summary: str
    findings: list[research.Finding]
    key_insights: list[str]
    open_questions: list[str]
    methodology_critique: str
    recommendations: NotRequired[list[str]]
    model: str
