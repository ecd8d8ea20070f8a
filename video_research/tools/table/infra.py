"""The infra toolset: the analysis cache and the runtime model settings (admin)."""

from __future__ import annotations

from typing import Any

from video_research.tools.table.spec import ToolSpec


def _infra_cache_writes(arguments: dict[str, Any]) -> bool:
    return arguments.get("action", "stats") in ("clear", "context_clear")


def _infra_configure_writes(arguments: dict[str, Any]) -> bool:
    return any(
        arguments.get(name) is not None
        for name in ("preset", "model", "thinking_level", "temperature")
    )


SPECS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="infra_cache",
        handler="infra:infra_cache",
        toolset="infra",
        title="Analysis cache",
        description=(
            "Inspect or clear the analysis cache (Gemini results per content, tool, instruction "
            "and model) and the Gemini context caches (session videos, billed per hour).\n"
            "Requires admin. Clears are audited."
        ),
        role="admin",
        read_only=False,
        audited=True,
        audit_if=_infra_cache_writes,
        destructive=True,
        idempotent=True,
    ),
    ToolSpec(
        name="infra_configure",
        handler="infra:infra_configure",
        toolset="infra",
        title="Runtime configuration",
        description=(
            "Show or change the model preset, model, thinking level and temperature for later "
            "calls of this server process; with no arguments it only shows them. Requires admin."
        ),
        role="admin",
        read_only=False,
        audited=True,
        audit_if=_infra_configure_writes,
        destructive=False,
        idempotent=True,
    ),
)
