"""Sentence windows: short timed stretches of a transcript, embedded at index time, so a
moment can be linked by meaning without embedding anything at query time.

A chunk (about 200 tokens, a minute or more of speech) is what search ranks; where in it
the query's subject is spoken is a finer question. When the query shares its words with
the captions, the lexical pinpoint (`moments.focus`) answers it. When it shares none (a
paraphrase, a question in another language), the answer needs meaning: each video's
captions are cut into windows of about WINDOW_SECONDS, stepping WINDOW_STEP_SECONDS,
and each window is stored with its vector in the TranscriptWindows collection (written
with the chunks, deleted with them). Linking a moment is then one filtered vector search
over the windows of its video: a few hundred dot products with the query vector the
search already has, no embedding.

Windows are sized by time, not by caption lines: a line lasts from one second (fast
speech, short captions) to eight (one long subtitle), so three lines were anything from
3 to 24 s of speech and often too little text to place a paraphrase.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from video_research.knowledge.collections import (
    CollectionDef,
    DataType,
    Property,
    register_collection,
)
from video_research.knowledge.filters import Filter
from video_research.knowledge.store import generate_uuid5
from video_research.support.errors import ToolFailure
from video_research.transcripts.parsers import Cue

WINDOWS = "TranscriptWindows"
WINDOW_SECONDS = 20.0
"""Speech per window: a sentence or two, enough words to carry a paraphrase's meaning,
short enough that its start lands within the moment (make eval tuned 15-45 s)."""
WINDOW_STEP_SECONDS = 10.0
"""Seconds between the starts of two windows (each moment of speech is in two)."""
WINDOW_MAX_CHARS = 1200
"""Text per window at most (a transcript without timing is one endless line)."""

WINDOWS_COLLECTION = register_collection(
    CollectionDef(
        WINDOWS,
        "Timed windows of transcripts (about 20 s each), embedded to link moments by meaning",
        (
            Property("text", DataType.TEXT, "The words spoken in the window", vectorize=True),
            Property(
                "video_id",
                DataType.TEXT,
                "The video's ID",
                filterable=True,
                exact=True,
                required=True,
            ),
            Property("start_time", DataType.NUMBER, "Start, seconds", filterable=True),
            Property("end_time", DataType.NUMBER, "Start of the window's last line, seconds"),
            Property("first_cue", DataType.INT, "Index of the window's first cue"),
        ),
        ("index_channel_transcripts", "index_transcript_files", "index_media_files"),
        # linking reads the windows of a few seconds of a few videos (`in_spans`)
        indexes=(("video_id", "start_time"),),
    )
)


@dataclass(frozen=True)
class Window:
    first_cue: int
    start: float
    end: float
    text: str


def cut(cues: Sequence[Cue]) -> list[Window]:
    """The windows of a transcript: each holds the cues that start within WINDOW_SECONDS
    of its first (at least one); the next window begins at the last cue that starts within
    WINDOW_STEP_SECONDS of this one's start (at least one cue later), so windows begin at
    most a step apart whatever the length of the lines."""
    windows: list[Window] = []
    at, count = 0, len(cues)
    while at < count:
        end, text = at, []
        size = 0
        while end < count and (end == at or cues[end].start - cues[at].start < WINDOW_SECONDS):
            line = cues[end].text.strip()
            if size + len(line) > WINDOW_MAX_CHARS and text:
                break
            text.append(line)
            size += len(line) + 1
            end += 1
        joined = " ".join(part for part in text if part)
        if joined:
            windows.append(Window(at, cues[at].start, cues[end - 1].start, joined))
        if end >= count:
            break
        following = at + 1  # the last cue that starts within a step (at least the next one)
        while (
            following + 1 < end
            and cues[following + 1].start <= cues[at].start + WINDOW_STEP_SECONDS
        ):
            following += 1
        at = following
    return windows


def window_uuid(video_id: str, first_cue: int) -> str:
    return generate_uuid5(f"{video_id}#{first_cue}", "transcript-window")


def window_object(video_id: str, window: Window) -> dict[str, Any]:
    """A window's properties as the TranscriptWindows collection stores them."""
    return {
        "video_id": video_id,
        "text": window.text,
        "start_time": round(window.start, 2),
        "end_time": round(window.end, 2),
        "first_cue": window.first_cue,
    }


async def store_windows(store: Any, video_id: str, cues: Sequence[Cue]) -> int:
    """Replace the windows of `video_id` with those of `cues` (embedded by the store)."""
    windows = cut(cues)
    objects = [window_object(video_id, window) for window in windows]
    await store.replace_where(
        WINDOWS,
        Filter.eq("video_id", video_id),
        objects,
        uuids=[window_uuid(video_id, window.first_cue) for window in windows],
    )
    return len(windows)


async def delete_windows(store: Any, video_id: str) -> int:
    return await store.delete_where(WINDOWS, Filter.eq("video_id", video_id))


SPAN_WINDOWS_MAX = 1000
"""Windows read at most for one search (its spans hold a few each: a moment lasts at most
30 s and windows start every 10 s)."""


@dataclass(frozen=True)
class Scored:
    start: float
    cosine: float
    text: str


async def in_spans(
    store: Any, vector: Any, spans: Mapping[str, Sequence[tuple[float, float]]]
) -> dict[str, list[Scored]]:
    """The windows of each video of `spans` that start within one of its (first, last)
    seconds, in time order, each with its cosine to the query `vector`: one filtered vector search
    for all of them, reading only those windows (a few per moment) and never the rest of
    the videos (hundreds each: reading and scoring all of them cost more than the search
    itself at 100k chunks). A video with none there (indexed before windows were stored,
    or its windows made by another embedding model, waiting for knowledge_reembed) is
    left out."""
    if not spans:
        return {}
    where = Filter.any_of(
        *(
            Filter.all_of(
                Filter.eq("video_id", video_id),
                # start_time is stored to the hundredth of a second; one level, not
                # `between`'s own all_of: the filter is checked and compiled each search
                Filter.gte("start_time", first - 0.01),
                Filter.lte("start_time", last + 0.01),
            )
            for video_id, own in spans.items()
            for first, last in _merged(own)
        )
    )
    try:
        hits = await store.near_vector(WINDOWS, vector, where=where, limit=SPAN_WINDOWS_MAX)
    except ToolFailure:
        return {}
    found: dict[str, list[Scored]] = {}
    for hit in hits:
        props = hit.properties
        found.setdefault(props["video_id"], []).append(
            Scored(
                float(props["start_time"]),
                1.0 - float(hit.distance or 0.0),
                str(props.get("text") or ""),
            )
        )
    return {video: sorted(own, key=lambda w: w.start) for video, own in found.items()}


def _merged(spans: Sequence[tuple[float, float]]) -> list[tuple[float, float]]:
    """`spans` with those that overlap joined: the moments of one video often share
    windows, and one range per run keeps the filter short."""
    joined: list[tuple[float, float]] = []
    for first, last in sorted(spans):
        if joined and first <= joined[-1][1]:
            joined[-1] = (joined[-1][0], max(joined[-1][1], last))
        else:
            joined.append((first, last))
    return joined
