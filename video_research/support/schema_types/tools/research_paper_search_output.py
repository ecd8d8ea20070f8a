# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import NotRequired, TypedDict

from ..common import defs
from ..common import papers as papers_1


class ResearchPaperSearchOutput(TypedDict):
    injections: NotRequired[defs.Injections]
    query: str
    papers: list[papers_1.Paper]
    offset: int
    next_offset: int | None
    total: int | None
    stored: int
