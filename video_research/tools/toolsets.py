"""Which tools a session sees: toolsets, the default profile, VIDEO_RESEARCH_TOOLSETS, and
toolsets turned on and off per MCP session.

Every tool belongs to one toolset (`ToolSpec.toolset`). A session starts with the tools
VIDEO_RESEARCH_TOOLSETS names (by default the default profile, DEFAULT_PROFILE) plus, when
dynamic toolsets are on, the meta-tools toolset_list / toolset_enable / toolset_disable.
A client turns a toolset on or off for its own session only (stdio: the one session;
HTTP and SSE: each client session); the server then sends
`notifications/tools/list_changed` and the tools appear or go.

A tool the session does not list cannot be called: the answer names the toolset that
holds it, so an agent knows what to turn on.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from video_research.config import ConfigError, Settings
from video_research.tools import session_state
from video_research.tools.table import TOOLS, ToolSpec

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
    META_TOOLSET: "List toolsets and turn them on or off for this session.",
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
researching videos reaches for first. Everything else is one toolset_enable away."""


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


def how_to_reach(
    toolset: str, tools: list[str], settings: Settings, toolsets: SessionToolsets | None = None
) -> str:
    """Whether `tools` (of `toolset`) are listed in this session, and if not what makes
    them so (a toolset may be partly on: the default profile lists some of its tools)."""
    if all(tool in visible_names(settings, toolsets or SessionToolsets()) for tool in tools):
        return f"toolset '{toolset}', listed"
    if dynamic_toolsets(settings):
        return (
            f"toolset '{toolset}', not listed in this session: turn it on with "
            f'toolset_enable {{"toolset": "{toolset}"}}'
        )
    return (
        f"toolset '{toolset}', which this server does not serve: add {toolset} to "
        "VIDEO_RESEARCH_TOOLSETS, or set it to all, and restart"
    )


def unknown_tool_message(
    name: str, settings: Settings, toolsets: SessionToolsets | None = None
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
                f"({how_to_reach(toolset, tools, settings, toolsets)})"
                for toolset, tools in by_toolset.items()
            )
            return f"Unknown tool: {name!r}. Did you mean {options}?"
        return (
            f"Unknown tool: {name!r}. This server has {len(TOOLS)} tools in "
            f"{len(toolset_names())} toolsets: `video-research tools --all` or toolset_list "
            "shows them all, tools/list the ones this session has on."
        )
    if dynamic_toolsets(settings):
        return (
            f"Tool {name!r} is in toolset '{spec.toolset}', which this session has off. "
            f'Turn it on with toolset_enable {{"toolset": "{spec.toolset}"}}.'
        )
    return (
        f"Tool {name!r} is in toolset '{spec.toolset}', which this server does not list "
        f"(add {spec.toolset} to VIDEO_RESEARCH_TOOLSETS, or set it to all, and restart)."
    )


def state_of(toolset: str, visible: frozenset[str]) -> str:
    tools = toolset_tools(toolset)
    shown = sum(1 for name in tools if name in visible)
    if shown == len(tools):
        return "on"
    return "off" if shown == 0 else "partly"


def overview(settings: Settings, toolsets: SessionToolsets) -> list[dict[str, Any]]:
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
    """This session's toolsets, as the toolset meta-tools see them.

    The dispatcher hands one to every call (`ctx.toolsets`), so the meta-tools' handlers
    work on the table without importing the layer that holds it.
    """

    settings: Settings
    toolsets: SessionToolsets

    def overview(self) -> list[dict[str, Any]]:
        return overview(self.settings, self.toolsets)

    def listed(self) -> int:
        """How many tools this session lists."""
        return len(visible_names(self.settings, self.toolsets))

    def state_of(self, toolset: str) -> str:
        return state_of(toolset, visible_names(self.settings, self.toolsets))

    def enable(self, toolset: str) -> list[dict[str, str]]:
        """Turn `toolset` on; the tools it added, each with its one-line summary."""
        added = enable(self.settings, self.toolsets, toolset)
        return [{"name": name, "summary": TOOLS[name].summary} for name in added]

    def toolset_of(self, tool: str) -> tuple[str | None, bool]:
        """The toolset holding `tool` (None when there is no such tool), and whether this
        session lists it: what a note telling the user to run the tool needs."""
        spec = TOOLS.get(tool)
        if spec is None:
            return None, False
        return spec.toolset, tool in visible_names(self.settings, self.toolsets)

    def disable(self, toolset: str) -> list[str]:
        """Turn `toolset` off; the names of the tools it took off the list."""
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
