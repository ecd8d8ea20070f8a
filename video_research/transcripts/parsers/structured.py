"""JSON transcripts: segment lists, and YouTube's own json3 as yt-dlp writes it.

Segment lists take the shapes transcripts are commonly saved in: a list of `{"text",
"start", "duration"}` objects (youtube-transcript-api's `to_raw_data()`), the same with
`"end"` instead of `"duration"` (Whisper segments), or an object holding such a list
under `segments`, `transcript`, `snippets` or `captions`, optionally with `video_id`,
`title`, `language`/`language_code`, `channel` beside it (read into the metadata).

json3 (`yt-dlp --sub-format json3`) is `{"events": [{"tStartMs", "dDurationMs", "segs":
[{"utf8"}]}]}`; events without words (window setup, the line breaks of auto captions)
are skipped.

`json.loads` is wrapped: a document nested deeper than Python's recursion limit, or a
number too long to convert, is a TranscriptFormatError for this file, never an
exception that escapes to the batch.
"""

from __future__ import annotations

import json
from typing import Any

from video_research.transcripts.parsers.base import (
    UNLIMITED,
    Budget,
    Cue,
    ParsedFile,
    TranscriptFormatError,
    clean_text,
    finish,
    number,
)

_SEGMENT_KEYS = ("segments", "transcript", "snippets", "captions")
_METADATA_KEYS = {
    "video_id": "video_id",
    "id": "video_id",
    "title": "title",
    "video_title": "title",
    "language": "language",
    "language_code": "language",
    "channel": "channel_title",
    "channel_title": "channel_title",
    "uploader": "channel_title",
    "channel_id": "channel_id",
    "upload_date": "published_at",
    "published_at": "published_at",
    "webpage_url": "url",
    "url": "url",
    "description": "description",
}
_YT_DLP_INFO_KEYS = ("extractor", "formats", "webpage_url")


def load_json(content: str) -> Any:
    """The parsed document; TranscriptFormatError for anything `json` cannot take."""
    try:
        return json.loads(content, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise TranscriptFormatError(f"not JSON: {exc}") from None
    except RecursionError:
        raise TranscriptFormatError("not a transcript: JSON nested too deeply") from None
    except ValueError as exc:  # e.g. an integer of more digits than Python converts
        raise TranscriptFormatError(f"not a transcript: {str(exc)[:200]}") from None


def _no_constant(name: str) -> Any:
    raise TranscriptFormatError(f"not a transcript: JSON holds {name}, which is not a number")


def json_metadata(data: dict[str, Any]) -> dict[str, Any]:
    """The metadata keys an object carries beside its segments (or a yt-dlp .info.json)."""
    metadata: dict[str, Any] = {}
    for source, target in _METADATA_KEYS.items():
        value = data.get(source)
        if isinstance(value, str) and value.strip() and target not in metadata:
            metadata[target] = value.strip()[:20000]
    return metadata


def is_yt_dlp_info(data: Any) -> bool:
    """Whether a JSON document is yt-dlp's `.info.json` (video metadata, no transcript)."""
    return isinstance(data, dict) and sum(key in data for key in _YT_DLP_INFO_KEYS) >= 2


def parse_json(content: str, budget: Budget = UNLIMITED) -> ParsedFile:
    """A JSON transcript of any supported shape: json3 events or a segment list."""
    data = load_json(content)
    if isinstance(data, dict) and isinstance(data.get("events"), list):
        return _json3(data, budget)
    if is_yt_dlp_info(data):
        raise TranscriptFormatError(
            "a yt-dlp .info.json (video metadata), not a transcript; it is read for the "
            "title, channel and chapters of the transcript beside it"
        )
    metadata: dict[str, Any] = {}
    segments: Any = data
    if isinstance(data, dict):
        key = next((k for k in _SEGMENT_KEYS if isinstance(data.get(k), list)), None)
        if key is None:
            raise TranscriptFormatError(
                f"a JSON transcript object needs a list under one of: {', '.join(_SEGMENT_KEYS)}"
            )
        segments = data[key]
        metadata = json_metadata(data)
        metadata.pop("description", None)
    if not isinstance(segments, list):
        raise TranscriptFormatError("a JSON transcript must be a list of segments")
    cues: list[Cue] = []
    for index, segment in enumerate(segments):
        budget.tick("parsing")
        if not isinstance(segment, dict) or not isinstance(segment.get("text"), str):
            raise TranscriptFormatError(f"segment {index} must be an object with a text string")
        start = number(segment.get("start"), f"segment {index}: start")
        if start is None:
            raise TranscriptFormatError(f"segment {index} has no start time")
        end = number(segment.get("end"), f"segment {index}: end")
        duration = number(segment.get("duration"), f"segment {index}: duration")
        if end is None:
            end = start + (duration or 0.0)
        cues.append(Cue(start, max(start, end), clean_text(segment["text"])))
    return ParsedFile(finish(cues, budget), metadata, "json")


def _json3(data: dict[str, Any], budget: Budget) -> ParsedFile:
    cues: list[Cue] = []
    for index, event in enumerate(data["events"]):
        budget.tick("parsing")
        if not isinstance(event, dict) or not isinstance(event.get("segs"), list):
            continue
        words = [seg.get("utf8") for seg in event["segs"] if isinstance(seg, dict)]
        text = clean_text("".join(word for word in words if isinstance(word, str)))
        if not text:
            continue
        start_ms = number(event.get("tStartMs", 0), f"event {index}: tStartMs") or 0.0
        duration_ms = number(event.get("dDurationMs", 0), f"event {index}: dDurationMs") or 0.0
        cues.append(Cue(start_ms / 1000, (start_ms + duration_ms) / 1000, text))
    metadata = {}
    language = data.get("language") or data.get("lang")
    if isinstance(language, str) and language.strip():
        metadata["language"] = language.strip()[:35]
    return ParsedFile(finish(cues, budget), metadata, "json3")
