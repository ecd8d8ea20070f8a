"""Media runs in the media worker pool, never in the server: a call whose decoding breaches
its memory or wall-clock limit fails alone with an error naming the limit's setting while
the server keeps answering other calls; progress still arrives from the worker; the worker
keeps its OCR engine loaded for the next call."""

from __future__ import annotations

import asyncio
import os
import time

import pytest

from tests.calls import call_tool

pytestmark = pytest.mark.slow


async def _answers_meanwhile(slow_call) -> tuple[object, list[float]]:
    """Run `slow_call` while another tool is called every 0.2 s; the other's latencies."""
    latencies: list[float] = []
    task = asyncio.create_task(slow_call)
    while not task.done():
        began = time.perf_counter()
        other = await call_tool("get_indexed_videos", {})
        assert other.error is None, other.error
        latencies.append(time.perf_counter() - began)
        await asyncio.sleep(0.2)
    return await task, latencies


async def test_a_decode_over_its_memory_limit_fails_alone_and_the_server_answers(
    lecture, configure
):
    # the OCR engine alone maps about 1.6 GB: a 512 MB worker cannot hold it
    configure(MEDIA_WORKER_MEMORY_MB="512")
    outcome, latencies = await _answers_meanwhile(
        call_tool("media_screen_text", {"path": str(lecture), "sample_seconds": 30})
    )
    error = outcome.error
    assert error is not None
    assert "MEDIA_WORKER_MEMORY_MB" in error.message, error.message
    assert "512 MB" in error.message
    assert latencies and max(latencies) < 2.0, latencies
    configure(MEDIA_WORKER_MEMORY_MB="4096")  # the next call gets a fresh worker
    again = await call_tool("media_frames", {"path": str(lecture), "count": 2})
    assert again.error is None, again.error


async def test_a_transcription_over_its_wall_clock_fails_alone_naming_the_limit(lecture, configure):
    # loading the model and transcribing 72 s takes seconds: a 1 s limit kills the worker
    configure(SPEECH_TIMEOUT_SECONDS="1")
    began = time.perf_counter()
    outcome, latencies = await _answers_meanwhile(
        call_tool("index_media_files", {"paths": [str(lecture)], "screen_text": False})
    )
    took = time.perf_counter() - began
    # its one item failed, so the call is an error listing it (docs/errors.md, Batches)
    assert outcome.error is not None and outcome.error.category == "timeout", outcome.error
    (failed,) = outcome.error.details["failed"]
    assert "1 s wall-clock limit (SPEECH_TIMEOUT_SECONDS)" in failed["error"], failed
    assert took < 20, took
    assert latencies and max(latencies) < 2.0, latencies

    configure(SPEECH_TIMEOUT_SECONDS="600")
    again = await call_tool("index_media_files", {"paths": [str(lecture)], "screen_text": False})
    assert again.error is None, again.error
    assert again.result["batch"]["indexed_count"] == 1, again.result


async def test_progress_comes_from_the_worker_and_the_engine_stays_loaded(lecture):
    progress: list[tuple[float, float | None, str | None]] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        progress.append((done, total, message))

    timings = []
    for _ in range(2):
        began = time.perf_counter()
        outcome = await call_tool(
            "media_screen_text", {"path": str(lecture), "sample_seconds": 20}, progress=on_progress
        )
        timings.append(time.perf_counter() - began)
        assert outcome.error is None, outcome.error
    assert progress and all(total == 100 for _, total, _ in progress)
    assert any("on-screen text" in (message or "") for _, _, message in progress)
    # the first call spawns the worker and loads the engine (about 1-3 s); the second
    # reuses both, so it is not slower by that much
    print(f"screen text: first {timings[0]:.2f} s, second {timings[1]:.2f} s")
    assert timings[1] < timings[0] + 1.0, timings
    assert os.getpid() > 0


def _transcribe_then_name_the_progress_bar_locks(path: str) -> list[str]:
    """In the worker: transcribe, then the multiprocessing locks tqdm's bars hold."""
    from multiprocessing.synchronize import SemLock

    from tqdm import tqdm

    from video_research.media import speech

    assert speech.transcribe_file(path)["segments"]
    held = getattr(tqdm.get_lock(), "locks", [])
    return [type(lock).__name__ for lock in held if isinstance(lock, SemLock)]


async def test_a_transcribing_worker_holds_no_named_semaphore_for_progress_bars():
    """faster-whisper makes a tqdm bar per transcription, and tqdm's default lock is a
    multiprocessing RLock: a named semaphore the resource tracker watches. The worker is
    killed at shutdown, at times between unlinking it and telling the tracker, which then
    warned of "1 leaked semaphore" as the server exited (now and then: a race, so the
    warning itself is no test). The worker's bars must share a thread lock instead."""
    from pathlib import Path

    from video_research.support.isolation import MEDIA_POOL, parse_isolated

    fixture = Path(__file__).parent.parent / "fixtures" / "media" / "speech.ogg"
    held = await parse_isolated(
        "speech.ogg",
        _transcribe_then_name_the_progress_bar_locks,
        str(fixture),
        worker_pool=MEDIA_POOL,
    )
    assert held == [], held
