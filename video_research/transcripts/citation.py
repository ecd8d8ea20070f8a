"""Is this quote really said there? A cited moment checked against what is indexed.

An answer that cites "12:04" is only as good as the words at 12:04. The check reads the
indexed chunks of the cited video around the cited time (speech, captions and on-screen
text alike, by a filter on video id and time), compares the quote word by word, and
answers `exact`, `close` (with the words that differ) or `not_there`. When the words
are not in the window, the existing search (`search.search`) looks for them in the whole
store, so the answer can say where they are said instead, with that moment's own link.

Word-level comparison: lower-cased words (each CJK character a word of its own), the
quote's words found in order as a run of the window's (exact), or the run of the
window's words most like them by difflib's ratio, at least `CLOSE_RATIO` (close).
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal
from urllib.parse import parse_qs, unquote, urlsplit

from video_research.knowledge.filters import Filter
from video_research.knowledge.store import get_store
from video_research.support.errors import ErrorCategory, ToolFailure
from video_research.support.youtube_urls import parse_video_id
from video_research.transcripts import indexer
from video_research.transcripts.moments import cue_starts
from video_research.transcripts.records import CHUNKS

if TYPE_CHECKING:
    from video_research.support.schema_types.tools.verify_citation_output import (
        Difference,
        FoundElsewhereItem,
    )

CLOSE_RATIO = 0.75
"""A run of the window's words this alike to the quote (difflib's ratio over words) is a
close quote: a word or two in ten changed, dropped or added. A paraphrase shares too few
words in order to reach it."""

MAX_CHUNKS = 400
"""Chunks read for one window: a window of minutes holds a few dozen."""

_WORD = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]|[^\W_]+(?:'[^\W_]+)?")


@dataclass(frozen=True)
class Line:
    start: float
    end: float
    text: str
    evidence: str


@dataclass(frozen=True)
class Match:
    verdict: Literal["exact", "close", "not_there"]
    similarity: float
    start: float | None
    said: str
    differences: list[Difference]


def words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text)]


def parse_link(link: str) -> tuple[str | None, str | None, float | None]:
    """(YouTube video id or None, local file path or None, seconds or None) of a link."""
    parts = urlsplit(link.strip())
    seconds = None
    if parts.scheme == "file":
        fragment = parse_qs(parts.fragment)
        if "t" in fragment:
            seconds = _seconds(fragment["t"][0].split(",")[0])
        return None, unquote(parts.path), seconds
    video_id = parse_video_id(link)
    query = parse_qs(parts.query)
    given = query.get("t") or query.get("start")
    raw = given[0] if given else None
    if raw is None and parts.fragment.startswith("t="):
        raw = parts.fragment[2:]
    return video_id, None, _seconds(raw) if raw else None


def _seconds(raw: str) -> float:
    """12, 12s, 12.5, 1m2s, 1h2m3s or 1:02 as seconds."""
    text = raw.strip().lower()
    if re.fullmatch(r"\d+(?:\.\d+)?s?", text):
        return float(text.rstrip("s"))
    clock = re.fullmatch(r"(?:(\d+):)?(\d{1,2}):(\d{2}(?:\.\d+)?)", text)
    if clock:
        return int(clock.group(1) or 0) * 3600 + int(clock.group(2)) * 60 + float(clock.group(3))
    units = re.fullmatch(r"(?:(\d+)h)?(?:(\d+)m)?(?:(\d+(?:\.\d+)?)s)?", text)
    if units and any(units.groups()):
        h, m, s = (float(g or 0) for g in units.groups())
        return h * 3600 + m * 60 + s
    raise ToolFailure(
        ErrorCategory.INVALID_INPUT,
        f"The time in the link ({raw!r}) is not one this server reads.",
        hint="Give the time as seconds (t=754 or t=754s), 12m34s or 12:34.",
    )


async def video_of_file(path: str) -> str:
    """The id under which the file at `path` was indexed."""
    from pathlib import Path

    resolved = Path(path).resolve()
    records = await indexer.file_records(str(resolved))
    if not records:
        # a video beside its captions: indexed under the captions' name, linked to the video
        for name in {resolved.stem, resolved.name.split(".")[0]}:
            record = await indexer.get_video(name)
            if record and unquote(urlsplit(record.get("video_url") or "").path) == str(resolved):
                records = [record]
                break
    if not records:
        raise ToolFailure(
            ErrorCategory.NOT_FOUND,
            f"No indexed video comes from {path}.",
            hint="Index it first with index_media_files or index_transcript_files, or pass "
            "video_id and time.",
        )
    return records[0]["video_id"]


async def window_lines(video_id: str, start: float, end: float) -> list[Line]:
    """The timed lines of the video's indexed chunks (speech and screen) that overlap
    [start, end], once each, in order of time."""
    store = await get_store()
    where = Filter.all_of(
        Filter.eq("video_id", video_id),
        Filter.gte("end_time", start),
        Filter.lte("start_time", end),
    )
    page = await store.fetch(CHUNKS, where=where, order_by=["start_time"], limit=MAX_CHUNKS)
    seen: dict[tuple[str, int | float], Line] = {}
    for obj in page.objects:
        props = obj.properties
        texts = str(props.get("text") or "").split("\n")
        starts = cue_starts(props.get("cue_starts"), len(texts), float(props["start_time"]))
        ends = [*starts[1:], float(props.get("end_time") or starts[-1])]
        evidence = props.get("evidence") or "speech"
        first = props.get("first_cue")
        for offset, (text, s, e) in enumerate(zip(texts, starts, ends, strict=True)):
            key = (evidence, first + offset if isinstance(first, int) else s)
            if e >= start and s <= end and text.strip():
                seen.setdefault(key, Line(s, max(e, s), text.strip(), evidence))
    return sorted(seen.values(), key=lambda line: (line.start, line.evidence))


def compare(quote: str, lines: list[Line]) -> Match:
    """How the quote stands against these lines: the best run of their words."""
    said: list[str] = []
    times: list[float] = []
    for evidence in sorted({line.evidence for line in lines}):
        for line in (x for x in lines if x.evidence == evidence):
            ws = words(line.text)
            said.extend(ws)
            times.extend([line.start] * len(ws))
        said.append("\x00")  # speech and screen text never join into one run
        times.append(0.0)
    return compare_words(words(quote), said, times)


def compare_words(quoted: list[str], said: list[str], times: list[float]) -> Match:
    n = len(quoted)
    if n == 0 or not said:
        return Match("not_there", 0.0, None, "", [])
    for i in range(len(said) - n + 1):
        if said[i : i + n] == quoted:
            return Match("exact", 1.0, times[i], " ".join(quoted), [])
    best = (0.0, 0, 0)
    matcher = difflib.SequenceMatcher(autojunk=False)
    matcher.set_seq2(quoted)
    for size in {max(1, n - 2), n - 1, n, n + 1, n + 2} - {0}:
        for i in range(max(1, len(said) - size + 1)):
            run = said[i : i + size]
            if "\x00" in run:
                continue
            matcher.set_seq1(run)
            if matcher.real_quick_ratio() <= best[0] or matcher.quick_ratio() <= best[0]:
                continue
            ratio = matcher.ratio()
            if ratio > best[0]:
                best = (ratio, i, size)
    ratio, i, size = best
    run = said[i : i + size]
    if ratio < CLOSE_RATIO:
        return Match("not_there", round(ratio, 3), None, "", [])
    matcher.set_seq1(run)
    differences: list[Difference] = [
        {"quoted": " ".join(quoted[j1:j2]), "said": " ".join(run[i1:i2])}
        for tag, i1, i2, j1, j2 in matcher.get_opcodes()
        if tag != "equal"
    ]
    return Match("close", round(ratio, 3), times[i], " ".join(run), differences)


async def elsewhere(
    quote: str, k: int, video_id: str, start: float, end: float
) -> list[FoundElsewhereItem]:
    """Where the store says the quote, by the existing search: each hit compared word by
    word, or kept as `meaning` when only its sense matches (a strong hit, no run of words);
    each says whether it is the cited video (`video_id`) and window (`start` to `end`)."""
    from video_research.transcripts.search import search

    found: list[FoundElsewhereItem] = []
    for hit in await search(quote, k=k, alpha=None, where=None, min_score=None):
        match = compare_words(
            words(quote), words(hit["text"]), [float(hit["match_time"])] * len(words(hit["text"]))
        )
        if match.verdict == "not_there" and hit.get("weak"):
            continue
        time = round(float(hit["match_time"]), 1)
        same_video = hit["video_id"] == video_id
        place: FoundElsewhereItem = {
            "video_id": hit["video_id"],
            "video_title": hit.get("video_title"),
            "time": time,
            "timestamp_url": hit["timestamp_url"],
            "match": "meaning" if match.verdict == "not_there" else match.verdict,
            "similarity": match.similarity,
            "text": hit["text"],
            "evidence": hit.get("evidence") or "speech",
            "differences": match.differences,
            "same_video": same_video,
            "in_window": same_video and start <= time <= end,
        }
        if not match.differences:
            del place["differences"]  # left out, in its place, when there are none
        found.append(place)
    order = {"exact": 0, "close": 1, "meaning": 2}
    return sorted(found, key=lambda f: (order[f["match"]], -f["similarity"]))
