"""MCP Apps (the `io.modelcontextprotocol/ui` extension): our results as views in the chat.

A tool that has a view carries `_meta.ui.resourceUri`, a `ui://` link to an HTML document
the host renders in a sandboxed iframe and feeds with the tool's structured result. This
is an extension: the server advertises it, and a client that declared it (with the
`text/html;profile=mcp-app` MIME type) renders the views.
The links and the `ui://` resources are in every client's lists all the same: a list must
be one per server configuration for a client (or a shared cache) to keep it (MCP
2026-07-28 cache hints), and a host without the extension ignores `_meta.ui`. The results
are the same for every client.

The views are committed files in `views/` (plain HTML, CSS and JS, no build), joined
into one self-contained document per view when first read: the host's CSP allows no
script or style from anywhere, the only origin a view may embed is the video player's
(`frameDomains`), and the only one it may load images from is YouTube's thumbnails'
(`resourceDomains`, moments only; a host that refuses it gets no thumbnail).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from importlib import resources as package_files
from typing import Any

import mcp_types as types
from mcp.server.apps import APP_MIME_TYPE, EXTENSION_ID, ResourceCsp
from mcp.shared.exceptions import MCPError

__all__ = [
    "APP_MIME_TYPE",
    "SCHEME",
    "EXTENSION_ID",
    "TOOL_VIEWS",
    "VIEWS",
    "read",
    "resources",
    "with_views",
]

SCHEME = "ui://"

VIEW_TTL_MS = 3_600_000
"""How long a client may keep a view's document (an hour)."""

PLAYER_ORIGIN = "https://www.youtube-nocookie.com"
"""The one origin a view may frame: YouTube's player without its tracking cookies."""

THUMBNAIL_ORIGIN = "https://i.ytimg.com"
"""Where YouTube serves a video's thumbnails (the moments view's pictures of YouTube hits)."""


@dataclass(frozen=True)
class View:
    name: str
    title: str
    description: str
    frames_player: bool
    youtube_thumbnails: bool = False

    @property
    def uri(self) -> str:
        return f"ui://video-research/{self.name}.html"

    @property
    def csp(self) -> dict[str, Any]:
        """The narrowest policy: no connection and no outside resource (a domain list
        left out is the spec's "none"), and the player's origin framed only by the views
        that embed it."""
        frames = [PLAYER_ORIGIN] if self.frames_player else None
        images = [THUMBNAIL_ORIGIN] if self.youtube_thumbnails else None
        return ResourceCsp(frame_domains=frames, resource_domains=images).model_dump(
            by_alias=True, exclude_none=True
        )

    @property
    def ui_meta(self) -> dict[str, Any]:
        return {"csp": self.csp, "prefersBorder": True}


VIEWS: dict[str, View] = {
    view.uri: view
    for view in (
        View(
            "moments",
            "Moments",
            "Search hits as cards led by a thumbnail; choosing one plays the video from that "
            "second, in place.",
            frames_player=True,
            youtube_thumbnails=True,
        ),
        View(
            "analysis",
            "Video analysis",
            "A video analysis, or a session's answer, as a timeline of its timestamped points, each a seek.",
            frames_player=True,
        ),
        View(
            "frames",
            "Frames",
            "Frames and contact sheets as a grid labelled with each frame's time; choosing "
            "one shows it fullscreen.",
            frames_player=False,
        ),
        View(
            "queue",
            "Watch queue",
            "The watch queue as a board: now playing, next, who added what; skip and remove.",
            frames_player=False,
        ),
    )
}

TOOL_VIEWS: dict[str, str] = {
    "semantic_search_transcripts": "ui://video-research/moments.html",
    "knowledge_search": "ui://video-research/moments.html",
    "document_search": "ui://video-research/moments.html",
    "video_analyze": "ui://video-research/analysis.html",
    "video_continue_session": "ui://video-research/analysis.html",
    "queue_status": "ui://video-research/queue.html",
    "catalog_search": "ui://video-research/queue.html",
    "media_frames": "ui://video-research/frames.html",
    "media_contact_sheet": "ui://video-research/frames.html",
}
"""Which tool's result opens which view (a tool this server does not have links nothing)."""

READS: dict[str, tuple[str, ...]] = {
    "semantic_search_transcripts": (
        "query",
        "results[].video_id",
        "results[].video_title",
        "results[].channel_title",
        "results[].video_url",
        "results[].timestamp_url",
        "results[].start_time",
        "results[].match_time",
        "results[].text",
        "results[].chapter",
        "results[].language",
        "results[].evidence",
        "results[].thumbnail.content_index",
        "chapters",
    ),
    "knowledge_search": (
        "query",
        "results[].collection",
        "results[].properties",
        "collections_searched",
        "total",
    ),
    "document_search": (
        "query",
        "results[].title",
        "results[].file_name",
        "results[].text",
        "results[].page",
        "results[].citation",
        "total",
    ),
    "video_analyze": ("title", "summary", "key_points", "timestamps", "topics", "source"),
    "video_continue_session": ("response", "turn_count", "video_title", "source", "video_id"),
    "queue_status": (
        "current_video.title",
        "current_video.duration_seconds",
        "current_video.elapsed_seconds",
        "current_video.started_at",
        "items[].uid",
        "items[].title",
        "items[].duration_seconds",
        "items[].added_by",
        "total_duration_seconds",
        "actions",
    ),
    "catalog_search": (
        "items[].video_id",
        "items[].title",
        "items[].duration_seconds",
        "items[].categories",
        "total",
        "has_more",
        "snapshot_id",
        "actions",
    ),
    "media_frames": (
        "path",
        "duration_seconds",
        "frames[].time",
        "frames[].label",
        "frames[].link",
        "frames[].width",
        "frames[].height",
        "frames[].content_index",
        "omitted",
    ),
    "media_contact_sheet": (
        "path",
        "duration_seconds",
        "sheet.content_index",
        "sheet.width",
        "sheet.height",
        "cells[].time",
        "cells[].label",
        "cells[].row",
        "cells[].column",
        "cells[].link",
    ),
}
"""The fields of each linked tool's structured result its view reads, as paths into the
tool's output schema (`[]`: each item of an array). A contract test resolves every path in
schemas/: a tool whose result drops or renames one fails it until its view follows."""


def with_views(tools: list[types.Tool]) -> list[types.Tool]:
    """`tools` with `_meta.ui.resourceUri` on those that have a view (copies: the
    published definitions are shared by every session)."""
    linked = []
    for tool in tools:
        uri = TOOL_VIEWS.get(tool.name)
        if uri is None:
            linked.append(tool)
            continue
        meta = dict(tool.meta or {})
        meta["ui"] = {"resourceUri": uri}
        linked.append(tool.model_copy(update={"meta": meta}))
    return linked


def resources() -> list[types.Resource]:
    return [
        types.Resource(
            uri=view.uri,
            name=view.name,
            title=view.title,
            description=view.description,
            mime_type=APP_MIME_TYPE,
            meta={"ui": view.ui_meta},
        )
        for view in VIEWS.values()
    ]


def read(uri: str) -> types.ReadResourceResult:
    view = VIEWS.get(uri)
    if view is None:
        raise MCPError(
            types.INVALID_PARAMS,
            f"Unknown view: {uri[:200]}. The views are {', '.join(VIEWS)}.",
            {"uri": uri},
        )
    return types.ReadResourceResult(
        contents=[
            types.TextResourceContents(
                uri=uri, mime_type=APP_MIME_TYPE, meta={"ui": view.ui_meta}, text=html(view.name)
            )
        ],
        # A view is a file of this release: the same for everyone until the server changes.
        ttl_ms=VIEW_TTL_MS,
        cache_scope="public",
    )


_INCLUDE = re.compile(r"/\*@include ([a-z]+\.(?:js|css))\*/")


@cache
def html(name: str) -> str:
    """The view's document with the shared script and style put in place: one file the
    host can render without fetching anything."""
    folder = package_files.files(__package__) / "views"
    page = (folder / f"{name}.html").read_text(encoding="utf-8")
    return _INCLUDE.sub(lambda m: (folder / m.group(1)).read_text(encoding="utf-8"), page)
