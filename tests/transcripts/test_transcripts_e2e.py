"""End to end over stdio with the real MCP client: index a directory of .vtt files with
one call, then a natural-language query returns the right video and a timestamp link
within a minute of the spoken passage. Also on real transcripts from the shared data
folder when it is present."""

from __future__ import annotations

import re
import shutil

import pytest

from tests.helpers import DATA, mcp_client, shared_data, tool_json

pytestmark = pytest.mark.slow

SHARED = shared_data()
THREE_BLUE = SHARED / "transcripts" / "3blue1brown" if SHARED else None


def _seconds(timestamp_url: str) -> int:
    match = re.search(r"[?&]t=(\d+)s$", timestamp_url)
    assert match, timestamp_url
    return int(match.group(1))


async def _index_then_search(env, folder, pattern, queries):
    async with mcp_client(env) as client:
        listed = {tool.name for tool in (await client.list_tools()).tools}
        assert {"index_transcript_files", "semantic_search_transcripts", "transcript_get"} <= listed
        indexed = await client.call_tool(
            "index_transcript_files", {"path": str(folder), "glob_pattern": pattern}
        )
        assert not indexed.is_error, tool_json(indexed)
        assert indexed.structured_content["batch"]["failed"] == []
        answers = []
        for query in queries:
            result = await client.call_tool("semantic_search_transcripts", {"query": query, "k": 3})
            assert not result.is_error, tool_json(result)
            answers.append(result.structured_content["results"][0])
        return answers


async def test_index_a_vtt_directory_and_find_the_moment_over_stdio(server_env, tmp_path):
    folder = tmp_path / "captions"
    shutil.copytree(DATA / "transcripts" / "vtt", folder)
    sourdough, tides = await _index_then_search(
        server_env,
        folder,
        "*.vtt",
        [
            "why should I let the bread cool before cutting it",
            "which power station has used the tides since the sixties",
        ],
    )
    assert sourdough["video_id"] == "bAk3rY_0001"
    assert abs(_seconds(sourdough["timestamp_url"]) - 200) <= 60
    assert tides["video_id"] == "tIdEs_42xyz"
    assert abs(_seconds(tides["timestamp_url"]) - 63) <= 60  # "The Rance station..." at 1:03


@pytest.mark.skipif(
    THREE_BLUE is None or not THREE_BLUE.is_dir(),
    reason="the shared data folder (../shared/data/transcripts) is not present; its real "
    "transcripts are local-only and not in the repository",
)
async def test_real_srt_transcripts_over_stdio(server_env, tmp_path):
    folder = tmp_path / "3b1b"
    folder.mkdir()
    for name in ("-9OUyo8NFZg.srt", "8idr1WZ1A7Q.srt", "2SUvWfNJSsM.srt"):
        shutil.copy(THREE_BLUE / name, folder)
    (euler,) = await _index_then_search(
        server_env,
        folder,
        "*.srt",
        [
            "draw a graph on the plane without crossing edges and its faces become the vertices of a second graph"
        ],
    )
    assert euler["video_id"] == "-9OUyo8NFZg"
    assert abs(_seconds(euler["timestamp_url"]) - 204) <= 60  # 3:24-3:53 in the captions


async def test_a_folder_of_every_format_indexes_in_one_call_over_stdio(server_env, tmp_path):
    """Every transcript format: .md (front matter, paragraph per minute), .srv3, .json3,
    .ttml with its yt-dlp .info.json, Whisper .tsv, .vtt and foreign-language .md/.txt, in
    one call; with a file whose name is not UTF-8 and one nested past the recursion limit
    failing alone, without taking the stdio server down."""
    import os

    folder = tmp_path / "formats"
    shutil.copytree(DATA / "transcripts" / "formats", folder)
    (folder / os.fsdecode(b"r\xe9sum\xe9.vtt")).write_text(
        "WEBVTT\n\n00:00:02.000 --> 00:00:06.000\nA summary of the whole season in one minute.\n"
    )
    (folder / "deep.json").write_text("[" * 50_000 + "]" * 50_000)
    async with mcp_client(server_env) as client:
        indexed = await client.call_tool(
            "index_transcript_files",
            {"path": str(folder), "glob_pattern": "**/*", "fetch_metadata": False},
        )
        assert not indexed.is_error, tool_json(indexed)
        batch = indexed.structured_content["batch"]
        assert [item["file"].rsplit("/", 1)[-1] for item in batch["failed"]] == ["deep.json"]
        ids = {item["video_id"]: item for item in batch["indexed"]}
        assert set(ids) == {
            "pOdCaSt_003",
            "bEeKeEp_001",
            "nIgHtSkY_02",
            "tEaCeReMo_5",
            "volcano_lecture",
            "gLaSsReCy_4",
            "hUeRtOuRb_6",
            "fAhRrAdKe_7",
            "r_sum",
        }
        assert ids["hUeRtOuRb_6"]["language"] == "es"
        expectations = [
            ("which way do I turn a nipple to tighten a spoke", "pOdCaSt_003", 240),
            ("how do bees keep the queen warm in the cold months", "bEeKeEp_001", 10),
            ("how long can the shutter stay open before stars leave trails", "nIgHtSkY_02", 14),
            ("why some volcanoes explode while others pour out lava", "volcano_lecture", 28),
            ("why ceramic mugs must stay out of the bottle bank", "gLaSsReCy_4", 27),
            ("rotating the tea bowl before drinking", "tEaCeReMo_5", 28),
        ]
        for query, video_id, second in expectations:
            result = await client.call_tool("semantic_search_transcripts", {"query": query, "k": 3})
            assert not result.is_error, tool_json(result)
            top = result.structured_content["results"][0]
            assert top["video_id"] == video_id, (query, top)
            assert abs(top["match_time"] - second) <= 30, (query, top["match_time"])
        tea = await client.call_tool("transcript_get", {"video_id": "tEaCeReMo_5"})
        video = tea.structured_content["video"]
        assert video["channel_title"] == "Quiet Kitchen"  # from the .info.json
        assert [c["title"] for c in video["chapters"]][0] == "Preparing the garden"
        podcast = await client.call_tool("transcript_get", {"video_id": "pOdCaSt_003"})
        assert podcast.structured_content["video"]["published_at"].startswith("2024-03-12")
        assert podcast.structured_content["segments"][4]["timestamp_url"].endswith("&t=240s")
