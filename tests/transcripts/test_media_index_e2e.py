"""Over stdio with the real MCP client: index a folder of media (speech only, no captions)
with index_media_files, receive progress, then find a spoken sentence at its moment."""

from __future__ import annotations

import base64
import json
import shutil
from pathlib import Path

import pytest

from tests.helpers import mcp_client, tool_json

pytestmark = pytest.mark.slow

FIXTURES = Path(__file__).parent.parent / "fixtures" / "media"
TRUTH = json.loads((FIXTURES / "speech.json").read_text())


async def test_index_a_media_folder_then_find_the_spoken_sentence_over_stdio(server_env, tmp_path):
    folder = tmp_path / "lectures"
    folder.mkdir()
    shutil.copy(FIXTURES / "speech.ogg", folder / "museum_hours.ogg")
    progress: list[tuple[float, float | None, str | None]] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        progress.append((done, total, message))

    async with mcp_client(server_env) as client:
        indexed = await client.call_tool(
            "index_media_files", {"paths": [str(folder)]}, progress_callback=on_progress
        )
        assert not indexed.is_error, tool_json(indexed)
        result = indexed.structured_content
        assert result["batch"]["indexed_count"] == 1, result
        assert result["speech_model"] == "faster-whisper/base"
        assert progress and progress[-1][0] == 1

        spoken = TRUTH["sentences"][2]  # "The museum opens at nine in the morning." at 12 s
        found = await client.call_tool(
            "semantic_search_transcripts", {"query": "when does the museum open", "k": 3}
        )
        assert not found.is_error, tool_json(found)
        # every chunk holds the title's "museum" and the keyword index does not stem
        # "open": the sentence is among the first three, linked where it is said
        results = found.structured_content["results"]
        assert all(r["video_id"] == "museum_hours" for r in results), results
        assert any(abs(r["match_time"] - spoken["start"]) <= 5 for r in results), results


async def test_a_lecture_video_is_found_by_what_was_said_and_what_was_shown(server_env, tmp_path):
    """One index_media_files call on a video: its speech and its slides' text both land in
    the moment index, and a search says which kind of evidence each hit is."""
    truth = json.loads((FIXTURES / "lecture.json").read_text())
    folder = tmp_path / "course"
    folder.mkdir()
    shutil.copy(FIXTURES / "lecture.mp4", folder / "biology_intro.mp4")

    async with mcp_client(server_env) as client:
        indexed = await client.call_tool("index_media_files", {"paths": [str(folder)]})
        assert not indexed.is_error, tool_json(indexed)
        result = indexed.structured_content
        assert result["transcribed_count"] == 1 and result["screen_chunk_count"] >= 5, result

        slide = truth["slides"][2]  # "Plate Tectonics / Continents drift slowly", 24-36 s
        shown = await client.call_tool(
            "semantic_search_transcripts",
            {"query": "plate tectonics continents drift", "evidence": "screen", "k": 3},
        )
        assert not shown.is_error, tool_json(shown)
        top = shown.structured_content["results"][0]
        assert top["video_id"] == "biology_intro" and top["evidence"] == "screen", top
        assert abs(top["match_time"] - slide["start"]) <= 5, top

        said = truth["speech"][4]  # "A vaccine teaches the body to fight a virus." at 50 s
        heard = await client.call_tool(
            "semantic_search_transcripts",
            {"query": "a vaccine teaches the body to fight a virus", "evidence": "speech"},
        )
        assert not heard.is_error, tool_json(heard)
        top = heard.structured_content["results"][0]
        assert top["video_id"] == "biology_intro" and top["evidence"] == "speech", top
        assert abs(top["match_time"] - said["start"]) <= 5, top

        # The file itself is the link, and a thumbnail of the moment comes on request.
        assert top["video_url"].startswith("file://") and top["video_url"].endswith(".mp4")
        assert top["timestamp_url"].endswith(f"#t={int(top['match_time'] * 10) / 10:.1f}")
        pictured = await client.call_tool(
            "semantic_search_transcripts",
            {"query": "a vaccine teaches the body to fight a virus", "k": 2, "thumbnails": True},
        )
        assert not pictured.is_error, tool_json(pictured)
        first = pictured.structured_content["results"][0]
        assert first["thumbnail"]["content_index"] == 2
        image = pictured.content[1]
        assert image.type == "image" and image.mime_type == "image/jpeg"
        assert base64.b64decode(image.data)[:2] == b"\xff\xd8"
        assert abs(first["thumbnail"]["time"] - first["match_time"]) <= 1

        no_pictures = await client.call_tool(
            "index_media_files",
            {"paths": [str(folder)], "screen_text": False, "force_reindex": True},
        )
        assert no_pictures.structured_content["screen_chunk_count"] == 0
