"""Partial media said to be partial: files cut as interrupted downloads leave them
(tests/fixtures/media/partial, made from lecture.mp4 by make_partial_fixtures.sh with
`head -c`) are read for what they hold and reported with `complete: false`, where they end
and what they claim, and a note; the whole file indexed again replaces the partial one.
And one duration: every tool reports the same one for the same file."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.calls import call_error, call_ok
from tests.media.conftest import FIXTURES
from video_research.media.probe import measure_file

PARTIAL = FIXTURES / "partial"
CLAIMED = 72.0  # lecture.mp4's length, which every cut copy still claims (but the MP4
# whose index was to come at its end, which cannot be opened at all)

CUTS = {  # file: (share of the bytes kept, the streams it has)
    "lecture_front_25.mp4": (0.25, {"video", "audio"}),
    "lecture_front_50.mp4": (0.50, {"video", "audio"}),
    "lecture_front_75.mp4": (0.75, {"video", "audio"}),
    "lecture_end_50.mkv": (0.50, {"video", "audio"}),
    "audio_only_50.m4a": (0.50, {"audio"}),
    "video_only_50.mp4": (0.50, {"video"}),
}
WHOLE = ["lecture.mp4", "clips_joined.mp4", "late_audio.mp4", "phone_vfr.mp4", "speech.ogg"]


@pytest.mark.parametrize("name", sorted(CUTS))
def test_a_cut_file_is_measured_to_where_it_ends(name):
    share, kinds = CUTS[name]
    found = measure_file(str(PARTIAL / name))
    assert found is not None and not found.complete, found
    assert abs(found.seconds_claimed - CLAIMED) < 0.2, found
    # a cut keeps less than its share of the seconds (the index and the header come first)
    assert 0 < found.seconds_read < CLAIMED * share + 2, found
    assert {s.kind for s in found.streams} == kinds
    assert all(not s.complete for s in found.streams)
    assert found.note and found.note.startswith("the file ends at ")
    assert "of 1:12: it was probably cut off while downloading" in found.note


@pytest.mark.parametrize("name", WHOLE)
def test_a_whole_file_is_complete(name):
    """Whole files whose streams end apart (audio shorter than the video, gaps, late audio,
    variable frame rate) are complete: each stream is held to its own claimed length."""
    found = measure_file(str(FIXTURES / name))
    assert found is not None and found.complete and found.note is None, found
    assert found.seconds_read == found.seconds_claimed


def test_the_more_is_kept_the_more_is_read():
    reads = [
        measure_file(str(PARTIAL / f"lecture_front_{p}.mp4")).seconds_read for p in (25, 50, 75)
    ]
    assert reads == sorted(reads) and reads[-1] < CLAIMED - 10, reads


@pytest.fixture
def cut(tmp_path) -> Path:
    target = tmp_path / "lecture.mp4"
    shutil.copyfile(PARTIAL / "short_50.mp4", target)  # lecture.mp4's first 24 s, cut
    return target


async def test_every_media_tool_says_a_cut_file_is_partial(cut):
    read = measure_file(str(cut)).seconds_read
    results = {
        "media_scenes": await call_ok("media_scenes", {"path": str(cut)}),
        "media_frames": await call_ok("media_frames", {"path": str(cut), "count": 4}),
        "media_contact_sheet": await call_ok("media_contact_sheet", {"path": str(cut), "count": 4}),
        "media_screen_text": await call_ok(
            "media_screen_text", {"path": str(cut), "sample_seconds": 10}
        ),
    }
    for tool, result in results.items():
        assert result["complete"] is False, tool
        coverage = result["coverage"]
        assert coverage["seconds_read"] == read and coverage["seconds_claimed"] == 24.2, tool
        assert "cut off while downloading" in coverage["note"], tool
        assert result["duration_seconds"] == 24.2, tool  # the one duration: what it claims
    # read to where it ends: frames spread over what is there, the last scene ends there
    frames = results["media_frames"]["frames"]
    assert all(f["requested_time"] <= read for f in frames) and len(frames) == 4
    assert results["media_scenes"]["scenes"][-1]["end"] <= read + 0.5
    assert [s["start"] for s in results["media_scenes"]["scenes"]] == [0]
    cells = results["media_contact_sheet"]["cells"]
    assert max(c["time"] for c in cells) <= read


async def test_a_whole_file_is_complete_in_every_tool(lecture):
    scenes = await call_ok("media_scenes", {"path": str(lecture)})
    frames = await call_ok("media_frames", {"path": str(lecture), "count": 2})
    for result in (scenes, frames):
        assert result["complete"] is True and result["coverage"]["note"] is None
        assert result["coverage"]["seconds_read"] == result["duration_seconds"] == CLAIMED


async def test_an_mp4_cut_before_its_index_says_to_download_it_again(tmp_path):
    target = tmp_path / "lecture.mp4"
    shutil.copyfile(PARTIAL / "lecture_end_50.mp4", target)
    error = await call_error("media_frames", {"path": str(target)})
    assert error["category"] == "unsupported_format"
    assert "download it again" in error["hint"]


def test_a_stream_that_stops_while_the_other_goes_on_is_named():
    """The rule on its own: the video whole, the audio stopping at 0:40 of the 1:12 it
    claims (a damaged file) is partial, and the note names the stream."""
    from video_research.media.coverage import StreamCoverage, judge

    found = judge(
        [
            StreamCoverage("video", 0, 72.0, 72.0, True),
            StreamCoverage("audio", 1, 40.0, 72.0, False),
        ],
        72.0,
    )
    assert not found.complete and found.seconds_read == 40.0 and found.seconds_claimed == 72.0
    assert found.note.startswith("its audio stops at 0:40 of 1:12 while the rest goes on")


def test_the_partial_fixtures_are_small_and_made_by_a_committed_script():
    sizes = [file.stat().st_size for file in PARTIAL.iterdir()]
    assert sizes and max(sizes) < 200_000 and sum(sizes) < 700_000, sizes
    assert (FIXTURES / "make_partial_fixtures.sh").exists()
