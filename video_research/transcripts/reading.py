"""What the transcript tools show of what is indexed: a page of a transcript's segments
with their timestamp links, a preview of its opening words, and the store filter for a
search's criteria."""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import date, timedelta
from typing import TYPE_CHECKING, Any, NotRequired, TypedDict

from video_research.knowledge.filters import Filter, FilterNode
from video_research.support import windows
from video_research.transcripts import chapters, indexer, speakers
from video_research.transcripts.parsers import Cue

if TYPE_CHECKING:
    from video_research.support.schema_types.common.transcripts import Video
    from video_research.support.schema_types.tools.transcript_get_output import Segment


def transcript_page(
    record: Mapping[str, Any],
    video_id: str,
    *,
    start: int | None,
    start_time: float | None,
    max_segments: int,
) -> tuple[Video, list[Segment], int | None]:
    """(the video with its chapters, up to `max_segments` segments, the offset of the next
    page or None) from the segment `start`, else the first still running at `start_time`,
    else the first."""
    cues = indexer.cues_of(record)
    if start is None:
        start = 0
        if start_time is not None:
            start = next((n for n, cue in enumerate(cues) if cue.end > start_time), len(cues))
    page = cues[start : start + max_segments]
    end = start + len(page)
    video = indexer.video_summary(record)
    video["chapters"] = chapters.stored(record)
    link = video["video_url"]
    names = speakers.names_of(record)
    segments = [
        _segment(start + n, cue, indexer.timestamp_url(video_id, link, cue.start), names)
        for n, cue in enumerate(page)
    ]
    return video, segments, end if end < len(cues) else None


def _segment(index: int, cue: Cue, link: str, names: dict[str, str]) -> Segment:
    segment: Segment = {
        "index": index,
        "start": cue.start,
        "end": cue.end,
        "text": cue.text,
        "timestamp_url": link,
        **_speaker(cue.speaker, names),
    }
    if cue.language:
        segment["language"] = cue.language
    if cue.language_probability is not None:
        segment["language_probability"] = cue.language_probability
    return segment


class _Speaker(TypedDict):
    speaker: NotRequired[str]
    speaker_label: NotRequired[str]


def _speaker(label: str, names: dict[str, str]) -> _Speaker:
    """A segment's speaker: its name when given (and the label beside it), else the label."""
    if not label:
        return {}
    if label in names:
        return {"speaker": names[label], "speaker_label": label}
    return {"speaker": label}


async def preview(video_id: str, chars: int) -> str:
    """About the first `chars` characters of an indexed transcript, cut at a word ("" when
    none is indexed)."""
    if chars == 0:
        return ""
    record = await indexer.get_video(video_id)
    if record is None:
        return ""
    text = ""
    for cue in indexer.cues_of(record):
        text = f"{text} {cue.text}" if text else cue.text
        if len(text) >= chars:
            return text[:chars].rsplit(" ", 1)[0] + " …"
    return text


def search_filter(
    *,
    channel_ids: list[str],
    video_ids: list[str],
    language: str | None,
    start_time: float | None,
    end_time: float | None,
    published_after: str | None,
    published_before: str | None,
    evidence: str | None = None,
) -> FilterNode | None:
    """The chunks a search may return: of these channels and videos, in this language, in
    this stretch of the video, published in these dates (a date "before" keeps its day).
    An inverted or empty window is invalid_input: it would match nothing, or only the
    moments that straddle it."""
    windows.check_seconds(start_time, end_time)
    windows.check_dates(published_after, published_before)
    conditions: list[FilterNode] = []
    if evidence == "screen":
        conditions.append(Filter.eq("evidence", "screen"))
    elif evidence == "chapter":
        conditions.append(Filter.eq("evidence", "chapter"))
    elif evidence == "speech":
        conditions.append(indexer.SPEECH_CHUNKS)  # older chunks have none: speech
    if channel_ids:
        conditions.append(Filter.in_("channel_id", channel_ids))
    if video_ids:
        conditions.append(Filter.in_("video_id", video_ids))
    if language:
        conditions.append(Filter.prefix("language", language))
    if start_time is not None:
        conditions.append(Filter.gte("end_time", start_time))
    if end_time is not None:
        conditions.append(Filter.lte("start_time", end_time))
    if published_after:
        conditions.append(Filter.gte("published_at", published_after))
    if published_before:
        next_day = _day_after(published_before)
        conditions.append(
            Filter.lt("published_at", next_day)
            if next_day
            else Filter.lte("published_at", published_before)
        )
    return Filter.all_of(*conditions) if conditions else None


def _day_after(value: str) -> str | None:
    """The day after a date without a time (so "before 2024-05-01" keeps all of that day)."""
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value.strip()):
        return None
    try:
        return (date.fromisoformat(value.strip()) + timedelta(days=1)).isoformat()
    except (ValueError, OverflowError):
        return None  # the store says what is wrong with it
