# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import NotRequired, TypeAlias

from typing_extensions import TypedDict

Source: TypeAlias = str


class ResearchAssessEvidenceInput(TypedDict, closed=True):
    claim: str
    sources: list[Source]
    context: NotRequired[str]
