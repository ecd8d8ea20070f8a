"""Clips and sampling on the video tools: what Gemini receives, validation, cache keys,
and deterministic knowledge ids (a repeated analysis updates one object)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.stubs.gemini import _camel
from tests.video.test_video_tools import URL, call, write_video
from video_research.support.errors import ToolFailure
from video_research.video import input as video_input
from video_research.video.input import Sampling, parse_offset


async def test_clip_fps_and_resolution_reach_gemini(gemini_stub):
    outcome = await call(
        "video_analyze",
        {
            "url": URL,
            "start_offset": "1:30",
            "end_offset": 300,
            "fps": 0.5,
            "media_resolution": "low",
        },
    )
    assert outcome.error is None, outcome.error
    sent = gemini_stub.calls("generateContent")[-1]
    video = sent.parts[0]
    assert video["videoMetadata"] == {"startOffset": "90s", "endOffset": "300s", "fps": 0.5}
    assert sent.generation_config["mediaResolution"] == "MEDIA_RESOLUTION_LOW"
    result = outcome.result
    assert result["sampling"] == {
        "start_seconds": 90.0,
        "end_seconds": 300.0,
        "fps": 0.5,
        "media_resolution": "low",
    }
    # the stub bills like Gemini: 210 s x 0.5 fps x 66 tokens + 32 audio tokens/s
    assert result["usage"]["prompt_tokens"] >= int(210 * 0.5 * 66 + 210 * 32)
    whole = await call("video_analyze", {"url": URL})
    assert whole.result["usage"]["prompt_tokens"] > 5 * result["usage"]["prompt_tokens"]


async def test_sampling_is_part_of_the_cache_key(gemini_stub):
    clip = {"url": URL, "start_offset": 10, "end_offset": 20}
    assert (await call("video_analyze", clip)).result["cached"] is False
    assert (await call("video_analyze", clip)).result["cached"] is True
    assert (await call("video_analyze", {**clip, "end_offset": "00:00:20"})).result["cached"]
    for other in ({**clip, "end_offset": 21}, {**clip, "fps": 2}, {"url": URL}):
        assert (await call("video_analyze", other)).result["cached"] is False, other
    assert (await call("video_analyze", {**clip, "media_resolution": "low"})).result[
        "cached"
    ] is False
    assert len(gemini_stub.calls("generateContent")) == 5


async def test_local_clips_and_sessions_carry_the_sampling(gemini_stub, tmp_path):
    video = write_video(tmp_path / "clip.mp4")
    outcome = await call("video_analyze", {"file_path": str(video), "fps": 2})
    assert outcome.error is None, outcome.error
    sent = gemini_stub.calls("generateContent")[-1]
    assert sent.parts[0]["videoMetadata"] == {"fps": 2.0} and "inlineData" in sent.parts[0]
    created = await call(
        "video_create_session", {"url": URL, "start_offset": "0:10", "end_offset": "10:00"}
    )
    assert created.result["sampling"] == {"start_seconds": 10.0, "end_seconds": 600.0}
    cached = gemini_stub.calls("cachedContents.create")[-1].body
    assert _camel(cached["contents"][0]["parts"][0])["videoMetadata"] == {
        "startOffset": "10s",
        "endOffset": "600s",
    }


@pytest.mark.parametrize(
    ("arguments", "needle"),
    [
        ({"start_offset": 60, "end_offset": 30}, "end_offset (30 s) must be after start_offset"),
        ({"start_offset": "1:00", "end_offset": "1:00"}, "must be after"),
        ({"end_offset": 0}, "after the start"),
        ({"start_offset": "1:75"}, "seconds must be below 60"),
        ({"start_offset": "1:61:00"}, "minutes must be below 60"),
        ({"start_offset": "ten seconds"}, "not a position"),
        ({"start_offset": "-5"}, "not a position"),
        ({"end_offset": 10**7}, "beyond 48 hours"),
        ({"start_offset": -1}, "minimum"),
        ({"fps": 0}, "fps"),
        ({"fps": 25}, "fps"),
        ({"media_resolution": "ultra"}, "media_resolution"),
    ],
)
async def test_bad_sampling_is_a_clear_invalid_input(gemini_stub, arguments, needle):
    for tool in ("video_analyze", "video_create_session"):
        outcome = await call(tool, {"url": URL, **arguments})
        assert outcome.error.category == "invalid_input", outcome.error
        assert needle in outcome.error.error, outcome.error.error
    assert gemini_stub.requests == [], "nothing is sent for a bad clip"


async def test_batch_takes_the_sampling_too(gemini_stub, tmp_path):
    write_video(tmp_path / "a.mp4")
    bad = await call("video_batch_analyze", {"directory": str(tmp_path), "end_offset": "x"})
    assert bad.error.category == "invalid_input"
    outcome = await call(
        "video_batch_analyze", {"directory": str(tmp_path), "start_offset": 5, "fps": 1}
    )
    assert outcome.error is None, outcome.error
    sent = gemini_stub.calls("generateContent")[-1]
    assert sent.parts[0]["videoMetadata"] == {"startOffset": "5s", "fps": 1.0}


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        (90, 90.0),
        (90.25, 90.25),
        ("90", 90.0),
        ("90s", 90.0),
        ("1:30", 90.0),
        ("01:02:03", 3723.0),
        ("1:02:03.5", 3723.5),
        ("0:00", 0.0),
        ("100:00:00"[1:], 0.0),
    ],
)
def test_offsets(text, seconds):
    assert parse_offset(text, "start_offset") == seconds


@settings(max_examples=200, derandomize=True, deadline=None)
@given(st.integers(0, 47), st.integers(0, 59), st.integers(0, 59))
def test_clock_and_seconds_agree(hours, minutes, secs):
    total = hours * 3600 + minutes * 60 + secs
    assert parse_offset(f"{hours:02d}:{minutes:02d}:{secs:02d}", "x") == total
    assert parse_offset(f"{total}s", "x") == total


def test_sampling_tags_are_canonical():
    a = Sampling.from_args({"start_offset": "1:30", "end_offset": 300.0})
    b = Sampling.from_args({"start_offset": 90, "end_offset": "300s"})
    assert a.tag() == b.tag() == "start=90;end=300"
    assert Sampling().tag() == "" and Sampling().video_metadata() is None
    with pytest.raises(ToolFailure):
        Sampling.from_args({"start_offset": True})
    assert video_input.Sampling.from_json(a.to_json()) == a


# --- knowledge ids: content + instruction + model ---


async def test_a_repeated_analysis_updates_one_knowledge_object(gemini_stub, tmp_path):
    from video_research.knowledge.store import get_store

    for _ in range(3):
        outcome = await call("video_analyze", {"url": URL, "use_cache": False})
        assert outcome.error is None, outcome.error
    await call("video_analyze", {"url": URL, "instruction": "Only the songs"})
    await call("video_analyze", {"url": URL, "use_cache": False, "start_offset": 30})
    store = await get_store()
    assert await store.count("VideoAnalyses") == 3, "same question -> one object; others add"

    notes = tmp_path / "notes.md"
    notes.write_text("# Notes\nBob likes tea.")
    for _ in range(3):
        assert (await call("content_analyze", {"file_path": str(notes)})).error is None
    for _ in range(2):
        assert (await call("content_analyze", {"text": "Alice founded Acme."})).error is None
    await call("content_analyze", {"text": "Alice founded Acme.", "instruction": "Who?"})
    assert await store.count("ContentAnalyses") == 3
