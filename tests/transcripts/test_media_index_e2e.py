"""Over stdio with the real MCP client: index a folder of media (speech only, no captions)
with index_media_files, receive progress, then find a spoken sentence at its moment."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.helpers import mcp_client, tool_json

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
        top = found.structured_content["results"][0]
        assert top["video_id"] == "museum_hours"
        assert abs(top["match_time"] - spoken["start"]) <= 5, top
