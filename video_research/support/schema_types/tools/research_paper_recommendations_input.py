# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import Literal, NotRequired

from typing_extensions import TypedDict

from ..common import papers


class ResearchPaperRecommendationsInput(TypedDict, closed=True):
    paper_id: papers.PaperId
    limit: NotRequired[papers.Limit]
    pool: NotRequired[Literal["recent", "all-cs"]]
