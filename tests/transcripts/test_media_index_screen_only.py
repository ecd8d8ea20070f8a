"""A video with slides and nothing to hear: index_media_files indexes its on-screen text,
gives it a `source: "screen"` record (listed by get_indexed_videos, skipped when unchanged)
and says in a note, not a failure, that there was no audio; that record does not count as
a transcript, so the video's YouTube captions are still indexed when asked for."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.stubs.youtube_transcripts import StubVideo
from tests.transcripts.test_transcript_tools import call

pytestmark = pytest.mark.slow

FIXTURES = Path(__file__).parent.parent / "fixtures" / "media"
SLIDES = json.loads((FIXTURES / "lecture.json").read_text())["slides"]
VIDEO_ID = "sCrEeNoNlY1"


def _pictures_only(source: Path, target: Path, seconds: float) -> None:
    """The first `seconds` of `source`'s video stream, remuxed without its audio."""
    import av

    with av.open(str(source)) as given, av.open(str(target), "w") as out:
        video = given.streams.video[0]
        copy = out.add_stream_from_template(video)
        for packet in given.demux(video):
            if packet.dts is None:
                continue
            if packet.pts is not None and packet.pts * video.time_base > seconds:
                break
            packet.stream = copy
            out.mux(packet)


async def test_a_silent_slide_video_is_listed_by_its_screen_text_and_captions_still_come(
    tmp_path, transcript_stub
):
    folder = tmp_path / "decks"
    folder.mkdir()
    _pictures_only(FIXTURES / "lecture.mp4", folder / f"Deck [{VIDEO_ID}].mp4", seconds=30)

    result = await call("index_media_files", {"paths": [str(folder)]})
    batch = result["batch"]
    assert batch["failed"] == [] and batch["indexed_count"] == 1, batch
    assert result["transcribed_count"] == 0 and result["screen_chunk_count"] >= 2, result
    assert any("nothing to hear (no_audio)" in note for note in batch["notes"]), batch["notes"]

    (video,) = (await call("get_indexed_videos", {"source": "screen"}))["videos"]
    assert video["video_id"] == VIDEO_ID and video["video_title"] == "Deck"
    assert video["segment_count"] == 0 and video["chunk_count"] == result["screen_chunk_count"]
    assert video["video_url"].startswith("file://") and video["source_path"].endswith(".mp4")
    got = await call("transcript_get", {"video_id": VIDEO_ID, "auto_index": False})
    assert got["segments"] == [] and got["video"]["source"] == "screen", got

    slide = SLIDES[1]  # "Mitochondria / Cells burn glucose", 12-24 s
    top = (await call("semantic_search_transcripts", {"query": "mitochondria cells burn glucose"}))[
        "results"
    ][0]
    assert top["video_id"] == VIDEO_ID and top["evidence"] == "screen", top
    assert abs(top["match_time"] - slide["start"]) <= 5, top

    again = await call("index_media_files", {"paths": [str(folder)]})
    assert again["batch"]["skipped"] == [VIDEO_ID] and again["screen_chunk_count"] == 0

    # Captions of the same video arrive later: the screen-only record does not stop them,
    # and the slides stay searchable beside the captions.
    transcript_stub.videos[VIDEO_ID] = StubVideo(
        {"en": ([(13.0, 3.0, "the powerhouse of the cell")], False)}
    )
    captions = await call(
        "index_media_files", {"urls": [f"https://www.youtube.com/watch?v={VIDEO_ID}"]}
    )
    assert captions["batch"]["indexed_count"] == 1 and captions["transcribed_count"] == 0
    (video,) = (await call("get_indexed_videos", {}))["videos"]
    assert video["source"] == "youtube" and video["segment_count"] == 1
    shown = await call(
        "semantic_search_transcripts",
        {"query": "mitochondria cells burn glucose", "evidence": "screen"},
    )
    assert shown["results"][0]["video_id"] == VIDEO_ID
