"""Sentences: each sentence of a transcript, timed and embedded at index time, so a
moment links to the sentence that answers without embedding anything at query time.

A chunk (a few sentences, at most 30 s) is what search finds; which of its sentences
answers is a finer question. Where the query's words are spoken, they say it; where they
are not (a paraphrase, another language), its meaning does: each sentence is stored with
its vector in the TranscriptWindows collection (written with the chunks, deleted with
them), and linking a moment is one filtered vector search over the sentences inside the
results' moments with the query vector the search already has (`in_spans`).

A sentence ends at a full stop (or a question or exclamation mark, in any script), at a
pause of SENTENCE_PAUSE_SECONDS between lines, or after SENTENCE_MAX_SECONDS of speech
(captions without punctuation); a line holding several sentences (a Whisper segment, a
podcast transcript's minute-long line) is cut at its own full stops, each sentence timed
by its place in the line's text at an even rate of speech (`line_position.lasting`). Stores indexed before sentences were stored hold ~20 s
windows in the same collection and keep working: a window inside a moment links it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from video_research.knowledge.collections import (
    CollectionDef,
    DataType,
    Property,
    filterable,
    identifier,
    register_collection,
)
from video_research.knowledge.filters import Filter
from video_research.knowledge.store import generate_uuid5
from video_research.support.errors import ToolFailure
from video_research.transcripts.line_position import lasting
from video_research.transcripts.parsers import Cue

WINDOWS = "TranscriptWindows"
SENTENCE_PAUSE_SECONDS = 3.0
"""A pause this long between two lines ends a sentence, punctuated or not (the chunker's
own rule for the end of a moment)."""
SENTENCE_MAX_SECONDS = 15.0
"""A sentence without a full stop ends after this much speech (unpunctuated captions)."""
SENTENCE_MAX_CHARS = 600
"""Text per sentence at most (a transcript without timing is one endless line)."""

WINDOWS_COLLECTION = register_collection(
    CollectionDef(
        WINDOWS,
        "The sentences of transcripts, timed and embedded to link moments by meaning",
        (
            Property("text", DataType.TEXT, "The sentence's words", vectorize=True),
            identifier("video_id", "The video's ID", required=True),
            filterable("start_time", DataType.NUMBER, "Start, seconds"),
            Property("end_time", DataType.NUMBER, "End of the sentence, seconds"),
            Property("first_cue", DataType.INT, "Index of the sentence's first cue"),
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
    """The sentences of a transcript, in order (see the module docstring); each
    `Window.first_cue` is the index of the cue it starts in, and a long cue cut into
    several sentences gives them the same first cue and their own starts."""
    sentences: list[Window] = []
    text: list[str] = []
    first, start, size = 0, 0.0, 0

    def close(end: float) -> None:
        nonlocal text, size
        joined = " ".join(part for part in text if part)
        if joined:
            sentences.append(Window(first, round(start, 2), round(max(end, start), 2), joined))
        text, size = [], 0

    for at, cue in enumerate(cues):
        line = cue.text.strip()
        following = cues[at + 1].start if at + 1 < len(cues) else cue.end
        if text and (
            cue.start - cues[at - 1].end >= SENTENCE_PAUSE_SECONDS
            or cue.start - start >= SENTENCE_MAX_SECONDS
            or size + len(line) > SENTENCE_MAX_CHARS
        ):
            close(cues[at - 1].end)
        spoken = lasting(line, cue.start, max(following, cue.end))
        pieces = _split(line)
        for offset, piece in pieces:
            at_time = cue.start + spoken * offset / max(len(line), 1)
            if not text:
                first, start = at, at_time
            text.append(piece)
            size += len(piece) + 1
            if _ENDS.search(piece):
                following_piece = next((o for o, _ in pieces if o > offset), None)
                end = (
                    cue.start + spoken * following_piece / max(len(line), 1)
                    if following_piece is not None
                    else cue.end
                )
                close(end)
    if cues:
        close(cues[-1].end)
    return sentences


_ENDS = re.compile(r"[.!?…。！？][\"')\]」』]*\s*$")
_CUT = re.compile(r"(?<=[.!?…。！？])[\"')\]」』]*\s+|(?<=[。！？])")


def _split(line: str) -> list[tuple[int, str]]:
    """A long line's sentences, each with its character offset in the line."""
    pieces, at = [], 0
    for mark in _CUT.finditer(line):
        if mark.end() > at:
            piece = line[at : mark.end()].strip()
            if piece:
                pieces.append((at, piece))
            at = mark.end()
    rest = line[at:].strip()
    if rest:
        pieces.append((at, rest))
    return pieces or [(0, line)]


def window_uuid(video_id: str, first_cue: int, start: float) -> str:
    return generate_uuid5(f"{video_id}#{first_cue}@{start:.2f}", "transcript-sentence")


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
        uuids=[window_uuid(video_id, window.first_cue, window.start) for window in windows],
    )
    return len(windows)


async def delete_windows(store: Any, video_id: str) -> int:
    return await store.delete_where(WINDOWS, Filter.eq("video_id", video_id))


SPAN_WINDOWS_MAX = 2000
"""Sentences read at most for one search (a moment lasts at most 30 s: a dozen each)."""


@dataclass(frozen=True)
class Scored:
    start: float
    cosine: float
    text: str


async def in_spans(
    store: Any,
    vector: Any,
    spans: Mapping[str, Sequence[tuple[float, float]]],
    limit: int = SPAN_WINDOWS_MAX,
) -> dict[str, list[Scored]]:
    """The windows of each video of `spans` that start within one of its (first, last)
    seconds, the `limit` nearest the query `vector`, in time order, each with its cosine
    to it: one filtered vector search for all of them, reading only those windows (a few per moment) and never the rest of
    the videos (hundreds each: reading and scoring all of them cost more than the search
    itself at 100k chunks). A video with none there (indexed before windows were stored,
    or its windows made by another embedding model, waiting for knowledge_reembed) is
    left out."""
    if not spans:
        return {}
    where = Filter.within(
        "video_id",
        "start_time",
        # start_time is stored to the hundredth of a second
        [
            (video_id, first - 0.01, last + 0.01)
            for video_id, own in spans.items()
            for first, last in _merged(own)
        ],
    )
    try:
        # the codes' distances: ranking a moment's sentences needs no more than ~1e-3
        hits = await store.near_vector(WINDOWS, vector, where=where, limit=limit, approximate=True)
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
