"""The knowledge_* tools and write-through, end to end on the embedded store.

Producer tools run against the Gemini and YouTube stubs; what they return must then be
findable with knowledge_search, by meaning and by keyword.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.helpers import REPO_ROOT, base_env, mcp_client, tool_json
from tests.video.test_video_tools import Progress, call
from video_research.knowledge.collections import SEARCHED_COLLECTIONS

BREAD = {
    "title": "Sourdough at home",
    "summary": "A baker shows how to feed a starter, shape the dough and bake a crusty loaf "
    "in a Dutch oven.",
    "key_points": ["Feed the starter the night before", "Bake at 250 C with the lid on"],
    "timestamps": [{"timestamp": "01:10", "description": "Shaping the loaf"}],
    "topics": ["baking", "bread"],
}


def gemini_text(payload: dict) -> dict:
    """A generateContent response whose one text part is `payload` as JSON."""
    return {
        "candidates": [
            {
                "content": {"role": "model", "parts": [{"text": json.dumps(payload)}]},
                "finishReason": "STOP",
            }
        ],
        "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 20},
    }


async def ok(tool: str, arguments: dict, progress=None) -> dict:
    outcome = await call(tool, arguments, progress)
    assert outcome.error is None, outcome.error
    return outcome.result


async def failure(tool: str, arguments: dict) -> dict:
    outcome = await call(tool, arguments)
    assert outcome.error is not None, outcome.result
    return outcome.error.to_json_dict()


async def test_ingest_search_related_stats():
    notes = [
        ("Volcanoes", "Magma rises through the crust and erupts as lava and ash."),
        ("Glaciers", "Slow rivers of ice carve valleys in the mountains."),
        ("Sourdough", "Wild yeast and lactic bacteria leaven bread dough."),
    ]
    ids = []
    for title, summary in notes:
        stored = await ok(
            "knowledge_ingest",
            {"collection": "VideoAnalyses", "properties": {"title": title, "summary": summary}},
        )
        assert stored["replaced"] is False and stored["properties"]["title"] == title
        assert stored["properties"]["source_tool"] == "knowledge_ingest"
        ids.append(stored["object_id"])

    by_meaning = await ok("knowledge_search", {"query": "eruption of a mountain", "alpha": 1})
    assert by_meaning["results"][0]["object_id"] == ids[0]
    by_keyword = await ok("knowledge_search", {"query": "lactic", "alpha": 0})
    assert [hit["object_id"] for hit in by_keyword["results"]] == [ids[2]]
    assert len(by_keyword["collections_searched"]) == len(SEARCHED_COLLECTIONS)

    related = await ok("knowledge_related", {"collection": "VideoAnalyses", "object_id": ids[0]})
    assert ids[0] not in [hit["object_id"] for hit in related["results"]]
    assert {hit["object_id"] for hit in related["results"]} == {ids[1], ids[2]}

    stats = await ok("knowledge_stats", {})
    counts = {c["name"]: c["count"] for c in stats["collections"]}
    assert counts["VideoAnalyses"] == 3 and stats["total"] == 3
    assert stats["backend"] == "sqlite" and stats["embedding"]["dimensions"] == 384


async def test_ingest_with_object_id_replaces():
    object_id = "0b4f6d3e-1c2a-4e5b-9f00-1234567890ab"
    first = await ok(
        "knowledge_ingest",
        {"collection": "ResearchFindings", "object_id": object_id, "properties": {"claim": "A"}},
    )
    again = await ok(
        "knowledge_ingest",
        {"collection": "ResearchFindings", "object_id": object_id, "properties": {"claim": "B"}},
    )
    assert first["replaced"] is False and again["replaced"] is True
    assert again["object_id"] == object_id and again["properties"]["claim"] == "B"
    stats = await ok("knowledge_stats", {"collection": "ResearchFindings"})
    assert stats["total"] == 1


async def test_ingest_rejects_unknown_keys_and_bad_types():
    error = await failure(
        "knowledge_ingest",
        {"collection": "VideoAnalyses", "properties": {"title": "x", "colour": "red"}},
    )
    assert error["category"] == "invalid_input"
    assert "colour" in error["error"] and "summary" in error["hint"]

    error = await failure(
        "knowledge_ingest",
        {"collection": "VideoMetadata", "properties": {"video_id": "a", "view_count": "lots"}},
    )
    assert error["category"] == "invalid_input" and "view_count" in error["error"]

    error = await failure("knowledge_ingest", {"collection": "Nope", "properties": {"a": 1}})
    assert error["category"] == "invalid_input"
    stats = await ok("knowledge_stats", {})
    assert stats["total"] == 0, "a refused ingest must store nothing"


async def test_search_filters_and_min_score():
    for video_id, views in (("aaaaaaaaaaa", 10), ("bbbbbbbbbbb", 5000)):
        await ok(
            "knowledge_ingest",
            {
                "collection": "VideoMetadata",
                "properties": {
                    "video_id": video_id,
                    "title": f"Bread baking video {video_id}",
                    "view_count": views,
                    "tags": ["bread", "popular" if views > 100 else "niche"],
                },
            },
        )
    popular = await ok(
        "knowledge_search",
        {"query": "bread", "filters": [{"property": "view_count", "op": "gt", "value": 100}]},
    )
    assert [hit["properties"]["video_id"] for hit in popular["results"]] == ["bbbbbbbbbbb"]
    # Collections without a view_count are skipped, not errors, when none were named.
    assert popular["collections_searched"] == ["VideoMetadata"]
    assert "VideoAnalyses" in popular["collections_skipped"]

    tagged = await ok(
        "knowledge_search",
        {
            "query": "bread",
            "collections": ["VideoMetadata"],
            "filters": [{"property": "tags", "op": "contains_any", "value": ["niche"]}],
        },
    )
    assert [hit["properties"]["video_id"] for hit in tagged["results"]] == ["aaaaaaaaaaa"]

    error = await failure(
        "knowledge_search",
        {
            "query": "bread",
            "collections": ["VideoAnalyses"],
            "filters": [{"property": "view_count", "op": "gt", "value": 1}],
        },
    )
    assert error["category"] == "invalid_input" and "view_count" in error["error"]

    # one title holds the query's word, the other does not
    query = "bbbbbbbbbbb"
    everything = await ok("knowledge_search", {"query": query})
    scores = sorted(hit["relevance"] for hit in everything["results"])
    assert scores[0] < scores[-1], scores
    floor = (scores[0] + scores[-1]) / 2
    strict = await ok("knowledge_search", {"query": query, "min_score": floor})
    assert len(strict["results"]) < len(everything["results"])
    assert all(hit["relevance"] >= floor for hit in strict["results"]), "it filters relevance"


async def test_reembed_reports_progress():
    for n in range(3):
        await ok(
            "knowledge_ingest",
            {"collection": "WebSearchResults", "properties": {"query": f"q{n}", "response": "r"}},
        )
    progress = Progress()
    result = await ok("knowledge_reembed", {"collection": "WebSearchResults"}, progress)
    assert result["reembedded"] == 3 and result["dimensions"] == 384
    assert progress.events and progress.events[-1][:2] == (3, 3)
    assert progress.events[0][:2] == (0, 3), "0/N before the first object"


async def test_search_with_a_filter_no_collection_has_is_refused():
    """A typo'd property must not skip every collection and answer an empty success."""
    await ok("knowledge_ingest", {"collection": "VideoMetadata", "properties": {"video_id": "v1"}})
    error = await failure(
        "knowledge_search",
        {"query": "bread", "filters": [{"property": "vidoe_id", "op": "eq", "value": "v1"}]},
    )
    assert error["category"] == "invalid_input" and "vidoe_id" in error["error"]
    assert "video_id" in error["hint"] and "view_count" in error["hint"]
    assert "view_count" in error["details"]["filterable"]["VideoMetadata"]


async def test_search_embeds_the_query_once(gemini_stub, configure):
    configure(KNOWLEDGE_EMBEDDING_MODEL=None, KNOWLEDGE_EMBEDDING_PROVIDER="gemini")
    stored = await ok(
        "knowledge_ingest",
        {"collection": "VideoAnalyses", "properties": {"title": "Bread", "summary": "sourdough"}},
    )
    before = len(gemini_stub.calls("batchEmbedContents"))
    found = await ok("knowledge_search", {"query": "sourdough", "alpha": 0.5})
    assert len(found["collections_searched"]) == len(SEARCHED_COLLECTIONS)
    assert found["results"][0]["object_id"] == stored["object_id"]
    sent = gemini_stub.calls("batchEmbedContents")[before:]
    assert len(sent) == 1 and sent[0].body["requests"][0]["taskType"] == "RETRIEVAL_QUERY"
    await ok("knowledge_search", {"query": "sourdough", "alpha": 0})
    assert len(gemini_stub.calls("batchEmbedContents")) == before + 1, "alpha 0 embeds nothing"


async def test_reembed_takes_transcript_and_document_collections():
    """The config_error after a model change names these collections too, so reembed must take them."""
    from video_research.knowledge.store import get_store

    store = await get_store()
    await store.insert("TranscriptChunks", {"video_id": "abc", "text": "hello there"})
    for collection in ("TranscriptChunks", "TranscriptVideos", "DocumentChunks"):
        result = await ok("knowledge_reembed", {"collection": collection})
        assert result["reembedded"] == (collection == "TranscriptChunks")


def test_reembed_schema_lists_every_registered_collection():
    """The schema's enum is the registry: every collection, found through the start-up
    wiring the tools package installs, without importing the rest."""
    from video_research.support import contracts

    enum = contracts.tool_schema("knowledge_reembed", "input")["properties"]["collection"]["enum"]
    script = (
        "import importlib, json, pkgutil, video_research, video_research.tools\n"
        "from video_research.knowledge.collections import registered_collections\n"
        "first = sorted(c.name for c in registered_collections())\n"
        "for module in pkgutil.walk_packages(video_research.__path__, 'video_research.'):\n"
        "    if not module.name.endswith('__main__'):\n"
        "        importlib.import_module(module.name)\n"
        "print(json.dumps([first, sorted(c.name for c in registered_collections())]))\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO_ROOT, capture_output=True, text=True, check=True
    )
    first, everything = json.loads(run.stdout.strip().splitlines()[-1])
    assert first == everything, "a module registers a collection tools.startup misses"
    assert sorted(enum) == everything


async def test_video_analyze_writes_through(gemini_stub):
    gemini_stub.enqueue("generateContent", gemini_text(BREAD))
    await ok("video_analyze", {"url": "https://youtu.be/dQw4w9WgXcQ"})
    found = await ok("knowledge_search", {"query": "how do I make a loaf with wild yeast?"})
    top = found["results"][0]
    assert top["collection"] == "VideoAnalyses"
    assert top["properties"]["video_id"] == "dQw4w9WgXcQ"
    assert top["properties"]["source_tool"] == "video_analyze"
    assert top["properties"]["title"] == "Sourdough at home"
    assert "raw_result" not in top["properties"]

    # A cache hit is the same analysis: it must not be stored twice.
    await ok("video_analyze", {"url": "https://youtu.be/dQw4w9WgXcQ"})
    stats = await ok("knowledge_stats", {"collection": "VideoAnalyses"})
    assert stats["total"] == 1


async def test_web_search_and_research_write_through(gemini_stub):
    await ok("web_search", {"query": "weather in San Francisco"})
    await ok("research_plan", {"topic": "Coral reef bleaching"})
    stats = await ok("knowledge_stats", {})
    counts = {c["name"]: c["count"] for c in stats["collections"]}
    assert counts["WebSearchResults"] == 1 and counts["ResearchPlans"] == 1
    hits = await ok(
        "knowledge_search",
        {"query": "San Francisco", "collections": ["WebSearchResults"], "alpha": 0},
    )
    assert hits["results"][0]["properties"]["query"] == "weather in San Francisco"


async def test_video_metadata_twice_is_one_object(youtube_stub):
    for _ in range(2):
        await ok("video_metadata", {"url": "https://youtu.be/D-lhorsDlUQ"})
    stats = await ok("knowledge_stats", {"collection": "VideoMetadata"})
    assert stats["total"] == 1
    hits = await ok(
        "knowledge_search",
        {
            "query": "Actions on Google",
            "filters": [{"property": "video_id", "op": "eq", "value": "D-lhorsDlUQ"}],
        },
    )
    assert hits["results"][0]["properties"]["duration_seconds"] == 1267


async def test_store_failure_never_fails_the_tool(gemini_stub, tmp_path, caplog, configure):
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("a file where the store's folder should be")
    configure(KNOWLEDGE_DB=str(blocker / "knowledge.db"))
    gemini_stub.enqueue("generateContent", gemini_text(BREAD))
    result = await ok("video_analyze", {"url": "https://youtu.be/dQw4w9WgXcQ"})
    assert result["title"] == "Sourdough at home"
    assert any("VideoAnalyses" in record.getMessage() for record in caplog.records)
    assert blocker.read_text().startswith("a file"), "stored data must be left alone"


async def test_write_through_can_be_turned_off(gemini_stub, configure):
    configure(KNOWLEDGE_WRITE_THROUGH="false")
    await ok("web_search", {"query": "weather in San Francisco"})
    assert (await ok("knowledge_stats", {}))["total"] == 0


async def test_ingest_and_search_over_stdio(tmp_path):
    async with mcp_client(base_env(tmp_path)) as session:
        tools = {tool.name: tool for tool in (await session.list_tools()).tools}
        assert tools["knowledge_search"].output_schema["type"] == "object"
        stored = tool_json(
            await session.call_tool(
                "knowledge_ingest",
                {
                    "collection": "ContentAnalyses",
                    "properties": {
                        "title": "Tidal power",
                        "summary": "Turbines under the sea turn the rise and fall of tides into electricity.",
                    },
                },
            )
        )
        result = await session.call_tool("knowledge_search", {"query": "ocean energy"})
        assert not result.is_error
        hits = result.structured_content["results"]
        assert hits[0]["object_id"] == stored["object_id"]
        bad = await session.call_tool("knowledge_search", {"query": "x", "alpha": 2})
        assert bad.is_error and tool_json(bad)["category"] == "invalid_input"


def test_cli_ingest_then_search_by_meaning_and_keyword(tmp_path):
    """A first run: a fresh environment, no settings, two CLI calls."""
    env = {
        key: value
        for key, value in base_env(tmp_path).items()
        if key not in ("VIDEO_RESEARCH_DATA_DIR", "GEMINI_CACHE_DIR")
    }
    env["HOME"] = str(tmp_path / "home")
    env.pop("XDG_DATA_HOME", None)
    env.pop("XDG_CACHE_HOME", None)

    def cli(*args: str) -> dict:
        done = subprocess.run(
            [sys.executable, "-m", "video_research", "call", *args],
            env=env,
            cwd=REPO_ROOT,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    stored = cli(
        "knowledge_ingest",
        "--json",
        json.dumps(
            {
                "collection": "ResearchFindings",
                "properties": {
                    "claim": "Honeybees communicate the direction of flowers with a waggle dance.",
                },
            }
        ),
    )
    by_meaning = cli(
        "knowledge_search",
        "--json",
        '{"query": "how do insects tell each other where food is", "alpha": 1}',
    )
    assert by_meaning["results"][0]["object_id"] == stored["object_id"]
    by_keyword = cli("knowledge_search", "--json", '{"query": "waggle", "alpha": 0}')
    assert by_keyword["results"][0]["object_id"] == stored["object_id"]
    assert os.path.exists(
        tmp_path / "home" / ".local" / "share" / "video-research" / "knowledge.db"
    )
