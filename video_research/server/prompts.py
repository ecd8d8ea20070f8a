"""MCP prompts: ready-made workflows a user can pick in their client.

Each prompt is one user message that walks the model through the tools in the right
order, so "queue a horror marathon for Friday" or "research this video" works the same
way every time. Arguments are strings (MCP prompts take no other type); the ones named
category, playlist_id and marathon_id are completed by completions.py.

(Named mcp_prompts because video_research/clients/gemini/templates/ holds the Gemini prompt templates.)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import mcp_types as types
from mcp.shared.exceptions import MCPError


@dataclass(frozen=True)
class PromptSpec:
    name: str
    title: str
    description: str
    arguments: tuple[types.PromptArgument, ...]
    render: Callable[[dict[str, str]], str]

    def prompt(self) -> types.Prompt:
        return types.Prompt(
            name=self.name,
            title=self.title,
            description=self.description,
            arguments=list(self.arguments),
        )


def _arg(name: str, description: str, *, required: bool = False) -> types.PromptArgument:
    return types.PromptArgument(name=name, description=description, required=required)


def _themed_marathon(args: dict[str, str]) -> str:
    theme = args["theme"]
    category = args.get("category")
    starts_at = args.get("starts_at")
    hours = args.get("hours")
    find = (
        f'catalog_search(categories=["{category}"], q="{theme}")'
        if category
        else f'catalog_search(q="{theme}"), and catalog_categories() for a matching category'
    )
    length = f" of about {hours} hours" if hours else ""
    when = (
        f"Schedule it with marathon_create(starts_at={starts_at!r}, ...) and report its computed end time."
        if starts_at
        else "If I gave no start time, ask me whether to schedule it (marathon_create) or queue it now."
    )
    return (
        f"Put together a {theme!r} marathon{length} for the channel.\n\n"
        f"1. Find candidates: {find}. Page with offset while total says there are more.\n"
        "2. Pick videos that fit the theme, in a sensible viewing order; use duration_seconds to "
        "hit the length (videos without a duration count as unknown, say so).\n"
        f'3. Save them: playlist_create(name="{theme} marathon", video_ids=[...]). If the name is '
        "taken (conflict), look at that playlist with playlist_get and ask me whether to reuse it.\n"
        f"4. {when}\n"
        '5. To play it now, queue_apply_playlist(playlist_id=..., mode="append"); never use '
        "hard_replace unless I ask for it. Then read queue://current (or queue_status) and tell "
        "me what plays next and the total running time.\n"
        "If a tool answers forbidden, tell me which role it needs instead of retrying."
    )


def _research_video(args: dict[str, str]) -> str:
    url = args["url"]
    focus = args.get("focus") or "what the video claims and how well those claims hold up"
    return (
        f"Research this video: {url}\n\nFocus: {focus}.\n\n"
        f"1. video_metadata(url={url!r}): title, channel, length, publication date (it also "
        "adds the video to the catalog).\n"
        f"2. video_analyze(url={url!r}, instruction=...) with an instruction about the focus; "
        "keep the timestamps.\n"
        "3. knowledge_search for what we already know about the topic, so you do not repeat it.\n"
        "4. For the main claims, research_deep or research_assess_evidence with the sources you "
        "found; keep the evidence tiers (CONFIRMED ... UNKNOWN) as the tools give them.\n"
        "5. Answer with a short summary, the claims with their tiers and timestamps, and the "
        "open questions. Cite sources by URL."
    )


def _announce_marathon(args: dict[str, str]) -> str:
    marathon_id = args["marathon_id"]
    return (
        f"Write a short chat announcement for marathon {marathon_id}.\n\n"
        f"Call marathon_get(marathon_id={marathon_id!r}) for its schedule, and playlist_get for "
        "each playlist if you need the titles. Give the start time, each block's start, the end "
        "time and a one-line teaser per block. Mention if some durations are unknown (the end "
        "time is then a lower bound). Keep it under 8 lines."
    )


PROMPTS: dict[str, PromptSpec] = {
    spec.name: spec
    for spec in (
        PromptSpec(
            name="queue_themed_marathon",
            title="Queue a themed marathon",
            description=(
                "Find catalog videos for a theme, save them as a playlist, schedule or queue them."
            ),
            arguments=(
                _arg("theme", "What the marathon is about, e.g. 'Friday the 13th'", required=True),
                _arg("category", "A catalog category to draw from (see catalog://categories)"),
                _arg("starts_at", "When it starts, RFC 3339, e.g. 2025-10-31T20:00:00Z"),
                _arg("hours", "Roughly how long it should run, in hours"),
            ),
            render=_themed_marathon,
        ),
        PromptSpec(
            name="research_video",
            title="Research this video",
            description=(
                "Metadata, a Gemini analysis, what the knowledge base already holds, and the "
                "video's claims checked with evidence tiers."
            ),
            arguments=(
                _arg("url", "A YouTube URL", required=True),
                _arg("focus", "What to find out (default: its claims and how well they hold up)"),
            ),
            render=_research_video,
        ),
        PromptSpec(
            name="announce_marathon",
            title="Announce a marathon",
            description="A short chat announcement of a scheduled marathon's blocks and times.",
            arguments=(_arg("marathon_id", "The marathon (see marathon_list)", required=True),),
            render=_announce_marathon,
        ),
    )
}


async def list_prompts(ctx: Any, params: Any) -> types.ListPromptsResult:
    return types.ListPromptsResult(prompts=[spec.prompt() for spec in PROMPTS.values()])


async def get_prompt(ctx: Any, params: types.GetPromptRequestParams) -> types.GetPromptResult:
    spec = PROMPTS.get(params.name)
    if spec is None:
        raise MCPError(
            types.INVALID_PARAMS,
            f"Unknown prompt: {params.name!r}. Known: {', '.join(PROMPTS)}.",
        )
    args = {k: v.strip() for k, v in (params.arguments or {}).items() if v and v.strip()}
    missing = [a.name for a in spec.arguments if a.required and a.name not in args]
    if missing:
        raise MCPError(
            types.INVALID_PARAMS,
            f"Prompt {spec.name} needs the argument(s): {', '.join(missing)}.",
        )
    return types.GetPromptResult(
        description=spec.description,
        messages=[
            types.PromptMessage(
                role="user", content=types.TextContent(type="text", text=spec.render(args))
            )
        ],
    )
