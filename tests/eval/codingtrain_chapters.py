"""The Coding Train authors' own chapters: a query set nobody here wrote.

The site's video pages (github.com/CodingTrain/thecodingtrain.com,
`content/videos/**/index.json`) carry `videoId` and `timestamps`, a list of
`{"time": "4:35", "title": "..."}` that the authors wrote as YouTube chapters; a
multi-part page carries the same per part under `parts` (each with its own `videoId`).
Paired with the Whisper transcripts of github.com/CodingTrain/coding-train-transcripts,
each page gives:

- chapter boundaries per video (the chapter starts), for a chapter-F1 measure;
- queries: each chapter title is a query whose answer is that chapter's span
  [start, next start) in that video (the last chapter ends where the transcript ends).

The site's content has its own licence, so it is read from a local copy (`site_dir()`:
the path given, else $VIDEO_RESEARCH_CT_SITE, else /work/data/thecodingtrain) and never
committed; only this reader is.

Rules, fixed before any search was run on these queries:

- a video counts when it has a transcript and at least MIN_CHAPTERS parseable timestamps;
  a timestamp that does not parse ("1;44") is dropped, duplicates of one start are merged;
- a chapter title is not a query when, lowercased with punctuation and spaces folded, it
  is one of GENERIC_TITLES (introduction, intro, conclusion, outro, welcome, welcome back,
  wrap up, coding challenge, hello, hi, goodbye, thanks for watching, what's next, recap):
  those name a place in any video, not a topic;
- a chapter that starts at or after `cap` seconds (the large corpus cuts each transcript
  at CAP_SECONDS) is not a query, and the last kept chapter ends at the cap at most;
- split: the large corpus's own (`held_out`, SHA-256 of the video id), so a video is in
  the same part in every query set.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

CHANNEL = "coding-train"
MIN_CHAPTERS = 3
DEFAULT_SITE = Path("/work/data/thecodingtrain")
GENERIC_TITLES = frozenset(
    {
        "introduction",
        "intro",
        "conclusion",
        "outro",
        "welcome",
        "welcome back",
        "wrap up",
        "wrapup",
        "coding challenge",
        "hello",
        "hi",
        "goodbye",
        "thanks for watching",
        "whats next",
        "recap",
    }
)


def site_dir(path: Path | str | None = None) -> Path:
    """The local copy of the site (the folder holding `content/videos`)."""
    if path is not None:
        return Path(path)
    found = os.environ.get("VIDEO_RESEARCH_CT_SITE")
    return Path(found) if found else DEFAULT_SITE


def parse_time(text: str) -> float | None:
    """ "m:ss", "mm:ss" or "h:mm:ss" in seconds; None for anything else."""
    if not isinstance(text, str) or not re.fullmatch(r"\d{1,2}(:\d{1,2}){1,2}", text.strip()):
        return None
    seconds = 0
    for part in text.strip().split(":"):
        seconds = seconds * 60 + int(part)
    return float(seconds)


def is_generic(title: str) -> bool:
    folded = " ".join(re.sub(r"[^\w\s]", "", title.lower()).split())
    return folded in GENERIC_TITLES


@dataclass(frozen=True)
class Chapter:
    title: str
    start: float
    end: float | None
    """The next chapter's start; None for the last chapter until a transcript ends it."""


@dataclass(frozen=True)
class VideoChapters:
    video_id: str
    page: str
    """The page's folder under content/videos (with the part, if any)."""
    chapters: tuple[Chapter, ...]

    @property
    def boundaries(self) -> list[float]:
        """The chapter starts after the first (the first is the video's start)."""
        return [c.start for c in self.chapters[1:]]


def _chapters(timestamps: object) -> list[Chapter]:
    starts: dict[float, str] = {}
    for item in timestamps if isinstance(timestamps, list) else []:
        if not isinstance(item, dict):
            continue
        at = parse_time(item.get("time", ""))
        title = str(item.get("title") or "").strip()
        if at is not None and title and at not in starts:
            starts[at] = title
    ordered = sorted(starts.items())
    ends: list[float | None] = [s for s, _ in ordered[1:]]
    ends.append(None)
    if not ordered:
        return []
    return [Chapter(title, start, end) for (start, title), end in zip(ordered, ends, strict=True)]


def read_site(root: Path | str | None = None) -> list[VideoChapters]:
    """Every video of the local site copy with its chapters (a page's own video and each
    part's), in path order; a video id seen twice keeps its first page."""
    videos_root = site_dir(root) / "content" / "videos"
    found: dict[str, VideoChapters] = {}
    for path in sorted(videos_root.rglob("index.json")):
        try:
            page = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if not isinstance(page, dict):
            continue
        where = str(path.parent.relative_to(videos_root))
        entries = [(page.get("videoId"), page.get("timestamps"), where)]
        for number, part in enumerate(page.get("parts") or [], 1):
            if isinstance(part, dict):
                entries.append((part.get("videoId"), part.get("timestamps"), f"{where}#{number}"))
        for video_id, timestamps, label in entries:
            if not isinstance(video_id, str) or not video_id or video_id in found:
                continue
            chapters = _chapters(timestamps)
            if chapters:
                found[video_id] = VideoChapters(video_id, label, tuple(chapters))
    return list(found.values())


# ----------------------------------------------------------------------- transcripts


def transcript_segments(raw: bytes | str) -> list[dict]:
    """The timed segments of a Coding Train transcript: the collection's own file
    (`{"output": {"segments": [...]}}`) or the large corpus's export (`{"segments": [...]}`)."""
    try:
        data = json.loads(raw)
    except ValueError:
        return []
    if isinstance(data, dict) and isinstance(data.get("output"), dict):
        data = data["output"]
    segments = data.get("segments") if isinstance(data, dict) else None
    kept = []
    for s in segments if isinstance(segments, list) else []:
        try:
            start, end = float(s["start"]), float(s["end"])
        except (KeyError, TypeError, ValueError):
            continue
        kept.append({"start": start, "end": end, "text": str(s.get("text", "")).strip()})
    return kept


def transcript_ends(transcripts: Path) -> dict[str, float]:
    """Video id -> the end of its last segment, for each `<id>.json` in a folder."""
    ends = {}
    for path in sorted(Path(transcripts).glob("*.json")):
        segments = transcript_segments(path.read_bytes())
        if segments:
            ends[path.stem] = max(s["end"] for s in segments)
    return ends


# ----------------------------------------------------------------------- the sets


def usable(
    videos: list[VideoChapters], ends: dict[str, float], cap: float | None = None
) -> list[VideoChapters]:
    """The videos with a transcript and at least MIN_CHAPTERS chapters inside it (and
    before `cap`), each chapter's end set (the last one at the transcript's end or cap)."""
    kept = []
    for video in videos:
        end = ends.get(video.video_id)
        if end is None:
            continue
        limit = min(end, cap) if cap is not None else end
        inside = [c for c in video.chapters if c.start < limit]
        if len(inside) < MIN_CHAPTERS:
            continue
        closed = [
            Chapter(c.title, c.start, min(c.end, limit) if c.end is not None else limit)
            for c in inside
        ]
        kept.append(VideoChapters(video.video_id, video.page, tuple(closed)))
    return kept


def boundaries(videos: list[VideoChapters]) -> Iterator[tuple[str, list[float]]]:
    """(video id, chapter starts after the first) per video, for chapter F1."""
    for video in videos:
        yield video.video_id, video.boundaries


def queries(videos: list[VideoChapters]) -> Iterator[dict]:
    """One query per non-generic chapter title, answered by the chapter's span."""
    from tests.eval.large_corpus import held_out

    for video in videos:
        split = "held-out" if held_out(video.video_id) else "tune"
        for number, chapter in enumerate(video.chapters):
            if is_generic(chapter.title):
                continue
            yield {
                "id": f"CT{video.video_id}-{number}",
                "query": chapter.title,
                "video_id": video.video_id,
                "second": chapter.start,
                "end": chapter.end,
                "kind": "chapter",
                "query_language": "en",
                "passage_language": "en",
                "channel": CHANNEL,
                "split": split,
            }
