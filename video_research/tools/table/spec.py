"""One tool's entry in the dispatch table, and the table built from the areas' entries."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from video_research.support import contracts


@dataclass(frozen=True)
class ToolSpec:
    name: str
    handler: str
    """"module:function" under video_research.handlers (or a dotted absolute module),
    imported on first call."""
    toolset: str
    description: str
    title: str
    role: Literal["viewer", "blessed", "admin"] = "viewer"
    read_only: bool = True
    destructive: bool = False
    idempotent: bool = True
    open_world: bool = False
    audited: bool = False
    """Record every call in the audit log (writes to shared state)."""
    audit_if: Callable[[dict[str, Any]], bool] | None = None
    """For an audited tool that also reads: audit only calls for which this returns True
    (given the call's arguments as sent), so reads stay cheap and the log holds writes."""

    def audits(self, arguments: Any) -> bool:
        if not self.audited:
            return False
        if self.audit_if is None or not isinstance(arguments, dict):
            return True
        return self.audit_if(arguments)

    @property
    def summary(self) -> str:
        return self.description.strip().splitlines()[0]

    @property
    def input_schema(self) -> dict[str, Any]:
        return contracts.tool_schema(self.name, "input")

    @property
    def output_schema(self) -> dict[str, Any]:
        return contracts.tool_schema(self.name, "output")

    @property
    def input_path(self) -> str:
        return contracts.tool_schema_path(self.name, "input")

    @property
    def output_path(self) -> str:
        return contracts.tool_schema_path(self.name, "output")


def build_table(*specs: ToolSpec) -> dict[str, ToolSpec]:
    table: dict[str, ToolSpec] = {}
    for spec in specs:
        if spec.name in table:
            raise RuntimeError(f"tool {spec.name} is listed twice in the dispatch table")
        table[spec.name] = spec
    return table
