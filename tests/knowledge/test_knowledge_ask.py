"""knowledge_ask, knowledge_fetch and knowledge_schema over a real store holding a
transcript, a document and a paper; the answer comes from the Gemini stub."""

from __future__ import annotations

import re

import pytest

from tests.fixtures.documents import REPORT_PAGES, make_pdf
from tests.stubs.semantic_scholar import LITERATURE_GRAPH
from tests.video.test_video_tools import Progress, call


def _vtt() -> str:
    """A tour whose telling moment comes at 12:34, after ten minutes of small talk."""
    cues = ["WEBVTT", ""]
    filler = "Our guide talks about the parking lot, the gift shop and the coffee machine again"
    for minute in range(12):
        cues += [f"00:{minute:02d}:00.000 --> 00:{minute:02d}:30.000", f"{filler} ({minute}).", ""]
    cues += [
        "00:12:34.000 --> 00:12:38.000",
        "The eclipsing binary dims by almost a magnitude during primary eclipse.",
        "",
        "00:12:38.000 --> 00:12:42.000",
        "We calibrate the spectrograph with a thorium argon lamp.",
        "",
    ]
    return "\n".join(cues)


@pytest.fixture
async def mixed_store(tmp_path, s2_stub):
    """A transcript, a PDF report and a paper, indexed the way users index them."""
    talk = tmp_path / "observatory-tour.vtt"
    talk.write_text(_vtt())
    indexed = await call("index_transcript_files", {"path": str(talk)})
    assert indexed.error is None, indexed.error
    report = make_pdf(tmp_path / "report.pdf", REPORT_PAGES)
    ingested = await call("document_ingest", {"path": str(report)})
    assert ingested.error is None, ingested.error
    paper = await call("research_paper_details", {"paper_id": LITERATURE_GRAPH})
    assert paper.error is None, paper.error
    return tmp_path


def _answer_citing_every_kind(record):
    """A Gemini reply citing one passage of each kind the prompt numbered."""
    numbers = {}
    for n, kind in re.findall(r"^\[(\d+)\] .*\((\w+)\)$", record.text, re.M):
        numbers.setdefault(kind, int(n))
    answer = (
        f"The binary dims by almost a magnitude [{numbers['video']}], which the report measures "
        f"as 0.8 magnitudes [{numbers['document']}]; the literature graph work [{numbers['paper']}] "
        "organises such papers [99]."
    )
    import json

    body = {"answer": answer, "cited": list(numbers.values()), "answerable": True}
    return {"candidates": [{"content": {"parts": [{"text": json.dumps(body)}], "role": "model"}}]}


async def test_answer_cites_a_video_moment_a_page_and_a_paper(gemini_stub, mixed_store, configure):
    gemini_stub.enqueue("generateContent", _answer_citing_every_kind)
    progress = Progress()
    outcome = await call(
        "knowledge_ask",
        {
            "question": "How deep is the eclipse of the binary star, and what organises papers?",
            "limit": 12,
        },
        progress,
    )
    assert outcome.error is None, outcome.error
    result = outcome.result
    assert result["answered_by"] == "gemini"
    kinds = {s["kind"]: s for s in result["sources"]}
    assert {"video", "document", "paper"} <= set(kinds)
    assert re.search(r"at 12:3\d", kinds["video"]["label"]), kinds["video"]
    assert kinds["video"]["start_time"] == 754, "pinpointed to the caption, not the chunk start"
    assert kinds["document"]["label"].startswith("report.pdf, p. 3"), kinds["document"]
    assert kinds["paper"]["label"].startswith("Etzioni et al. (2018)")
    assert [s["n"] for s in result["sources"]] == list(range(1, len(result["sources"]) + 1))
    markers = [int(n) for n in re.findall(r"\[(\d+)\]", result["answer"])]
    assert markers == [1, 2, 3], "renumbered in order of use; the marker to no passage is gone"
    assert "TranscriptChunks" in result["collections_searched"]
    assert "DocumentChunks" in result["collections_searched"]
    prompt = gemini_stub.calls("generateContent")[-1]
    assert "knowledge base" in prompt.text and "answerable" in str(
        prompt.generation_config["responseJsonSchema"]
    )
    assert progress.events[-1][0] == 2

    fetched = await call(
        "knowledge_fetch", {"object_ids": [s["object_id"] for s in result["sources"]]}
    )
    assert fetched.error is None, fetched.error
    collections = {o["collection"] for o in fetched.result["objects"]}
    assert {"TranscriptChunks", "DocumentChunks", "Papers"} <= collections
    assert fetched.result["not_found"] == []

    # The same store without a Gemini key: the ranked passages, said plainly.
    await _ranked_passages_without_a_key(configure)


async def test_nothing_stored_is_said_plainly(tmp_path):
    outcome = await call("knowledge_ask", {"question": "anything at all?", "alpha": 0})
    assert outcome.error is None, outcome.error
    assert outcome.result["answered_by"] == "none" and outcome.result["sources"] == []


async def test_fetch_and_schema(tmp_path):
    stored = await call(
        "knowledge_ingest",
        {"collection": "VideoAnalyses", "properties": {"title": "T", "raw_result": "{}" * 10}},
    )
    object_id = stored.result["object_id"]
    missing = "00000000-0000-0000-0000-000000000000"
    fetched = await call("knowledge_fetch", {"object_ids": [object_id.upper(), missing]})
    assert fetched.result["objects"][0]["collection"] == "VideoAnalyses"
    assert fetched.result["objects"][0]["omitted"] == ["raw_result"]
    assert "raw_result" not in fetched.result["objects"][0]["properties"]
    assert fetched.result["not_found"] == [missing]
    full = await call(
        "knowledge_fetch", {"object_ids": [object_id], "collection": "VideoAnalyses", "full": True}
    )
    assert "raw_result" in full.result["objects"][0]["properties"]

    schema = await call("knowledge_schema", {})
    by_name = {c["name"]: c for c in schema.result["collections"]}
    assert {"Papers", "TranscriptChunks", "DocumentChunks", "VideoAnalyses"} <= set(by_name)
    props = {p["name"]: p for p in by_name["Papers"]["properties"]}
    assert props["year"]["filterable"] and props["title"]["vectorized"]
    assert by_name["Papers"]["searched_by_knowledge_search"] is True
    assert by_name["TranscriptChunks"]["searched_by_knowledge_ask"] is True
    assert schema.result["filter_operators"]["text[]"] == ["contains_any", "contains_all"]
    one = await call("knowledge_schema", {"collection": "DocumentChunks"})
    assert [c["name"] for c in one.result["collections"]] == ["DocumentChunks"]


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("knowledge_ask", {"question": "  "}),
        ("knowledge_ask", {"question": "ok?", "limit": 0}),
        ("knowledge_ask", {"question": "ok?", "collections": ["Nope"]}),
        ("knowledge_fetch", {"object_ids": []}),
        ("knowledge_fetch", {"object_ids": ["not-a-uuid"]}),
        ("knowledge_fetch", {"object_ids": ["00000000-0000-0000-0000-000000000000"] * 51}),
        ("knowledge_schema", {"collection": "Nope"}),
    ],
)
async def test_bad_input(tool, arguments):
    outcome = await call(tool, arguments)
    assert outcome.error is not None and outcome.error.category == "invalid_input", outcome.error


async def _ranked_passages_without_a_key(configure):
    configure(GEMINI_API_KEY=None)
    outcome = await call("knowledge_ask", {"question": "eclipse depth of the binary star"})
    assert outcome.error is None, outcome.error
    result = outcome.result
    assert result["answer"] is None and result["answered_by"] == "retrieval"
    assert any("GEMINI_API_KEY" in note for note in result["notes"])
    assert result["sources"] and all(s["passage"] for s in result["sources"])
    assert result["sources"][0]["score"] >= result["sources"][-1]["score"]
