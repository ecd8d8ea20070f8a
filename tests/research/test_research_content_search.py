"""research_*, content_* and web_search through the dispatcher, against the Gemini stub."""

from __future__ import annotations

import json

import pytest

from tests.stubs.gemini import BAD_REQUEST, error
from tests.video.test_video_tools import Progress, call
from video_research.support import contracts

TIERS = ["CONFIRMED", "STRONG INDICATOR", "INFERENCE", "SPECULATION", "UNKNOWN"]


def text_reply(text):
    return {
        "candidates": [
            {"content": {"parts": [{"text": text}], "role": "model"}, "finishReason": "STOP"}
        ]
    }


async def test_research_deep_runs_three_phases_with_progress(gemini_stub):
    progress = Progress()
    outcome = await call(
        "research_deep", {"topic": "Do four-day work weeks raise productivity?"}, progress
    )
    assert outcome.error is None, outcome.error
    report = outcome.result
    assert report["findings"][0]["evidence_tier"] in TIERS
    assert report["executive_summary"] and report["scope_definition"]
    scope, evidence, synthesis = gemini_stub.calls("generateContent")
    assert "responseJsonSchema" not in scope.generation_config
    findings_schema = evidence.generation_config["responseJsonSchema"]
    assert (
        findings_schema["properties"]["findings"]["items"]["properties"]["evidence_tier"]["enum"]
        == TIERS
    )
    assert "executive_summary" in synthesis.generation_config["responseJsonSchema"]["properties"]
    assert "evidence tier" in scope.body["systemInstruction"]["parts"][0]["text"]
    assert [e[0] for e in progress.events] == [0, 1, 2, 3]


async def test_research_plan_structured_and_fallback(gemini_stub):
    plan = await call(
        "research_plan", {"topic": "Map the EV battery supply chain", "available_agents": 4}
    )
    assert plan.result["structured"] is True and plan.result["phases"]
    gemini_stub.enqueue(
        "generateContent", text_reply("not json at all"), text_reply("Phase 1: look around.")
    )
    fallback = await call("research_plan", {"topic": "Map the EV battery supply chain"})
    assert fallback.error is None, fallback.error
    assert fallback.result["structured"] is False
    assert fallback.result["plan_text"] == "Phase 1: look around."


async def test_research_assess_evidence(gemini_stub):
    outcome = await call(
        "research_assess_evidence",
        {
            "claim": "Coffee improves focus",
            "sources": ["Study A: +10% attention", "Review B: mixed"],
            "context": "adults",
        },
    )
    assert outcome.error is None, outcome.error
    assert outcome.result["tier"] in TIERS and outcome.result["sources_assessed"] == 2
    sent = gemini_stub.calls("generateContent")[-1]
    assert "[2] Review B: mixed" in sent.text


@pytest.mark.parametrize(
    "arguments", [{"topic": "ab"}, {"topic": "x" * 501}, {"topic": "valid topic", "scope": "huge"}]
)
async def test_research_bad_input(gemini_stub, arguments):
    outcome = await call("research_deep", arguments)
    assert outcome.error.category == "invalid_input"


async def test_content_analyze_text_and_files(gemini_stub, tmp_path):
    text = await call("content_analyze", {"text": "Alice founded Acme in Paris."})
    assert text.error is None, text.error
    assert text.result["source_type"] == "text" and text.result["entities"]
    assert (
        "medium" in json.dumps(gemini_stub.calls("generateContent")[-1].generation_config).lower()
    )

    pdf = tmp_path / "paper.pdf"
    pdf.write_bytes(b"%PDF-1.4 fake but bytes are bytes")
    from_pdf = await call(
        "content_analyze", {"file_path": str(pdf), "instruction": "Summarise the method"}
    )
    assert from_pdf.error is None, from_pdf.error
    sent = gemini_stub.calls("generateContent")[-1]
    assert sent.parts[0]["inlineData"]["mimeType"] == "application/pdf"
    assert sent.inline_bytes(0) == pdf.read_bytes()

    notes = tmp_path / "notes.md"
    notes.write_text("# Notes\nBob likes tea.")
    from_md = await call("content_analyze", {"file_path": str(notes)})
    assert from_md.result["source"] == str(notes.resolve())
    assert "Bob likes tea" in gemini_stub.calls("generateContent")[-1].text


async def test_content_analyze_url_uses_url_context(gemini_stub):
    outcome = await call("content_analyze", {"url": "https://ai.pydantic.dev"})
    assert outcome.error is None, outcome.error
    assert outcome.result["retrieved_urls"][0]["retrieved_url"] == "https://ai.pydantic.dev"
    sent = gemini_stub.calls("generateContent")[-1]
    assert "urlContext" in json.dumps(sent.body["tools"]) or "url_context" in json.dumps(
        sent.body["tools"]
    )


async def test_content_analyze_url_two_step_fallback(gemini_stub):
    gemini_stub.enqueue("generateContent", error(BAD_REQUEST))
    outcome = await call("content_analyze", {"url": "https://ai.pydantic.dev"})
    assert outcome.error is None, outcome.error
    first, fetch, reshape = gemini_stub.calls("generateContent")
    assert "tools" in fetch.body and "responseJsonSchema" not in fetch.generation_config
    assert "tools" not in reshape.body and "responseJsonSchema" in reshape.generation_config
    assert outcome.result["retrieved_urls"], "fallback keeps the fetch's URL metadata"


@pytest.mark.parametrize(
    ("arguments", "category"),
    [
        ({}, "invalid_input"),
        ({"text": "a", "url": "https://example.com"}, "invalid_input"),
        ({"url": "ftp://example.com/x"}, "invalid_input"),
        ({"file_path": "/nope/missing.pdf"}, "forbidden"),
    ],
)
async def test_content_analyze_bad_input(gemini_stub, arguments, category):
    outcome = await call("content_analyze", arguments)
    assert outcome.error.category == category, outcome.error


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8080/admin",
        "http://169.254.169.254/latest/meta-data/",
        "http://localhost/",
        "http://[::1]/",
        "https://user:secret@example.com/",
        "http://loopback.example.com/",
        "http://metadata.example.com/",
    ],
)
async def test_content_analyze_refuses_inward_urls_before_any_call(gemini_stub, url):
    from tests.support.test_url_policy import DNS, fake_dns
    from video_research.support import url_policy

    with url_policy.use_resolver(fake_dns(DNS)):
        outcome = await call("content_analyze", {"url": url})
    assert outcome.error.category == "invalid_input", outcome.error
    assert "secret" not in outcome.error.error
    assert gemini_stub.requests == [], "a refused URL must not cost a Gemini call"


async def test_content_analyze_rejects_unsupported_and_huge_files(gemini_stub, tmp_path):
    binary = tmp_path / "photo.bmp"
    binary.write_bytes(b"BM")
    assert (
        await call("content_analyze", {"file_path": str(binary)})
    ).error.category == "unsupported_format"
    huge = tmp_path / "huge.txt"
    with huge.open("wb") as handle:
        handle.truncate(21 * 1024 * 1024)
    assert (await call("content_analyze", {"file_path": str(huge)})).error.category == "too_large"


async def test_content_extract_follows_the_callers_schema(gemini_stub):
    schema = {
        "type": "object",
        "properties": {
            "people": {"type": "array", "items": {"type": "string"}},
            "year": {"type": "integer", "minimum": 1900},
        },
        "required": ["people", "year"],
    }
    outcome = await call("content_extract", {"content": "In 1999 Alice met Bob.", "schema": schema})
    assert outcome.error is None, outcome.error
    assert set(outcome.result) == {"people", "year"}
    sent = gemini_stub.calls("generateContent")[-1]
    assert sent.generation_config["responseJsonSchema"] == schema
    assert "In 1999 Alice met Bob." in sent.text


@pytest.mark.parametrize(
    "schema",
    [{"type": "array", "items": {}}, {"type": "object", "required": "people"}, {"type": "objekt"}],
)
async def test_content_extract_invalid_schema(gemini_stub, schema):
    outcome = await call("content_extract", {"content": "text", "schema": schema})
    assert outcome.error.category == "invalid_input"
    assert gemini_stub.calls("generateContent") == []


async def test_web_search_grounding(gemini_stub, monkeypatch):
    outcome = await call("web_search", {"query": "weather in San Francisco", "num_results": 2})
    assert outcome.error is None, outcome.error
    result = outcome.result
    assert len(result["sources"]) == 2
    assert result["sources"][0]["title"].startswith("Weather information")
    assert result["search_queries"] == ["weather in San Francisco today"]
    sent = gemini_stub.calls("generateContent")[-1]
    assert sent.model == "gemini-3-flash-preview"
    assert "googleSearch" in json.dumps(sent.body["tools"]) or "google_search" in json.dumps(
        sent.body["tools"]
    )
    assert contracts.validation_errors("tools/web_search.output.json", result) == []
