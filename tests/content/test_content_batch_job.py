"""content_batch_analyze with delivery=batch: one Gemini Batch API job (real google-genai
SDK against the stub's batches routes), a failed item failing alone, files past the job's
inline budget sent by File API reference, a compare as a one-request job, cancellation."""

from __future__ import annotations

import asyncio
import json

import pytest

from tests.content import test_content_batch
from tests.stubs.gemini import BAD_REQUEST, error
from tests.video.test_video_tools import Progress, call
from video_research.content import batch as content_batch

papers_dir = test_content_batch.papers_dir  # the same folder of notes


@pytest.fixture(autouse=True)
def fast_polls(configure):
    configure(GEMINI_BATCH_POLL_INTERVAL="0.01")


def _fail(needle):
    """A batch.item reply that fails the request whose text holds `needle`."""
    return lambda request: error(BAD_REQUEST) if needle in request.text else None


async def test_individual_files_as_one_job_with_one_failed_item(gemini_stub, papers_dir):
    from video_research.knowledge.store import get_store

    gemini_stub.enqueue("batch.item", *[_fail("coffee")] * 3)
    progress = Progress()
    names = ("alpha.md", "beta.txt", "gamma.pdf", "image.png")
    arguments = {
        "file_paths": [str(papers_dir / name) for name in names],
        "delivery": "batch",
        "instruction": "What drink is preferred?",
    }
    outcome = await call("content_batch_analyze", arguments, progress)
    assert outcome.error is None, outcome.error
    result = outcome.result
    assert result["delivery"] == "batch" and result["mode"] == "individual"
    assert result["batch_job"]["state"] == "SUCCEEDED" and result["batch_job"]["requests"] == 3
    items = {i["file_name"]: i for i in result["items"]}
    assert items["beta.txt"]["error"]["category"] == "invalid_input"
    assert items["alpha.md"]["result"]["source_type"] == "file"
    assert items["gamma.pdf"]["status"] == "ok"
    assert items["image.png"]["error"]["category"] == "unsupported_format"
    assert (result["succeeded"], result["failed"]) == (2, 2)
    assert not gemini_stub.calls("generateContent"), "nothing went the direct way"
    (create,) = gemini_stub.calls("batches.create")
    assert create.body["batch"]["displayName"] == "content_batch_analyze 4 files"
    dones = [e[0] for e in progress.events]
    assert dones == sorted(set(dones)), "progress always increases (MCP requires it)"
    assert progress.events[-1][0] == progress.events[-1][1]

    store = await get_store()
    stored = await store.count("ContentAnalyses")
    assert stored == 2
    again = await call("content_batch_analyze", arguments)
    assert again.result["succeeded"] == 3
    assert await store.count("ContentAnalyses") == 3, "a repeat updates the same objects"


async def test_files_past_the_inline_budget_go_by_file_reference(
    gemini_stub, papers_dir, monkeypatch
):
    monkeypatch.setattr(content_batch, "INLINE_JOB_BYTES", 40)  # alpha.md (31 bytes) fits
    outcome = await call(
        "content_batch_analyze",
        {"directory": str(papers_dir), "glob_pattern": "*.*", "delivery": "batch"},
    )
    assert outcome.error is None, outcome.error
    assert outcome.result["succeeded"] == 3
    sent = {json.dumps(item.body) for item in gemini_stub.calls("batch.item")}
    inline = [body for body in sent if "fileData" not in body]
    assert len(inline) == 1 and "tea is best" in inline[0]
    uploads = sorted(u["mimeType"] for u in gemini_stub._uploads.values())
    assert uploads == ["application/pdf", "text/plain"]
    assert not any("coffee is best" in body or "gamma bytes" in body for body in sent)


async def test_compare_is_a_job_of_one_request(gemini_stub, papers_dir):
    outcome = await call(
        "content_batch_analyze",
        {
            "file_paths": [str(papers_dir / "alpha.md"), str(papers_dir / "beta.txt")],
            "mode": "compare",
            "delivery": "batch",
        },
    )
    assert outcome.error is None, outcome.error
    result = outcome.result
    assert result["comparison"]["summary"] and result["batch_job"]["requests"] == 1
    (item,) = gemini_stub.calls("batch.item")
    assert "File: alpha.md" in item.text and "coffee is best" in item.text
    assert not gemini_stub.calls("generateContent")


async def test_a_failed_compare_job_is_the_calls_error(gemini_stub, papers_dir):
    gemini_stub.default_batch_states = ["BATCH_STATE_EXPIRED"]
    outcome = await call(
        "content_batch_analyze",
        {"directory": str(papers_dir), "mode": "compare", "delivery": "batch"},
    )
    assert outcome.error is not None and "ended EXPIRED" in outcome.error.error


async def test_cancelling_the_call_cancels_the_job(gemini_stub, papers_dir):
    gemini_stub.default_batch_states = ["BATCH_STATE_RUNNING"]  # never finishes
    task = asyncio.create_task(
        call("content_batch_analyze", {"directory": str(papers_dir), "delivery": "batch"})
    )
    while len(gemini_stub.calls("batches.get")) < 2:
        await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert gemini_stub.calls("batches.cancel")
    (job,) = gemini_stub.batches.values()
    assert job["state"] == "BATCH_STATE_CANCELLED"
