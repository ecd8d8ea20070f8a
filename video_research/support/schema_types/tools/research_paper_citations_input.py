# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import Literal, NotRequired

from typing_extensions import TypedDict

from ..common import papers


class ResearchPaperCitationsInput(TypedDict, closed=True):
    paper_id: papers.PaperId
    direction: NotRequired[Literal["citations", "references"]]
    limit: NotRequired[papers.Limit]
    offset: NotRequired[papers.Offset]
