"""Transcript files in, timed cues out, whatever the format.

A `Cue` is one caption: start and end in seconds and its text on one line. Every parser
returns cues sorted by start time with markup removed (tags, `{\\an8}` codes, inline
word timings, Markdown emphasis) and HTML entities decoded, and empty cues dropped, so
the chunker sees the same thing whatever the source. Each parser also returns what the
file says about itself (`ParsedFile.metadata`: title, url, video_id, channel, date,
language, chapters), normalised here.

Formats, by suffix (content decides where the suffix is ambiguous):

| suffix | format | module |
|---|---|---|
| .vtt | WebVTT, including YouTube's rolling auto captions | captions |
| .srt | SubRip | captions |
| .json | segment lists (youtube-transcript-api, Whisper) or YouTube json3 | structured |
| .json3 | YouTube json3 (yt-dlp --sub-format json3) | structured |
| .srv1 .srv2 .srv3 | YouTube timedtext XML | timedtext |
| .ttml .dfxp .xml | TTML (or timedtext, by the root element) | timedtext |
| .tsv | Whisper TSV | plain |
| .md .markdown .txt | text with timestamped paragraphs, optional YAML front matter | plain |

A `.txt` holding WebVTT, SRT, JSON, XML or TSV is read as what it holds.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from video_research.support import paths
from video_research.transcripts import formats
from video_research.transcripts.parsers.base import (
    DEFAULT_BUDGET_SECONDS,
    MAX_CUES,
    MAX_FILE_BYTES,
    MAX_TEXT_CHARS,
    UNLIMITED,
    Budget,
    Cue,
    ParsedFile,
    TranscriptFormatError,
    TranscriptTooLarge,
    clean_text,
)
from video_research.transcripts.parsers.captions import parse_srt, parse_vtt
from video_research.transcripts.parsers.plain import (
    TSV_HEADER,
    parse_stamped_text,
    parse_tsv,
)
from video_research.transcripts.parsers.structured import load_json, parse_json
from video_research.transcripts.parsers.timedtext import parse_timedtext

__all__ = [
    "DEFAULT_BUDGET_SECONDS",
    "MAX_CUES",
    "MAX_FILE_BYTES",
    "MAX_TEXT_CHARS",
    "SUPPORTED_SUFFIXES",
    "Budget",
    "Cue",
    "ParsedFile",
    "TranscriptFormatError",
    "TranscriptTooLarge",
    "clean_text",
    "detect",
    "load_json",
    "normalise_metadata",
    "parse_content",
    "parse_file",
    "parse_json",
    "parse_srt",
    "parse_stamped_text",
    "parse_timedtext",
    "parse_tsv",
    "parse_vtt",
]

Parser = Callable[[str, Budget], ParsedFile]

_BY_NAME: dict[str, Parser] = {
    parser.__name__: parser
    for parser in (parse_vtt, parse_srt, parse_json, parse_timedtext, parse_tsv, parse_stamped_text)
}
PARSERS: dict[str, Parser] = {
    suffix: _BY_NAME[fmt.parser] for fmt in formats.FORMATS for suffix in fmt.suffixes
}
"""Suffix -> parser, from the one list of formats (video_research/transcripts/formats.py)."""
SUPPORTED_SUFFIXES = tuple(PARSERS)
AMBIGUOUS_SUFFIXES = (".txt", ".json", ".xml")
"""Suffixes whose content decides the parser."""

_SRT_TIMING = re.compile(r"^\s*\d{1,2}:\d{2}:\d{2},\d{1,3}\s*-->", re.MULTILINE)


def detect(content: str) -> Parser:
    """The parser for a transcript's content, whatever its name says."""
    head = content[:4096].lstrip("\ufeff \t\r\n")
    if head.startswith("WEBVTT"):
        return parse_vtt
    if head.startswith(("{", "[")) and not _looks_bracket_stamp(head):
        return parse_json
    if head.startswith("<"):
        return parse_timedtext
    if TSV_HEADER.match(head.split("\n", 1)[0]):
        return parse_tsv
    if _SRT_TIMING.search(content[:65536]):
        return parse_srt
    return parse_stamped_text


def _looks_bracket_stamp(head: str) -> bool:
    """`[00:01:02] words` starts with `[` but is text, not a JSON list."""
    return bool(re.match(r"\[\d{1,3}:\d{2}", head))


def parse_content(content: str, suffix: str, budget: Budget = UNLIMITED) -> ParsedFile:
    """The cues and metadata of a transcript's text, read as its suffix (or content) says."""
    suffix = suffix.lower()
    parser = PARSERS.get(suffix)
    if parser is None:
        raise TranscriptFormatError(
            f"unsupported transcript type {suffix or '(none)'}; use {', '.join(SUPPORTED_SUFFIXES)}"
        )
    if suffix in AMBIGUOUS_SUFFIXES:
        parser = detect(content)
    parsed = parser(content, budget)
    parsed.metadata = normalise_metadata(parsed.metadata)
    return parsed


def read_text(path: Path) -> str:
    """A file's text: at most MAX_FILE_BYTES, UTF-8 (or UTF-16 with a BOM), not binary."""
    with paths.open_regular(path) as handle:  # a FIFO or device is refused, never read
        size = os.fstat(handle.fileno()).st_size
        if size > MAX_FILE_BYTES:
            raise TranscriptTooLarge(
                f"{size} bytes is too large for a transcript (limit {MAX_FILE_BYTES})"
            )
        raw = handle.read(MAX_FILE_BYTES + 1)
    if len(raw) > MAX_FILE_BYTES:
        raise TranscriptTooLarge(f"more than {MAX_FILE_BYTES} bytes: too large for a transcript")
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return raw.decode("utf-16")
        except UnicodeDecodeError as exc:
            raise TranscriptFormatError(f"not UTF-16 text ({exc.reason})") from None
    if b"\x00" in raw[:65536]:
        raise TranscriptFormatError("binary data, not a text transcript")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise TranscriptFormatError(f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None


def parse_file(path: Path, budget: Budget | None = None) -> ParsedFile:
    """The cues of a transcript file; TranscriptFormatError (or TranscriptTooLarge) when it
    is not one, or is beyond what one file may cost."""
    suffix = path.suffix.lower()
    if suffix not in PARSERS:
        raise TranscriptFormatError(
            f"unsupported transcript type {path.suffix or '(none)'}; use {', '.join(SUPPORTED_SUFFIXES)}"
        )
    budget = budget or Budget()
    return parse_content(read_text(path), suffix, budget)


# ----------------------------------------------------------------------------- metadata

_LANGUAGE = re.compile(r"^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})*$")
_COMPACT_DATE = re.compile(r"^(\d{4})(\d{2})(\d{2})$")
_LIMITS = {"title": 500, "channel_title": 200, "channel_id": 64, "url": 2048, "description": 20000}


def normalise_metadata(metadata: dict[str, Any]) -> dict[str, Any]:
    """The file's own metadata in the indexer's terms: a YouTube url gives the video_id,
    yt-dlp's `20240131` becomes `2024-01-31`, an invalid language or date is dropped."""
    found = dict(metadata)
    for key, limit in _LIMITS.items():
        if isinstance(found.get(key), str):
            found[key] = found[key].strip()[:limit]
    url = found.get("url")
    if url and not re.match(r"https?://[^\s]+$", url, re.IGNORECASE):
        found.pop("url")  # only web links become timestamp links (no javascript:, file:)
        url = None
    if url and "video_id" not in found:
        video_id = _youtube_id(url)
        if video_id:
            found["video_id"] = video_id
    language = found.get("language")
    if language is not None and not (isinstance(language, str) and _LANGUAGE.match(language)):
        found.pop("language")
    date = found.get("published_at")
    if date is not None:
        normalised = _date(date)
        if normalised:
            found["published_at"] = normalised
        else:
            found.pop("published_at")
    return {key: value for key, value in found.items() if value not in ("", None, [])}


def _youtube_id(url: str) -> str | None:
    from video_research.support.youtube_urls import parse_video_id

    try:
        return parse_video_id(url)
    except Exception:  # not a YouTube URL: the url still links the video
        return None


def _date(value: Any) -> str | None:
    from video_research.knowledge.collections import canonical_date

    text = str(value).strip()
    compact = _COMPACT_DATE.match(text)
    if compact:
        text = "-".join(compact.groups())
    try:
        return canonical_date(text)
    except (ValueError, OverflowError):
        return None
