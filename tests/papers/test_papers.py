"""The research_paper_* tools: the real httpx client against the Semantic Scholar stub built
from the documented response shapes; pacing, retries and error categories; write-through
to the Papers knowledge collection."""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.fixtures.papers import S2_KEY
from tests.stubs.semantic_scholar import LITERATURE_GRAPH, Status, rate_limited
from tests.video.test_video_tools import call
from video_research.papers import ids
from video_research.support.errors import ToolFailure


async def test_search_sends_filters_and_writes_papers_through(s2_stub):
    outcome = await call(
        "research_paper_search",
        {
            "query": "semantic scholar graph",
            "limit": 1,
            "year": "2018-2020",
            "fields_of_study": ["Computer Science"],
            "min_citation_count": 50,
            "open_access_only": True,
        },
    )
    assert outcome.error is None, outcome.error
    found = outcome.result
    assert [p["year"] for p in found["papers"]] and all(
        2018 <= p["year"] <= 2020 for p in found["papers"]
    )
    first = found["papers"][0]
    assert first["paper_id"] == LITERATURE_GRAPH and first["doi"] == "10.18653/V1/N18-3011"
    assert first["authors"][0] == {"author_id": "1741101", "name": "Oren Etzioni"}
    assert found["total"] == 2 and found["next_offset"] == 1 and found["stored"] == 1
    sent = s2_stub.calls("paper_search")[-1]
    assert sent.query["year"] == "2018-2020" and sent.query["fieldsOfStudy"] == "Computer Science"
    assert sent.query["minCitationCount"] == "50" and sent.query["openAccessPdf"] == ""
    assert "abstract" in sent.query["fields"].split(",")
    assert sent.headers["x-api-key"] == S2_KEY

    again = await call(
        "knowledge_search", {"query": "Literature Graph", "collections": ["Papers"], "alpha": 0}
    )
    assert again.error is None, again.error
    titles = [hit["properties"]["title"] for hit in again.result["results"]]
    assert titles[0] == "Construction of the Literature Graph in Semantic Scholar"

    # Found again: the same object is updated, never duplicated.
    await call("research_paper_details", {"paper_id": LITERATURE_GRAPH})
    stats = await call("knowledge_stats", {"collection": "Papers"})
    assert stats.result["collections"][0]["count"] == 1


@pytest.mark.parametrize(
    ("given_id", "path"),
    [
        (LITERATURE_GRAPH.upper(), f"/graph/v1/paper/{LITERATURE_GRAPH}"),
        ("10.18653/V1/N18-3011", "/graph/v1/paper/DOI:10.18653/V1/N18-3011"),
        ("https://doi.org/10.18653/V1/N18-3011", "/graph/v1/paper/DOI:10.18653/V1/N18-3011"),
        ("arxiv:1805.02262", "/graph/v1/paper/ARXIV:1805.02262"),
        ("https://arxiv.org/abs/1805.02262", "/graph/v1/paper/ARXIV:1805.02262"),
        (
            f"https://www.semanticscholar.org/paper/Construction-of/{LITERATURE_GRAPH}",
            f"/graph/v1/paper/{LITERATURE_GRAPH}",
        ),
    ],
)
async def test_details_by_any_identifier(s2_stub, given_id, path):
    outcome = await call("research_paper_details", {"paper_id": given_id})
    assert outcome.error is None, outcome.error
    paper = outcome.result
    assert paper["paper_id"] == LITERATURE_GRAPH and paper["tldr"].startswith("A short summary")
    assert paper["bibtex"].startswith("@Article") and paper["external_ids"]["ArXiv"] == "1805.02262"
    assert s2_stub.calls("paper")[-1].path == path


async def test_citations_and_references_page_and_skip_unresolved(s2_stub):
    first = await call("research_paper_citations", {"paper_id": LITERATURE_GRAPH, "limit": 3})
    assert first.error is None, first.error
    page = first.result
    assert page["direction"] == "citations" and len(page["items"]) == 3
    assert page["items"][0]["is_influential"] is True and page["items"][0]["contexts"]
    assert page["next_offset"] == 3 and page["stored"] == 3
    rest = await call(
        "research_paper_citations",
        {"paper_id": LITERATURE_GRAPH, "direction": "references", "offset": 3, "limit": 10},
    )
    assert s2_stub.calls("references")[-1].query["offset"] == "3"
    assert len(rest.result["items"]) == 2, "the edge with a null paperId is left out"
    assert rest.result["next_offset"] is None


async def test_recommendations_and_authors(s2_stub):
    recommended = await call(
        "research_paper_recommendations",
        {"paper_id": "ARXIV:1805.02262", "limit": 3, "pool": "all-cs"},
    )
    assert recommended.error is None, recommended.error
    assert len(recommended.result["papers"]) == 3
    sent = s2_stub.calls("recommendations")[-1]
    assert sent.path == "/recommendations/v1/papers/forpaper/ARXIV:1805.02262"
    assert sent.query["from"] == "all-cs" and sent.query["limit"] == "3"

    authors = await call("research_author_search", {"query": "Oren Etzioni"})
    assert authors.error is None, authors.error
    oren = authors.result["authors"][0]
    assert oren["h_index"] == 5 and oren["affiliations"] == ["Allen Institute for AI"]
    assert authors.result["total"] == 1 and authors.result["next_offset"] is None


async def test_rate_limit_is_retried_honouring_retry_after(s2_stub):
    s2_stub.enqueue("paper", rate_limited("1"))
    started = time.monotonic()
    outcome = await call("research_paper_details", {"paper_id": LITERATURE_GRAPH})
    assert outcome.error is None, outcome.error
    first, second = s2_stub.calls("paper")
    assert second.at - first.at >= 0.95, "waits what Retry-After asks"
    assert time.monotonic() - started < 10


async def test_errors_map_onto_categories(s2_stub):
    s2_stub.enqueue("paper", *[rate_limited("0")] * 3)
    quota = await call("research_paper_details", {"paper_id": LITERATURE_GRAPH})
    assert quota.error.category == "rate_limited" and quota.error.retryable
    assert quota.error.retry_after_seconds == 1 and "SEMANTIC_SCHOLAR_API_KEY" in quota.error.hint

    unavailable = Status(503, {"message": "Service Unavailable"}, {"Retry-After": "0"})
    s2_stub.enqueue("paper_search", *[unavailable] * 3)
    down = await call("research_paper_search", {"query": "graphs"})
    assert down.error.category == "unavailable" and down.error.retryable
    assert len(s2_stub.calls("paper_search")) == 3

    missing = await call("research_paper_details", {"paper_id": "10.9999/nothing"})
    assert missing.error.category == "not_found"
    assert "Paper with id DOI:10.9999/nothing not found" in missing.error.error
    assert len([c for c in s2_stub.calls("paper") if "nothing" in c.path]) == 1, "404 is final"

    s2_stub.enqueue("paper", Status(400, {"error": "Unrecognized or unsupported fields: [x]"}))
    rejected = await call("research_paper_details", {"paper_id": LITERATURE_GRAPH})
    assert rejected.error.category == "invalid_input" and "Unrecognized" in rejected.error.error

    s2_stub.enqueue("paper", Status(403, {"message": "Forbidden"}))
    refused = await call("research_paper_details", {"paper_id": LITERATURE_GRAPH})
    assert refused.error.category == "unauthorized"


async def test_keyless_requests_are_paced_one_per_second(s2_stub, configure):
    configure(SEMANTIC_SCHOLAR_API_KEY=None)
    for _ in range(3):
        outcome = await call("research_author_search", {"query": "Cohan"})
        assert outcome.error is None, outcome.error
    sent = s2_stub.calls("author_search")
    gaps = [b.at - a.at for a, b in zip(sent, sent[1:], strict=False)]
    assert all(gap >= 0.95 for gap in gaps), gaps
    assert "x-api-key" not in sent[-1].headers


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("research_paper_search", {}),
        ("research_paper_search", {"query": "x", "limit": 101}),
        ("research_paper_search", {"query": "x", "offset": 990, "limit": 20}),
        ("research_paper_search", {"query": "   "}),
        ("research_paper_search", {"query": "x", "year": "last year"}),
        ("research_paper_details", {"paper_id": "not a paper"}),
        ("research_paper_details", {"paper_id": "https://example.com/paper.pdf"}),
        ("research_paper_details", {"paper_id": "DOI:10.1/../../author/1"}),
        ("research_paper_citations", {"paper_id": LITERATURE_GRAPH, "direction": "sideways"}),
        ("research_paper_recommendations", {"paper_id": LITERATURE_GRAPH, "pool": "everything"}),
        ("research_author_search", {"query": "x", "limit": 0}),
    ],
)
async def test_bad_input_never_reaches_the_api(s2_stub, tool, arguments):
    outcome = await call(tool, arguments)
    assert outcome.error is not None and outcome.error.category == "invalid_input", outcome.error
    assert not s2_stub.requests


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.text(max_size=80))
def test_any_identifier_text_is_normalised_or_refused(text):
    try:
        value = ids.normalise(text)
    except ToolFailure as failure:
        assert failure.category.value == "invalid_input"
        return
    assert value and not any(ch.isspace() for ch in value)
    assert ".." not in value.split("/")
