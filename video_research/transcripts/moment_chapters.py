"""The chapters of the videos a search answered from, in the search result.

A moment is a point in a video; where it falls among the video's parts says what it is
part of. The result carries, per video it holds, each chapter's title and span (and where
the chapters came from), so the moments view draws them on the video's timeline without a
call per video. Compact: no `signals`, no links (`video_chapters` has those).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from video_research.transcripts import chapters, indexer

if TYPE_CHECKING:
    from video_research.support.schema_types.tools.semantic_search_transcripts_output import (
        Chapter,
    )

Records = Mapping[str, dict[str, Any] | None]


async def records_of(video_ids: Iterable[str]) -> dict[str, dict[str, Any] | None]:
    """The stored record of each video (None where none is), read once per search and
    shared by what the result adds per video (speakers, chapters)."""
    wanted = list(dict.fromkeys(v for v in video_ids if v))
    return dict(zip(wanted, await indexer.get_videos(wanted), strict=True))


def spans(record: dict[str, Any]) -> list[Chapter]:
    """The record's chapters as {title, start, end, evidence}, times to a tenth of a second."""
    return [
        {
            "title": chapter["title"],
            "start": round(float(chapter["start"]), 1),
            "end": round(float(chapter["end"]), 1),
            "evidence": chapter["evidence"],
        }
        for chapter in chapters.stored(record)
    ]


def by_video(records: Records) -> dict[str, list[Chapter]]:
    """{video_id: its chapters} for the videos that have any."""
    found = {video_id: spans(record) for video_id, record in records.items() if record}
    return {video_id: parts for video_id, parts in found.items() if parts}
