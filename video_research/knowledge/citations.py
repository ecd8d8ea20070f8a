"""How to cite a stored object: "Talk title at 12:34", "report.pdf, p. 3", "Lo et al. (2020)".

`cite(collection, properties)` gives any object of any collection a kind, a label a
reader recognises and, where there is one, a link that opens the source at the right
place (a transcript chunk's timestamp URL, a paper's page, a video's watch URL). A
collection defined above this package names its objects through `register_label`. The
answering tools (knowledge_ask, research_document) number these, so one answer can cite
a video moment, a document page and a paper side by side.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal

from video_research.support.youtube_urls import watch_url

if TYPE_CHECKING:
    from video_research.support.schema_types.common.defs import Where

PASSAGE_CHARS = 1500
"""Most characters of one object shown to the model as a passage."""

KINDS: dict[str, str] = {
    "TranscriptChunks": "video",
    "TranscriptVideos": "video",
    "VideoAnalyses": "video",
    "VideoMetadata": "video",
    "SessionTranscripts": "video",
    "DocumentChunks": "document",
    "Papers": "paper",
    "ContentAnalyses": "content",
    "WebSearchResults": "web",
    "ResearchFindings": "research",
    "ResearchPlans": "research",
}


WHAT: dict[str, str] = {
    "TranscriptChunks": "transcript moment",
    "TranscriptVideos": "indexed video",
    "DocumentChunks": "document passage",
    "Papers": "paper",
    "VideoAnalyses": "video analysis",
    "ContentAnalyses": "content analysis",
    "VideoMetadata": "video metadata",
    "SessionTranscripts": "session turn",
    "WebSearchResults": "web search",
    "ResearchFindings": "research finding",
    "ResearchPlans": "research plan",
}
"""What one object of a collection is, in a reader's words (a search hit's `what`)."""

Locator = Literal[
    "video_id", "start_time", "end_time", "source_path", "page", "page_end", "paper_id"
]
LOCATORS: tuple[Locator, ...] = (
    "video_id",
    "start_time",
    "end_time",
    "source_path",
    "page",
    "page_end",
    "paper_id",
)
"""The properties that say where in its source an object is, repeated beside a hit."""


def document_url(source_path: str | None, page: int | None = None) -> str | None:
    """A file:// link to a local document, opened at `page` (PDF viewers honour #page=)."""
    if not source_path or not os.path.isabs(source_path):
        return None
    from pathlib import Path

    url = Path(source_path).as_uri()
    return f"{url}#page={page}" if page else url


def where(collection: str, props: dict[str, Any]) -> Where:
    """What a hit is and where it points: {kind, what, label, url} and the locators it
    has (a transcript moment: video_id and start_time, its url the video at that second;
    a document passage: source_path and page, its url the file at that page)."""
    cited = cite(collection, props)
    url = cited["url"]
    if url is None and collection == "DocumentChunks":
        url = document_url(props.get("source_path"), props.get("page"))
    out: Where = {
        "kind": cited["kind"],
        "what": WHAT.get(collection, collection),
        "label": cited["label"],
        "url": url,
    }
    for key in LOCATORS:
        if props.get(key) is not None and props.get(key) != "":
            out[key] = props[key]
    return out


def clock(seconds: float | None) -> str:
    """12:34 or 1:02:03, the way video players show a position."""
    total = max(0, int(seconds or 0))
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


Label = Callable[[dict[str, Any]], str]
_LABELS: dict[str, Label] = {}


def register_label(collection: str, label: Label) -> None:
    """How to name an object of a collection defined above this package.

    The documents package registers its citation ("report.pdf, pp. 3-4, Methods", the
    format document_search shows) for DocumentChunks; this package may not import it.
    """
    _LABELS[collection] = label


def _authors(names: list[str]) -> str:
    if not names:
        return "Unknown authors"
    surname = names[0].split()[-1] if names[0].split() else names[0]
    return surname if len(names) == 1 else f"{surname} et al."


def cite(collection: str, props: dict[str, Any]) -> dict[str, Any]:
    """{kind, label, url} for one stored object (url None where there is no link)."""
    kind = KINDS.get(collection, "other")
    url: str | None = None
    if collection == "TranscriptChunks":
        title = props.get("video_title") or props.get("video_id") or "a video"
        shown = " (on screen)" if props.get("evidence") == "screen" else ""
        label = f"{title} at {clock(props.get('start_time'))}{shown}"
        url = props.get("timestamp_url") or None
    elif collection == "TranscriptVideos":
        label = props.get("video_title") or props.get("video_id") or "a video"
        url = props.get("video_url") or None
    elif collection in _LABELS:
        label = _LABELS[collection](props)
    elif collection == "Papers":
        year = f" ({props['year']})" if props.get("year") else ""
        label = f"{_authors(props.get('authors') or [])}{year}, {props.get('title') or 'untitled'}"
        url = props.get("url") or props.get("open_access_pdf") or None
    elif collection == "VideoMetadata":
        label = props.get("title") or props.get("video_id") or "a video"
        url = watch_url(props["video_id"]) if props.get("video_id") else None
    elif collection == "VideoAnalyses":
        label = f"Analysis of {props.get('title') or props.get('video_id') or 'a video'}"
        url = (
            props.get("source_url") if str(props.get("source_url", "")).startswith("http") else None
        )
    elif collection == "SessionTranscripts":
        label = f"Session on {props.get('video_title') or 'a video'}, turn {props.get('turn_index', '?')}"
    elif collection == "ContentAnalyses":
        source = str(props.get("source") or "")
        label = props.get("title") or os.path.basename(source) or "an analysis"
        url = source if source.startswith("http") else None
    elif collection == "WebSearchResults":
        label = f"Web search: {props.get('query') or '?'}"
    elif collection == "ResearchFindings":
        label = props.get("claim") or f"Research: {props.get('topic') or '?'}"
    elif collection == "ResearchPlans":
        label = f"Research plan: {props.get('topic') or '?'}"
    else:
        label = f"{collection} object"
    return {"kind": kind, "label": str(label)[:300], "url": url}


def passage(collection: str, props: dict[str, Any], vector_text: str) -> str:
    """What the model reads of an object: its text (transcripts, documents) or the text its
    embedding was made from, cut at PASSAGE_CHARS."""
    text = props.get("text") if collection in ("TranscriptChunks", "DocumentChunks") else None
    text = text or vector_text or ""
    return text if len(text) <= PASSAGE_CHARS else text[:PASSAGE_CHARS].rstrip() + "…"
