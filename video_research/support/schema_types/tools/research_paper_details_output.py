# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import Any, NotRequired

from ..common import defs
from ..common.papers import Paper


class ResearchPaperDetailsOutput(Paper):
    injections: NotRequired[defs.Injections]
    tldr: str | None
    bibtex: str | None
    external_ids: dict[str, Any]
    journal: NotRequired[dict[str, Any] | None]
    stored: int
