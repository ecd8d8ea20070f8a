"""The dispatch table: every tool, and the one path every call takes through it.

`TOOLS` maps a tool name to its spec: handler, contracts (schemas/tools/<name>.*.json),
annotations, toolset and the role it needs. `tools/list`, `tools/call`, the CLI and the
contract tests all read this one table.

A call goes: look up (unknown -> JSON-RPC invalid params) -> role check -> input
defaults + validation -> handler -> output validation -> result. Whatever a handler
raises becomes a structured ToolError; a result that breaks its own output contract is
a server bug, logged and answered as `internal_error`.

Handlers are named as "module:function" and imported on first call, so listing tools
never imports an SDK and the server starts fast.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import cache
from typing import Any, Literal

from video_research import contracts
from video_research.config import ConfigError, Settings
from video_research.context import CallContext
from video_research.errors import ErrorCategory, ToolError, ToolFailure, make_tool_error

logger = logging.getLogger(__name__)

Handler = Callable[[dict[str, Any], CallContext], Awaitable[dict[str, Any]]]


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


def _table(*specs: ToolSpec) -> dict[str, ToolSpec]:
    table: dict[str, ToolSpec] = {}
    for spec in specs:
        if spec.name in table:
            raise RuntimeError(f"tool {spec.name} is listed twice in the dispatch table")
        table[spec.name] = spec
    return table


def _infra_cache_writes(arguments: dict[str, Any]) -> bool:
    return arguments.get("action", "stats") in ("clear", "context_clear")


def _infra_configure_writes(arguments: dict[str, Any]) -> bool:
    return any(
        arguments.get(name) is not None
        for name in ("preset", "model", "thinking_level", "temperature")
    )


TOOLS: dict[str, ToolSpec] = _table(
    # ---------------------------------------------------------------- infra
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
    # ---------------------------------------------------------------- video
    ToolSpec(
        name="video_analyze",
        handler="video:video_analyze",
        toolset="video",
        title="Analyze a video",
        description=(
            "Analyze a YouTube video (url) or local video file (file_path) with Gemini, following "
            "any instruction.\n"
            "Returns title, summary, key points, timestamps and topics, or your output_schema's "
            "shape. Cached per video, instruction and model; written to the knowledge base."
        ),
        open_world=True,
    ),
    ToolSpec(
        name="video_create_session",
        handler="video:video_create_session",
        toolset="video",
        title="Start a video session",
        description=(
            "Start a multi-turn conversation about one video; returns a session_id for "
            "video_continue_session.\n"
            "Sessions survive restarts and expire after GEMINI_SESSION_TIMEOUT_HOURS idle."
        ),
        idempotent=False,
        open_world=True,
    ),
    ToolSpec(
        name="video_continue_session",
        handler="video:video_continue_session",
        toolset="video",
        title="Ask about a session's video",
        description=(
            "Ask a follow-up question in a video session; the model sees the video and the last "
            "GEMINI_SESSION_MAX_TURNS turns.\n"
            "Each turn is written to the knowledge base."
        ),
        idempotent=False,
        open_world=True,
    ),
    ToolSpec(
        name="video_batch_analyze",
        handler="video:video_batch_analyze",
        toolset="video",
        title="Analyze a directory of videos",
        description=(
            "Analyze the video files of a directory (glob_pattern, at most max_files) with one "
            "instruction.\n"
            "Progress per file; a file that fails is reported in its item, never failing the "
            "batch."
        ),
        open_world=True,
    ),
    # ---------------------------------------------------------------- youtube
    ToolSpec(
        name="video_metadata",
        handler="youtube:video_metadata",
        toolset="youtube",
        title="YouTube video metadata",
        description=(
            "A YouTube video's metadata from the Data API, without Gemini.\n"
            "Costs 1 YouTube quota unit. Written to the knowledge base and the video catalog."
        ),
        open_world=True,
    ),
    ToolSpec(
        name="video_playlist",
        handler="youtube:video_playlist",
        toolset="youtube",
        title="YouTube playlist",
        description=(
            "A YouTube playlist's videos with titles, positions and durations; deleted or private "
            "ones have available: false.\n"
            "Costs about 3 quota units; the videos join the video catalog."
        ),
        open_world=True,
    ),
    # ---------------------------------------------------------------- research
    ToolSpec(
        name="research_deep",
        handler="research:research_deep",
        toolset="research",
        title="Deep research",
        description=(
            "Research a question in three phases (scope, evidence, synthesis), every claim "
            "labelled CONFIRMED, STRONG INDICATOR, INFERENCE, SPECULATION or UNKNOWN.\n"
            "Progress per phase; findings are written to the knowledge base."
        ),
        idempotent=False,
        open_world=True,
    ),
    ToolSpec(
        name="research_plan",
        handler="research:research_plan",
        toolset="research",
        title="Plan multi-agent research",
        description=(
            "Draft a phased multi-agent research plan (tasks, agent counts, model assignments) for "
            "a topic.\n"
            "A blueprint only: it runs nothing."
        ),
        idempotent=False,
        open_world=True,
    ),
    ToolSpec(
        name="research_assess_evidence",
        handler="research:research_assess_evidence",
        toolset="research",
        title="Assess a claim against sources",
        description=(
            "Judge how well sources support a claim: evidence tier, confidence (0-1) and "
            "reasoning.\n"
            "Written to the knowledge base."
        ),
        idempotent=False,
        open_world=True,
    ),
    # ---------------------------------------------------------------- content
    ToolSpec(
        name="content_analyze",
        handler="content:content_analyze",
        toolset="content",
        title="Analyze a document, page or text",
        description=(
            "Analyze a local PDF or text file, a web page (Gemini fetches it) or raw text with any "
            "instruction.\n"
            "Returns title, summary, key points and entities, or your output_schema's shape. "
            "Written to the knowledge base."
        ),
        open_world=True,
    ),
    ToolSpec(
        name="content_extract",
        handler="content:content_extract",
        toolset="content",
        title="Extract structured data",
        description=(
            "Extract an object of your JSON Schema's shape from text; the answer is checked "
            "against the schema."
        ),
        open_world=True,
    ),
    # ---------------------------------------------------------------- search
    ToolSpec(
        name="web_search",
        handler="search:web_search",
        toolset="search",
        title="Web search",
        description=(
            "Search the web through Gemini's Google Search grounding: an answer, its sources and "
            "the queries Gemini ran.\n"
            "Uses the flash model."
        ),
        idempotent=False,
        open_world=True,
    ),
    # ---------------------------------------------------------------- knowledge (issue 4)
    ToolSpec(
        name="knowledge_search",
        handler="knowledge:knowledge_search",
        toolset="knowledge",
        title="Search the knowledge base",
        description=(
            "Hybrid search (keywords + meaning) over everything the tools have stored: video and content "
            "analyses, research findings and plans, video metadata, session turns, web searches.\n"
            "alpha 0 is keyword (BM25) only, 1 vector only. filters narrow by stored properties, e.g. "
            '[{"property": "video_id", "op": "eq", "value": "dQw4w9WgXcQ"}]. Results from all searched '
            "collections are merged best first."
        ),
    ),
    ToolSpec(
        name="knowledge_related",
        handler="knowledge:knowledge_related",
        toolset="knowledge",
        title="Related knowledge",
        description=(
            "Objects closest in meaning to a stored object (an object_id from knowledge_search), "
            "nearest first, the object itself excluded."
        ),
    ),
    ToolSpec(
        name="knowledge_stats",
        handler="knowledge:knowledge_stats",
        toolset="knowledge",
        title="Knowledge base statistics",
        description=(
            "Object counts per knowledge collection, the store in use (embedded SQLite file or Weaviate) "
            "and the embedding model; flags collections whose vectors need knowledge_reembed."
        ),
    ),
    ToolSpec(
        name="knowledge_ingest",
        handler="knowledge:knowledge_ingest",
        toolset="knowledge",
        title="Add to the knowledge base",
        description=(
            "Store an object of your own in a knowledge collection; it is embedded and searchable at once.\n"
            "Properties are checked against the collection (unknown keys are rejected with the allowed "
            "list). With object_id the object under that UUID is replaced. Requires blessed."
        ),
        role="blessed",
        read_only=False,
        idempotent=False,
        audited=True,
    ),
    ToolSpec(
        name="knowledge_reembed",
        handler="knowledge:knowledge_reembed",
        toolset="knowledge",
        title="Re-embed a knowledge collection",
        description=(
            "Recompute every vector of a collection with the configured embedding model, after "
            "KNOWLEDGE_EMBEDDING_PROVIDER, _MODEL or _DIMENSIONS changed.\n"
            "Reports progress; the old vectors stay in use until the new ones are all written. Requires admin."
        ),
        role="admin",
        read_only=False,
        idempotent=True,
        audited=True,
    ),
    # ---------------------------------------------------------------- issue 15: content and documents
    ToolSpec(
        name="content_batch_analyze",
        handler="content_batch:content_batch_analyze",
        toolset="content",
        title="Analyze many documents",
        description=(
            "Analyze many local PDF or text files with one instruction, each on its own or "
            "compared.\n"
            "Progress per file; a file that fails is reported in its item, never failing the "
            "batch."
        ),
        open_world=True,
    ),
    # ---------------------------------------------------------------- issue 15: Deep Research
    ToolSpec(
        name="research_web",
        handler="deep_research:research_web",
        toolset="deepresearch",
        title="Start web deep research",
        description=(
            "Start the Gemini Deep Research agent on a brief in the background; returns a task_id "
            "at once.\n"
            "The cited report, from dozens of web searches, takes 5-20 minutes and costs dollars. "
            "Poll with research_web_status. Requires blessed."
        ),
        role="blessed",
        read_only=False,
        idempotent=False,
        open_world=True,
        audited=True,
    ),
    ToolSpec(
        name="research_web_status",
        handler="deep_research:research_web_status",
        toolset="deepresearch",
        title="Deep research status and report",
        description=(
            "Status of a research_web task; once completed, its report (Markdown) and sources.\n"
            "Tasks survive server restarts."
        ),
        idempotent=False,
        open_world=True,
    ),
    ToolSpec(
        name="research_web_followup",
        handler="deep_research:research_web_followup",
        toolset="deepresearch",
        title="Ask about a deep research report",
        description=(
            "Ask a follow-up question about a completed research_web report; the model sees the "
            "report and earlier follow-ups. Requires blessed."
        ),
        role="blessed",
        read_only=False,
        idempotent=False,
        open_world=True,
        audited=True,
    ),
    ToolSpec(
        name="research_web_cancel",
        handler="deep_research:research_web_cancel",
        toolset="deepresearch",
        title="Cancel deep research",
        description="Stop a running research_web task. Requires blessed.",
        role="blessed",
        read_only=False,
        destructive=True,
        open_world=True,
        audited=True,
    ),
    ToolSpec(
        name="research_document",
        handler="research_document:research_document",
        toolset="research",
        title="Research grounded in documents",
        description=(
            "Research a question from given files and URLs in research_deep's phases and evidence "
            "tiers, every claim citing its source (file + page, or URL)."
        ),
        idempotent=False,
        open_world=True,
    ),
    # ---------------------------------------------------------------- issue 15: knowledge
    ToolSpec(
        name="knowledge_ask",
        handler="knowledge_ask:knowledge_ask",
        toolset="knowledge",
        title="Ask the knowledge base",
        description=(
            "Answer a question from the knowledge base, citing [n] the objects used: stored "
            "results, papers, transcript moments and document pages.\n"
            "Without GEMINI_API_KEY it returns the ranked passages."
        ),
        idempotent=False,
        open_world=True,
    ),
    ToolSpec(
        name="knowledge_fetch",
        handler="knowledge_browse:knowledge_fetch",
        toolset="knowledge",
        title="Fetch stored objects",
        description="Stored objects by ID (from any search or answer), in any collection.",
    ),
    ToolSpec(
        name="knowledge_schema",
        handler="knowledge_browse:knowledge_schema",
        toolset="knowledge",
        title="Knowledge collections and properties",
        description=(
            "The knowledge store's collections with their properties (type; filterable, "
            "keyword-searchable, embedded) and the filter operators per type."
        ),
    ),
    # ---------------------------------------------------------------- issue 15: YouTube comments
    ToolSpec(
        name="video_comments",
        handler="youtube:video_comments",
        toolset="youtube",
        title="YouTube comments",
        description=(
            "A YouTube video's top comment threads, paged.\n"
            "Costs 1 quota unit per page. Comments turned off answer COMMENTS_DISABLED."
        ),
        open_world=True,
    ),
    # ---------------------------------------------------------------- issue 15: papers
    ToolSpec(
        name="research_paper_search",
        handler="papers:research_paper_search",
        toolset="papers",
        title="Search scholarly papers",
        description=(
            "Search Semantic Scholar's 200M+ papers by relevance, paged.\n"
            "Papers found are written to the knowledge base (Papers)."
        ),
        open_world=True,
    ),
    ToolSpec(
        name="research_paper_details",
        handler="papers:research_paper_details",
        toolset="papers",
        title="Paper details",
        description="One paper's full record from Semantic Scholar, with TL;DR and BibTeX.",
        open_world=True,
    ),
    ToolSpec(
        name="research_paper_citations",
        handler="papers:research_paper_citations",
        toolset="papers",
        title="Citations and references",
        description=(
            "A paper's citations or references, paged, with the citing sentences, intents and "
            "whether each is influential."
        ),
        open_world=True,
    ),
    ToolSpec(
        name="research_paper_recommendations",
        handler="papers:research_paper_recommendations",
        toolset="papers",
        title="Recommended papers",
        description="Papers Semantic Scholar's Recommendations API suggests for a paper.",
        open_world=True,
    ),
    ToolSpec(
        name="research_author_search",
        handler="papers:research_author_search",
        toolset="papers",
        title="Search authors",
        description=(
            "Find Semantic Scholar authors by name: affiliations, paper and citation counts, h-index."
        ),
        open_world=True,
    ),
    # ---------------------------------------------------------------- transcripts (issue 5)
    ToolSpec(
        name="index_channel_transcripts",
        handler="transcripts:index_channel_transcripts",
        toolset="transcripts",
        title="Index a channel's transcripts",
        description=(
            "Fetch the transcripts of a YouTube channel's latest uploads (max_videos) and index them "
            "for semantic_search_transcripts.\n"
            "Incremental: videos indexed before are skipped unless force_reindex. Progress is reported "
            "per video; a video without a transcript, with subtitles disabled or blocked by YouTube is "
            "listed in batch.failed with a hint and never stops the rest. Needs YOUTUBE_API_KEY for the "
            "channel's upload list; set TRANSCRIPT_PROXY_URL or WEBSHARE_PROXY_* when YouTube blocks "
            "this server's IP. Requires blessed."
        ),
        role="blessed",
        read_only=False,
        idempotent=True,
        open_world=True,
        audited=True,
    ),
    ToolSpec(
        name="index_transcript_files",
        handler="transcripts:index_transcript_files",
        toolset="transcripts",
        title="Index transcript files",
        description=(
            "Index local transcript files (.vtt, .srt, or JSON segment lists) for "
            "semantic_search_transcripts: one file, or a directory with glob_pattern.\n"
            "The video ID comes from the file name: yt-dlp's 'Title [VIDEO_ID].en.vtt' or "
            "'VIDEO_ID.vtt'; any other name becomes the ID itself. `videos` maps a file name to its "
            "video_id, title, channel, url, chapters or description. Unchanged files indexed before "
            "are skipped. Paths must lie under VIDEO_RESEARCH_FILE_ROOTS. Requires blessed."
        ),
        role="blessed",
        read_only=False,
        idempotent=True,
        audited=True,
    ),
    ToolSpec(
        name="semantic_search_transcripts",
        handler="transcripts:semantic_search_transcripts",
        toolset="transcripts",
        title="Search what was said in videos",
        description=(
            "Find the video and the moment where something is said: hybrid (meaning + keyword) search "
            "over indexed transcripts, with a timestamp link to each moment.\n"
            "Narrow by channel_ids, video_ids, language, published_after/before, or start_time/end_time "
            "within the video; alpha 0 = keywords only, 1 = meaning only. Adjacent hits in one video "
            "merge into one moment. With auto_index, listed videos (and channels) not indexed yet are "
            "fetched first."
        ),
        read_only=False,
        idempotent=True,
        open_world=True,
    ),
    ToolSpec(
        name="get_all_channel_transcripts",
        handler="transcripts:get_all_channel_transcripts",
        toolset="transcripts",
        title="A channel's transcripts, paged",
        description=(
            "Fetch and index a channel's transcripts (first page), then page through them: each video "
            "with a preview of its transcript and a next_cursor.\n"
            "Read a whole transcript with transcript_get; the result stays small whatever the channel."
        ),
        read_only=False,
        idempotent=True,
        open_world=True,
    ),
    ToolSpec(
        name="get_indexed_videos",
        handler="transcripts:get_indexed_videos",
        toolset="transcripts",
        title="Indexed videos",
        description=(
            "List the videos whose transcripts are indexed, newest first, optionally by channel, "
            "language or source (youtube, file); paged with next_cursor."
        ),
    ),
    ToolSpec(
        name="delete_indexed_video",
        handler="transcripts:delete_indexed_video",
        toolset="transcripts",
        title="Remove a video from the transcript index",
        description=(
            "Delete a video's indexed transcript (all its chunks and its record) so searches no longer "
            "find it; index it again any time. Requires admin."
        ),
        role="admin",
        read_only=False,
        destructive=True,
        idempotent=True,
        audited=True,
    ),
    ToolSpec(
        name="transcript_get",
        handler="transcripts:transcript_get",
        toolset="transcripts",
        title="Read a transcript",
        description=(
            "One video's transcript with a timestamp and link per caption, paged by cursor "
            "(max_segments per page) or starting at start_time seconds.\n"
            "A YouTube video that is not indexed yet is fetched and indexed first (auto_index)."
        ),
        read_only=False,
        idempotent=True,
        open_world=True,
    ),
    # ---------------------------------------------------------------- documents (issue 6)
    ToolSpec(
        name="document_ingest",
        handler="documents:document_ingest",
        toolset="documents",
        title="Ingest local documents",
        description=(
            "Index local files or folders (PDF, DOCX, PPTX, HTML, Markdown, text) for "
            "document_search, offline, as passages of about 200 tokens.\n"
            "Reads only files under VIDEO_RESEARCH_FILE_ROOTS or the client's roots; skips "
            "unchanged files; an encrypted or corrupt file fails alone. Requires blessed."
        ),
        role="blessed",
        read_only=False,
        idempotent=True,
        audited=True,
    ),
    ToolSpec(
        name="document_search",
        handler="documents:document_search",
        toolset="documents",
        title="Search ingested documents",
        description=(
            "Find passages in the ingested documents by keywords and meaning, each citing its "
            "file, page (PDF page, PPTX slide) and heading path."
        ),
    ),
    ToolSpec(
        name="document_list",
        handler="documents:document_list",
        toolset="documents",
        title="List ingested documents",
        description=(
            "List the ingested documents, ordered by path, with title, type, pages, passages, "
            "tags, content hash and whether the file still exists."
        ),
    ),
    ToolSpec(
        name="document_delete",
        handler="documents:document_delete",
        toolset="documents",
        title="Remove documents from the library",
        description=(
            "Remove ingested documents and their passages (not the files).\n"
            "IDs or paths that match nothing are listed in not_found. Requires admin."
        ),
        role="admin",
        read_only=False,
        destructive=True,
        idempotent=True,
        audited=True,
    ),
    # ---------------------------------------------------------------- catalog (issue 7)
    ToolSpec(
        name="catalog_search",
        handler="catalog:catalog_search",
        toolset="catalog",
        title="Search the video catalog",
        description=(
            "Search the video catalog by title and/or category, best matches first; snapshot_id "
            "changes when the catalog does."
        ),
    ),
    ToolSpec(
        name="catalog_categories",
        handler="catalog:catalog_categories",
        toolset="catalog",
        title="Catalog categories",
        description="List the catalog's categories with how many videos each has.",
    ),
    ToolSpec(
        name="catalog_get_video",
        handler="catalog:catalog_get_video",
        toolset="catalog",
        title="Catalog video",
        description="A catalog video's details by ID.",
    ),
    ToolSpec(
        name="catalog_add",
        handler="catalog:catalog_add",
        toolset="catalog",
        title="Add a video to the catalog",
        description=(
            "Add a video to the catalog, or update the one with that video_id. Requires blessed."
        ),
        role="blessed",
        read_only=False,
        audited=True,
    ),
    ToolSpec(
        name="catalog_remove",
        handler="catalog:catalog_remove",
        toolset="catalog",
        title="Remove videos from the catalog",
        description="Remove videos from the catalog and from every playlist. Requires admin.",
        role="admin",
        read_only=False,
        destructive=True,
        audited=True,
    ),
    ToolSpec(
        name="catalog_import",
        handler="catalog:catalog_import",
        toolset="catalog",
        title="Import videos into the catalog",
        description=(
            "Import videos from a JSON or CSV file or a YouTube playlist; existing video_ids are "
            "updated.\n"
            "Bad entries are listed in failed and never stop the good ones. Requires admin."
        ),
        role="admin",
        read_only=False,
        open_world=True,
        audited=True,
    ),
    ToolSpec(
        name="playlist_list",
        handler="playlists:playlist_list",
        toolset="playlists",
        title="Saved playlists",
        description="List the saved playlists with their item counts and total durations.",
    ),
    ToolSpec(
        name="playlist_get",
        handler="playlists:playlist_get",
        toolset="playlists",
        title="Playlist details",
        description="A playlist with its items in order and its total duration.",
    ),
    ToolSpec(
        name="playlist_create",
        handler="playlists:playlist_create",
        toolset="playlists",
        title="Create a playlist",
        description="Create a playlist of catalog videos. Requires blessed.",
        role="blessed",
        read_only=False,
        idempotent=False,
        audited=True,
    ),
    ToolSpec(
        name="playlist_update",
        handler="playlists:playlist_update",
        toolset="playlists",
        title="Update a playlist",
        description=(
            "Rename a playlist, change its description or replace its items; fields left out or "
            "null stay as they are. Requires blessed."
        ),
        role="blessed",
        read_only=False,
        audited=True,
    ),
    ToolSpec(
        name="playlist_delete",
        handler="playlists:playlist_delete",
        toolset="playlists",
        title="Delete a playlist",
        description=(
            "Delete a playlist (not its videos) unless a marathon schedules it. Requires admin."
        ),
        role="admin",
        read_only=False,
        destructive=True,
        audited=True,
    ),
    ToolSpec(
        name="queue_status",
        handler="queue:queue_status",
        toolset="queue",
        title="Watch queue",
        description=(
            "The queue now: the video playing (with elapsed time), the upcoming items with their "
            "uids, and the total duration."
        ),
    ),
    ToolSpec(
        name="queue_add_video",
        handler="queue:queue_add_video",
        toolset="queue",
        title="Queue a video",
        description="Add a catalog video to the queue. Requires blessed.",
        role="blessed",
        read_only=False,
        idempotent=False,
        audited=True,
    ),
    ToolSpec(
        name="queue_add_videos",
        handler="queue:queue_add_videos",
        toolset="queue",
        title="Queue several videos",
        description=(
            "Add catalog videos to the queue in order; IDs not in the catalog are listed in "
            "failed. Requires blessed."
        ),
        role="blessed",
        read_only=False,
        idempotent=False,
        audited=True,
    ),
    ToolSpec(
        name="queue_apply_playlist",
        handler="queue:queue_apply_playlist",
        toolset="queue",
        title="Queue a playlist",
        description="Apply a saved playlist to the live queue. Requires blessed.",
        role="blessed",
        read_only=False,
        destructive=True,
        idempotent=False,
        audited=True,
    ),
    ToolSpec(
        name="queue_advance",
        handler="queue:queue_advance",
        toolset="queue",
        title="Play the next video",
        description=(
            "Skip to the next queued video: it becomes the current one. Requires blessed."
        ),
        role="blessed",
        read_only=False,
        idempotent=False,
        audited=True,
    ),
    ToolSpec(
        name="queue_remove",
        handler="queue:queue_remove",
        toolset="queue",
        title="Remove a queued video",
        description="Remove one upcoming item from the queue by its uid. Requires blessed.",
        role="blessed",
        read_only=False,
        destructive=True,
        audited=True,
    ),
    ToolSpec(
        name="queue_clear",
        handler="queue:queue_clear",
        toolset="queue",
        title="Clear the queue",
        description="Remove every upcoming item; the video playing now keeps playing. Requires admin.",
        role="admin",
        read_only=False,
        destructive=True,
        audited=True,
    ),
    ToolSpec(
        name="marathon_list",
        handler="playlists:marathon_list",
        toolset="marathons",
        title="Scheduled marathons",
        description=(
            "List scheduled and running marathons with their playlists, start and computed end "
            "times."
        ),
    ),
    ToolSpec(
        name="marathon_get",
        handler="playlists:marathon_get",
        toolset="marathons",
        title="Marathon details",
        description="A marathon's schedule: each playlist's start and end time, in order.",
    ),
    ToolSpec(
        name="marathon_create",
        handler="playlists:marathon_create",
        toolset="marathons",
        title="Schedule a marathon",
        description=(
            "Schedule saved playlists back to back from a start time; the end time follows their "
            "durations. Requires blessed."
        ),
        role="blessed",
        read_only=False,
        idempotent=False,
        audited=True,
    ),
    ToolSpec(
        name="marathon_delete",
        handler="playlists:marathon_delete",
        toolset="marathons",
        title="Delete a marathon",
        description="Delete a scheduled marathon (its playlists stay). Requires admin.",
        role="admin",
        read_only=False,
        destructive=True,
        audited=True,
    ),
    ToolSpec(
        name="audit_log",
        handler="admin:audit_log",
        toolset="admin",
        title="Audit log",
        description=(
            "Read the audit log of write operations, newest first: who, which tool, the input and "
            "the result or error. Requires admin."
        ),
        role="admin",
    ),
    ToolSpec(
        name="session_register",
        handler="admin:session_register",
        toolset="admin",
        title="Register a session",
        description=(
            "Register a chat session so calls claiming it ({username, role, session_id} in "
            "_meta.session) get at most its role until it expires; unverified claims get viewer. "
            "Requires admin."
        ),
        role="admin",
        read_only=False,
        audited=True,
    ),
    ToolSpec(
        name="session_revoke",
        handler="admin:session_revoke",
        toolset="admin",
        title="Revoke a session",
        description=(
            "Remove a session from the registry; its claims count as viewer from now on. Requires "
            "admin."
        ),
        role="admin",
        read_only=False,
        destructive=True,
        audited=True,
    ),
    ToolSpec(
        name="session_list",
        handler="admin:session_list",
        toolset="admin",
        title="Registered sessions",
        description="List the registered sessions (usernames, roles, expiry; session IDs as fingerprints). Requires admin.",
        role="admin",
    ),
    # ---------------------------------------------------------------- toolsets (meta)
    ToolSpec(
        name="toolset_list",
        handler="toolsets:toolset_list",
        toolset="toolsets",
        title="List toolsets",
        description=(
            "List this server's toolsets, one line each, with their tools and whether this session has "
            "them on.\nCall it when the tools you see are not enough for the task; turn one on with "
            "toolset_enable."
        ),
    ),
    ToolSpec(
        name="toolset_enable",
        handler="toolsets:toolset_enable",
        toolset="toolsets",
        title="Turn a toolset on",
        description=(
            "Turn a toolset on for this session: its tools appear in tools/list "
            "(notifications/tools/list_changed) and can be called at once.\n"
            "Answers with the tools it added. Roles still apply to every call."
        ),
    ),
    ToolSpec(
        name="toolset_disable",
        handler="toolsets:toolset_disable",
        toolset="toolsets",
        title="Turn a toolset off",
        description=(
            "Turn a toolset off for this session: its tools leave tools/list "
            "(notifications/tools/list_changed) and can no longer be called."
        ),
    ),
)

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


@cache
def resolve_handler(ref: str) -> Handler:
    module_name, _, function = ref.partition(":")
    if "." not in module_name:
        module_name = f"video_research.handlers.{module_name}"
    module = importlib.import_module(module_name)
    return getattr(module, function)


@dataclass
class Outcome:
    """A finished call: exactly one of `result` and `error` is set."""

    result: dict[str, Any] | None = None
    error: ToolError | None = None

    @property
    def is_error(self) -> bool:
        return self.error is not None


async def call(spec: ToolSpec, arguments: dict[str, Any] | None, ctx: CallContext) -> Outcome:
    """Run one tool call through roles, contracts and the handler. Never raises Exception."""
    started = time.perf_counter()
    try:
        outcome = await _call(spec, arguments or {}, ctx)
    except asyncio.CancelledError:
        if spec.audits(arguments or {}):
            await _audit_cancelled(spec, arguments or {}, ctx)
        raise
    elapsed_ms = (time.perf_counter() - started) * 1000
    if outcome.error is not None:
        logger.info(
            "tool %s failed in %.0f ms: %s (%s)",
            spec.name,
            elapsed_ms,
            outcome.error.category,
            outcome.error.error,
        )
    else:
        logger.debug("tool %s ok in %.0f ms", spec.name, elapsed_ms)
    if spec.audits(arguments or {}):
        await _audit(spec, arguments or {}, ctx, outcome)
    return outcome


async def _call(spec: ToolSpec, arguments: dict[str, Any], ctx: CallContext) -> Outcome:
    if not ctx.caller.has_role(spec.role):
        return Outcome(
            error=ToolFailure(
                ErrorCategory.FORBIDDEN,
                f"{spec.name} requires the '{spec.role}' role; {ctx.caller.username} has '{ctx.caller.role}'.",
            ).to_tool_error()
        )
    if not isinstance(arguments, dict):
        return Outcome(
            error=_invalid(spec, [{"path": "$", "message": "arguments must be a JSON object"}])
        )
    arguments = contracts.apply_defaults(spec.input_schema, arguments)
    problems = _non_finite(arguments) or contracts.validation_errors(spec.input_path, arguments)
    if problems:
        return Outcome(error=_invalid(spec, problems))
    try:
        handler = resolve_handler(spec.handler)
        result = await handler(arguments, ctx)
    except ToolFailure as failure:
        return Outcome(error=failure.to_tool_error())
    except Exception as exc:
        error = make_tool_error(exc)
        level = logging.ERROR if error.category == ErrorCategory.UNKNOWN else logging.WARNING
        logger.log(level, "tool %s raised %s", spec.name, type(exc).__name__, exc_info=exc)
        return Outcome(error=error)
    problems = contracts.validation_errors(spec.output_path, result)
    if problems:
        logger.error("tool %s broke its output contract (server bug): %s", spec.name, problems)
        return Outcome(
            error=ToolFailure(
                ErrorCategory.INTERNAL_ERROR,
                f"{spec.name} produced a result that does not match its output schema.",
                details={"errors": problems},
            ).to_tool_error()
        )
    return Outcome(result=result)


def _non_finite(arguments: dict[str, Any]) -> list[dict[str, str]]:
    """NaN and infinities anywhere in the arguments (issue 16): schema-valid, never meant."""
    return contracts.non_finite_numbers(arguments)


def _invalid(spec: ToolSpec, problems: list[dict[str, str]]) -> ToolError:
    first = problems[0]
    where = "" if first["path"] == "$" else f" at {first['path']}"
    return ToolFailure(
        ErrorCategory.INVALID_INPUT,
        f"Invalid arguments for {spec.name}{where}: {first['message']}",
        hint=f"Fix the arguments listed in details.errors; the input schema of {spec.name} is in tools/list.",
        details={"errors": problems},
    ).to_tool_error()


async def _audit(
    spec: ToolSpec, arguments: dict[str, Any], ctx: CallContext, outcome: Outcome
) -> None:
    """Record a call of a tool marked `audited` (see video_research/catalog/audit.py)."""
    from video_research.catalog import audit

    entry = audit.make_entry(
        tool=spec.name,
        caller=ctx.caller,
        arguments=arguments if isinstance(arguments, dict) else {"arguments": arguments},
        result=outcome.result,
        error=outcome.error.to_json_dict() if outcome.error is not None else None,
    )
    await audit.record(entry)


# Audit entries of cancelled calls still being written (a task needs a reference).
_pending_audits: set[asyncio.Task[None]] = set()


async def _audit_cancelled(spec: ToolSpec, arguments: dict[str, Any], ctx: CallContext) -> None:
    """Record a write that was cancelled before it answered: it may have committed.

    The entry is written under asyncio.shield, so a second cancellation of this call
    stops only the waiting, never the write of the entry.
    """
    outcome = Outcome(
        error=ToolError(
            error=f"{spec.name} was cancelled before it answered; its change may or may not "
            "have been applied.",
            category="cancelled",
            hint="Check the current state before repeating the call.",
        )
    )
    task = asyncio.ensure_future(_audit(spec, arguments, ctx, outcome))
    _pending_audits.add(task)
    task.add_done_callback(_pending_audits.discard)
    await asyncio.shield(task)
