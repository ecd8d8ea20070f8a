"""research_web, research_web_status, research_web_followup, research_web_cancel: the real
google-genai interactions client against the Interactions stub; tasks in SQLite."""

from __future__ import annotations

import pytest

from tests.catalog_helpers import VIEWER
from tests.catalog_helpers import call as call_as
from tests.helpers import mcp_client, tool_json
from tests.stubs.gemini import QUOTA, error
from tests.stubs.gemini_interactions import SOURCES
from tests.video.test_video_tools import Progress, call

# The research, paper, content and knowledge tools that came with Deep Research: each lists
# an object output schema and an input schema that refuses unknown properties.
RESEARCH_TOOLS = [
    "video_comments",
    "content_batch_analyze",
    "research_document",
    "research_paper_search",
    "research_paper_details",
    "research_paper_citations",
    "research_paper_recommendations",
    "research_author_search",
    "research_web",
    "research_web_status",
    "research_web_followup",
    "research_web_cancel",
    "knowledge_fetch",
    "knowledge_schema",
    "knowledge_ask",
]
TOPIC = "How concentrated is the EV battery supply chain in 2025?"


async def _start(**extra):
    outcome = await call("research_web", {"topic": TOPIC, **extra})
    assert outcome.error is None, outcome.error
    return outcome.result


async def test_start_then_wait_for_the_report(interactions_stub):
    started = await _start(output_format="A summary, then a table of countries.")
    assert started["status"] == "in_progress" and started["done"] is False
    assert started["report"] is None and "research_web_status" in started["hint"]
    (create,) = interactions_stub.calls("interactions.create")
    assert create.body["agent"] == "deep-research-preview-04-2026"
    assert create.body["background"] is True
    assert create.body["input"].startswith(TOPIC) and "table of countries" in create.body["input"]

    progress = Progress()
    outcome = await call(
        "research_web_status", {"task_id": started["task_id"], "wait_seconds": 30}, progress
    )
    assert outcome.error is None, outcome.error
    done = outcome.result
    assert done["status"] == "completed" and done["done"] is True
    assert done["report"].startswith("# EV battery supply chains")
    assert [s["url"] for s in done["sources"]] == [url for url, _ in SOURCES]
    assert done["sources"][0]["title"] == SOURCES[0][1]
    assert done["usage"]["total_tokens"] == 259000
    assert progress.events and progress.events[0][1] == 30, "a progress notification per poll"

    polls = len(interactions_stub.calls("interactions.get"))
    again = await call("research_web_status", {"task_id": started["task_id"]})
    assert again.result["report"] == done["report"]
    assert len(interactions_stub.calls("interactions.get")) == polls, (
        "finished: answered from SQLite"
    )

    found = await call(
        "knowledge_search",
        {"query": "EV battery supply chains", "collections": ["ResearchFindings"], "alpha": 0},
    )
    assert found.result["results"][0]["properties"]["source_tool"] == "research_web_status"


async def test_status_without_waiting_polls_once(interactions_stub):
    started = await _start()
    outcome = await call("research_web_status", {"task_id": started["task_id"]})
    assert outcome.result["status"] == "in_progress" and outcome.result["report"] is None
    assert len(interactions_stub.calls("interactions.get")) == 1


async def test_followups_continue_the_conversation(interactions_stub):
    started = await _start()
    early = await call("research_web_followup", {"task_id": started["task_id"], "question": "Why?"})
    assert early.error.category == "conflict" and "in_progress" in early.error.error

    await call("research_web_status", {"task_id": started["task_id"], "wait_seconds": 30})
    first = await call(
        "research_web_followup", {"task_id": started["task_id"], "question": "Which country leads?"}
    )
    assert first.error is None, first.error
    assert first.result["answer"] == "Follow-up answer to: Which country leads?"
    second = await call(
        "research_web_followup", {"task_id": started["task_id"], "question": "And recycling?"}
    )
    assert second.result["followup_count"] == 2
    creates = interactions_stub.calls("interactions.create")
    assert creates[1].body["previous_interaction_id"] == started["task_id"]
    assert creates[1].body["model"] and "agent" not in creates[1].body
    first_reply_id = next(
        i
        for i, v in interactions_stub.interactions.items()
        if v.get("previous_interaction_id") == started["task_id"]
    )
    assert creates[2].body["previous_interaction_id"] == first_reply_id
    status = await call("research_web_status", {"task_id": started["task_id"]})
    assert [f["question"] for f in status.result["followups"]] == [
        "Which country leads?",
        "And recycling?",
    ]


async def test_cancel_a_running_task(interactions_stub):
    started = await _start()
    outcome = await call("research_web_cancel", {"task_id": started["task_id"]})
    assert outcome.error is None, outcome.error
    assert outcome.result == {
        "task_id": started["task_id"],
        "status": "cancelled",
        "cancelled": True,
        "done": True,
    }
    assert interactions_stub.interactions[started["task_id"]]["status"] == "cancelled"
    again = await call("research_web_cancel", {"task_id": started["task_id"]})
    assert again.result["cancelled"] is True
    assert len(interactions_stub.calls("interactions.cancel")) == 1, (
        "a finished task is not cancelled twice"
    )


async def test_a_failed_run_reports_why(interactions_stub):
    started = await _start()
    interactions_stub.interactions[started["task_id"]].update(
        status="failed", errors=[{"code": 8, "message": "Research budget exhausted."}]
    )
    outcome = await call("research_web_status", {"task_id": started["task_id"]})
    assert outcome.result["status"] == "failed" and outcome.result["done"] is True
    assert outcome.result["error"] == "Research budget exhausted."


async def test_errors(interactions_stub):
    unknown = await call("research_web_status", {"task_id": "v1_neverStarted"})
    assert unknown.error.category == "not_found" and "research_web" in unknown.error.hint

    started = await _start()
    interactions_stub.enqueue("interactions.get", error(QUOTA, retry_delay="0s"))
    retried = await call("research_web_status", {"task_id": started["task_id"]})
    assert retried.error is None, retried.error
    assert len(interactions_stub.calls("interactions.get")) == 2, "429 is retried"

    interactions_stub.enqueue("interactions.create", *[error(QUOTA, retry_delay="0s")] * 3)
    quota = await call("research_web", {"topic": TOPIC})
    assert quota.error.category == "rate_limited" and quota.error.retry_after_seconds == 1

    del interactions_stub.interactions[started["task_id"]]
    gone = await call("research_web_status", {"task_id": started["task_id"]})
    assert gone.error.category == "not_found"


async def test_no_key_is_a_config_error(tmp_path):
    outcome = await call("research_web", {"topic": TOPIC})
    assert outcome.error.category == "config_error"


async def test_a_viewer_may_poll_but_not_start(interactions_stub):
    refused = await call_as("research_web", {"topic": TOPIC}, VIEWER)
    assert refused.error.category == "forbidden"
    assert not interactions_stub.calls("interactions.create")
    started = await _start()
    polled = await call_as("research_web_status", {"task_id": started["task_id"]}, VIEWER)
    assert polled.error is None, polled.error
    for tool, args in [
        ("research_web_followup", {"task_id": started["task_id"], "question": "Why?"}),
        ("research_web_cancel", {"task_id": started["task_id"]}),
    ]:
        assert (await call_as(tool, args, VIEWER)).error.category == "forbidden"


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("research_web", {"topic": "too short"}),
        ("research_web", {"topic": TOPIC, "output_format": ""}),
        ("research_web_status", {"task_id": "../../etc/passwd"}),
        ("research_web_status", {"task_id": "v1_x", "wait_seconds": 601}),
        ("research_web_followup", {"task_id": "v1_x", "question": "?"}),
        ("research_web_cancel", {}),
    ],
)
async def test_bad_input(interactions_stub, tool, arguments):
    outcome = await call(tool, arguments)
    assert outcome.error is not None and outcome.error.category == "invalid_input", outcome.error
    assert not interactions_stub.requests


async def test_a_task_survives_a_server_restart(interactions_env):
    """Start in one server process, poll in a fresh one: the task comes from SQLite."""
    interactions_env = {**interactions_env, "KNOWLEDGE_WRITE_THROUGH": "false"}  # no model load
    async with mcp_client(interactions_env) as session:
        listed = {tool.name: tool for tool in (await session.list_tools()).tools}
        for name in RESEARCH_TOOLS:
            assert listed[name].output_schema["type"] == "object", name
            assert listed[name].input_schema["additionalProperties"] is False, name
        started = tool_json(await session.call_tool("research_web", {"topic": TOPIC}))
    assert started["status"] == "in_progress"
    async with mcp_client(interactions_env) as session:
        result = await session.call_tool(
            "research_web_status", {"task_id": started["task_id"], "wait_seconds": 20}
        )
        assert not result.is_error, result.content[0].text
        done = result.structured_content
    assert done["status"] == "completed" and done["topic"] == TOPIC
    assert done["report"].startswith("# EV battery supply chains")
