"""Slow or failing neighbours: the Gemini and YouTube stubs stall mid-response (the body
never finishes) or answer 500s in a burst. Waits are bounded, retries follow the
documented policy (GEMINI_RETRY_MAX_ATTEMPTS, backoff), the server serves other calls
meanwhile, and 1,000 such calls leave no file descriptor or thread behind."""

from __future__ import annotations

import time
from pathlib import Path

import anyio
import pytest

from tests.faults.conftest import Stopwatch, error_of, gist, ok, served
from tests.fixtures.gemini import STUB_SETTINGS
from tests.stubs.base import Stall, Status

pytestmark = pytest.mark.slow

UNAVAILABLE = Status(
    503, {"error": {"code": 503, "message": "overloaded", "status": "UNAVAILABLE"}}
)
BURST_500 = Status(500, {"error": {"code": 500, "message": "internal", "status": "INTERNAL"}})


@pytest.fixture
def neighbour_env(fault_env, gemini_stub):
    return {
        **fault_env,
        **STUB_SETTINGS,
        "GEMINI_BASE_URL": gemini_stub.base_url,
        "GEMINI_TIMEOUT_SECONDS": "1",
        "GEMINI_RETRY_MAX_ATTEMPTS": "3",
    }


def _analyze(n: int) -> dict:
    return {
        "text": f"Field notes number {n}: the tide came in at dawn.",
        "instruction": "Summarise",
    }


async def _recovers(session, row, tool: str, arguments: dict) -> None:
    """(d): with the neighbour back, the same call succeeds; its time is the row's
    recovery, and nothing was lost (each call before failed alone, nothing was written)."""
    clock = Stopwatch()
    await ok(session, tool, arguments)
    row.recovery_s = clock.seconds()
    row.data_lost = 0


async def test_gemini_stalls_mid_body(neighbour_env, gemini_stub, row):
    row.fault, row.tool = "Gemini stub stalls mid-body (never finishes)", "content_analyze"
    gemini_stub.enqueue("generateContent", Stall(30), Stall(30), Stall(30))
    async with served(neighbour_env) as session:
        await ok(
            session, "catalog_categories", {}
        )  # its store opened: latencies below are the loop's
        clock = Stopwatch()
        answers: list = []
        latencies: list[float] = []
        async with anyio.create_task_group() as group:

            async def stalled() -> None:
                answers.append(await session.call_tool("content_analyze", _analyze(1)))

            group.start_soon(stalled)
            await anyio.sleep(0.2)
            while not answers:  # (b) the others are served meanwhile
                began = time.monotonic()
                await ok(session, "catalog_categories", {})
                latencies.append(time.monotonic() - began)
                await anyio.sleep(0.2)
        took = clock.seconds()
        (answer,) = answers
        error = error_of(answer)
        # (a) bounded: three attempts of GEMINI_TIMEOUT_SECONDS (1 s) and their backoff.
        assert error["category"] in {"timeout", "network", "unavailable"}, error
        assert took < 15, took
        assert len(gemini_stub.calls("generateContent")) == 3
        assert latencies and max(latencies) < 2.0, latencies
        row.result = f"after {took:.1f} s, 3 attempts: " + gist(error, 80)
        # (d) the neighbour answers again: the same call succeeds.
        await _recovers(session, row, "content_analyze", _analyze(1))


async def test_gemini_answers_500s_in_a_burst(neighbour_env, gemini_stub, row):
    row.fault, row.tool = "Gemini stub answers a burst of 500s", "content_analyze"
    async with served(neighbour_env) as session:
        # A burst shorter than the retries is ridden out...
        gemini_stub.enqueue("generateContent", BURST_500, UNAVAILABLE)
        await ok(session, "content_analyze", _analyze(2))
        assert len(gemini_stub.calls("generateContent")) == 3
        # ...a longer one fails the call alone, retryable, after exactly the attempts allowed.
        gemini_stub.reset()
        gemini_stub.enqueue("generateContent", *[BURST_500] * 5)
        answer = await session.call_tool("content_analyze", _analyze(3))
        error = error_of(answer)
        assert error.get("retryable") is True, error
        assert len(gemini_stub.calls("generateContent")) == 3
        row.result = "2 x 5xx ridden out; 5 x 500 -> " + gist(error, 70)
        await ok(session, "catalog_categories", {})
        gemini_stub.reset()
        await _recovers(session, row, "content_analyze", _analyze(3))


def _census(pid: int) -> tuple[int, int]:
    """(open file descriptors, threads) of a process, from /proc."""
    return len(list(Path(f"/proc/{pid}/fd").iterdir())), len(
        list(Path(f"/proc/{pid}/task").iterdir())
    )


@pytest.mark.slow_fault
async def test_a_thousand_failing_gemini_calls_leak_nothing(neighbour_env, gemini_stub, row):
    row.fault = "1,000 Gemini calls: 500 bursts, every 50th stalls"
    row.tool = "content_analyze"
    neighbour_env["GEMINI_RETRY_MAX_ATTEMPTS"] = "1"
    pid_file = Path(neighbour_env["FAULTS_CONTROL"]) / "server.pid"
    async with served(neighbour_env) as session:
        for n in range(20):  # warm: the client, its pool, the worker threads
            gemini_stub.enqueue("generateContent", BURST_500)
            await session.call_tool("content_analyze", _analyze(10_000 + n))
        pid = int(pid_file.read_text())
        fds, threads = _census(pid)
        failed = 0
        for n in range(1000):
            gemini_stub.enqueue("generateContent", Stall(5) if n % 50 == 0 else BURST_500)
            answer = await session.call_tool("content_analyze", _analyze(n))
            failed += bool(answer.is_error)
        await anyio.sleep(1.0)
        after_fds, after_threads = _census(pid)
        row.result = (
            f"{failed}/1000 failed, each alone; fds {fds} -> {after_fds}, "
            f"threads {threads} -> {after_threads}"
        )
        assert failed == 1000
        assert after_fds - fds <= 5, (fds, after_fds)
        assert after_threads - threads <= 3, (threads, after_threads)
        gemini_stub.reset()
        await _recovers(session, row, "content_analyze", _analyze(1))


async def test_nats_stopped_and_restarted_under_queue_load(fault_env, nats_server, row):
    from tests.helpers import tool_json

    row.fault, row.tool = "NATS stopped, then restarted, under queue load", "queue_add_video"
    env = {**fault_env, "NATS_URL": nats_server.url, "NATS_TIMEOUT_SECONDS": "1"}
    accepted: list[str] = []
    errors: list[dict] = []
    outage = anyio.Event()
    back = anyio.Event()
    async with served(env) as session:
        await ok(
            session,
            "catalog_add",
            {"video_id": "airplane", "title": "Airplane!", "manifest_url": "https://m/a"},
        )

        async def append(worker: int) -> None:
            while not back.is_set() or len(accepted) < 40:
                result = await session.call_tool("queue_add_video", {"video_id": "airplane"})
                if result.is_error:
                    errors.append(error_of(result))
                else:
                    accepted.append(tool_json(result)["uid"])
                await anyio.sleep(0.02)

        async with anyio.create_task_group() as group:
            for worker in range(4):
                group.start_soon(append, worker)
            with anyio.fail_after(60):
                while len(accepted) < 10:
                    await anyio.sleep(0.05)
            nats_server.stop()
            outage.set()
            with anyio.fail_after(30):
                while len(errors) < 4:
                    await anyio.sleep(0.05)
            # (b) the server answers tools that need no NATS during the outage.
            await ok(session, "catalog_get_video", {"video_id": "airplane"})
            nats_server.start()
            clock = Stopwatch()
            before = len(accepted)
            with anyio.fail_after(60):
                while len(accepted) == before:
                    await anyio.sleep(0.05)
            row.recovery_s = clock.seconds()
            back.set()
        # (a) the calls during the outage failed alone with a clear word.
        categories = {e["category"] for e in errors}
        assert categories <= {"unavailable", "network", "timeout"}, errors[:3]
        row.result = f"{len(errors)} calls failed alone during the outage: " + gist(errors[0], 70)
        # (c) every accepted item is in the queue once; none appeared from nowhere
        # except those whose failure said their outcome was unknown.
        status = await ok(session, "queue_status", {})
        uids = [item["uid"] for item in status["items"]]
        assert len(uids) == len(set(uids))
        row.data_lost = len(set(accepted) - set(uids))
        assert row.data_lost == 0
        unknown = sum(1 for e in errors if "may" in e["message"] or "unknown" in e["message"])
        assert len(uids) <= len(accepted) + unknown, (len(uids), len(accepted), unknown)


@pytest.fixture
def youtube_fault_env(fault_env, youtube_stub):
    from tests.fixtures.youtube import YOUTUBE_KEY

    return {
        **fault_env,
        "YOUTUBE_API_KEY": YOUTUBE_KEY,
        "YOUTUBE_API_ENDPOINT": youtube_stub.base_url,
        "GEMINI_RETRY_BASE_DELAY": "0.01",
        "GEMINI_RETRY_MAX_ATTEMPTS": "3",
    }


VIDEO = {"url": "https://youtu.be/D-lhorsDlUQ"}


@pytest.mark.slow_fault
async def test_youtube_500_bursts_and_a_stall(youtube_fault_env, youtube_stub, row):
    row.fault = "YouTube stub: 500 bursts, 300 failing calls, one stall"
    row.tool = "video_metadata"
    pid_file = Path(youtube_fault_env["FAULTS_CONTROL"]) / "server.pid"
    async with served(youtube_fault_env) as session:
        youtube_stub.enqueue("videos", BURST_500, BURST_500)
        await ok(session, "video_metadata", VIDEO)  # ridden out within the retries
        for _ in range(3):  # warm
            youtube_stub.enqueue("videos", *[BURST_500] * 3)
            await session.call_tool("video_metadata", VIDEO)
        pid = int(pid_file.read_text())
        fds, threads = _census(pid)
        failed = 0
        for _ in range(100):
            youtube_stub.enqueue("videos", *[BURST_500] * 3)
            answer = await session.call_tool("video_metadata", VIDEO)
            failed += bool(answer.is_error)
        await anyio.sleep(1.0)
        after_fds, after_threads = _census(pid)
        assert failed == 100
        assert after_fds - fds <= 5, (fds, after_fds)
        assert after_threads - threads <= 3, (threads, after_threads)
        # A stall: each attempt waits the client's 30 s read timeout, so one attempt.
        youtube_stub.enqueue("videos", Stall(45), *[BURST_500] * 2)
        clock = Stopwatch()
        answer = await session.call_tool("video_metadata", VIDEO)
        took = clock.seconds()
        error = error_of(answer)
        assert took < 45, took
        row.result = (
            f"100/100 x 3 x 500 failed alone, fds {fds} -> {after_fds}, threads {threads} -> "
            f"{after_threads}; stall: {took:.0f} s, " + gist(error, 50)
        )
        youtube_stub.reset()
        await _recovers(session, row, "video_metadata", VIDEO)
