"""tool_search, tool_describe and tool_call in process: the catalogue search by need, one
tool's contract, and a call through tool_call that is the called tool's own call (roles,
contracts, errors), never a way round them."""

from __future__ import annotations

from tests.calls import call_error, call_ok
from video_research.handlers.context import Caller
from video_research.tools import dispatch

NEEDS = {
    "who cites this paper": "research_paper_citations",
    "read the text on the slides of my lecture video": "media_screen_text",
    "find where the speaker says entropy": "semantic_search_transcripts",
    "cut a video into scenes": "media_scenes",
    "put a video next in the watch queue": "queue_add_video",
    "save a playlist": "playlist_create",
    "import a channel catalog from a file": "catalog_import",
    "comments on a youtube video": "video_comments",
    "what did we find before about volcanoes": "knowledge_search",
    "start a background deep research report": "research_web",
    "search my PDFs": "document_search",
    "schedule a movie marathon": "marathon_create",
    "clear the analysis cache": "infra_cache",
    "who changed the queue": "audit_log",
    "transcripts of a whole channel": "index_channel_transcripts",
    "one picture of the whole video": "media_contact_sheet",
}
"""Needs in a user's words, written before the search was run on them, and the tool meant."""


async def test_a_need_in_words_finds_its_tool_among_the_first_five():
    """BM25 over names, titles and descriptions: 15 of these 16 in the first five (the
    default `limit`) when written; `who changed the queue` (audit_log) is the miss."""
    found = 0
    for need, tool in NEEDS.items():
        result = await call_ok("tool_search", {"query": need})
        names = [t["name"] for t in result["tools"]]
        assert len(names) == 5 and not any(dispatch.TOOLS[n].toolset == "toolsets" for n in names)
        found += tool in names
    assert found >= 15


async def test_search_reads_free_text_and_names_exactly():
    odd = await call_ok("tool_search", {"query": '("broken [query AND'})
    assert isinstance(odd["tools"], list)
    exact = await call_ok("tool_search", {"query": "document_ingest", "limit": 1})
    assert [t["name"] for t in exact["tools"]] == ["document_ingest"]


async def test_describe_gives_the_contract_and_unknown_names_are_not_found():
    described = await call_ok("tool_describe", {"name": "document_ingest"})
    assert described["input_schema"]["properties"].keys() == (
        dispatch.TOOLS["document_ingest"].input_schema["properties"].keys()
    )
    assert "$schema" not in described["input_schema"]
    assert described["role"] == "blessed" and described["annotations"]["read_only"] is False
    unknown = await call_error("tool_describe", {"name": "document_ingst"})
    assert unknown["category"] == "not_found" and "document_ingest" in unknown["error"]


async def test_tool_call_is_the_called_tools_own_call():
    viewer = Caller(username="chat", role="viewer", verified=True)
    forbidden = await call_error("tool_call", {"name": "audit_log", "arguments": {}}, caller=viewer)
    assert forbidden["category"] == "forbidden" and "audit_log requires" in forbidden["error"]
    invalid = await call_error("tool_call", {"name": "media_frames", "arguments": {"count": 2}})
    assert invalid["category"] == "invalid_input" and "media_frames" in invalid["error"]
    itself = await call_error("tool_call", {"name": "tool_call", "arguments": {}})
    assert itself["category"] == "invalid_input"
    status = await call_ok("tool_call", {"name": "queue_status"})
    assert status == await call_ok("queue_status")
