"""The Batch API: gemini_batch.run_batch (submit, poll with progress, collect, cancel) and
video_batch_analyze delivery=batch, against the stub's batches routes."""

from __future__ import annotations

import asyncio
import json

import pytest

from tests.stubs.gemini import BAD_REQUEST, error
from tests.video.test_video_tools import Progress, call, write_video
from video_research.clients.gemini import batch as gemini_batch
from video_research.clients.gemini import client as gemini
from video_research.support.errors import ToolFailure

SCHEMA = {"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"]}


@pytest.fixture(autouse=True)
def fast_polls(configure):
    configure(GEMINI_BATCH_POLL_INTERVAL="0.01", KNOWLEDGE_WRITE_THROUGH="false")


def requests(n=3):
    return [
        gemini_batch.BatchRequest(
            key=f"item-{i}",
            contents=[gemini.user_content(gemini.text_part(f"question {i}"))],
            config=gemini.generation_config(response_schema=SCHEMA, thinking_level="low"),
        )
        for i in range(n)
    ]


async def test_a_batch_with_one_failed_item(gemini_stub):
    gemini_stub.default_batch_states = [
        "BATCH_STATE_PENDING",
        "BATCH_STATE_RUNNING",
        "BATCH_STATE_SUCCEEDED",
    ]
    gemini_stub.enqueue("batch.item", lambda r: None, error(BAD_REQUEST), lambda r: None)
    progress = Progress()
    run = await gemini_batch.run_batch(requests(), model="gemini-x", progress=progress)
    assert run.name.startswith("batches/") and run.state == "SUCCEEDED"
    assert [r.key for r in run.results] == ["item-0", "item-1", "item-2"]
    ok, failed, also_ok = run.results
    assert gemini.parse_structured(ok.generation, SCHEMA) == {"answer": "stub answer value"}
    assert ok.generation.tokens["prompt_tokens"] > 0 and ok.generation.usage["batch"] is True
    assert failed.error.category.value == "invalid_input" and not failed.ok
    assert also_ok.ok
    (create,) = gemini_stub.calls("batches.create")
    assert create.path.endswith("/models/gemini-x:batchGenerateContent")
    inlined = create.body["batch"]["inputConfig"]["requests"]["requests"]
    assert [r["metadata"]["key"] for r in inlined] == ["item-0", "item-1", "item-2"]
    assert inlined[0]["request"]["generationConfig"]["responseJsonSchema"] == SCHEMA
    dones = [e[0] for e in progress.events]
    assert dones == sorted(set(dones)), "progress always increases (MCP requires it)"
    assert (
        progress.events[-1][0] == progress.events[-1][1] and "SUCCEEDED" in progress.events[-1][2]
    )


async def test_a_failed_job_fails_every_item(gemini_stub):
    gemini_stub.default_batch_states = ["BATCH_STATE_FAILED"]
    run = await gemini_batch.run_batch(requests(2), model="gemini-x")
    assert run.state == "FAILED"
    assert all(r.error is not None and "ended FAILED" in r.error.message for r in run.results)


async def test_cancelling_the_call_cancels_the_job(gemini_stub):
    gemini_stub.default_batch_states = ["BATCH_STATE_RUNNING"]  # never finishes
    task = asyncio.create_task(gemini_batch.run_batch(requests(2), model="gemini-x"))
    while len(gemini_stub.calls("batches.get")) < 2:
        await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    (cancel,) = gemini_stub.calls("batches.cancel")
    name = gemini_stub.calls("batches.create")[0]
    assert cancel.path.endswith(":cancel")
    assert list(gemini_stub.batches.values())[0]["state"] == "BATCH_STATE_CANCELLED", name


async def test_a_job_past_the_timeout_is_cancelled(gemini_stub, configure):
    configure(GEMINI_BATCH_TIMEOUT="0.05")
    gemini_stub.default_batch_states = ["BATCH_STATE_RUNNING"]
    with pytest.raises(ToolFailure) as info:
        await gemini_batch.run_batch(requests(1), model="gemini-x")
    assert info.value.category.value == "timeout" and "cancelled" in info.value.message
    assert gemini_stub.calls("batches.cancel")


async def test_nothing_to_submit_is_no_job(gemini_stub):
    run = await gemini_batch.run_batch([], model="gemini-x")
    assert run.name == "" and run.results == [] and gemini_stub.requests == []
    with pytest.raises(ValueError):
        await gemini_batch.run_batch(requests(1) * 2, model="gemini-x")


async def test_video_batch_analyze_delivered_as_a_batch(gemini_stub, tmp_path):
    for name in ("a.mp4", "b.mov", "c.mkv"):
        write_video(tmp_path / name, name.encode())
    (tmp_path / "empty.avi").write_bytes(b"")
    hit = await call("video_batch_analyze", {"directory": str(tmp_path), "glob_pattern": "a.mp4"})
    assert hit.result["succeeded"] == 1  # a.mp4 is now in the analysis cache

    def fail_b(request):
        uri = request.parts[0]["fileData"]["fileUri"]
        name = gemini_stub._uploads[uri.rsplit("/", 1)[-1]]["displayName"]
        return error(BAD_REQUEST) if name == "b.mov" else None

    gemini_stub.enqueue("batch.item", fail_b, fail_b)
    progress = Progress()
    outcome = await call(
        "video_batch_analyze", {"directory": str(tmp_path), "delivery": "batch"}, progress
    )
    assert outcome.error is None, outcome.error
    result = outcome.result
    assert result["delivery"] == "batch" and result["batch_job"]["state"] == "SUCCEEDED"
    assert result["batch_job"]["requests"] == 2, "the cached file and the empty one are not sent"
    by_name = {i["file_name"]: i for i in result["items"]}
    assert by_name["a.mp4"]["result"]["cached"] is True
    assert by_name["b.mov"]["error"]["category"] == "invalid_input"
    assert by_name["c.mkv"]["status"] == "ok" and by_name["c.mkv"]["result"]["usage"]["batch"]
    assert by_name["empty.avi"]["error"]["category"] == "unsupported_format"
    assert (result["succeeded"], result["failed"]) == (2, 2)
    assert result["usage"]["batch"] is True
    # every batch request refers to an uploaded file, never inline bytes
    for item in gemini_stub.calls("batch.item"):
        assert "fileData" in json.dumps(item.body) and "inlineData" not in json.dumps(item.body)
    dones = [e[0] for e in progress.events]
    assert dones == sorted(set(dones))
    again = await call("video_batch_analyze", {"directory": str(tmp_path), "delivery": "batch"})
    assert again.result["batch_job"]["requests"] == 1, "c.mkv is cached now; b.mov is retried"
