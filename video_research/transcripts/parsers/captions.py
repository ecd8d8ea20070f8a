"""WebVTT and SubRip: timed blocks of text separated by empty lines.

YouTube's own auto-caption WebVTT (and yt-dlp's download of it) repeats each line in the
next cue as captions "roll"; `parse_vtt` keeps only the new words, so a sentence is
indexed once.
"""

from __future__ import annotations

import re
from typing import Any

from video_research.transcripts.parsers.base import (
    UNLIMITED,
    Budget,
    Cue,
    ParsedFile,
    TranscriptFormatError,
    clean_text,
    finish,
)

_TIMESTAMP = r"(?:(\d{1,5}):)?(\d{1,2}):(\d{2})[.,](\d{1,3})"
_TIMING = re.compile(rf"^\s*{_TIMESTAMP}\s*-->\s*{_TIMESTAMP}")
_LANGUAGE = re.compile(r"^Language:\s*([A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})*)\s*$", re.MULTILINE)
MAX_ROLL_LINES = 4
"""A rolling caption repeats at most this many lines of the cue before it (YouTube: 1-2)."""


def _seconds(hours: str | None, minutes: str, seconds: str, fraction: str) -> float:
    millis = (int(hours or 0) * 3600 + int(minutes) * 60 + int(seconds)) * 1000
    return (millis + int(fraction.ljust(3, "0")[:3])) / 1000


def timed_blocks(
    content: str, *, blank_ends: bool = True, budget: Budget = UNLIMITED
) -> list[tuple[float, float, list[str]]]:
    """(start, end, text lines) of every block that has a `-->` timing line.

    A block ends at an empty line; with `blank_ends` (SRT), also at one of spaces only.
    WebVTT ends a cue only at an empty line: yt-dlp's word-timed auto captions put a
    line of one space inside a cue, before the words.
    """
    blocks: list[tuple[float, float, list[str]]] = []
    current: list[str] | None = None
    for line in content.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        budget.tick("parsing")
        match = _TIMING.match(line) if "-->" in line else None
        if match:
            g = match.groups()
            start, end = _seconds(*g[:4]), _seconds(*g[4:])
            # Real caption files sometimes end a cue a few ms before it starts: clamp.
            current = []
            blocks.append((start, max(start, end), current))
        elif not line or (blank_ends and not line.strip()):
            current = None
        elif current is not None:
            current.append(line)
    return blocks


def parse_vtt(content: str, budget: Budget = UNLIMITED) -> ParsedFile:
    """WebVTT cues; rolling (YouTube auto-caption) repeats reduced to their new lines."""
    if not content.lstrip("\ufeff").startswith("WEBVTT"):
        raise TranscriptFormatError("not WebVTT: the file must start with 'WEBVTT'")
    header = content[: content.find("\n\n")] if "\n\n" in content[:4096] else content[:4096]
    metadata: dict[str, Any] = {}
    language = _LANGUAGE.search(header)
    if language:
        metadata["language"] = language.group(1)
    cues: list[Cue] = []
    previous: list[str] = []
    for start, end, raw_lines in timed_blocks(content, blank_ends=False, budget=budget):
        budget.tick("parsing")
        lines = [text for text in map(clean_text, raw_lines) if text]
        fresh = lines
        # A rolling caption shows the last line(s) of the previous cue again on top.
        for overlap in range(min(len(previous), len(lines), MAX_ROLL_LINES), 0, -1):
            if lines[:overlap] == previous[-overlap:]:
                fresh = lines[overlap:]
                break
        if lines:
            previous = lines[-MAX_ROLL_LINES:]
        cues.append(Cue(start, end, " ".join(fresh)))
    return ParsedFile(finish(cues, budget), metadata, "vtt")


def parse_srt(content: str, budget: Budget = UNLIMITED) -> ParsedFile:
    """SubRip cues (the index lines are ignored; a missing index is tolerated)."""
    blocks = timed_blocks(content.lstrip("\ufeff"), budget=budget)
    if not blocks and content.strip():
        raise TranscriptFormatError("not SRT: no 'HH:MM:SS,mmm --> HH:MM:SS,mmm' timing lines")
    cues = [Cue(s, e, clean_text(" ".join(lines))) for s, e, lines in blocks]
    return ParsedFile(finish(cues, budget), {}, "srt")
