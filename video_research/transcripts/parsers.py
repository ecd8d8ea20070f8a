"""Transcript files in, timed cues out: WebVTT, SRT and JSON segment lists.

A `Cue` is one caption: start and end in seconds and its text on one line. Every parser
returns cues sorted by start time with markup removed (`<c>`, `<i>`, `{\\an8}`, inline
`<00:00:01.000>` word timings) and empty cues dropped, so the chunker sees the same thing
whatever the source.

YouTube's own auto-caption WebVTT (and yt-dlp's download of it) repeats each line in the
next cue as captions "roll"; `parse_vtt` keeps only the new words, so a sentence is
indexed once.

JSON takes the shapes transcripts are commonly saved in: a list of `{"text", "start",
"duration"}` objects (youtube-transcript-api's `to_raw_data()`), the same with `"end"`
instead of `"duration"` (Whisper segments), or an object holding such a list under
`segments`, `transcript`, `snippets` or `captions`, optionally with `video_id`, `title`,
`language`/`language_code`, `channel` beside it (read into `ParsedFile.metadata`).
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SUPPORTED_SUFFIXES = (".vtt", ".srt", ".json")
MAX_FILE_BYTES = 20 * 1024 * 1024
"""A transcript larger than this is not a transcript (a 10-hour stream's VTT is ~5 MB)."""


class TranscriptFormatError(ValueError):
    """The file is not a transcript in the format its name says; the message says where."""


@dataclass(frozen=True)
class Cue:
    start: float
    end: float
    text: str

    def to_dict(self) -> dict[str, Any]:
        return {"start": round(self.start, 3), "end": round(self.end, 3), "text": self.text}


@dataclass
class ParsedFile:
    cues: list[Cue]
    metadata: dict[str, Any] = field(default_factory=dict)
    """What the file itself says: language (VTT header, JSON), title, video_id, channel."""


_TIMESTAMP = r"(?:(\d+):)?(\d{1,2}):(\d{2})[.,](\d{1,3})"
_TIMING = re.compile(rf"^\s*{_TIMESTAMP}\s*-->\s*{_TIMESTAMP}")
_TAGS = re.compile(r"<[^>]*>")
_ASS_TAGS = re.compile(r"\{\\[^}]*\}")
_SPACES = re.compile(r"\s+")


def _seconds(hours: str | None, minutes: str, seconds: str, fraction: str) -> float:
    millis = (int(hours or 0) * 3600 + int(minutes) * 60 + int(seconds)) * 1000
    return (millis + int(fraction.ljust(3, "0")[:3])) / 1000


def clean_text(raw: str) -> str:
    """Caption text on one line: tags, styling codes and entities resolved, spaces collapsed."""
    text = _ASS_TAGS.sub("", _TAGS.sub("", raw))
    return _SPACES.sub(" ", html.unescape(text)).strip()


def _finish(cues: list[Cue]) -> list[Cue]:
    kept = [cue for cue in cues if cue.text]
    kept.sort(key=lambda cue: cue.start)
    return kept


def _timed_blocks(content: str, *, blank_ends: bool = True) -> list[tuple[float, float, list[str]]]:
    """(start, end, text lines) of every block that has a `-->` timing line.

    A block ends at an empty line; with `blank_ends` (SRT), also at one of spaces only.
    WebVTT ends a cue only at an empty line: yt-dlp's word-timed auto captions put a
    line of one space inside a cue, before the words.
    """
    blocks: list[tuple[float, float, list[str]]] = []
    lines = content.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    current: tuple[float, float, list[str]] | None = None
    for line in lines:
        match = _TIMING.match(line)
        if match:
            g = match.groups()
            start, end = _seconds(*g[:4]), _seconds(*g[4:])
            # Real caption files sometimes end a cue a few ms before it starts: clamp.
            current = (start, max(start, end), [])
            blocks.append(current)
        elif not line or (blank_ends and not line.strip()):
            current = None
        elif current is not None:
            current[2].append(line)
    return blocks


def parse_vtt(content: str) -> ParsedFile:
    """WebVTT cues; rolling (YouTube auto-caption) repeats reduced to their new lines."""
    if not content.lstrip("\ufeff").startswith("WEBVTT"):
        raise TranscriptFormatError("not WebVTT: the file must start with 'WEBVTT'")
    header = content.split("\n\n", 1)[0]
    metadata: dict[str, Any] = {}
    language = re.search(r"^Language:\s*([\w-]+)", header, re.MULTILINE)
    if language:
        metadata["language"] = language.group(1)
    cues: list[Cue] = []
    previous: list[str] = []
    for start, end, raw_lines in _timed_blocks(content, blank_ends=False):
        lines = [clean_text(line) for line in raw_lines]
        lines = [line for line in lines if line]
        fresh = lines
        # A rolling caption shows the last line(s) of the previous cue again on top.
        for overlap in range(min(len(previous), len(lines)), 0, -1):
            if lines[:overlap] == previous[-overlap:]:
                fresh = lines[overlap:]
                break
        if lines:
            previous = lines
        cues.append(Cue(start, end, " ".join(fresh)))
    return ParsedFile(_finish(cues), metadata)


def parse_srt(content: str) -> ParsedFile:
    """SubRip cues (the index lines are ignored; a missing index is tolerated)."""
    blocks = _timed_blocks(content.lstrip("\ufeff"))
    if not blocks and content.strip():
        raise TranscriptFormatError("not SRT: no 'HH:MM:SS,mmm --> HH:MM:SS,mmm' timing lines")
    return ParsedFile(_finish([Cue(s, e, clean_text(" ".join(lines))) for s, e, lines in blocks]))


_SEGMENT_KEYS = ("segments", "transcript", "snippets", "captions")
_METADATA_KEYS = {
    "video_id": "video_id",
    "title": "title",
    "video_title": "title",
    "language": "language",
    "language_code": "language",
    "channel": "channel_title",
    "channel_title": "channel_title",
    "channel_id": "channel_id",
}


def _number(segment: dict[str, Any], key: str, index: int) -> float | None:
    value = segment.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise TranscriptFormatError(f"segment {index}: {key} must be a number of seconds")
    try:
        number = float(value)
    except ValueError:
        raise TranscriptFormatError(f"segment {index}: {key} {value!r} is not a number") from None
    if number < 0 or number != number or number == float("inf"):
        raise TranscriptFormatError(f"segment {index}: {key} must be a non-negative number")
    return number


def parse_json(content: str) -> ParsedFile:
    """A JSON list of segments (start + duration or end), or an object holding one."""
    try:
        data = json.loads(content)
    except json.JSONDecodeError as exc:
        raise TranscriptFormatError(f"not JSON: {exc}") from None
    metadata: dict[str, Any] = {}
    segments: Any = data
    if isinstance(data, dict):
        key = next((k for k in _SEGMENT_KEYS if isinstance(data.get(k), list)), None)
        if key is None:
            raise TranscriptFormatError(
                f"a JSON transcript object needs a list under one of: {', '.join(_SEGMENT_KEYS)}"
            )
        segments = data[key]
        for source, target in _METADATA_KEYS.items():
            value = data.get(source)
            if isinstance(value, str) and value.strip() and target not in metadata:
                metadata[target] = value.strip()
    if not isinstance(segments, list):
        raise TranscriptFormatError("a JSON transcript must be a list of segments")
    cues: list[Cue] = []
    for index, segment in enumerate(segments):
        if not isinstance(segment, dict) or not isinstance(segment.get("text"), str):
            raise TranscriptFormatError(f"segment {index} must be an object with a text string")
        start = _number(segment, "start", index)
        if start is None:
            raise TranscriptFormatError(f"segment {index} has no start time")
        end = _number(segment, "end", index)
        duration = _number(segment, "duration", index)
        if end is None:
            end = start + (duration or 0.0)
        cues.append(Cue(start, max(start, end), clean_text(segment["text"])))
    return ParsedFile(_finish(cues), metadata)


PARSERS = {".vtt": parse_vtt, ".srt": parse_srt, ".json": parse_json}


def parse_file(path: Path) -> ParsedFile:
    """The cues of a .vtt, .srt or .json file; TranscriptFormatError when it is not one."""
    parser = PARSERS.get(path.suffix.lower())
    if parser is None:
        raise TranscriptFormatError(
            f"unsupported transcript type {path.suffix or '(none)'}; use {', '.join(SUPPORTED_SUFFIXES)}"
        )
    size = path.stat().st_size
    if size > MAX_FILE_BYTES:
        raise TranscriptFormatError(
            f"{size} bytes is too large for a transcript (limit {MAX_FILE_BYTES})"
        )
    try:
        content = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise TranscriptFormatError(f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    return parser(content)
