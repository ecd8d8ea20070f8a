"""The media tools in-process: frames, contact sheet and scene cuts of the lecture fixture,
checked against its ground truth, and their bad-input answers."""

from __future__ import annotations

import io
import shutil

from PIL import Image

from tests.calls import call_error, call_ok, call_tool
from tests.media.conftest import FIXTURES


async def test_scenes_cut_within_half_a_second_of_each_slide_change(lecture, truth):
    result = await call_ok("media_scenes", {"path": str(lecture)})
    starts = [scene["start"] for scene in result["scenes"]]
    expected = [slide["start"] for slide in truth["slides"]]
    assert len(starts) == len(expected), starts
    for found, known in zip(starts, expected, strict=True):
        assert abs(found - known) <= 0.5, (found, known)
    assert result["scenes"][-1]["end"] >= truth["duration"] - 0.5
    assert result["scenes"][1]["link"].endswith("#t=12.0")
    assert result["scene_count"] == len(expected) and not result["truncated"]


async def test_frames_at_times_are_images_of_those_moments(lecture):
    outcome = await call_tool("media_frames", {"path": str(lecture), "times": [5, 30.02]})
    assert outcome.error is None, outcome.error
    frames = outcome.result["frames"]
    assert [round(frame["time"]) for frame in frames] == [5, 30]
    assert len(outcome.images) == 2
    for frame, image in zip(frames, outcome.images, strict=True):
        assert image.mime_type == "image/jpeg" == frame["mime_type"]
        picture = Image.open(io.BytesIO(image.data))
        assert picture.size == (frame["width"], frame["height"]) == (480, 270)
        assert frame["bytes"] == len(image.data)
    # slide 1 is dark blue, slide 3 dark green: the frames are the slides of their times
    blue = Image.open(io.BytesIO(outcome.images[0].data)).getpixel((20, 20))
    green = Image.open(io.BytesIO(outcome.images[1].data)).getpixel((20, 20))
    assert blue[2] > blue[1] and green[1] > green[2]


async def test_evenly_spaced_and_per_scene_frames(lecture, truth):
    spaced = await call_ok(
        "media_frames", {"path": str(lecture), "count": 4, "start": 10, "end": 50, "max_edge": 200}
    )
    assert [f["requested_time"] for f in spaced["frames"]] == [15, 25, 35, 45]
    assert all(max(f["width"], f["height"]) <= 200 for f in spaced["frames"])
    per_scene = await call_ok("media_frames", {"path": str(lecture), "per_scene": True})
    middles = [(s["start"] + s["end"]) / 2 for s in truth["slides"]]
    assert [round(f["time"]) for f in per_scene["frames"]] == [round(m) for m in middles]


async def test_frames_past_the_limits_are_listed_as_omitted(lecture, configure):
    configure(MEDIA_MAX_FRAMES="3")
    result = await call_ok("media_frames", {"path": str(lecture), "count": 5})
    assert len(result["frames"]) == 3
    assert [o["reason"] for o in result["omitted"]] == ["max_frames", "max_frames"]
    configure(MEDIA_MAX_FRAMES="10", MEDIA_MAX_OUTPUT_BYTES="20000")
    result = await call_ok("media_frames", {"path": str(lecture), "count": 5, "format": "png"})
    assert sum(f["bytes"] for f in result["frames"]) <= 20000
    assert {o["reason"] for o in result["omitted"]} == {"max_output_bytes"}


async def test_contact_sheet_is_one_grid_image_with_a_cell_per_time(lecture):
    outcome = await call_tool(
        "media_contact_sheet", {"path": str(lecture), "count": 6, "columns": 3, "cell_width": 160}
    )
    assert outcome.error is None, outcome.error
    result = outcome.result
    assert len(outcome.images) == 1
    sheet = Image.open(io.BytesIO(outcome.images[0].data))
    assert sheet.size == (result["sheet"]["width"], result["sheet"]["height"])
    assert sheet.width == 4 + 3 * (160 + 4)
    assert [(c["row"], c["column"]) for c in result["cells"]] == [
        (0, 0),
        (0, 1),
        (0, 2),
        (1, 0),
        (1, 1),
        (1, 2),
    ]
    assert [c["label"] for c in result["cells"]][:2] == ["0:06.0", "0:18.0"]


async def test_bad_inputs_are_structured_errors(lecture, tmp_path):
    error = await call_error("media_frames", {"path": str(lecture), "times": [1], "count": 2})
    assert error["category"] == "invalid_input"
    error = await call_error("media_frames", {"path": str(lecture), "times": [500]})
    assert error["category"] == "invalid_input" and "past the end" in error["error"]
    error = await call_error("media_scenes", {"path": str(lecture), "start": 80})
    assert error["category"] == "invalid_input"
    error = await call_error("media_frames", {"path": "/etc/hostname.mp4"})
    assert error["category"] == "forbidden"
    error = await call_error("media_frames", {"path": str(tmp_path / "missing.mp4")})
    assert error["category"] == "not_found"
    notes = tmp_path / "notes.txt"
    notes.write_text("hello")
    error = await call_error("media_scenes", {"path": str(notes)})
    assert error["category"] == "unsupported_format" and "extension" in error["error"]
    assert "mp4" in error["hint"] and not any(a in error["hint"] for a in ("mp3", "wav", "m4a"))
    error = await call_error("media_frames", {"path": str(lecture), "count": 0})
    assert error["category"] == "invalid_input"


async def test_audio_files_are_refused_by_the_picture_tools(tmp_path):
    import av

    audio = tmp_path / "voice.m4a"
    with av.open(str(FIXTURES / "lecture.mp4")) as source, av.open(str(audio), "w") as out:
        stream = out.add_stream_from_template(source.streams.audio[0])
        for packet in source.demux(source.streams.audio[0]):
            if packet.dts is not None:
                packet.stream = stream
                out.mux(packet)
    for tool in ("media_frames", "media_contact_sheet", "media_scenes"):
        error = await call_error(tool, {"path": str(audio)})
        assert error["category"] == "unsupported_format", error
        assert "no video stream" in error["error"]
        assert "mp4" in error["hint"] and "m4a" not in error["hint"].split(";")[0]


async def test_a_viewer_may_not_read_local_media(lecture):
    from video_research.handlers.context import Caller

    error = await call_error(
        "media_frames", {"path": str(lecture)}, caller=Caller("chat", "viewer")
    )
    assert error["category"] == "forbidden"


def test_fixture_is_small():
    assert (FIXTURES / "lecture.mp4").stat().st_size < 1_000_000
    assert shutil.which  # the fixture script is committed beside it
    assert (FIXTURES / "make_fixtures.sh").exists()


async def test_a_file_link_with_a_time_gives_that_frame(lecture):
    """A search hit's timestamp_url on a local file is a media_frames path: its thumbnail."""
    result = await call_ok("media_frames", {"path": lecture.as_uri() + "#t=42"})
    assert [f["requested_time"] for f in result["frames"]] == [42]
    spaced = await call_ok("media_frames", {"path": lecture.as_uri(), "count": 2})
    assert len(spaced["frames"]) == 2
