"""Which tools a client sees and reaches: toolsets, the default profile,
VIDEO_RESEARCH_TOOLSETS, the discovery tools, and toolsets turned on and off per session.

Every tool belongs to one toolset (`ToolSpec.toolset`). `tools/list` shows the tools
VIDEO_RESEARCH_TOOLSETS names (by default the default profile, DEFAULT_PROFILE) plus, when
dynamic toolsets are on, the meta-tools: tool_search / tool_describe / tool_call, which
find, describe and run any tool the server serves with no state between requests, and
toolset_list / toolset_enable / toolset_disable.

MCP 2026-07-28 has no sessions: every request stands alone, so a toolset turned on by one
request would be forgotten by the next. There the list is the same for every request and
tool_call is how an unlisted tool runs. Handshake-era sessions (2025-11-25 and older) keep
state: a client turns a toolset on or off for its own session only (stdio: the one
session; HTTP and SSE: each client session); the server then sends
`notifications/tools/list_changed` and the tools appear or go.

A tool called directly that the list does not show answers as a tool error whose hint is
the call that reaches it from the client at hand (how_to_call).
"""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any

from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from video_research.config import ConfigError, Settings
from video_research.handlers.context import ToolsetState
from video_research.support.errors import ErrorCategory, ToolError, ToolFailure
from video_research.tools import session_state
from video_research.tools.table import TOOLS, ToolSpec

if TYPE_CHECKING:
    from video_research.support.schema_types.tools import ToolCallOutput, ToolDescribeOutput
    from video_research.support.schema_types.tools.tool_search_output import Tool
    from video_research.support.schema_types.tools.toolset_enable_output import AddedItem
    from video_research.support.schema_types.tools.toolset_list_output import Toolset

META_TOOLSET = "toolsets"
"""The meta-tools that turn toolsets on and off; never itself turned off."""

TOOLSET_DESCRIPTIONS: dict[str, str] = {
    "video": "Gemini video analysis: one-shot, multi-turn sessions, whole folders of files.",
    "youtube": "YouTube Data API (no Gemini): video metadata and playlists.",
    "research": "Evidence-tiered deep research, research plans and claim assessment.",
    "content": "Analyze documents, web pages or text; extract data of a given JSON Schema.",
    "search": "Web search with Google Search grounding and sources.",
    "knowledge": "Search, relate, add to and re-embed the knowledge base every result is written to.",
    "transcripts": "Index YouTube or local transcripts; search, list, read and delete them.",
    "media": "Local videos seen offline: frames as images, contact sheets, scene cuts, on-screen text (OCR).",
    "documents": "Ingest local PDF, DOCX, PPTX, HTML, Markdown and text files and search them.",
    "catalog": "The channel's video catalog: search, add, import, remove.",
    "playlists": "Saved playlists of catalog videos.",
    "queue": "The live watch queue: status, add, advance, move, remove, clear.",
    "marathons": "Marathons: saved playlists scheduled back to back.",
    "admin": "Audit log and the chat-session registry (admin).",
    "infra": "Analysis cache and runtime model settings (admin).",
    "papers": "Scholarly papers from Semantic Scholar: search, details, citations, recommendations, authors.",
    "deepresearch": "Gemini Deep Research agent in the background: start, poll, follow up, cancel.",
    META_TOOLSET: "Find, describe and call any tool; list toolsets, turn them on or off per session.",
}
"""One line per toolset, for toolset_list (a toolset missing here is described by its tools)."""

DEFAULT_PROFILE: tuple[str, ...] = (
    "video_analyze",
    "video_create_session",
    "video_continue_session",
    "video_metadata",
    "video_playlist",
    "transcript_get",
    "semantic_search_transcripts",
    "web_search",
    "content_analyze",
    "research_deep",
    "knowledge_search",
    "knowledge_ask",
)
"""The tools listed when VIDEO_RESEARCH_TOOLSETS is unset (or `default`): what one person
researching videos reaches for first. Everything else is one tool_call away (or one
toolset_enable, in a handshake-era session)."""


def toolset_names() -> list[str]:
    """Every toolset a client can turn on or off (the meta-toolset excluded)."""
    return sorted({spec.toolset for spec in TOOLS.values()} - {META_TOOLSET})


def toolset_tools(toolset: str) -> list[str]:
    return [name for name, spec in TOOLS.items() if spec.toolset == toolset]


def toolset_description(toolset: str) -> str:
    return TOOLSET_DESCRIPTIONS.get(toolset) or "Tools: " + ", ".join(toolset_tools(toolset)) + "."


@cache
def _enabled_names(toolsets: tuple[str, ...]) -> frozenset[str]:
    """The tools VIDEO_RESEARCH_TOOLSETS names: toolsets, `default` (the default profile)
    or `all` (every tool but the meta-tools, which dynamic_toolsets adds)."""
    wanted = set(toolsets)
    if "all" in wanted:
        return frozenset(name for name, spec in TOOLS.items() if spec.toolset != META_TOOLSET)
    unknown = wanted - set(toolset_names()) - {"default"}
    if unknown:
        raise ConfigError(
            f"VIDEO_RESEARCH_TOOLSETS names unknown toolset(s): {', '.join(sorted(unknown))}. "
            f"Known: default, all, {', '.join(toolset_names())}."
        )
    names = {name for name, spec in TOOLS.items() if spec.toolset in wanted}
    if "default" in wanted:
        names.update(name for name in DEFAULT_PROFILE if name in TOOLS)
    return frozenset(names)


def dynamic_toolsets(settings: Settings) -> bool:
    """Whether the toolset meta-tools are listed (VIDEO_RESEARCH_DYNAMIC_TOOLSETS).

    `auto` means: with the default profile, and never when every tool is listed already.
    """
    if "all" in settings.toolsets:
        return settings.dynamic_toolsets == "on"
    if settings.dynamic_toolsets == "auto":
        return "default" in settings.toolsets
    return settings.dynamic_toolsets == "on"


def base_names(settings: Settings) -> frozenset[str]:
    """The tools every session starts with: VIDEO_RESEARCH_TOOLSETS, plus the meta-tools
    when dynamic toolsets are on."""
    names = _enabled_names(tuple(settings.toolsets))
    if dynamic_toolsets(settings):
        names = names | frozenset(toolset_tools(META_TOOLSET))
    return names


def enabled_tools(settings: Settings) -> list[ToolSpec]:
    """The tools a session lists at its start, in table order."""
    names = base_names(settings)
    return [spec for name, spec in TOOLS.items() if name in names]


# ----------------------------------------------------------------------------- per session

_SLOT = "video_research.tools.toolsets"


@dataclass
class SessionToolsets:
    """What this session changed: toolsets turned on, toolsets turned off."""

    enabled: set[str] = field(default_factory=set)
    disabled: set[str] = field(default_factory=set)


def of(session: Any) -> SessionToolsets:
    return session_state.slot(session, _SLOT, SessionToolsets)


def is_stateless(session: Any) -> bool:
    """Whether `session` serves one request of a revision without sessions (2026-07-28):
    nothing it is told outlives the request."""
    return session_state.protocol_version(session) in MODERN_PROTOCOL_VERSIONS


@cache
def _visible(
    base: frozenset[str], enabled: frozenset[str], disabled: frozenset[str]
) -> frozenset[str]:
    names = set(base)
    for toolset in enabled:
        names.update(toolset_tools(toolset))
    for toolset in disabled:
        names.difference_update(toolset_tools(toolset))
    return frozenset(names)


def visible_names(settings: Settings, toolsets: SessionToolsets) -> frozenset[str]:
    return _visible(base_names(settings), frozenset(toolsets.enabled), frozenset(toolsets.disabled))


def visible_specs(settings: Settings, toolsets: SessionToolsets) -> list[ToolSpec]:
    """The tools this session lists, in table order."""
    names = visible_names(settings, toolsets)
    return [spec for name, spec in TOOLS.items() if name in names]


def lookup(
    name: str, settings: Settings, toolsets: SessionToolsets | None = None
) -> ToolSpec | None:
    """The spec of a tool this session lists, or None when unknown or switched off.

    Without `toolsets`: of the tools every session starts with (none turned on or off)."""
    if name in visible_names(settings, toolsets or SessionToolsets()):
        return TOOLS[name]
    return None


def reachable(name: str, settings: Settings) -> ToolSpec | None:
    """The spec of a tool a caller can reach at all: listed at the start, or one
    toolset_enable away when dynamic toolsets are on."""
    spec = lookup(name, settings)
    if spec is None and dynamic_toolsets(settings) and name in TOOLS:
        return TOOLS[name]
    return spec


def similar_tools(name: str, limit: int = 3) -> list[str]:
    """Tools of the whole table (not just this session's list) whose names look like
    `name`, best first: a typo, or the words in another order (`search_transcripts`).
    Only those about as close as the best are kept, so a near miss is not buried."""

    def words(text: str) -> str:
        return "_".join(sorted(text.lower().replace("-", "_").split("_")))

    wanted = name.lower()
    scored = []
    for tool in TOOLS:
        score = max(
            difflib.SequenceMatcher(None, wanted, tool).ratio(),
            difflib.SequenceMatcher(None, words(name), words(tool)).ratio(),
        )
        if score >= 0.6:
            scored.append((score, tool))
    scored.sort(key=lambda pair: (-pair[0], pair[1]))
    best = scored[0][0] if scored else 0.0
    return [tool for score, tool in scored[:limit] if score >= best - 0.08]


def how_to_call(
    name: str,
    settings: Settings,
    toolsets: SessionToolsets | None = None,
    *,
    stateless: bool = False,
) -> str:
    """The call that runs tool `name` from the client at hand: itself when listed; through
    tool_call when the server serves it (the only way without sessions), or toolset_enable
    for a handshake-era session; the setting to change when the server does not serve it."""
    spec = TOOLS[name]
    if name in visible_names(settings, toolsets or SessionToolsets()):
        return f"call {name} directly (it is listed)"
    if reachable(name, settings) is None:
        return (
            f"this server does not serve toolset '{spec.toolset}': add {spec.toolset} to "
            "VIDEO_RESEARCH_TOOLSETS, or set it to all, and restart the server"
        )
    via = f'tool_call {{"name": "{name}", "arguments": {{...}}}}'
    if stateless:
        return f'call it through {via} (tool_describe {{"name": "{name}"}} gives its schemas)'
    return (
        f"call it through {via}, or list its toolset for this session with "
        f'toolset_enable {{"toolset": "{spec.toolset}"}}'
    )


def how_to_reach(
    toolset: str,
    tools: list[str],
    settings: Settings,
    toolsets: SessionToolsets | None = None,
    *,
    stateless: bool = False,
) -> str:
    """Whether `tools` (of `toolset`) are listed here, and if not what reaches them (a
    toolset may be partly on: the default profile lists some of its tools)."""
    hidden = [
        tool for tool in tools if tool not in visible_names(settings, toolsets or SessionToolsets())
    ]
    if not hidden:
        return f"toolset '{toolset}', listed"
    return f"toolset '{toolset}', not listed here: " + how_to_call(
        hidden[0], settings, toolsets, stateless=stateless
    )


def unknown_tool_message(
    name: str,
    settings: Settings,
    toolsets: SessionToolsets | None = None,
    *,
    stateless: bool = False,
) -> str:
    """Why a tool cannot be called here, and what to do about it."""
    spec = TOOLS.get(name)
    if spec is None:
        similar = similar_tools(name)
        if similar:
            by_toolset: dict[str, list[str]] = {}
            for tool in similar:
                by_toolset.setdefault(TOOLS[tool].toolset, []).append(tool)
            options = "; or ".join(
                f"{' or '.join(map(repr, tools))} "
                f"({how_to_reach(toolset, tools, settings, toolsets, stateless=stateless)})"
                for toolset, tools in by_toolset.items()
            )
            return f"Unknown tool: {name!r}. Did you mean {options}?"
        finder = "tool_search or " if dynamic_toolsets(settings) else ""
        return (
            f"Unknown tool: {name!r}. This server has {len(TOOLS)} tools in "
            f"{len(toolset_names())} toolsets: {finder}`video-research tools --all` finds them, "
            "tools/list shows the ones listed here."
        )
    where = "this session has off" if not stateless else "tools/list does not show"
    if reachable(name, settings) is None:
        where = "this server does not list"
    return (
        f"Tool {name!r} is in toolset '{spec.toolset}', which {where}: "
        + how_to_call(name, settings, toolsets, stateless=stateless)
        + "."
    )


def off_tool_error(
    name: str,
    settings: Settings,
    toolsets: SessionToolsets | None = None,
    *,
    stateless: bool = False,
) -> ToolError:
    """The tool result for a direct call of a tool the list here does not show: a
    `not_found` ToolError whose hint is the call that works for this client."""
    spec = TOOLS[name]
    served = reachable(name, settings) is not None
    reach = how_to_call(name, settings, toolsets, stateless=stateless)
    details: dict[str, Any] = {"tool": name, "toolset": spec.toolset, "served": served}
    if served:
        details["call_with"] = {"name": "tool_call", "arguments": {"name": name, "arguments": {}}}
    return ToolFailure(
        ErrorCategory.NOT_FOUND,
        unknown_tool_message(name, settings, toolsets, stateless=stateless),
        hint=reach[0].upper() + reach[1:] + ".",
        details=details,
    ).to_tool_error()


def state_of(toolset: str, visible: frozenset[str]) -> ToolsetState:
    tools = toolset_tools(toolset)
    shown = sum(1 for name in tools if name in visible)
    if shown == len(tools):
        return "on"
    return "off" if shown == 0 else "partly"


def overview(settings: Settings, toolsets: SessionToolsets) -> list[Toolset]:
    """Every toolset a client can turn on or off: name, one line, state, tools."""
    visible = visible_names(settings, toolsets)
    return [
        {
            "name": name,
            "description": toolset_description(name),
            "state": state_of(name, visible),
            "tools": toolset_tools(name),
        }
        for name in toolset_names()
    ]


def check_name(toolset: str) -> None:
    """invalid_input, with every toolset listed, for a name that is not a toolset."""
    from video_research.support.errors import invalid_input

    known = toolset_names()
    if toolset not in known:
        raise invalid_input(
            f"Unknown toolset {toolset!r}. Toolsets: {', '.join(known)}.",
            hint="Call toolset_list for what each toolset holds.",
            toolsets=known,
        )


def enable(settings: Settings, toolsets: SessionToolsets, toolset: str) -> list[str]:
    """Turn `toolset` on for this session; returns the tools it added to the list."""
    check_name(toolset)
    before = visible_names(settings, toolsets)
    toolsets.disabled.discard(toolset)
    toolsets.enabled.add(toolset)
    after = visible_names(settings, toolsets)
    return [name for name in TOOLS if name in after and name not in before]


def disable(settings: Settings, toolsets: SessionToolsets, toolset: str) -> list[str]:
    """Turn `toolset` off for this session; returns the tools it took off the list."""
    check_name(toolset)
    before = visible_names(settings, toolsets)
    toolsets.enabled.discard(toolset)
    toolsets.disabled.add(toolset)
    after = visible_names(settings, toolsets)
    return [name for name in TOOLS if name in before and name not in after]


@dataclass
class SessionControl:
    """This client's tools, as the meta-tools see them.

    The dispatcher hands one to every call (`ctx.toolsets`), so the meta-tools' handlers
    work on the table without importing the layer that holds it. `stateless` is set on a
    revision without sessions (2026-07-28), where toolset_enable cannot keep anything;
    `runner` is the dispatcher's own call path, which tool_call runs the named tool through.
    """

    settings: Settings
    toolsets: SessionToolsets
    stateless: bool = False
    runner: Callable[[ToolSpec, Any, Any], Awaitable[Any]] | None = None

    def overview(self) -> list[Toolset]:
        return overview(self.settings, self.toolsets)

    def listed(self) -> int:
        """How many tools this session lists."""
        return len(visible_names(self.settings, self.toolsets))

    def state_of(self, toolset: str) -> ToolsetState:
        return state_of(toolset, visible_names(self.settings, self.toolsets))

    def _keeps_state(self, tool: str) -> None:
        """Refuse toolset_enable / toolset_disable where nothing outlives the request: the
        answer would say "on" and the next request would have forgotten it (a loop)."""
        if self.stateless:
            raise ToolFailure(
                ErrorCategory.INVALID_INPUT,
                f"{tool} changes a session's list, and this client speaks MCP 2026-07-28, "
                "which has no sessions: the next request would not know the change.",
                hint=(
                    "Find the tool with tool_search and run it with tool_call "
                    '{"name": ..., "arguments": {...}} (tool_describe gives its schemas): that '
                    "works in one request. To list a toolset for every client, add it to "
                    "VIDEO_RESEARCH_TOOLSETS and restart the server."
                ),
                details={"stateless": True},
            )

    def enable(self, toolset: str) -> list[AddedItem]:
        """Turn `toolset` on; the tools it added, each with its one-line summary."""
        self._keeps_state("toolset_enable")
        added = enable(self.settings, self.toolsets, toolset)
        return [{"name": name, "summary": TOOLS[name].summary} for name in added]

    def toolset_of(self, tool: str) -> tuple[str | None, bool]:
        """The toolset holding `tool` (None when there is no such tool), and whether it can
        be called directly here: what a note telling the user to run the tool needs.
        toolset_enable counts as callable only where a session keeps what it turns on."""
        spec = TOOLS.get(tool)
        if spec is None:
            return None, False
        if tool in ("toolset_enable", "toolset_disable") and self.stateless:
            return spec.toolset, False
        return spec.toolset, tool in visible_names(self.settings, self.toolsets)

    def disable(self, toolset: str) -> list[str]:
        """Turn `toolset` off; the names of the tools it took off the list."""
        self._keeps_state("toolset_disable")
        return disable(self.settings, self.toolsets, toolset)

    def callable_by(self, caller: Any, names: tuple[str, ...]) -> list[str]:
        """Those of `names` this session lists and `caller`'s role may call: the actions a
        view may offer this person (a control it would refuse is not shown)."""
        listed = visible_names(self.settings, self.toolsets)
        return [
            name
            for name in names
            if name in listed and name in TOOLS and caller.has_role(TOOLS[name].role)
        ]

    # ------------------------------------------------------------- discovery

    def served(self) -> list[str]:
        """Every tool this server serves to a caller (listed or one tool_call away)."""
        return [name for name in TOOLS if reachable(name, self.settings) is not None]

    def search(self, query: str, limit: int) -> list[Tool]:
        from video_research.tools import catalogue

        visible = visible_names(self.settings, self.toolsets)
        return [
            {
                "name": name,
                "toolset": TOOLS[name].toolset,
                "summary": TOOLS[name].summary,
                "listed": name in visible,
            }
            for name in catalogue.search(query, self._searchable(), limit, _toolset_lines())
        ]

    def _searchable(self) -> tuple[str, ...]:
        """The served tools but the meta-tools, which every list here shows already."""
        return tuple(name for name in self.served() if TOOLS[name].toolset != META_TOOLSET)

    def describe(self, name: str) -> ToolDescribeOutput:
        spec = self._served_spec(name)
        return {
            "name": spec.name,
            "title": spec.title,
            "description": spec.description,
            "toolset": spec.toolset,
            "role": spec.role,
            "listed": name in visible_names(self.settings, self.toolsets),
            "annotations": {
                "read_only": spec.read_only,
                "destructive": spec.destructive,
                "idempotent": spec.idempotent,
                "open_world": spec.open_world,
            },
            "input_schema": _published_contract(spec.input_schema),
            "output_schema": _published_contract(spec.output_schema),
            "how_to_call": how_to_call(
                name, self.settings, self.toolsets, stateless=self.stateless
            ),
        }

    async def call(self, name: str, arguments: dict[str, Any], ctx: Any) -> ToolCallOutput:
        """Run tool `name` with `arguments` as if it had been called directly: its own
        roles, contracts, audit and result (images included, attached to `ctx`)."""
        spec = self._served_spec(name)
        if spec.toolset == META_TOOLSET:
            raise ToolFailure(
                ErrorCategory.INVALID_INPUT,
                f"tool_call runs the other tools; call {name} directly.",
                hint=f"{name} is listed: call it by its own name.",
            )
        assert self.runner is not None, "SessionControl.call needs the dispatcher's runner"
        inner = dataclasses.replace(ctx, tool=name)
        inner.toolsets = self
        outcome = await self.runner(spec, arguments, inner)
        if outcome.error is not None:
            raise _Relayed(outcome.error)
        ctx.images.extend(outcome.images)
        # Any tool's result, checked against its own contract; every one is an object
        # that may carry `injections`, which is all tool_call's contract says.
        result: ToolCallOutput = outcome.result
        return result

    def _served_spec(self, name: str) -> ToolSpec:
        spec = reachable(name, self.settings) if name in TOOLS else None
        if spec is not None:
            return spec
        if name in TOOLS:
            failure = off_tool_error(name, self.settings, self.toolsets, stateless=self.stateless)
            raise _Relayed(failure)
        raise ToolFailure(
            ErrorCategory.NOT_FOUND,
            unknown_tool_message(name, self.settings, self.toolsets, stateless=self.stateless),
            hint="Find the tool with tool_search; names are as tool_search answers them.",
            details={"tool": name},
        )


class _Relayed(ToolFailure):
    """A ToolError answered as it stands (the called tool's own, through tool_call)."""

    def __init__(self, error: ToolError) -> None:
        super().__init__(
            ErrorCategory(error.category),
            error.error,
            hint=error.hint,
            retryable=error.retryable,
            retry_after_seconds=error.retry_after_seconds,
            details=error.details,
        )


@cache
def _toolset_lines() -> tuple[tuple[str, str], ...]:
    return tuple((name, toolset_description(name)) for name in [*toolset_names(), META_TOOLSET])


def _published_contract(schema: dict[str, Any]) -> dict[str, Any]:
    """A contract file as a client reads it: without the file's own `$schema`, `$id` and
    `title` (the tool's name says which it is)."""
    return {k: v for k, v in schema.items() if k not in ("$schema", "$id", "title")}
