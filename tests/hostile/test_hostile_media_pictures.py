"""Hostile media: each file fails alone with a clear structured error, fast and in bounded
memory, and the server stays up. The files that need FFmpeg's command line to craft are
committed (tests/fixtures/media/make_hostile.py); the rest are made here."""

from __future__ import annotations

import resource
import shutil
import time
from fractions import Fraction

import pytest

from tests.calls import call_error, call_ok
from tests.helpers import mcp_client, tool_json
from tests.media.conftest import FIXTURES
from video_research.media.limits import MediaLimits
from video_research.media.scenes import detect_scenes
from video_research.support.errors import ToolFailure

PICTURE_TOOLS = ("media_frames", "media_contact_sheet", "media_scenes", "media_screen_text")


def _silent_day(path) -> None:
    """A silent audio file 24 hours long in a few hundred bytes: one packet at 0 s and one
    at 24 h (a container's duration is what its timestamps say)."""
    import av
    import numpy as np

    with av.open(str(path), "w") as out:
        stream = out.add_stream("pcm_s16le", rate=8000, layout="mono")
        frame = av.AudioFrame.from_ndarray(
            np.zeros((1, 160), dtype=np.int16), format="s16", layout="mono"
        )
        frame.sample_rate = 8000
        packets = [*stream.encode(frame), *stream.encode(None)]
        for at in (0, 24 * 3600):
            packet = packets[0]
            packet.time_base = Fraction(1, 8000)
            packet.pts = packet.dts = at * 8000
            out.mux(packet)


def _many_streams(path, count: int) -> None:
    import av
    import numpy as np

    with av.open(str(path), "w") as out:
        streams = [out.add_stream("pcm_s16le", rate=8000, layout="mono") for _ in range(count)]
        for stream in streams:
            frame = av.AudioFrame.from_ndarray(
                np.zeros((1, 160), dtype=np.int16), format="s16", layout="mono"
            )
            frame.sample_rate = 8000
            for packet in [*stream.encode(frame), *stream.encode(None)]:
                out.mux(packet)


@pytest.fixture
def hostile(tmp_path):
    """name -> (path, categories the picture tools may answer, words the error holds)."""
    lecture = (FIXTURES / "lecture.mp4").read_bytes()
    (tmp_path / "empty.mp4").write_bytes(b"")
    (tmp_path / "notes.mp4").write_text("These are my notes, not a video.\n" * 50)
    (tmp_path / "cut_header.mp4").write_bytes(lecture[:2000])
    (tmp_path / "truncated.mp4").write_bytes(lecture[: len(lecture) // 3])
    _silent_day(tmp_path / "day.mkv")
    _many_streams(tmp_path / "streams.mkv", 1000)
    for name in ("huge_frame.avi", "big_frame.avi", "cover_bomb.m4a"):
        shutil.copyfile(FIXTURES / name, tmp_path / name)
    return {
        "empty.mp4": ({"unsupported_format"}, "empty"),
        "notes.mp4": ({"unsupported_format"}, "could not be read as media"),
        "cut_header.mp4": ({"unsupported_format"}, "could not be"),
        "day.mkv": ({"too_large"}, "lasts 86,400 s"),
        "streams.mkv": ({"unsupported_format"}, "1,000 streams"),
        "huge_frame.avi": ({"unsupported_format", "too_large"}, ""),
        "big_frame.avi": ({"too_large"}, "16,000 x 16,000"),
        "cover_bomb.m4a": ({"unsupported_format"}, "cover picture"),
    }


async def test_each_hostile_file_fails_alone_fast_and_small(hostile, tmp_path):
    peak_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    for name, (categories, words) in hostile.items():
        for tool in PICTURE_TOOLS:
            began = time.monotonic()
            error = await call_error(tool, {"path": str(tmp_path / name)})
            assert time.monotonic() - began < 5, (name, tool)
            assert error["category"] in categories, (name, tool, error)
            assert words in error["error"], (name, tool, error["error"])
            assert error["hint"]
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - peak_before) / 1024
    assert grown_mb < 300, f"peak memory grew by {grown_mb:.0f} MB"


async def test_a_truncated_video_gives_the_frames_it_has(hostile, tmp_path):
    path = str(tmp_path / "truncated.mp4")
    scenes = await call_ok("media_scenes", {"path": path})
    assert 1 <= scenes["scene_count"] <= 6
    frames = await call_ok("media_frames", {"path": path, "times": [3, 65]})
    assert [f["requested_time"] for f in frames["frames"]] == [3]
    assert frames["omitted"] == [{"time": 65, "reason": "unreadable"}]


async def test_limits_are_settings(tmp_path, configure):
    shutil.copyfile(FIXTURES / "lecture.mp4", tmp_path / "lecture.mp4")
    path = str(tmp_path / "lecture.mp4")
    configure(MEDIA_MAX_PIXELS=str(100 * 100))
    assert (await call_error("media_frames", {"path": path}))["category"] == "too_large"
    configure(MEDIA_MAX_PIXELS=None, MEDIA_MAX_DURATION_SECONDS="60")
    assert "lasts 72 s" in (await call_error("media_scenes", {"path": path}))["error"]
    configure(MEDIA_MAX_DURATION_SECONDS=None, MEDIA_MAX_STREAMS="1")
    assert "2 streams" in (await call_error("media_scenes", {"path": path}))["error"]
    configure(MEDIA_MAX_STREAMS=None, MEDIA_MAX_FILE_BYTES="1024")
    assert (await call_error("media_scenes", {"path": path}))["category"] == "too_large"


def test_decoding_stops_at_the_wall_clock_limit():
    with pytest.raises(ToolFailure) as failure:
        detect_scenes(str(FIXTURES / "lecture.mp4"), MediaLimits(decode_seconds=0.0))
    assert failure.value.category == "timeout"
    assert "MEDIA_DECODE_SECONDS" in failure.value.hint


async def test_the_server_stays_up_through_hostile_files(server_env, hostile, tmp_path):
    server_env["VIDEO_RESEARCH_TOOLSETS"] = "media"
    shutil.copyfile(FIXTURES / "lecture.mp4", tmp_path / "lecture.mp4")
    async with mcp_client(server_env) as session:
        for name in hostile:
            result = await session.call_tool("media_frames", {"path": str(tmp_path / name)})
            if name != "truncated.mp4":
                assert result.is_error, name
                assert tool_json(result)["category"] in ("unsupported_format", "too_large"), name
        result = await session.call_tool("media_scenes", {"path": str(tmp_path / "lecture.mp4")})
        assert not result.is_error and result.structured_content["scene_count"] == 6
