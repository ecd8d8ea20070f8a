"""A local stub of the youtube.com endpoints youtube-transcript-api 1.2 calls.

The library, unpatched, does per video:

1. GET  /watch?v=ID                      -> the watch page; it reads INNERTUBE_API_KEY from it
                                            (a page with a reCAPTCHA form means IpBlocked)
2. POST /youtubei/v1/player?key=KEY      -> the innertube player response: playabilityStatus
                                            and captions.playerCaptionsTracklistRenderer
3. GET  /api/timedtext?v=ID&lang=..      -> the chosen track as <transcript><text start dur>

The server reaches it through YOUTUBE_TRANSCRIPT_ENDPOINT (the requests Session it
hands the library sends www.youtube.com requests here), or as an HTTP proxy: with
TRANSCRIPT_PROXY_URL pointing here, requests sends absolute-form request lines
(`GET http://host/watch?v=...`), which this stub routes by their path all the same.

Script a video with `stub.videos[video_id] = StubVideo(...)`: its tracks (language code ->
(cues, generated?)) or a failure: "disabled" (no captions), "blocked" (reCAPTCHA page),
"bot" (LOGIN_REQUIRED, the cloud-IP block), "unavailable", "age", "http500" (a 500 on the
player call, transient). Routes for `enqueue`: watch, player, timedtext, media.

A video given `audio` (bytes) also plays the media mirror YOUTUBE_MEDIA_ENDPOINT names:
its watch page carries the title and an <audio> element whose source (/media/ID.ogg)
serves those bytes, which is what yt-dlp's generic extractor downloads.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlsplit

from tests.stubs.base import Recorded, ScriptedStub, Status

API_KEY = "AIzaStubInnertubeKey0123456789"
ORIGIN = "https://www.youtube.com"


@dataclass
class Text:
    """A non-JSON reply: HTML or XML."""

    body: str | bytes
    content_type: str = "text/html; charset=utf-8"
    code: int = 200


@dataclass
class StubVideo:
    tracks: dict[str, tuple[list[tuple[float, float, str]], bool]] = field(default_factory=dict)
    """language code -> ([(start, duration, text)], is_generated)."""
    failure: str | None = None
    audio: bytes | None = None
    """The video's audio (Ogg), served to yt-dlp through the watch page."""
    title: str = ""


def _watch_page(video_id: str, video: StubVideo | None) -> Text:
    media = ""
    if video is not None and video.audio is not None:
        title = html.escape(video.title or video_id)
        media = (
            f'<title>{title} - YouTube</title><meta property="og:title" content="{title}">'
            f'<audio controls src="/media/{video_id}.ogg"></audio>'
        )
    return Text(
        f'<html>{media}<script>ytcfg.set({{"INNERTUBE_API_KEY": "{API_KEY}"}});</script></html>'
    )


def _player(video_id: str, video: StubVideo | None) -> Any:
    if video is None or video.failure == "unavailable":
        return {"playabilityStatus": {"status": "ERROR", "reason": "This video is unavailable"}}
    if video.failure == "bot":
        return {
            "playabilityStatus": {
                "status": "LOGIN_REQUIRED",
                "reason": "Sign in to confirm you’re not a bot",
            }
        }
    if video.failure == "age":
        return {
            "playabilityStatus": {
                "status": "LOGIN_REQUIRED",
                "reason": "This video may be inappropriate for some users.",
            }
        }
    if video.failure == "http500":
        return Status(500, {"error": {"code": 500, "message": "backend error"}})
    body: dict[str, Any] = {
        "playabilityStatus": {"status": "OK"},
        "videoDetails": {"videoId": video_id},
    }
    if video.failure == "disabled":
        return body
    body["captions"] = {
        "playerCaptionsTracklistRenderer": {
            "captionTracks": [
                {
                    "baseUrl": f"{ORIGIN}/api/timedtext?v={video_id}&lang={code}&fmt=srv3",
                    "name": {"runs": [{"text": code.upper()}]},
                    "languageCode": code,
                    "isTranslatable": True,
                    **({"kind": "asr"} if generated else {}),
                }
                for code, (_, generated) in video.tracks.items()
            ],
            "translationLanguages": [
                {"languageCode": "de", "languageName": {"runs": [{"text": "German"}]}}
            ],
        }
    }
    return body


def _timedtext(cues: list[tuple[float, float, str]]) -> Text:
    lines = "".join(
        f'<text start="{start}" dur="{duration}">{html.escape(text)}</text>'
        for start, duration, text in cues
    )
    return Text(
        f'<?xml version="1.0" encoding="utf-8" ?><transcript>{lines}</transcript>', "text/xml"
    )


class YouTubeTranscriptStub(ScriptedStub):
    def __init__(self) -> None:
        super().__init__()
        self.videos: dict[str, StubVideo] = {}

    def reset(self) -> None:
        super().reset()
        self.videos.clear()

    def route(self, method: str, path: str, headers: dict[str, str]) -> str:
        path = urlsplit(path).path  # absolute-form when used as a proxy
        if path == "/watch":
            return "watch"
        if path.startswith("/youtubei/v1/player"):
            return "player"
        if path == "/api/timedtext":
            return "timedtext"
        if path.startswith("/media/"):
            return "media"
        return "unknown"

    def default(self, record: Recorded) -> Any:
        query = {k: v[-1] for k, v in parse_qs(urlsplit(record.path).query).items()}
        query.update(record.query)
        if record.route == "watch":
            video = self.videos.get(query.get("v", ""))
            if video is not None and video.failure == "blocked":
                return Text('<html><form><div class="g-recaptcha"></div></form></html>')
            return _watch_page(query.get("v", ""), video)
        if record.route == "player":
            video_id = (record.body or {}).get("videoId", "")
            return _player(video_id, self.videos.get(video_id))
        if record.route == "timedtext":
            video = self.videos.get(query.get("v", ""))
            track = (video.tracks if video else {}).get(query.get("lang", ""))
            if track is None:
                return Text("", code=404)
            return _timedtext(track[0])
        if record.route == "media":
            video = self.videos.get(record.path.rsplit("/", 1)[-1].removesuffix(".ogg"))
            if video is None or video.audio is None:
                return Text("", code=404)
            return Text(video.audio, "audio/ogg")
        return super().default(record)

    def _handler_class(self) -> Any:
        base = super()._handler_class()

        class Handler(base):  # type: ignore[misc, valid-type]
            def _send(self, reply: Any) -> None:
                if not isinstance(reply, Text):
                    return super()._send(reply)
                data = reply.body if isinstance(reply.body, bytes) else reply.body.encode()
                self.send_response(reply.code)
                self.send_header("Content-Type", reply.content_type)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
                return None

        return Handler
