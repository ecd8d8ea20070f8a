"""Media from URLs, downloaded only as far as the work needs: the audio alone for speech.

YouTube goes through yt-dlp (the maintained downloader that keeps up with YouTube's
changes), asked for the best audio-only format, with YOUTUBE_COOKIES_FILE as its
`cookiefile`, the size limit as `max_filesize` and the duration limit checked from the
video's metadata before a byte of media is fetched (`match_filter`). With
YOUTUBE_MEDIA_ENDPOINT set, yt-dlp reads `<endpoint>/watch?v=ID` instead (a mirror or
cache that serves the media, or the tests' local youtube.com stub) with the same options:
its generic extractor takes the media from the page.

A direct media URL (https://host/talk.mp3) is fetched with httpx, one hop at a time: every
redirect target passes the URL policy (support/url_policy.py) again before it is
requested, so a public URL cannot bounce the server onto 169.254.169.254 or a LAN host.
yt-dlp's generic extractor would follow redirects itself, past the policy; that is why it
is not used for these. The body is streamed to disk and stops at MEDIA_DOWNLOAD_MAX_MB.

Both are blocking or long: `download` runs yt-dlp in a worker thread and checks
`should_stop` from its progress hook, so a cancelled call stops the download too.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import hashlib
import logging
import re
import threading
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urljoin, urlsplit

from video_research.config import Settings
from video_research.support import url_policy
from video_research.support.cookies import cookie_file
from video_research.support.errors import ErrorCategory, ToolFailure, config_error
from video_research.support.youtube_urls import parse_video_id

logger = logging.getLogger(__name__)

MAX_REDIRECTS = 5


class DownloadFailed(ToolFailure):
    """One URL could not be downloaded; a batch reports it and goes on."""


@dataclass(frozen=True)
class Downloaded:
    """A downloaded media file and what is known of it."""

    path: Path
    url: str
    video_id: str
    """The YouTube video ID, or a stable ID made from the URL for direct media."""
    title: str = ""
    channel_id: str = ""
    channel_title: str = ""
    published_at: str | None = None
    duration: float | None = None
    youtube: bool = False


def youtube_id(url: str) -> str | None:
    """The video ID when `url` is a YouTube video URL, else None."""
    host = (urlsplit(url.strip()).hostname or "").lower()
    if not (host == "youtu.be" or host == "youtube.com" or host.endswith(".youtube.com")):
        return None
    try:
        return parse_video_id(url)
    except ToolFailure:
        return None


def url_video_id(url: str) -> str:
    """A stable, safe video ID for a direct media URL: its file name and a short hash."""
    name = Path(unquote(urlsplit(url).path)).stem or "media"
    name = re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-.")[:60] or "media"
    return f"url:{name}-{hashlib.sha256(url.encode()).hexdigest()[:10]}"


async def download(
    url: str,
    folder: Path,
    settings: Settings,
    *,
    should_stop: threading.Event | None = None,
) -> Downloaded:
    """Download the audio of a YouTube video, or a direct media file, into `folder`."""
    stop = should_stop or threading.Event()
    video_id = youtube_id(url)
    if video_id:
        mirror = settings.youtube_media_endpoint.rstrip("/")
        # The policy guards what this server connects to: YouTube itself, or else the
        # operator's own mirror, trusted as YOUTUBE_TRANSCRIPT_ENDPOINT is. The watch URL
        # is then only a name for the video, so a resolver that cannot see YouTube (an
        # offline deployment with a mirror) does not refuse it.
        checked = await url_policy.check_url(url, settings, fetch=not mirror)
        source = f"{mirror}/watch?v={video_id}" if mirror else checked
        return await asyncio.to_thread(_youtube_audio, source, video_id, folder, settings, stop)
    return await _direct(await url_policy.check(url, settings, fetch=True), folder, settings)


# ----------------------------------------------------------------------------- YouTube


def ydl_options(folder: Path, settings: Settings, stop: threading.Event) -> dict[str, Any]:
    """yt-dlp's options: audio only, within the limits, with the cookies file, quiet."""
    max_seconds = settings.speech_max_duration_seconds

    def too_long(info: dict[str, Any], *, incomplete: bool = False) -> str | None:
        duration = info.get("duration")
        if duration and duration > max_seconds:
            return (
                f"lasts {duration:,.0f} s, more than SPEECH_MAX_DURATION_SECONDS ({max_seconds:g})"
            )
        return None

    def hook(status: dict[str, Any]) -> None:
        if stop.is_set():
            from yt_dlp.utils import DownloadCancelled

            raise DownloadCancelled("cancelled")

    options: dict[str, Any] = {
        "format": "bestaudio/best",
        "outtmpl": str(folder / "%(id)s.%(ext)s"),
        "noplaylist": True,
        "quiet": True,
        "no_warnings": True,
        "noprogress": True,
        "logger": logger,
        "max_filesize": settings.media_download_max_mb * 1024 * 1024,
        "socket_timeout": settings.media_download_timeout_seconds,
        "match_filter": too_long,
        "progress_hooks": [hook],
        "retries": 3,
        "overwrites": True,
    }
    if settings.youtube_cookies_file:
        options["cookiefile"] = str(cookie_file(settings.youtube_cookies_file))
    return options


def _youtube_audio(
    source: str, video_id: str, folder: Path, settings: Settings, stop: threading.Event
) -> Downloaded:
    """yt-dlp on `source`: the watch URL (its YouTube extractor) or the mirror's page for
    the video (its generic extractor: the media in the page, or the page is the media)."""
    import yt_dlp

    hint = _MIRROR_HINT if settings.youtube_media_endpoint else _YOUTUBE_HINT
    options = ydl_options(folder, settings, stop)
    try:
        with yt_dlp.YoutubeDL(options) as ydl:
            info = ydl.extract_info(source, download=True)
            if not info:
                raise _failed(video_id, "yt-dlp returned nothing for it", hint)
            files = [Path(item["filepath"]) for item in info.get("requested_downloads") or []]
    except ToolFailure:
        raise
    except Exception as exc:
        if _no_room(exc):
            raise _scratch_full(folder) from None
        raise _failed(video_id, " ".join(str(exc).split())[:300], hint) from None
    if not files or not files[0].is_file():
        reason = "it is over a limit (MEDIA_DOWNLOAD_MAX_MB or SPEECH_MAX_DURATION_SECONDS)"
        raise _failed(video_id, f"no audio was downloaded: {reason}", hint)
    published = info.get("upload_date") or ""
    return Downloaded(
        path=files[0],
        url=f"https://www.youtube.com/watch?v={video_id}",
        video_id=video_id,
        title=info.get("title") or "",
        channel_id=info.get("channel_id") or "",
        channel_title=info.get("channel") or info.get("uploader") or "",
        published_at=f"{published[:4]}-{published[4:6]}-{published[6:8]}" if published else None,
        duration=info.get("duration"),
        youtube=True,
    )


_YOUTUBE_HINT = (
    "If YouTube asks to sign in or blocks this IP, set YOUTUBE_COOKIES_FILE to a "
    "cookies.txt exported from a signed-in browser."
)
_MIRROR_HINT = (
    "The audio comes from YOUTUBE_MEDIA_ENDPOINT: check that the mirror is up and serves "
    "/watch?v=<id> for this video."
)
_DIRECT_HINT = "Check that the URL opens in a browser and points at the media file itself."


def _failed(what: str, why: str, hint: str = _DIRECT_HINT) -> DownloadFailed:
    """A download that did not happen, with the hint that fits where it came from: cookies
    help only YouTube itself, not a mirror or a plain media URL."""
    return DownloadFailed(
        ErrorCategory.NETWORK,
        f"{what} could not be downloaded: {why}.",
        hint=hint,
        retryable=False,
    )


# ----------------------------------------------------------------------------- direct URLs


async def _direct(checked: url_policy.CheckedURL, folder: Path, settings: Settings) -> Downloaded:
    """Stream a media file to `folder`, checking every redirect against the URL policy and
    connecting to the addresses the policy checked (see `_pinned`)."""
    import httpx

    url = checked.url
    limit = settings.media_download_max_mb * 1024 * 1024
    video_id = url_video_id(url)
    suffix = Path(unquote(urlsplit(url).path)).suffix.lower()[:8] or ".media"
    target = folder / f"download{re.sub(r'[^a-z0-9.]', '', suffix)}"
    timeout = httpx.Timeout(settings.media_download_timeout_seconds)
    hop = checked
    async with httpx.AsyncClient(
        follow_redirects=False, timeout=timeout, trust_env=False
    ) as client:
        for _ in range(MAX_REDIRECTS + 1):
            try:
                async with _pinned(client, hop) as response:
                    if response.is_redirect:
                        location = response.headers.get("location", "")
                        hop = await url_policy.check(
                            urljoin(hop.url, location), settings, fetch=True
                        )
                        continue
                    if response.status_code != 200:
                        raise _failed(url, f"the server answered HTTP {response.status_code}")
                    declared = int(response.headers.get("content-length") or 0)
                    if declared > limit:
                        raise _too_big(url, settings)
                    size = 0
                    with target.open("wb") as out:
                        async for block in response.aiter_bytes(1 << 16):
                            size += len(block)
                            if size > limit:
                                raise _too_big(url, settings)
                            out.write(block)
                    if size == 0:
                        raise _failed(url, "the server sent an empty body")
                    return Downloaded(path=target, url=url, video_id=video_id, title=_title(url))
            except ToolFailure:
                with contextlib.suppress(OSError):
                    target.unlink()
                raise
            except OSError as exc:
                with contextlib.suppress(OSError):
                    target.unlink()
                if _no_room(exc):
                    raise _scratch_full(folder) from None
                raise
            except httpx.HTTPError as exc:
                with contextlib.suppress(OSError):
                    target.unlink()
                raise DownloadFailed(
                    ErrorCategory.NETWORK,
                    f"{url} could not be downloaded ({type(exc).__name__}).",
                    hint="Check the URL and the network, then retry.",
                    retryable=True,
                ) from None
    raise _failed(url, f"more than {MAX_REDIRECTS} redirects")


@contextlib.asynccontextmanager
async def _pinned(client: Any, hop: url_policy.CheckedURL) -> AsyncIterator[Any]:
    """GET `hop` from the addresses the policy checked, never by its name again.

    Connecting by name would resolve it a second time, and a name that answers a public
    address to the check and 127.0.0.1 to the connection (DNS rebinding) would slip
    through. So the request goes to the checked IP, with the name kept where the server
    sees it: the Host header, and the TLS server name (`sni_hostname`, httpx's request
    extension), against which the certificate is still verified. Each checked address is
    tried in turn when one cannot be connected to. An allow-listed name was not resolved
    (`addresses` empty): the operator trusts it, so it is connected to by name.
    """
    import httpx

    if not hop.addresses:
        async with client.stream("GET", hop.url) as response:
            yield response
        return
    parts = urlsplit(hop.url)
    default_port = 443 if parts.scheme.lower() == "https" else 80
    # the name as it travels: IDNA for a non-ASCII name (the policy checked that it encodes)
    server_name = hop.host if hop.host.isascii() else hop.host.encode("idna").decode("ascii")
    name = f"[{server_name}]" if ":" in server_name else server_name
    host_header = name if hop.port == default_port else f"{name}:{hop.port}"
    for index, address in enumerate(hop.addresses):
        literal = f"[{address}]" if ":" in address else address
        target = parts._replace(netloc=f"{literal}:{hop.port}").geturl()
        request = client.build_request(
            "GET", target, headers={"Host": host_header}, extensions={"sni_hostname": server_name}
        )
        try:
            response = await client.send(request, stream=True)
        except httpx.ConnectError:
            if index == len(hop.addresses) - 1:
                raise
            continue
        try:
            yield response
        finally:
            await response.aclose()
        return


def _no_room(exc: BaseException) -> bool:
    """Whether `exc` is the disk (or the user's quota) running out of space; yt-dlp
    wraps the OSError in its own error, keeping its text."""
    if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return True
    return "No space left on device" in str(exc) or "Disk quota exceeded" in str(exc)


def _scratch_full(folder: Path) -> ToolFailure:
    """A full scratch disk: a config_error, so a batch stops (every later URL would fail
    alike) instead of failing each one; the partial download is already removed."""
    return config_error(
        f"The media scratch folder {folder.parent} is full (No space left on device): the "
        "download was removed and nothing of it was indexed.",
        hint="Free space on that disk, or point GEMINI_CACHE_DIR (downloads go to its "
        "media-downloads folder) at a disk with room, then retry.",
    )


def _too_big(url: str, settings: Settings) -> DownloadFailed:
    return DownloadFailed(
        ErrorCategory.TOO_LARGE,
        f"{url} is larger than MEDIA_DOWNLOAD_MAX_MB ({settings.media_download_max_mb} MB).",
        hint="Raise MEDIA_DOWNLOAD_MAX_MB, or download the file yourself and index it from disk.",
        retryable=False,
    )


def _title(url: str) -> str:
    return Path(unquote(urlsplit(url).path)).stem.replace("_", " ").replace("-", " ")[:200]
