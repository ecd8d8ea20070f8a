"""YouTube URL validation and normalisation.

Accepts every legitimate form of a video URL (watch, youtu.be, shorts, embed, live,
m./music. hosts, extra query parameters such as `list=` or `t=`) and normalises it to
`https://www.youtube.com/watch?v=VIDEO_ID`. Hosts are matched exactly or by the
`.youtube.com` suffix, never by substring, so look-alikes such as `youtube.com.evil.com`
or `not-youtube.com` are rejected.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

from video_research.support.errors import URL_HINT, URL_PARSE_HINT, ErrorCategory, ToolFailure

VIDEO_ID = re.compile(r"^[A-Za-z0-9_-]{11}$")
PLAYLIST_ID = re.compile(r"^[A-Za-z0-9_-]{2,64}$")
_PATH_FORMS = ("shorts", "embed", "live", "v", "e")


class YouTubeUrlError(ToolFailure, ValueError):
    """A URL that is not a YouTube video (or playlist) URL, or whose ID cannot be read."""

    def __init__(self, message: str, *, hint: str = URL_HINT) -> None:
        ToolFailure.__init__(self, ErrorCategory.INVALID_INPUT, message, hint=hint)


def _is_youtube_host(host: str) -> bool:
    return host == "youtube.com" or host.endswith(".youtube.com")


def _is_youtu_be_host(host: str) -> bool:
    return host in ("youtu.be", "www.youtu.be")


def _split(url: str) -> tuple[str, str, dict[str, list[str]]]:
    """(host, path, query) of a URL; raises invalid_input for anything not YouTube."""
    if not isinstance(url, str) or not url.strip():
        raise YouTubeUrlError("Invalid YouTube URL: empty")
    cleaned = url.strip().replace("\\", "")
    if "://" not in cleaned:
        cleaned = "https://" + cleaned
    try:
        parts = urlsplit(cleaned)
        host = (parts.hostname or "").lower().rstrip(".")
    except ValueError:
        raise YouTubeUrlError(f"Invalid YouTube URL: {url[:200]}") from None
    if parts.scheme.lower() not in ("http", "https"):
        raise YouTubeUrlError(f"Invalid YouTube URL (scheme {parts.scheme!r}): {url[:200]}")
    if parts.username or parts.password:
        raise YouTubeUrlError(f"Invalid YouTube URL (credentials in URL): {url[:200]}")
    if not (_is_youtube_host(host) or _is_youtu_be_host(host)):
        raise YouTubeUrlError(
            f"Invalid YouTube URL (host {host or '?'!r} is not YouTube): {url[:200]}",
        )
    return host, parts.path, parse_qs(parts.query)


def _clean_id(candidate: str) -> str | None:
    candidate = candidate.strip().split("?")[0].split("&")[0].split("#")[0].strip("/")
    return candidate if VIDEO_ID.match(candidate) else None


def parse_video_id(url: str) -> str:
    """The 11-character video ID of any supported YouTube video URL."""
    host, path, query = _split(url)
    video_id: str | None = None
    if _is_youtu_be_host(host):
        video_id = _clean_id(path.lstrip("/").split("/")[0])
    else:
        segments = [s for s in path.split("/") if s]
        if segments[:1] == ["watch"] and query.get("v"):
            video_id = _clean_id(query["v"][0])
        elif len(segments) >= 2 and segments[0] in _PATH_FORMS:
            video_id = _clean_id(segments[1])
    if video_id is None:
        raise YouTubeUrlError(
            f"Could not extract video ID from URL: {url[:200]}", hint=URL_PARSE_HINT
        )
    return video_id


def normalize_youtube_url(url: str) -> str:
    """`https://www.youtube.com/watch?v=VIDEO_ID` for any supported video URL."""
    return watch_url(parse_video_id(url))


def is_youtube_url(url: str) -> bool:
    try:
        parse_video_id(url)
    except YouTubeUrlError:
        return False
    return True


def parse_playlist_id(url: str) -> str:
    """The playlist ID (`list=`) of a YouTube playlist or watch-in-playlist URL."""
    _host, _path, query = _split(url)
    values = query.get("list") or []
    if not values or not PLAYLIST_ID.match(values[0]):
        raise YouTubeUrlError(
            f"Could not extract playlist ID from URL: {url[:200]}", hint=URL_PARSE_HINT
        )
    return values[0]


def watch_url(video_id: str, start_seconds: float | None = None) -> str:
    """The canonical watch URL, with `&t=SECONDSs` when a start time is given."""
    url = f"https://www.youtube.com/watch?v={video_id}"
    if start_seconds is not None:
        url += f"&t={max(0, int(start_seconds))}s"
    return url
