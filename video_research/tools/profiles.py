"""Which tools a session sees: toolsets, the default profile, VIDEO_RESEARCH_TOOLSETS and
the dynamic toolsets that turn more on at run time."""

from __future__ import annotations

from functools import cache

from video_research.config import ConfigError, Settings
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
    "documents": "Ingest local PDF, DOCX, PPTX, HTML, Markdown and text files and search them.",
    "catalog": "The channel's video catalog: search, add, import, remove.",
    "playlists": "Saved playlists of catalog videos.",
    "queue": "The live watch queue: status, add, advance, remove, clear.",
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


def lookup(name: str, settings: Settings) -> ToolSpec | None:
    """The spec of a tool a session starts with, or None when unknown or switched off."""
    if name not in base_names(settings):
        return None
    return TOOLS[name]


def reachable(name: str, settings: Settings) -> ToolSpec | None:
    """The spec of a tool a caller can reach at all: listed at the start, or one
    toolset_enable away when dynamic toolsets are on."""
    spec = lookup(name, settings)
    if spec is None and dynamic_toolsets(settings) and name in TOOLS:
        return TOOLS[name]
    return spec
