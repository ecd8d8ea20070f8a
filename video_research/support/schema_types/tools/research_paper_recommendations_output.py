# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import NotRequired, TypedDict

from ..common import defs
from ..common import papers as papers_1


class ResearchPaperRecommendationsOutput(TypedDict):
    injections: NotRequired[defs.Injections]
    paper_id: str
    papers: list[papers_1.Paper]
    stored: int
