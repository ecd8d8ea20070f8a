"""The YouTube Data API client (google-api-python-client); keyless titles are
`youtube_oembed`'s.

- The service is built from the discovery document shipped with the library
  (`static_discovery=True`: no network at start-up), against YOUTUBE_API_ENDPOINT when set.
- The key is YOUTUBE_API_KEY, falling back to GEMINI_API_KEY (one Google Cloud key
  often has both APIs enabled).
- Each request runs in a worker thread with its own HTTP connection (httplib2 is not
  thread-safe) and a bounded timeout. Transient failures (5xx, resets, timeouts) are
  retried with tenacity; quota, 400, 403 and 404 are not: retrying cannot fix them.
- Failures leave as ToolFailure: quota -> API_QUOTA_EXCEEDED (retryable, with
  retry_after), bad key -> API_PERMISSION_DENIED, missing video/playlist -> not_found.

Costs (quota units): videos.list 1 per 50 ids, playlistItems.list 1 per page of 50,
playlists.list 1, channels.list 1, commentThreads.list 1 per page.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Mapping
from datetime import timedelta
from typing import TYPE_CHECKING, Any, TypedDict

from video_research.config import Settings
from video_research.support.errors import COMMENTS_OFF_HINT, ErrorCategory, ToolFailure
from video_research.support.retrying import call_with_backoff
from video_research.support.services import Resource, current_services, current_settings
from video_research.support.youtube_urls import watch_url

if TYPE_CHECKING:
    from video_research.support.schema_types.tools.video_comments_output import (
        Comment,
        VideoCommentsOutput,
    )
    from video_research.support.schema_types.tools.video_metadata_output import (
        VideoMetadataOutput as VideoMetadata,
    )
    from video_research.support.schema_types.tools.video_playlist_output import (
        Item as PlaylistItem,
    )
    from video_research.support.schema_types.tools.video_playlist_output import (
        VideoPlaylistOutput,
    )

logger = logging.getLogger(__name__)

TIMEOUT_SECONDS = 30
VIDEO_PARTS = "snippet,contentDetails,statistics,status"
KEY_HINT = (
    "Set YOUTUBE_API_KEY (or GEMINI_API_KEY, if its Google Cloud project has the YouTube Data API v3 "
    "enabled) in the server's environment, then restart the server."
)

# ----------------------------------------------------------------------------- parsing

_DURATION = re.compile(
    r"^P(?:(?P<weeks>\d+)W)?(?:(?P<days>\d+)D)?"
    r"(?:T(?:(?P<hours>\d+)H)?(?:(?P<minutes>\d+)M)?(?:(?P<seconds>\d+(?:\.\d+)?)S)?)?$"
)


def parse_duration(value: str | None) -> int | None:
    """Seconds in an ISO 8601 duration (PT1H2M3S, P1DT2H, P0D); None when absent or malformed."""
    if not value:
        return None
    match = _DURATION.match(value.strip())
    if not match or value.strip() in ("P", "PT"):
        return None
    parts = {k: float(v) for k, v in match.groupdict().items() if v}
    total = timedelta(
        weeks=parts.get("weeks", 0),
        days=parts.get("days", 0),
        hours=parts.get("hours", 0),
        minutes=parts.get("minutes", 0),
        seconds=parts.get("seconds", 0),
    )
    return int(total.total_seconds())


def format_duration(seconds: int | None) -> str | None:
    """H:MM:SS or M:SS, the way YouTube shows it."""
    if seconds is None:
        return None
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def _count(value: Any) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def _best_thumbnail(thumbnails: dict[str, Any] | None) -> str | None:
    for size in ("maxres", "standard", "high", "medium", "default"):
        url = (thumbnails or {}).get(size, {}).get("url")
        if url:
            return url
    return None


def video_from_resource(item: Mapping[str, Any]) -> VideoMetadata:
    """The project's video metadata dict from a videos.list resource."""
    snippet = item.get("snippet") or {}
    details = item.get("contentDetails") or {}
    stats = item.get("statistics") or {}
    status = item.get("status") or {}
    seconds = parse_duration(details.get("duration"))
    return {
        "video_id": item["id"],
        "url": watch_url(item["id"]),
        "title": snippet.get("title", ""),
        "description": snippet.get("description", ""),
        "channel_id": snippet.get("channelId", ""),
        "channel_title": snippet.get("channelTitle", ""),
        "published_at": snippet.get("publishedAt", ""),
        "duration_seconds": seconds,
        "duration": format_duration(seconds),
        "view_count": _count(stats.get("viewCount")),
        "like_count": _count(stats.get("likeCount")),
        "comment_count": _count(stats.get("commentCount")),
        "tags": list(snippet.get("tags") or []),
        "category_id": snippet.get("categoryId"),
        "default_language": snippet.get("defaultAudioLanguage") or snippet.get("defaultLanguage"),
        "thumbnail_url": _best_thumbnail(snippet.get("thumbnails")),
        "live_broadcast_content": snippet.get("liveBroadcastContent"),
        "privacy_status": status.get("privacyStatus"),
        "embeddable": status.get("embeddable"),
        "definition": details.get("definition"),
        "has_captions": None
        if details.get("caption") is None
        else details.get("caption") == "true",
    }


# ----------------------------------------------------------------------------- the service


def _require_key(settings: Settings) -> str:
    key = settings.effective_youtube_api_key
    if not key:
        raise ToolFailure(
            ErrorCategory.CONFIG_ERROR, "No YouTube Data API key is configured.", hint=KEY_HINT
        )
    return key


def _build(settings: Settings) -> Any:
    """The Data API client for these settings: the bundled discovery document (no
    network to build it), pointed at YOUTUBE_API_ENDPOINT when set."""
    from googleapiclient.discovery import build

    endpoint = settings.youtube_api_endpoint
    options = {"api_endpoint": endpoint} if endpoint else None
    return build(
        "youtube",
        "v3",
        developerKey=_require_key(settings),
        static_discovery=True,
        cache_discovery=False,
        client_options=options,
    )


YOUTUBE_API: Resource[Any] = Resource(
    "youtube",
    key=lambda settings: (settings.effective_youtube_api_key, settings.youtube_api_endpoint),
    open=_build,
    close=lambda service: service.close(),
)
"""One Data API client per key and endpoint, shared by every call of the services that
opened it."""


def _service(settings: Settings) -> Any:
    _require_key(settings)  # a config_error before anything is built or kept
    return current_services().get(YOUTUBE_API, settings)


def _http_status(exc: BaseException) -> int | None:
    resp = getattr(exc, "resp", None)
    status: Any = getattr(resp, "status", None)
    try:
        return int(status)
    except (TypeError, ValueError):
        return None


def _reasons(exc: BaseException) -> set[str]:
    details = getattr(exc, "error_details", None) or []
    reasons = {str(d.get("reason", "")) for d in details if isinstance(d, dict)}
    content = getattr(exc, "content", b"") or b""
    for reason in (
        "quotaExceeded",
        "rateLimitExceeded",
        "dailyLimitExceeded",
        "keyInvalid",
        "forbidden",
        "commentsDisabled",
    ):
        if reason.encode() in content:
            reasons.add(reason)
    return reasons


def _is_transient(exc: BaseException) -> bool:
    """5xx answers, timeouts, resets and half-read responses: worth another try."""
    import http.client

    status = _http_status(exc)
    if status is not None:
        return status >= 500
    return (
        isinstance(exc, OSError | http.client.HTTPException)
        or type(exc).__name__ == "ServerNotFoundError"
    )


def _to_failure(exc: BaseException, what: str) -> ToolFailure:
    status = _http_status(exc)
    reasons = _reasons(exc)
    message = getattr(exc, "reason", None) or str(exc)
    if reasons & {"quotaExceeded", "dailyLimitExceeded", "rateLimitExceeded"} or status == 429:
        return ToolFailure(
            ErrorCategory.RATE_LIMITED,
            f"YouTube Data API quota exceeded while fetching {what}.",
            hint="The daily quota (10,000 units by default) resets at midnight Pacific time; retry later "
            "or use a key from another project.",
            retryable=True,
            retry_after_seconds=3600
            if "quotaExceeded" in reasons or "dailyLimitExceeded" in reasons
            else 60,
        )
    if "commentsDisabled" in reasons:
        return ToolFailure(
            ErrorCategory.FORBIDDEN,
            f"Comments are turned off for {what}.",
            hint=COMMENTS_OFF_HINT,
            retryable=False,
        )
    if "keyInvalid" in reasons or status in (401,):
        return ToolFailure(
            ErrorCategory.UNAUTHORIZED,
            "The YouTube API key was rejected (keyInvalid).",
            hint=KEY_HINT,
        )
    if status == 403:
        return ToolFailure(
            ErrorCategory.UNAUTHORIZED,
            f"YouTube refused the request for {what}: {message}",
            hint="Enable the YouTube Data API v3 for the key's Google Cloud project, or check the key's API restrictions.",
        )
    if status == 404:
        return ToolFailure(ErrorCategory.NOT_FOUND, f"YouTube has no {what}.")
    if status is not None and status >= 500:
        return ToolFailure(
            ErrorCategory.UNAVAILABLE, f"YouTube Data API error {status} while fetching {what}."
        )
    if status is not None:
        return ToolFailure(
            ErrorCategory.INVALID_INPUT,
            f"YouTube rejected the request for {what}: {message}",
        )
    return ToolFailure(
        ErrorCategory.NETWORK,
        f"Could not reach the YouTube Data API ({type(exc).__name__}: {exc}).",
        hint="Check connectivity (and YOUTUBE_API_ENDPOINT if set), then retry.",
    )


async def _execute(
    build_request: Any, what: str, settings: Settings | None = None
) -> dict[str, Any]:
    """Run one API request (built from the service) with retries; returns the JSON body."""
    settings = settings or current_settings()
    service = _service(settings)

    def run() -> dict[str, Any]:
        import httplib2

        # Closed here, not left to the garbage collector: a connection dropped mid-answer
        # (a 5xx, a stall) otherwise kept its socket open, 8 more after 300 failed requests.
        http = httplib2.Http(timeout=TIMEOUT_SECONDS)
        try:
            return build_request(service).execute(http=http)
        finally:
            http.close()

    try:
        return await call_with_backoff(
            run,
            settings=settings,
            is_transient=_is_transient,
            what=f"YouTube {what}",
            logger=logger,
        )
    except asyncio.CancelledError:
        raise
    except Exception as exc:
        raise _to_failure(exc, what) from exc


# ----------------------------------------------------------------------------- API


async def get_videos(video_ids: list[str]) -> list[VideoMetadata]:
    """Metadata of many videos (batched 50 per request), in the order given; unknown IDs skipped."""
    found: dict[str, VideoMetadata] = {}
    for start in range(0, len(video_ids), 50):
        batch = video_ids[start : start + 50]
        body = await _execute(
            lambda s, batch=batch: s.videos().list(
                part=VIDEO_PARTS, id=",".join(batch), maxResults=50
            ),
            f"videos {', '.join(batch[:3])}{'...' if len(batch) > 3 else ''}",
        )
        for item in body.get("items", []):
            found[item["id"]] = video_from_resource(item)
    return [found[v] for v in video_ids if v in found]


async def get_video(video_id: str) -> VideoMetadata:
    """Metadata of one video (the video_metadata output shape)."""
    videos = await get_videos([video_id])
    if not videos:
        raise ToolFailure(
            ErrorCategory.NOT_FOUND,
            f"YouTube returned no video {video_id}: it is private, deleted or never existed.",
            hint="Check the URL; private and deleted videos are invisible to the Data API.",
        )
    return videos[0]


async def _playlist_items(
    playlist_id: str, max_items: int
) -> tuple[list[dict[str, Any]], int | None]:
    """Up to max_items playlist items (following nextPageToken), and the playlist's total."""
    items: list[dict[str, Any]] = []
    total: int | None = None
    token: str | None = None
    while len(items) < max_items:
        body = await _execute(
            lambda s, token=token: s.playlistItems().list(
                part="snippet,contentDetails,status",
                playlistId=playlist_id,
                maxResults=50,
                pageToken=token,
            ),
            f"playlist {playlist_id}",
        )
        total = _count((body.get("pageInfo") or {}).get("totalResults"))
        items.extend(body.get("items", []))
        token = body.get("nextPageToken")
        if not token:
            break
    return items[:max_items], total


async def get_playlist(playlist_id: str, max_items: int) -> VideoPlaylistOutput:
    """A playlist and up to max_items of its videos (the video_playlist output shape)."""
    listing = await _execute(
        lambda s: s.playlists().list(part="snippet,contentDetails", id=playlist_id, maxResults=1),
        f"playlist {playlist_id}",
    )
    if not listing.get("items"):
        raise ToolFailure(
            ErrorCategory.NOT_FOUND,
            f"YouTube has no playlist {playlist_id} (private, deleted or mistyped).",
            hint="Check the list= parameter of the URL; private playlists are invisible to the Data API.",
        )
    playlist = listing["items"][0]
    snippet = playlist.get("snippet") or {}
    raw_items, total = await _playlist_items(playlist_id, max_items)
    video_ids = [
        (item.get("contentDetails") or {}).get("videoId")
        or (item.get("snippet") or {}).get("resourceId", {}).get("videoId")
        for item in raw_items
    ]
    details = {v["video_id"]: v for v in await get_videos([v for v in video_ids if v])}
    items: list[PlaylistItem] = []
    for position, (item, video_id) in enumerate(zip(raw_items, video_ids, strict=True)):
        item_snippet = item.get("snippet") or {}
        video = details.get(video_id or "")
        known: Mapping[str, Any] = video or {}
        items.append(
            {
                "video_id": video_id or "",
                "position": item_snippet.get("position", position),
                "title": known.get("title") or item_snippet.get("title", ""),
                "url": watch_url(video_id) if video_id else "",
                "channel_title": known.get("channel_title")
                or item_snippet.get("videoOwnerChannelTitle", ""),
                "published_at": known.get("published_at")
                or (item.get("contentDetails") or {}).get("videoPublishedAt", ""),
                "added_at": item_snippet.get("publishedAt", ""),
                "duration_seconds": known.get("duration_seconds"),
                "thumbnail_url": known.get("thumbnail_url")
                or _best_thumbnail(item_snippet.get("thumbnails")),
                "available": video is not None,
            }
        )
    return {
        "playlist_id": playlist_id,
        "url": f"https://www.youtube.com/playlist?list={playlist_id}",
        "title": snippet.get("title", ""),
        "description": snippet.get("description", ""),
        "channel_id": snippet.get("channelId", ""),
        "channel_title": snippet.get("channelTitle", ""),
        "item_count": _count((playlist.get("contentDetails") or {}).get("itemCount"))
        or total
        or len(items),
        "returned": len(items),
        "items": items,
    }


async def list_channel_videos(channel_id: str, max_videos: int) -> list[VideoMetadata]:
    """A channel's most recent uploads, newest first, as video metadata dicts."""
    body = await _execute(
        lambda s: s.channels().list(part="contentDetails,snippet", id=channel_id, maxResults=1),
        f"channel {channel_id}",
    )
    if not body.get("items"):
        raise ToolFailure(
            ErrorCategory.NOT_FOUND,
            f"YouTube has no channel {channel_id}.",
            hint="Pass a channel ID (UC...).",
        )
    uploads = ((body["items"][0].get("contentDetails") or {}).get("relatedPlaylists") or {}).get(
        "uploads"
    )
    if not uploads:
        return []
    raw_items, _ = await _playlist_items(uploads, max_videos)
    ids = [(item.get("contentDetails") or {}).get("videoId") for item in raw_items]
    videos = await get_videos([v for v in ids if v])
    return sorted(videos, key=lambda v: v.get("published_at") or "", reverse=True)


class _CommentFields(TypedDict):
    """What a top-level comment and a reply both carry."""

    comment_id: str
    author: str
    author_channel_id: str | None
    author_channel_url: str | None
    text: str
    like_count: int
    published_at: str
    updated_at: str | None
    url: str | None


if TYPE_CHECKING:

    class _ThreadComment(Comment):
        """A thread's top comment: the contract's fields, and the author's channel link
        and the edit time, which the contract allows without naming."""

        author_channel_url: str | None
        updated_at: str | None


def _comment(snippet: Mapping[str, Any], comment_id: str, video_id: str) -> _CommentFields:
    """One comment (top-level or reply) from its commentThreads/comments snippet."""
    channel = (snippet.get("authorChannelId") or {}).get("value")
    return {
        "comment_id": comment_id,
        "author": snippet.get("authorDisplayName", ""),
        "author_channel_id": channel,
        "author_channel_url": snippet.get("authorChannelUrl"),
        "text": snippet.get("textDisplay") or snippet.get("textOriginal") or "",
        "like_count": _count(snippet.get("likeCount")) or 0,
        "published_at": snippet.get("publishedAt", ""),
        "updated_at": snippet.get("updatedAt"),
        "url": f"{watch_url(video_id)}&lc={comment_id}" if comment_id else None,
    }


def comment_thread(item: Mapping[str, Any], video_id: str) -> _ThreadComment:
    """A commentThreads resource as the video_comments output lists it."""
    snippet = item.get("snippet") or {}
    top = snippet.get("topLevelComment") or {}
    comment: _ThreadComment = {
        **_comment(top.get("snippet") or {}, top.get("id") or item.get("id", ""), video_id),
        "thread_id": item.get("id", ""),
        "reply_count": _count(snippet.get("totalReplyCount")) or 0,
    }
    replies = (item.get("replies") or {}).get("comments")
    if replies is not None:
        comment["replies"] = [
            dict(_comment(reply.get("snippet") or {}, reply.get("id", ""), video_id))
            for reply in replies
        ]
    return comment


async def get_comments(
    video_id: str,
    *,
    order: str = "relevance",
    max_results: int = 20,
    page_token: str | None = None,
    include_replies: bool = False,
    search_terms: str | None = None,
) -> VideoCommentsOutput:
    """One page of a video's comment threads (commentThreads.list, 1 quota unit).

    Comments turned off is `forbidden`, never an empty page; an unknown video is
    not_found.
    """
    body = await _execute(
        lambda s: s.commentThreads().list(
            part="snippet,replies" if include_replies else "snippet",
            videoId=video_id,
            order=order,
            maxResults=max_results,
            pageToken=page_token,
            textFormat="plainText",
            searchTerms=search_terms,
        ),
        f"video {video_id}",
    )
    comments: list[Comment] = [comment_thread(item, video_id) for item in body.get("items", [])]
    return {
        "video_id": video_id,
        "url": watch_url(video_id),
        "order": order,
        "comments": comments,
        "returned": len(comments),
        "next_page_token": body.get("nextPageToken"),
    }
