"""Sentence-sized moments from speech, over stdio with the real MCP client: a recording of
clips joined with `-c copy` (audio with gaps, one slide per clip) is transcribed; every
sentence is found at its first word (within a second), and a hit's text is its moment's
sentences, never the whole talk nor a sentence said over another slide."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.helpers import mcp_client, tool_json

pytestmark = pytest.mark.slow

FIXTURES = Path(__file__).parent.parent / "fixtures" / "media"
TRUTH = json.loads((FIXTURES / "timeline.json").read_text())["clips_joined.mp4"]


def _slide_of(seconds: float) -> int:
    return sum(1 for slide in TRUTH["slides"] if slide["start"] <= seconds) - 1


async def test_each_spoken_sentence_is_a_moment_at_its_first_word(server_env, tmp_path):
    folder = tmp_path / "talks"
    folder.mkdir()
    shutil.copy(FIXTURES / "clips_joined.mp4", folder / "week2.mp4")
    sentences = TRUTH["sentences"]
    async with mcp_client(server_env) as client:
        indexed = await client.call_tool("index_media_files", {"paths": [str(folder)]})
        assert not indexed.is_error, tool_json(indexed)
        result = indexed.structured_content
        assert result["transcribed_count"] == 1, result
        assert abs(result["speech_seconds"] - 33.9) < 1.0, result  # the audio's own timeline
        for sentence in sentences:
            found = await client.call_tool(
                "semantic_search_transcripts",
                {"query": sentence["text"], "evidence": "speech", "k": 3},
            )
            assert not found.is_error, tool_json(found)
            top = found.structured_content["results"][0]
            assert top["video_id"] == "week2", (sentence, top)
            assert abs(top["match_time"] - sentence["start"]) <= 1.0, (sentence, top)
            assert top["end_time"] - top["start_time"] <= 30.0, top
            # the moment is what was said over this sentence's slide (two sentences): the
            # other slides' sentences are moments of their own
            slide = TRUTH["slides"][_slide_of(sentence["start"])]
            assert slide["start"] - 0.5 <= top["start_time"] <= top["end_time"] <= slide["end"]
            assert top["text"].count(".") <= 2, top
