"""Captions beside their video, over stdio with the real MCP client: a folder of recordings
made of clips joined with `-c copy` (audio with gaps), each with its captions under the
same name (`week1.en.vtt`, yt-dlp's `Title [ID].en.vtt`). Indexed, every sentence is found
within a second of where it is said, linked to the video file; the link opens in
media_frames; the videos' slides are read although their speech came from captions; a
caption file with nothing to link to says so once."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.helpers import mcp_client, tool_json

pytestmark = pytest.mark.slow

FIXTURES = Path(__file__).parent.parent / "fixtures" / "media"
TRUTH = json.loads((FIXTURES / "timeline.json").read_text())
YT_NAME = "Phone clip [AbCdEfGhIjK]"


def _recordings(folder: Path) -> dict[str, tuple[str, Path]]:
    """video_id -> (fixture name, video path) of the recordings copied into `folder`."""
    folder.mkdir()
    made = {}
    for fixture, stem, video_id in (
        ("clips_joined", "week1", "week1"),
        ("phone_vfr", YT_NAME, "AbCdEfGhIjK"),
    ):
        shutil.copy(FIXTURES / f"{fixture}.mp4", folder / f"{stem}.mp4")
        shutil.copy(FIXTURES / f"{fixture}.en.vtt", folder / f"{stem}.en.vtt")
        made[video_id] = (f"{fixture}.mp4", folder / f"{stem}.mp4")
    return made


async def _find_each_sentence(client, made) -> None:
    for video_id, (fixture, video) in made.items():
        for sentence in TRUTH[fixture]["sentences"]:
            found = await client.call_tool(
                "semantic_search_transcripts",
                {"query": sentence["text"], "evidence": "speech", "k": 3},
            )
            assert not found.is_error, tool_json(found)
            top = found.structured_content["results"][0]
            assert top["video_id"] == video_id, (sentence, top)
            assert abs(top["match_time"] - sentence["start"]) <= 1.0, (sentence, top)
            assert top["video_url"] == video.as_uri(), top
            link = top["timestamp_url"]
            assert link.startswith(video.as_uri() + "#t="), top
            assert abs(float(link.split("#t=")[1]) - sentence["start"]) <= 1.0, top


async def test_captions_beside_their_videos_are_their_transcripts_over_stdio(server_env, tmp_path):
    folder = tmp_path / "course"
    made = _recordings(folder)
    async with mcp_client(server_env) as client:
        indexed = await client.call_tool("index_media_files", {"paths": [str(folder)]})
        assert not indexed.is_error, tool_json(indexed)
        result = indexed.structured_content
        batch = result["batch"]
        assert batch["indexed_count"] == 2 and not batch["failed"], result
        assert result["transcribed_count"] == 0, result  # the captions win over speech
        assert result["screen_chunk_count"] >= 2, result  # and the slides are read beside
        assert sum("speech from its captions" in note for note in batch["notes"]) == 2, batch

        await _find_each_sentence(client, made)

        # the slides of the captioned video are found at their time, on the same clock
        slide = TRUTH["clips_joined.mp4"]["slides"][2]
        shown = await client.call_tool(
            "semantic_search_transcripts", {"query": slide["title"], "evidence": "screen"}
        )
        top = shown.structured_content["results"][0]
        assert top["video_id"] == "week1" and top["evidence"] == "screen", top
        assert slide["start"] - 1 <= top["match_time"] <= slide["end"], top

        # a hit's link opens in media_frames at its moment
        said = TRUTH["clips_joined.mp4"]["sentences"][5]
        found = await client.call_tool(
            "semantic_search_transcripts", {"query": said["text"], "evidence": "speech"}
        )
        link = found.structured_content["results"][0]["timestamp_url"]
        frames = await client.call_tool("media_frames", {"path": link})
        assert not frames.is_error, tool_json(frames)
        (frame,) = frames.structured_content["frames"]
        assert abs(frame["time"] - said["start"]) <= 1.0, frame

        again = await client.call_tool("index_media_files", {"paths": [str(folder)]})
        assert sorted(again.structured_content["batch"]["skipped"]) == sorted(made), tool_json(
            again
        )


async def test_index_transcript_files_links_captions_to_the_video_beside_them(server_env, tmp_path):
    folder = tmp_path / "course"
    made = _recordings(folder)
    orphans = tmp_path / "orphans"
    orphans.mkdir()
    for name in ("notes_one.srt", "notes_two.srt"):
        (orphans / name).write_text("1\n00:00:01,000 --> 00:00:03,000\nA lone caption.\n")
    async with mcp_client(server_env) as client:
        indexed = await client.call_tool(
            "index_transcript_files", {"path": str(folder), "fetch_metadata": False}
        )
        assert not indexed.is_error, tool_json(indexed)
        ids = {item["video_id"] for item in indexed.structured_content["batch"]["indexed"]}
        assert ids == set(made), tool_json(indexed)
        await _find_each_sentence(client, made)

        # the videos' pictures are then read beside those captions, not skipped
        media = await client.call_tool("index_media_files", {"paths": [str(folder)]})
        result = media.structured_content
        assert result["transcribed_count"] == 0 and result["screen_chunk_count"] >= 2, result

        lone = await client.call_tool(
            "index_transcript_files", {"path": str(orphans), "fetch_metadata": False}
        )
        assert not lone.is_error, tool_json(lone)
        notes = [n for n in lone.structured_content["batch"]["notes"] if "no link" in n]
        assert len(notes) == 1 and "2 transcript(s)" in notes[0], lone.structured_content
