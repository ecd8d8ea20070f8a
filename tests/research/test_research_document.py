"""research_document: files (pages), URLs and knowledge-base moments as numbered passages,
every claim citing them; against the Gemini stub with scripted evidence and synthesis."""

from __future__ import annotations

import json
import re

import pytest

from tests.catalog_helpers import VIEWER
from tests.catalog_helpers import call as call_as
from tests.fixtures.documents import REPORT_PAGES, make_pdf
from tests.knowledge.test_knowledge_ask import _vtt
from tests.video.test_video_tools import Progress, call

URL = "https://example.org/eclipsing-binaries"


def _reply(payload):
    return {
        "candidates": [{"content": {"parts": [{"text": json.dumps(payload)}], "role": "model"}}]
    }


def _scripted(record):
    """Evidence and synthesis replies that cite the passages the prompt numbered."""
    schema = record.generation_config.get("responseJsonSchema") or {}
    labels = dict(re.findall(r"^\[(S\d+)\] (.+)$", record.text, re.M))
    first = next(iter(labels), None)
    page3 = next((i for i, label in labels.items() if label.startswith("report.pdf, p. 3")), first)
    web = next((i for i, label in labels.items() if URL in label), None)
    video = next((i for i, label in labels.items() if " at 12:3" in label), None)
    if "findings" in schema.get("properties", {}):
        findings = [
            {
                "claim": "The primary eclipse is 0.8 mag deep.",
                "evidence_tier": "CONFIRMED",
                "confidence": 0.9,
                "reasoning": "Report and talk agree.",
                "citations": [page3, video],
            },
            {
                "claim": "The page describes binaries.",
                "evidence_tier": "INFERENCE",
                "reasoning": "From the web page.",
                "citations": [web, "S999"],
            },
            {
                "claim": "An invented claim.",
                "evidence_tier": "SPECULATION",
                "reasoning": "No source.",
                "citations": ["S999"],
            },
        ]
        for finding in findings:
            finding["citations"] = [c for c in finding["citations"] if c]
        return _reply({"findings": [f for f in findings if f["citations"]]})
    if "executive_summary" in schema.get("properties", {}):
        cited = re.findall(r"cites (S\d+)", record.text)
        return _reply(
            {
                "executive_summary": f"The eclipse is deep [{cited[0]}] [S999].",
                "key_insights": [
                    {"text": "Depth measured twice.", "citations": [cited[0]]},
                    {"text": "Unsupported.", "citations": ["S998"]},
                ],
                "open_questions": ["Period?"],
                "methodology_critique": "Two sources only.",
                "recommendations": ["Observe again."],
            }
        )
    return None  # scope and URL reading: the stub's default reply


@pytest.fixture
async def sources(tmp_path, gemini_stub):
    report = make_pdf(tmp_path / "report.pdf", REPORT_PAGES)
    talk = tmp_path / "observatory-tour.vtt"
    talk.write_text(_vtt())
    indexed = await call("index_transcript_files", {"path": str(talk)})
    assert indexed.error is None, indexed.error
    return report


async def test_every_claim_cites_a_page_a_url_or_a_moment(gemini_stub, sources):
    gemini_stub.enqueue("generateContent", *[_scripted] * 5)
    progress = Progress()
    outcome = await call(
        "research_document",
        {
            "question": "How deep is the primary eclipse of the eclipsing binary?",
            "file_paths": [str(sources)],
            "urls": [URL],
        },
        progress,
    )
    assert outcome.error is None, outcome.error
    report = outcome.result
    assert [f["claim"] for f in report["findings"]] == [
        "The primary eclipse is 0.8 mag deep.",
        "The page describes binaries.",
    ]
    assert report["uncited_dropped"] == 2, "the finding and the insight citing nothing real"
    assert report["findings"][1]["citations"] == [report["findings"][1]["citations"][0]]
    assert "[S999]" not in report["executive_summary"]
    by_kind = {s["kind"]: s for s in report["sources"]}
    assert by_kind["file"]["label"].startswith("report.pdf, p. 3") and by_kind["file"]["page"] == 3
    assert by_kind["url"]["url"] == URL
    assert " at 12:3" in by_kind["video"]["label"]
    assert {s["id"] for s in report["sources"]} == {
        c for f in report["findings"] for c in f["citations"]
    }
    assert report["consulted"]["files"][0]["status"] == "ok"
    assert report["consulted"]["files"][0]["pages"] == 3
    assert report["consulted"]["urls"][0]["status"] == "ok"
    assert report["consulted"]["knowledge_passages"] > 0
    assert [e[0] for e in progress.events] == [0, 1, 2, 3, 4]
    sent = gemini_stub.calls("generateContent")
    url_call = next(r for r in sent if URL in r.text)
    assert "urlContext" in json.dumps(url_call.body.get("tools")) or "url_context" in json.dumps(
        url_call.body.get("tools")
    )
    evidence = next(r for r in sent if "findings" in json.dumps(r.generation_config))
    assert "primary eclipse depth of 0.8 magnitudes" in evidence.text
    assert "evidence tier" in evidence.body["systemInstruction"]["parts"][0]["text"]

    stored = await call(
        "knowledge_search",
        {"query": "primary eclipse", "collections": ["ResearchFindings"], "alpha": 0},
    )
    assert any(
        h["properties"].get("source_tool") == "research_document" for h in stored.result["results"]
    )


async def test_a_source_that_fails_is_reported_and_the_rest_go_on(gemini_stub, tmp_path):
    gemini_stub.enqueue("generateContent", *[_scripted] * 4)
    notes = tmp_path / "notes.md"
    notes.write_text("# Notes\n\nThe primary eclipse is deep.\n")
    outcome = await call(
        "research_document",
        {
            "question": "How deep is the eclipse?",
            "file_paths": [str(notes), str(tmp_path / "missing.pdf"), str(tmp_path / "x.exe")],
            "knowledge_passages": 0,
        },
    )
    assert outcome.error is None, outcome.error
    files = {f["path"].rsplit("/", 1)[-1]: f for f in outcome.result["consulted"]["files"]}
    assert files["notes.md"]["status"] == "ok"
    assert files["missing.pdf"]["error"]["category"] == "not_found"
    assert files["x.exe"]["error"]["category"] == "invalid_input"


async def test_nothing_readable_is_an_error(gemini_stub, tmp_path):
    outcome = await call(
        "research_document",
        {"question": "Anything?", "file_paths": [str(tmp_path / "missing.pdf")]},
    )
    assert outcome.error.category == "invalid_input"
    assert outcome.error.details["consulted"]["files"][0]["status"] == "error"


async def test_files_need_the_blessed_role(gemini_stub, tmp_path):
    report = make_pdf(tmp_path / "report.pdf", REPORT_PAGES)
    outcome = await call_as(
        "research_document", {"question": "Depth?", "file_paths": [str(report)]}, VIEWER
    )
    assert outcome.error.category == "forbidden" and "'blessed'" in outcome.error.error
    assert not gemini_stub.calls("generateContent")


@pytest.mark.parametrize(
    "arguments",
    [
        {"question": "Depth?"},
        {"question": "   ", "urls": [URL]},
        {"question": "Depth?", "urls": ["ftp://example.org/x"]},
        {"question": "Depth?", "urls": [URL] * 11},
        {"question": "Depth?", "urls": [URL], "scope": "huge"},
        {"question": "Depth?", "urls": [URL], "knowledge_passages": 21},
    ],
)
async def test_bad_input(gemini_stub, arguments):
    outcome = await call("research_document", arguments)
    assert outcome.error is not None and outcome.error.category == "invalid_input", outcome.error
    assert not gemini_stub.calls("generateContent")


@pytest.mark.parametrize(
    "url",
    [
        "http://169.254.169.254/latest/meta-data/",
        "http://127.0.0.1:8080/admin",
        "http://localhost/",
    ],
)
async def test_private_urls_are_refused_before_any_gemini_call(gemini_stub, url):
    outcome = await call("research_document", {"question": "Depth?", "urls": [URL, url]})
    assert outcome.error is not None and outcome.error.category == "invalid_input", outcome.error
    assert not gemini_stub.calls("generateContent")
