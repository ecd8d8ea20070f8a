"""index_media_files on a download cut short: indexed for what it holds, said to be partial
(the batch item, its note, the video record, every chunk a hit comes from), and replaced
whole when the whole file is indexed again. And one duration: index_media_files,
transcript_get, get_indexed_videos and the media tools report the same one for a file."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.transcripts.test_transcript_tools import call

FIXTURES = Path(__file__).parent.parent / "fixtures" / "media"
PARTIAL = FIXTURES / "partial"
CLAIMED = 24.2  # what short.mp4 and its cut copy claim: their container's duration


async def _chunks(video_id: str) -> list[dict]:
    from video_research.knowledge.filters import Filter
    from video_research.knowledge.store import get_store
    from video_research.transcripts.indexer import CHUNKS

    store = await get_store()
    page = await store.fetch(CHUNKS, where=Filter.eq("video_id", video_id), limit=500)
    return [obj.properties for obj in page.objects]


@pytest.mark.slow  # indexes media: the speech and OCR models
async def test_a_cut_download_is_partial_until_the_whole_file_replaces_it(tmp_path):
    folder = tmp_path / "talks"
    folder.mkdir()
    target = folder / "lecture.mp4"
    # lecture.mp4's first 24 s (two slides, two sentences), cut at half its bytes
    shutil.copyfile(PARTIAL / "short_50.mp4", target)
    cut = await call("index_media_files", {"paths": [str(target)]})
    batch = cut["batch"]
    assert batch["indexed_count"] == 1, batch
    item = batch["indexed"][0]
    assert item["complete"] is False and item["seconds_claimed"] == CLAIMED, item
    assert 8 < item["seconds_read"] < 13 and item["duration_seconds"] == CLAIMED, item
    assert any(
        note.startswith("lecture.mp4: the file ends at 0:11 of 0:24: it was probably cut off")
        for note in batch["notes"]
    ), batch["notes"]
    assert cut["speech_seconds"] <= item["seconds_read"] + 0.5
    chunks = await _chunks("lecture")
    assert {c["evidence"] for c in chunks} - {"chapter"} == {"speech", "screen"}
    assert all(c["complete"] is False for c in chunks if c["evidence"] != "chapter")
    assert max(c["end_time"] for c in chunks) <= item["seconds_read"] + 0.5
    video = (await call("transcript_get", {"video_id": "lecture"}))["video"]
    assert video["complete"] is False and video["duration_seconds"] == CLAIMED
    assert video["seconds_read"] == item["seconds_read"]

    # the download finished: the whole file, indexed again, replaces the partial one
    shutil.copyfile(PARTIAL / "short.mp4", target)
    whole = await call("index_media_files", {"paths": [str(target)]})
    item = whole["batch"]["indexed"][0]
    assert item["complete"] is True and item["seconds_read"] == item["seconds_claimed"] == CLAIMED
    assert not any("cut off" in note for note in whole["batch"]["notes"])
    chunks = await _chunks("lecture")
    assert all(c["complete"] is True for c in chunks if c["evidence"] != "chapter")
    assert max(c["end_time"] for c in chunks) > 14  # the second sentence, from 14 s

    # one duration for one file, whichever tool reports it
    durations = {
        "index_media_files": item["duration_seconds"],
        "transcript_get": (await call("transcript_get", {"video_id": "lecture"}))["video"][
            "duration_seconds"
        ],
        "get_indexed_videos": (await call("get_indexed_videos", {}))["videos"][0][
            "duration_seconds"
        ],
        "media_scenes": (await call("media_scenes", {"path": str(target)}))["duration_seconds"],
        "media_frames": (await call("media_frames", {"path": str(target), "count": 1}))[
            "duration_seconds"
        ],
    }
    assert set(durations.values()) == {CLAIMED}, durations


async def test_an_mp4_cut_before_its_index_fails_saying_to_download_it_again(tmp_path):
    target = tmp_path / "lecture.mp4"
    shutil.copyfile(PARTIAL / "lecture_end_50.mp4", target)
    result = await call("index_media_files", {"paths": [str(target)]})
    failed = result["batch"]["failed"] if "batch" in result else result["details"]["failed"]
    assert failed and "cut off while downloading" in failed[0]["hint"], failed
