"""Speaker turns through the real tools over stdio: a made recording of two espeak-ng
voices (tests/fixtures/media/make_speakers_fixture.py) is transcribed and its sentences
labelled S1 and S2 by who says them; a name given to S2 is shown by transcript_get and
search results, and a search filtered by that name finds only what S2 said."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.helpers import mcp_client, tool_json

FIXTURES = Path(__file__).parent.parent / "fixtures" / "media"
TRUTH = json.loads((FIXTURES / "speakers.json").read_text())


def _voice_at(seconds: float) -> str | None:
    for turn in TRUTH["turns"]:
        if turn["start"] - 0.3 <= seconds <= turn["end"] + 0.3:
            return turn["voice"]
    return None


async def test_two_voices_are_labelled_named_and_searched_by_name_over_stdio(server_env, tmp_path):
    folder = tmp_path / "interviews"
    folder.mkdir()
    shutil.copy(FIXTURES / "speakers.ogg", folder / "board_meeting.ogg")

    async with mcp_client(server_env) as client:
        indexed = await client.call_tool("index_media_files", {"paths": [str(folder)]})
        assert not indexed.is_error, tool_json(indexed)
        assert indexed.structured_content["batch"]["indexed_count"] == 1

        got = await client.call_tool("transcript_get", {"video_id": "board_meeting"})
        assert not got.is_error, tool_json(got)
        segments = got.structured_content["segments"]
        # each sentence's label is the voice that says it, one label per voice
        voices: dict[str, set[str]] = {}
        for segment in segments:
            voice = _voice_at((segment["start"] + segment["end"]) / 2)
            voices.setdefault(segment["speaker"], set()).add(voice)
        assert sorted(voices) == ["S1", "S2"], segments
        assert all(len(heard) == 1 for heard in voices.values()), voices
        assert voices["S1"] != voices["S2"]
        assert segments[0]["speaker"] == "S1"  # labels follow first appearance
        guest_voice = next(iter(voices["S2"]))

        named = await client.call_tool(
            "name_speaker", {"video_id": "board_meeting", "speaker": "S2", "name": "Guest"}
        )
        assert not named.is_error, tool_json(named)
        assert named.structured_content["speakers"] == [
            {"label": "S1", "name": None},
            {"label": "S2", "name": "Guest"},
        ]
        again = await client.call_tool("transcript_get", {"video_id": "board_meeting"})
        shown = {
            (s["speaker"], s.get("speaker_label")) for s in again.structured_content["segments"]
        }
        assert shown == {("S1", None), ("Guest", "S2")}

        # both voices say this sentence: the name picks the guest's
        query = {"query": "we expect the trend to continue into next year", "k": 5}
        found = await client.call_tool("semantic_search_transcripts", {**query, "speaker": "Guest"})
        assert not found.is_error, tool_json(found)
        results = found.structured_content["results"]
        assert results and all(r["speaker"] == "Guest" for r in results), results
        assert all(_voice_at(r["match_time"]) == guest_voice for r in results), results
        other = await client.call_tool("semantic_search_transcripts", {**query, "speaker": "S1"})
        assert other.structured_content["results"]
        assert all(r["speaker"] == "S1" for r in other.structured_content["results"])
        nobody = await client.call_tool(
            "semantic_search_transcripts", {**query, "speaker": "Somebody Else"}
        )
        assert nobody.structured_content["results"] == []

        # bad input: a label the video does not have, a name that is a label, no such video
        missing = await client.call_tool(
            "name_speaker", {"video_id": "board_meeting", "speaker": "S7", "name": "Host"}
        )
        assert missing.is_error and tool_json(missing)["category"] == "not_found"
        assert "S1, S2" in tool_json(missing)["message"]
        labelled = await client.call_tool(
            "name_speaker", {"video_id": "board_meeting", "speaker": "S1", "name": "S2"}
        )
        assert labelled.is_error and tool_json(labelled)["category"] == "invalid_input"
        unknown = await client.call_tool(
            "name_speaker", {"video_id": "no_such_video", "speaker": "S1", "name": "Host"}
        )
        assert unknown.is_error and tool_json(unknown)["category"] == "not_found"
