# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import Any, NotRequired

from typing_extensions import TypedDict

from ..common import defs


class ResearchPlanOutput(TypedDict, closed=True):
    injections: NotRequired[defs.Injections]
    topic: str
    scope: str
    available_agents: int
    phases: list[dict[str, Any]]
    task_decomposition: list[str]
    model_assignments: list[dict[str, Any]]
    success_criteria: NotRequired[list[str]]
    risks: NotRequired[list[str]]
    structured: bool
    plan_text: NotRequired[str]
