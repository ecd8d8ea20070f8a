"""Where transcripts come from: YouTube (youtube-transcript-api) and local files.

YouTube
    `fetch_youtube(video_id, languages)` asks youtube-transcript-api for the video's
    caption tracks and takes the best one: a manually created track in the first
    preferred language that has one, else a generated (ASR) track in it, then the next
    language; when none of the preferred languages exists, the first manual track of any
    language, then any generated one. The result says which language it got and whether
    it was generated.

    YouTube refuses most cloud and data-centre IPs (RequestBlocked / IpBlocked). Set
    TRANSCRIPT_PROXY_URL (any HTTP(S) proxy) or WEBSHARE_PROXY_USERNAME and
    WEBSHARE_PROXY_PASSWORD (rotating residential proxies, retried on a block, which
    rotates the IP). YOUTUBE_TRANSCRIPT_ENDPOINT sends the library's requests to another
    origin (a mirror, or the local stub the tests use) through the requests Session it
    is given; the library itself is used as shipped.

    Every failure becomes a `TranscriptUnavailable` with a reason (no_transcript,
    disabled, blocked, unavailable, age_restricted, network, error) and a hint, so batch
    callers report it per video and carry on. Transient failures (5xx, dropped
    connections, timeouts) are retried with tenacity first.

Files
    `read_file(path)` parses every format `parsers` knows and reads what the file name
    says: yt-dlp's `Title [VIDEO_ID].en.vtt`, or a bare `VIDEO_ID.vtt`. What the file
    itself says (a JSON object's fields, Markdown front matter, a TTML language) wins over
    the name; yt-dlp's `.info.json` beside it (`sidecar`) fills in title, channel, date,
    description and chapters.

    A file name need not be UTF-8 (Python hands such names over surrogate-escaped);
    `printable(path)` is the name with those bytes written as `\\xNN`, for every record
    and message, and a video ID derived from such a name keeps only safe characters.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from video_research.config import Settings
from video_research.support import paths
from video_research.support.cookies import load_cookie_jar
from video_research.support.errors import ErrorCategory, ToolFailure
from video_research.support.retrying import call_with_backoff
from video_research.support.services import current_settings
from video_research.support.youtube_urls import VIDEO_ID
from video_research.transcripts.parsers import (
    Budget,
    Cue,
    clean_text,
    load_json,
    normalise_metadata,
    parse_file,
)
from video_research.transcripts.parsers.structured import is_yt_dlp_info, json_metadata

logger = logging.getLogger(__name__)

YOUTUBE_ORIGIN = "https://www.youtube.com"
REQUEST_TIMEOUT_SECONDS = 30
PROXY_HINT = (
    "YouTube blocks most cloud and data-centre IPs. Set TRANSCRIPT_PROXY_URL to an HTTP(S) proxy, "
    "or WEBSHARE_PROXY_USERNAME and WEBSHARE_PROXY_PASSWORD for rotating residential proxies, and "
    "restart the server; or download the captions elsewhere (e.g. yt-dlp --write-auto-subs) and "
    "index them with index_transcript_files."
)


@dataclass
class Transcript:
    """One video's transcript, whatever it came from."""

    video_id: str
    cues: list[Cue]
    language: str = ""
    is_generated: bool = False
    source: str = "youtube"
    """youtube, file, or speech (transcribed from the media's audio)."""
    source_path: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)


class TranscriptUnavailable(ToolFailure):
    """No transcript for one video; `reason` is what batch results report."""

    def __init__(
        self,
        video_id: str,
        reason: str,
        category: ErrorCategory,
        message: str,
        *,
        hint: str | None = None,
        retryable: bool | None = None,
    ) -> None:
        super().__init__(category, message, hint=hint, retryable=retryable)
        self.video_id = video_id
        self.reason = reason

    def to_item(self) -> dict[str, Any]:
        """The per-video failure entry of a batch result."""
        return failure_item(self, self.reason, video_id=self.video_id)


def failure_item(failure: ToolFailure, reason: str, **where: str) -> dict[str, Any]:
    """A batch result's entry for one video or file (`where`: video_id and/or file) that
    failed with `failure`; its category decides whether it is retryable."""
    error = failure.to_tool_error()
    return {
        **where,
        "reason": reason,
        "category": error.category,
        "error": error.error,
        "hint": error.hint or "",
        "retryable": error.retryable,
    }


# ----------------------------------------------------------------------------- YouTube


def proxy_config(settings: Settings) -> Any:
    """The youtube-transcript-api ProxyConfig the settings ask for, or None."""
    from youtube_transcript_api.proxies import GenericProxyConfig, WebshareProxyConfig

    password = settings.webshare_proxy_password.get_secret_value()
    if settings.webshare_proxy_username and password:
        return WebshareProxyConfig(
            proxy_username=settings.webshare_proxy_username,
            proxy_password=password,
            filter_ip_locations=settings.webshare_proxy_locations or None,
        )
    url = settings.transcript_proxy_url.get_secret_value()
    if url:
        return GenericProxyConfig(http_url=url, https_url=url)
    return None


def _session(settings: Settings) -> Any:
    """A requests Session with a timeout on every request, sent to the configured origin,
    carrying the cookies of YOUTUBE_COOKIES_FILE when it is set."""
    import requests

    endpoint = settings.transcript_endpoint.rstrip("/")

    class TranscriptSession(requests.Session):
        def request(self, method: str, url: str, *args: Any, **kwargs: Any) -> Any:  # type: ignore[override]
            if endpoint and url.startswith(YOUTUBE_ORIGIN):
                url = endpoint + url[len(YOUTUBE_ORIGIN) :]
            kwargs.setdefault("timeout", REQUEST_TIMEOUT_SECONDS)
            return super().request(method, url, *args, **kwargs)

    session = TranscriptSession()
    if settings.youtube_cookies_file:
        session.cookies.update(load_cookie_jar(settings.youtube_cookies_file))
    return session


def _pick(listing: Any, languages: list[str]) -> Any:
    """The best track: preferred languages in order (manual before generated), then any."""
    from youtube_transcript_api import NoTranscriptFound

    try:
        return listing.find_transcript(languages)
    except NoTranscriptFound:
        tracks = list(listing)  # manual tracks first, then generated
        if not tracks:
            raise
        return tracks[0]


def _fetch_sync(video_id: str, languages: list[str], settings: Settings) -> Transcript:
    from youtube_transcript_api import YouTubeTranscriptApi

    api = YouTubeTranscriptApi(proxy_config=proxy_config(settings), http_client=_session(settings))
    track = _pick(api.list(video_id), languages)
    fetched = track.fetch()
    cues = [
        Cue(round(s.start, 3), round(s.start + max(s.duration, 0.0), 3), clean_text(s.text))
        for s in fetched.snippets
    ]
    return Transcript(
        video_id=video_id,
        cues=sorted((c for c in cues if c.text), key=lambda c: c.start),
        language=fetched.language_code,
        is_generated=fetched.is_generated,
    )


def _is_transient(exc: BaseException) -> bool:
    import requests
    from youtube_transcript_api import YouTubeRequestFailed

    if isinstance(exc, requests.ConnectionError | requests.Timeout):
        return True
    if isinstance(exc, YouTubeRequestFailed):
        return bool(re.search(r"\b5\d\d\b", exc.reason or ""))
    return False


def _unavailable(video_id: str, exc: BaseException) -> TranscriptUnavailable:
    """The per-video failure for a youtube-transcript-api (or requests) exception."""
    import requests
    import youtube_transcript_api as yta

    def failure(reason: str, category: ErrorCategory, message: str, **kw: Any):
        return TranscriptUnavailable(video_id, reason, category, message, **kw)

    if isinstance(exc, yta.RequestBlocked | yta.IpBlocked):
        return failure(
            "blocked",
            ErrorCategory.RATE_LIMITED,
            f"YouTube blocked the transcript request for {video_id} from this server's IP.",
            hint=PROXY_HINT,
            retryable=False,
        )
    if isinstance(exc, yta.TranscriptsDisabled):
        return failure(
            "disabled",
            ErrorCategory.NOT_FOUND,
            f"Video {video_id} has subtitles disabled: there is no transcript to fetch.",
            hint="Pick another video, or index a transcript you made yourself with index_transcript_files.",
        )
    if isinstance(exc, yta.NoTranscriptFound):
        return failure(
            "no_transcript",
            ErrorCategory.NOT_FOUND,
            f"Video {video_id} has no transcript track.",
            hint="Try another language, or index a transcript file with index_transcript_files.",
        )
    if isinstance(exc, yta.AgeRestricted):
        return failure(
            "age_restricted",
            ErrorCategory.FORBIDDEN,
            f"Video {video_id} is age-restricted; its transcript needs a signed-in session.",
            hint="Download its captions while signed in (yt-dlp --cookies-from-browser) and use "
            "index_transcript_files.",
        )
    if isinstance(exc, yta.VideoUnavailable | yta.InvalidVideoId | yta.VideoUnplayable):
        return failure(
            "unavailable",
            ErrorCategory.NOT_FOUND,
            f"Video {video_id} is unavailable (private, deleted or region-locked).",
            hint="Check the video ID.",
        )
    if isinstance(exc, yta.PoTokenRequired):
        return failure(
            "unavailable",
            ErrorCategory.FORBIDDEN,
            f"YouTube wants a proof-of-origin token for the transcript of {video_id}.",
            hint="Download its captions with yt-dlp and use index_transcript_files.",
        )
    if isinstance(exc, requests.RequestException) or _is_transient(exc):
        return failure(
            "network",
            ErrorCategory.NETWORK,
            f"Could not reach YouTube for the transcript of {video_id} ({type(exc).__name__}).",
            hint="Check connectivity (and TRANSCRIPT_PROXY_URL / YOUTUBE_TRANSCRIPT_ENDPOINT if "
            "set), then retry.",
            retryable=True,
        )
    # youtube-transcript-api's str() is a preamble ("Could not retrieve a transcript ...
    # most likely caused by:") with the cause on later lines; `cause` is the cause alone.
    cause = " ".join(str(getattr(exc, "cause", "") or "").split())
    if not cause:
        lines = str(exc).strip().splitlines()
        cause = lines[0] if lines else type(exc).__name__
    return failure(
        "error",
        ErrorCategory.UNAVAILABLE,
        f"Fetching the transcript of {video_id} failed: {cause[:300]}",
        hint="Retry later; if it persists, index a downloaded transcript with index_transcript_files.",
        retryable=_is_transient(exc),
    )


async def fetch_youtube(
    video_id: str, languages: list[str] | None = None, settings: Settings | None = None
) -> Transcript:
    """The best transcript of a YouTube video; TranscriptUnavailable says why there is none."""
    settings = settings or current_settings()
    preferred = [lang for lang in (languages or settings.transcript_languages) if lang] or ["en"]
    if settings.youtube_cookies_file:  # a bad file is the operator's to fix: config_error
        load_cookie_jar(settings.youtube_cookies_file)
    try:
        return await call_with_backoff(
            _fetch_sync,
            video_id,
            preferred,
            settings,
            settings=settings,
            is_transient=_is_transient,
            what=f"transcript {video_id}",
            logger=logger,
        )
    except asyncio.CancelledError:
        raise
    except Exception as exc:
        raise _unavailable(video_id, exc) from exc


# ----------------------------------------------------------------------------- files

_YT_DLP_NAME = re.compile(r"^(?P<title>.*?)\s*\[(?P<id>[A-Za-z0-9_-]{11})\]$")
_LANGUAGE_SUFFIX = re.compile(r"\.(?P<lang>[a-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})*)$")
_SAFE_ID = re.compile(r"[^A-Za-z0-9_.:-]+")


def identify(path: Path) -> dict[str, str]:
    """What a transcript's file name says: video_id, and title / language when it has them.

    `Title [dQw4w9WgXcQ].en.vtt` (yt-dlp) -> id, title and language; `dQw4w9WgXcQ.srt` ->
    the id; anything else -> the name itself as the id (no YouTube link then).
    """
    stem = path.name[: -len(path.suffix)] if path.suffix else path.name
    found: dict[str, str] = {}
    language = _LANGUAGE_SUFFIX.search(stem)
    if language:
        base = stem[: language.start()]
        if _YT_DLP_NAME.match(base) or VIDEO_ID.match(base):
            found["language"] = language.group("lang").split("-orig")[0]
            stem = base
    named = _YT_DLP_NAME.match(stem)
    if named:
        found["video_id"] = named.group("id")
        if named.group("title"):
            found["title"] = printable(named.group("title"))
    elif VIDEO_ID.match(stem):
        found["video_id"] = stem
    else:
        found["video_id"] = _SAFE_ID.sub("_", stem).strip("_")[:128] or "transcript"
    return found


def is_youtube_id(video_id: str) -> bool:
    return bool(VIDEO_ID.match(video_id))


SIDECAR_MAX_BYTES = 16 * 1024 * 1024
"""yt-dlp's .info.json lists every format; a few MB is normal."""


def printable(path: Path | str) -> str:
    """A path as text that can always be encoded: bytes that are not UTF-8 (surrogate-
    escaped by Python) are written as `\\xNN`."""
    return os.fsencode(str(path)).decode("utf-8", "backslashreplace")


def sidecar_name(path: Path) -> str | None:
    """The name of yt-dlp's `.info.json` for a transcript (`Title [ID].en.vtt` ->
    `Title [ID].info.json`), or None when the name is not yt-dlp's or an ID."""
    stem = path.name[: -len(path.suffix)] if path.suffix else path.name
    language = _LANGUAGE_SUFFIX.search(stem)
    if language and (
        _YT_DLP_NAME.match(stem[: language.start()]) or VIDEO_ID.match(stem[: language.start()])
    ):
        stem = stem[: language.start()]
    if _YT_DLP_NAME.match(stem) or VIDEO_ID.match(stem):
        return f"{stem}.info.json"
    return None


def read_sidecar(path: Path) -> dict[str, Any]:
    """Title, channel, date, url, description and chapters from a yt-dlp .info.json; {}
    when it is not one or cannot be read (it only adds to what the transcript says)."""
    try:
        with paths.open_regular(path) as handle:
            raw = handle.read(SIDECAR_MAX_BYTES + 1)
        if len(raw) > SIDECAR_MAX_BYTES:
            return {}
        data = load_json(raw.decode("utf-8"))
    except (OSError, ValueError, paths.NotRegularFile) as exc:
        logger.info("ignoring %s: %s", printable(path), exc)
        return {}
    if not is_yt_dlp_info(data):
        return {}
    found = json_metadata(data)
    found.pop("url", None)
    if isinstance(data.get("webpage_url"), str):
        found["url"] = data["webpage_url"]
    chapters = data.get("chapters")
    if isinstance(chapters, list):
        found["chapters"] = [
            {"start": float(c["start_time"]), "title": c["title"].strip()[:300]}
            for c in chapters[:500]
            if isinstance(c, dict)
            and isinstance(c.get("start_time"), int | float)
            and not isinstance(c.get("start_time"), bool)
            and 0 <= c["start_time"] < 1e9
            and isinstance(c.get("title"), str)
            and c["title"].strip()
        ]
    return found


def read_file(path: Path, budget: Budget | None = None, sidecar: Path | None = None) -> Transcript:
    """A local transcript file, identified by its name, its own metadata and its sidecar."""
    parsed = parse_file(path, budget)
    named = identify(path)
    extra = normalise_metadata(read_sidecar(sidecar)) if sidecar else {}
    meta = {**named, **extra, **parsed.metadata}
    return Transcript(
        video_id=meta.pop("video_id"),
        cues=parsed.cues,
        language=meta.pop("language", ""),
        is_generated=False,
        source="file",
        source_path=printable(path),
        metadata=meta,
    )
