"""The Interactions API calls behind research_web*: through gemini.py's one client and retry policy.

- `start`: the Deep Research agent (GEMINI_DEEP_RESEARCH_AGENT) with `background=True`;
  it answers at once with the interaction's ID, and the research runs on Google's side
  for minutes (typically 5-20, dozens of searches).
- `fetch` / `cancel`: read or stop it by ID.
- `follow_up`: a model interaction (GEMINI_MODEL) continuing from the finished one via
  `previous_interaction_id`, so it sees the report without re-running the research.
- `read_report`: the report text of a finished interaction (the SDK's `output_text`, the
  last model output) and its sources: every `url_citation` annotation and URL-context
  result, one entry per URL.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from video_research.clients.gemini import client as gemini
from video_research.support.services import current_settings

if TYPE_CHECKING:
    from video_research.support.schema_types.common.deep_research import Source

REPORT_CHARS = 200_000
"""A report longer than this is cut (with a note): tool results must stay bounded."""


def _interactions() -> Any:
    return gemini.client().aio.interactions


async def start(prompt: str) -> Any:
    agent = current_settings().deep_research_agent

    async def call() -> Any:
        return await _interactions().create(agent=agent, input=prompt, background=True)

    return await gemini.call_with_retry(f"interactions.create({agent})", call)


async def fetch(interaction_id: str) -> Any:
    async def call() -> Any:
        return await _interactions().get(interaction_id)

    return await gemini.call_with_retry("interactions.get", call)


async def cancel(interaction_id: str) -> Any:
    async def call() -> Any:
        return await _interactions().cancel(interaction_id)

    return await gemini.call_with_retry("interactions.cancel", call)


async def follow_up(previous_interaction_id: str, question: str) -> Any:
    model = current_settings().default_model

    async def call() -> Any:
        return await _interactions().create(
            model=model, input=question, previous_interaction_id=previous_interaction_id
        )

    return await gemini.call_with_retry(f"interactions.create({model})", call)


def status(interaction: Any) -> str:
    return str(getattr(interaction, "status", None) or "unknown")


def _texts(interaction: Any) -> list[Any]:
    """The text blocks of the interaction's model outputs, in order."""
    blocks = []
    for step in getattr(interaction, "steps", None) or []:
        if getattr(step, "type", None) != "model_output":
            continue
        blocks += [
            c for c in getattr(step, "content", None) or [] if getattr(c, "type", None) == "text"
        ]
    return blocks


def read_report(interaction: Any) -> tuple[str, list[Source]]:
    """(report text, sources [{url, title}]) of a finished interaction."""
    blocks = _texts(interaction)
    text = getattr(interaction, "output_text", None) or "\n\n".join(
        b.text for b in blocks if b.text
    )
    if len(text) > REPORT_CHARS:
        text = text[:REPORT_CHARS] + "\n\n[report cut at 200,000 characters]"
    sources: dict[str, Source] = {}
    for block in blocks:
        for note in getattr(block, "annotations", None) or []:
            url = getattr(note, "url", None)
            if getattr(note, "type", None) == "url_citation" and url:
                sources.setdefault(url, {"url": url, "title": getattr(note, "title", None)})
    for step in getattr(interaction, "steps", None) or []:
        if getattr(step, "type", None) == "url_context_result":
            for result in getattr(step, "result", None) or []:
                url = getattr(result, "url", None)
                if url:
                    sources.setdefault(url, {"url": url, "title": None})
    return text, list(sources.values())


def usage(interaction: Any) -> dict[str, Any]:
    found = getattr(interaction, "usage", None)
    if found is None:
        return {}
    keys = ("total_input_tokens", "total_output_tokens", "total_thought_tokens", "total_tokens")
    return {k: getattr(found, k) for k in keys if isinstance(getattr(found, k, None), int)}


def failure_reason(interaction: Any) -> str | None:
    """Why a failed interaction failed, from its recorded errors."""
    errors = getattr(interaction, "errors", None) or []
    messages = [str(getattr(e, "message", None) or e) for e in errors]
    return "; ".join(m for m in messages if m) or None
