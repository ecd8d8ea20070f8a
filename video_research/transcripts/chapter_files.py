"""Chapter files beside a video: the chapters someone wrote down for it, in one of the two
forms people keep them in.

- `<name>.chapters.txt` (or `<name>.chapters`): one chapter a line, its start first or
  last (`00:00 Intro`, `1:02:03 - Questions`, `Wrap-up (12:30)`), as in a YouTube
  description; other lines are ignored.
- `<name>.ffmetadata` (or any of the names above starting `;FFMETADATA1`): FFmpeg's
  metadata file, `[CHAPTER]` sections with TIMEBASE, START and title, what
  `ffmpeg -i video -f ffmetadata` writes and `-map_chapters` reads.

A file larger than MAX_BYTES, unreadable or holding no chapter gives none: the video is
then chaptered from its container or its signals.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

from video_research.support import paths
from video_research.support.errors import ToolFailure
from video_research.transcripts.chunker import CHAPTER_TITLE_MAX, Chapter, line_chapter

SUFFIXES = (".chapters.txt", ".chapters", ".ffmetadata", ".ffmetadata.txt")
MAX_BYTES = 1_000_000
MAX_CHAPTERS = 500
FFMETADATA = ";FFMETADATA1"


def beside(video: Path, confine: Callable[[Path], Path]) -> list[Chapter]:
    """The chapters of the first chapter file beside `video` that holds any (inside the
    roots: `confine` refuses a link out of them). Blocking."""
    for suffix in SUFFIXES:
        candidate = video.with_name(video.stem + suffix)
        if not candidate.is_file():
            continue
        try:
            checked = confine(candidate)
            with paths.open_regular(checked) as handle:
                raw = handle.read(MAX_BYTES + 1)
        except (ToolFailure, OSError):
            continue
        if len(raw) > MAX_BYTES:
            continue
        found = parse(raw.decode("utf-8", errors="replace"))
        if found:
            return found
    return []


def parse(text: str) -> list[Chapter]:
    """Chapters of a chapter file's text (either form), in time order, starts distinct."""
    if text.lstrip("\ufeff").startswith(FFMETADATA):
        pairs = _ffmetadata(text)
    else:
        pairs = [found for line in text.splitlines() if (found := line_chapter(line))]
    chapters: list[Chapter] = []
    for start, title in sorted(pairs, key=lambda pair: pair[0])[:MAX_CHAPTERS]:
        if chapters and start <= chapters[-1].start:
            continue
        chapters.append(Chapter(start, title[:CHAPTER_TITLE_MAX], "file", ("chapter file",)))
    return chapters


_KEY = re.compile(r"^([A-Za-z_]+)=(.*)$")


def _ffmetadata(text: str) -> list[tuple[float, str]]:
    pairs: list[tuple[float, str]] = []
    section: dict[str, str] | None = None

    def close() -> None:
        if section is None:
            return
        try:
            base = Fraction(section.get("timebase", "1/1000"))
            start = float(int(section["start"]) * base)
        except (KeyError, ValueError, ZeroDivisionError):
            return
        title = " ".join(section.get("title", "").split()) or f"Chapter {len(pairs) + 1}"
        if start >= 0:
            pairs.append((start, title))

    for line in text.splitlines():
        line = line.strip()
        if line.startswith("["):
            close()
            section = {} if line.upper() == "[CHAPTER]" else None
            continue
        match = _KEY.match(line)
        if section is not None and match:
            section[match.group(1).lower()] = match.group(2)
        if len(pairs) > MAX_CHAPTERS:
            break
    close()
    return pairs
