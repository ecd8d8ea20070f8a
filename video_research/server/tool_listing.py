"""The tool definitions `tools/list` publishes, fitted to a token budget.

A tool definition is paid for on every agent turn, so the whole list is held to
`ALL_TOOLS_BUDGET_TOKENS` (bytes/4 of the JSON `tools/list` result with every tool
enabled). Input schemas are published whole (schema_compaction.publish_input); output
schemas start at their full shape and, while the list is over budget, the largest one
steps down to its next leaner form (schema_compaction.output_levels). This runs over
whatever tools and schema files exist, so the budget keeps holding as tools are added:
what gives way is the detail of the largest output schemas, never an input contract.

One published form per tool, computed once per process over every tool in the
dispatch table, so a tool looks the same in every profile and every session.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import mcp_types as types

from video_research.server.schema_compaction import compact, output_levels, publish_input
from video_research.tools import dispatch

ALL_TOOLS_BUDGET_TOKENS = 16_000
"""Target for `tools/list` with every toolset enabled (tokens = bytes / 4)."""
DEFAULT_PROFILE_BUDGET_TOKENS = 8_000
"""Ceiling for the default profile's `tools/list`; asserted by the tests."""
ALL_TOOLS_CEILING_TOKENS = 22_000
"""Ceiling for `tools/list` with every toolset enabled; asserted by the tests."""


def _annotations(spec: dispatch.ToolSpec) -> types.ToolAnnotations | None:
    """The hints that differ from the spec's defaults (readOnly false, destructive true,
    idempotent false, openWorld true): a hint at its default says nothing a client does
    not already assume, so it is left out. Destructive and idempotent mean nothing for a
    read-only tool, so they are left out there too."""
    hints: dict[str, Any] = {}
    if spec.read_only:
        hints["read_only_hint"] = True
    else:
        if not spec.destructive:
            hints["destructive_hint"] = False
        if spec.idempotent:
            hints["idempotent_hint"] = True
    if not spec.open_world:
        hints["open_world_hint"] = False
    return types.ToolAnnotations(**hints) if hints else None


def _definition(
    spec: dispatch.ToolSpec, input_schema: dict[str, Any], output_schema: dict[str, Any]
) -> types.Tool:
    return types.Tool(
        name=spec.name,
        title=spec.title,
        description=spec.description,
        input_schema=input_schema,
        output_schema=output_schema,
        annotations=_annotations(spec),
    )


def wire_size(tools: list[types.Tool]) -> int:
    """Bytes of the JSON `tools/list` result carrying `tools`, as the SDK writes it."""
    return len(
        types.ListToolsResult(tools=tools)
        .model_dump_json(by_alias=True, exclude_none=True)
        .encode()
    )


def tokens(tools: list[types.Tool]) -> int:
    return wire_size(tools) // 4


@cache
def _published(names: tuple[str, ...], budget_bytes: int) -> dict[str, types.Tool]:
    specs = [dispatch.TOOLS[name] for name in names]
    inputs: dict[str, dict[str, Any]] = {}
    levels: dict[str, list[dict[str, Any]]] = {}
    for spec in specs:
        said = {spec.description}
        inputs[spec.name] = publish_input(spec.input_schema, said)
        levels[spec.name] = output_levels(spec.output_schema, said)
    chosen = dict.fromkeys(names, 0)
    sizes = {name: [len(compact(form)) for form in levels[name]] for name in names}
    empty = {"type": "object"}
    base = wire_size([_definition(spec, inputs[spec.name], empty) for spec in specs])
    total = base + sum(sizes[name][0] - len(compact(empty)) for name in names)
    while total > budget_bytes:
        leaner = [name for name in names if chosen[name] + 1 < len(sizes[name])]
        if not leaner:
            break
        largest = max(leaner, key=lambda name: sizes[name][chosen[name]])
        step = chosen[largest]
        total -= sizes[largest][step] - sizes[largest][step + 1]
        chosen[largest] = step + 1
    return {
        spec.name: _definition(spec, inputs[spec.name], levels[spec.name][chosen[spec.name]])
        for spec in specs
    }


def published_tools(budget_tokens: int = ALL_TOOLS_BUDGET_TOKENS) -> dict[str, types.Tool]:
    """Every tool of the dispatch table as `tools/list` shows it, by name."""
    return _published(tuple(dispatch.TOOLS), budget_tokens * 4)


def definitions(specs: list[dispatch.ToolSpec]) -> list[types.Tool]:
    published = published_tools()
    return [published[spec.name] for spec in specs]
