"""Speakers in the transcript index: the label the speaker pass gave each sentence (S1,
S2, ... per video, stored in the chunks' `speaker` property and each cue of the video's
record), and the names users give them (`name_speaker`: "S2" -> "Guest"), kept in the
video's record so a name applies to that video only and survives indexing it again.

A name is used from then on: transcript_get and search results show it, and a search
for a speaker matches a label (S2, in any video) or a name (the labels it was given, in
the videos it was given in).
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from video_research.knowledge.filters import Filter, FilterNode
from video_research.knowledge.store import get_store
from video_research.support.errors import invalid_input, not_found
from video_research.transcripts import indexer

if TYPE_CHECKING:
    from video_research.support.schema_types.common.transcripts import Moment
    from video_research.support.schema_types.tools.name_speaker_output import NameSpeakerOutput
    from video_research.transcripts.parsers.base import Cue

LABEL = re.compile(r"S[1-9][0-9]{0,2}")
NAME_CHARS = 80


def names_of(record: Mapping[str, Any]) -> dict[str, str]:
    """{label: name} the users gave this video's speakers."""
    try:
        said = json.loads(record.get("speaker_names_json") or "{}")
    except ValueError:
        return {}
    return {str(k): str(v) for k, v in said.items()} if isinstance(said, dict) else {}


def shown(label: str, names: dict[str, str]) -> str:
    return names.get(label, label)


def labels_of(record: dict[str, Any]) -> list[str]:
    """The speaker labels heard in the video, in order of first appearance."""
    seen: dict[str, None] = {}
    for cue in indexer.cues_of(record):
        if cue.speaker:
            seen.setdefault(cue.speaker, None)
    return list(seen)


async def name_speaker(video_id: str, speaker: str, name: str) -> NameSpeakerOutput:
    """Name (or with an empty name, unname) one of a video's speakers."""
    speaker = speaker.strip()
    name = " ".join(name.split())
    if not LABEL.fullmatch(speaker):
        raise invalid_input(
            f"speaker {speaker[:20]!r} is not a speaker label.",
            hint="Use a label from transcript_get or a search result: S1, S2, ...",
        )
    if len(name) > NAME_CHARS or LABEL.fullmatch(name) or not name.isprintable():
        raise invalid_input(
            f"name must be printable, at most {NAME_CHARS} characters, and not a label "
            "(S1, S2, ...).",
            hint='Give a name such as "Guest" or "Dr. Okafor"; an empty name removes it.',
        )
    store = await get_store()
    found = await store.get(indexer.VIDEOS, indexer.video_uuid(video_id))
    if found is None:
        raise not_found(
            f"No transcript of {video_id} is indexed.",
            hint="List what is indexed with get_indexed_videos.",
        )
    record = dict(found.properties)
    heard = labels_of(record)
    if speaker not in heard:
        raise not_found(
            f"{video_id} has no speaker {speaker}"
            + (f" (its speakers: {', '.join(heard)})." if heard else " (no speakers labelled)."),
            hint="Speakers are labelled when index_media_files transcribes a recording with "
            "the speaker packages installed; index it again (force_reindex) to label an older one.",
        )
    names = names_of(record)
    if name:
        names[speaker] = name
    else:
        names.pop(speaker, None)
    record["speaker_names_json"] = json.dumps(names, ensure_ascii=False)
    record["speaker_names"] = sorted(set(names.values()))
    await store.upsert(indexer.VIDEOS, record, uuid=indexer.video_uuid(video_id))
    return {
        "video_id": video_id,
        "speakers": [{"label": label, "name": names.get(label)} for label in heard],
    }


async def speaker_filter(speaker: str) -> FilterNode:
    """The chunks said by `speaker`: a label in any video, or a name in the videos (and
    under the labels) it was given for."""
    speaker = speaker.strip()
    if not speaker:
        raise invalid_input("speaker is empty.", hint="Pass a label (S1, S2, ...) or a name.")
    options: list[FilterNode] = []
    if LABEL.fullmatch(speaker):
        options.append(Filter.eq("speaker", speaker))
    store = await get_store()
    page = await store.fetch(
        indexer.VIDEOS, where=Filter.contains_any("speaker_names", [speaker]), limit=1000
    )
    for obj in page.objects:
        labels = [label for label, name in names_of(obj.properties).items() if name == speaker]
        if labels:
            options.append(
                Filter.all_of(
                    Filter.eq("video_id", obj.properties["video_id"]),
                    Filter.in_("speaker", labels),
                )
            )
    if not options:  # matches nothing, as a filter on a name nobody has should
        return Filter.eq("speaker", speaker)
    return options[0] if len(options) == 1 else Filter.any_of(*options)


async def label_results(
    results: list[Moment], records: Mapping[str, dict[str, Any] | None] | None = None
) -> None:
    """Each search result gets `speaker` (the name when given, else the label) of the
    sentence at its match time, when its video's speakers are labelled. `records`: the
    videos' records where the caller has read them already."""
    read: dict[str, dict[str, Any] | None] = dict(records or {})
    labelled: dict[str, list[Cue]] = {}
    for result in results:
        video_id = result.get("video_id")
        if not video_id or result.get("evidence") == "screen":
            continue
        if video_id not in read:
            read[video_id] = await indexer.get_video(video_id)
        record = read[video_id]
        if not record:
            continue
        if video_id not in labelled:
            labelled[video_id] = _labelled_cues(record)
        label = _label_at(
            labelled[video_id], float(result.get("match_time") or result["start_time"])
        )
        if label:
            result["speaker"] = shown(label, names_of(record))


def _labelled_cues(record: Mapping[str, Any]) -> list[Cue]:
    """The record's cues when any has a speaker, else none: a stored cue names its
    speaker only when it has one, so a transcript without labels (most of them) is not
    parsed at all."""
    if '"speaker"' not in str(record.get("segments_json") or ""):
        return []
    cues = indexer.cues_of(record)
    return cues if any(cue.speaker for cue in cues) else []


def _label_at(cues: list[Cue], seconds: float) -> str:
    """The label of the sentence playing at `seconds` (the last one begun), or ""."""
    if not cues:
        return ""
    starts = [cue.start for cue in cues]
    at = max(0, bisect.bisect_right(starts, seconds + 1e-6) - 1)
    return cues[at].speaker
