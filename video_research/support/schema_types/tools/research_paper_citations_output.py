# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import NotRequired, TypedDict

from ..common import defs, papers


class Item(TypedDict):
    paper: papers.Paper
    contexts: list[str]
    intents: list[str]
    is_influential: bool


class ResearchPaperCitationsOutput(TypedDict):
    injections: NotRequired[defs.Injections]
    paper_id: str
    direction: str
    items: list[Item]
    offset: int
    next_offset: int | None
    stored: int
