"""The parser pool: each limit, a dead worker, cancellation, start-up and shutdown.

Real worker processes (spawned, as the server spawns them) run the stand-ins of
tests/support/worker_functions.py under limits set low, so a breach takes about a second.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import signal
import time
from pathlib import Path

import pytest

from tests.support import worker_functions as parsers
from video_research.support.errors import ErrorCategory, ToolFailure
from video_research.support.isolation import (
    PARSER_POOL,
    ParserLimits,
    parse_isolated,
)

pytestmark = pytest.mark.slow

LIMITS = {
    "PARSER_WORKERS": "2",
    "PARSER_MEMORY_MB": "512",
    "PARSER_CPU_SECONDS": "2",
    "PARSER_TIMEOUT_SECONDS": "20",
}


@pytest.fixture
def low_limits(configure):
    return configure(**LIMITS)


async def _failure(function, *args, **kwargs) -> ToolFailure:
    with pytest.raises(ToolFailure) as caught:
        await parse_isolated("report.pdf", function, *args, **kwargs)
    return caught.value


async def test_results_and_the_parsers_own_failures_come_back(low_limits):
    assert await parse_isolated("a.md", parsers.echo, {"title": "A", "pages": [1, 2]}) == {
        "title": "A",
        "pages": [1, 2],
    }
    refused = await _failure(parsers.refuse, "a.md")
    assert refused.category is ErrorCategory.INVALID_INPUT
    assert refused.message == "a.md is not a document." and refused.hint == "Pass a document."
    bug = await _failure(parsers.break_down)
    assert bug.category is ErrorCategory.INTERNAL_ERROR
    assert "ValueError: an unexpected parser bug" in bug.message


async def test_memory_breach_fails_the_file_and_the_worker_is_replaced(low_limits):
    failure = await _failure(parsers.allocate, 4096)
    assert failure.message == (
        "report.pdf: the parser ran out of its 512 MB memory limit (PARSER_MEMORY_MB); "
        "the file may be a decompression bomb or built to exhaust memory."
    )
    assert failure.category is ErrorCategory.INVALID_INPUT and not failure.retryable
    assert failure.details == {"limit": "memory", "setting": "PARSER_MEMORY_MB"}
    assert await parse_isolated("b.pdf", parsers.allocate, 64) == 64 * 1024 * 1024


async def test_cpu_breach_names_its_limit(low_limits):
    started = time.monotonic()
    failure = await _failure(parsers.spin)
    assert "its 2 s of CPU time (PARSER_CPU_SECONDS)" in failure.message
    assert failure.details["limit"] == "cpu"
    assert time.monotonic() - started < 15
    assert await parse_isolated("b.pdf", parsers.echo, 1) == 1


async def test_each_file_gets_its_own_cpu_budget(configure):
    """RLIMIT_CPU counts a process's whole life: it is re-armed per file."""
    configure(**{**LIMITS, "PARSER_WORKERS": "1", "PARSER_CPU_SECONDS": "1"})
    for _ in range(3):  # 3 x 0.5 s of sleep: each file far below its budget
        assert await parse_isolated("a.pdf", parsers.sleep_then, 0.5) == "slept"


async def test_wall_clock_breach_kills_the_worker(configure):
    configure(**{**LIMITS, "PARSER_TIMEOUT_SECONDS": "1"})
    started = time.monotonic()
    failure = await _failure(parsers.sleep_then, 60)
    assert "longer than its 1 s wall-clock limit (PARSER_TIMEOUT_SECONDS)" in failure.message
    assert failure.category is ErrorCategory.TIMEOUT and failure.retryable
    assert time.monotonic() - started < 10
    assert await parse_isolated("b.pdf", parsers.echo, 2) == 2


async def test_a_worker_killed_mid_file_fails_that_file_alone(low_limits, tmp_path):
    pid_file = tmp_path / "worker.pid"
    slow = asyncio.create_task(parse_isolated("slow.pdf", parsers.sleep_then, 60, str(pid_file)))
    while not pid_file.exists() or not pid_file.read_text():
        await asyncio.sleep(0.05)
    others = [parse_isolated(f"{n}.md", parsers.sleep_then, 0.3) for n in range(4)]
    os.kill(int(pid_file.read_text()), signal.SIGKILL)
    with pytest.raises(ToolFailure) as caught:
        await slow
    assert caught.value.message.startswith("slow.pdf: the parser worker was killed (SIGKILL)")
    assert caught.value.retryable
    assert await asyncio.gather(*others) == ["slept"] * 4


async def test_a_crashing_parser_fails_alone(low_limits):
    failure = await _failure(parsers.crash)
    assert "the parser crashed (signal SIGABRT)" in failure.message
    assert await parse_isolated("b.pdf", parsers.echo, 3) == 3


async def test_cancelling_the_call_stops_the_parse(low_limits, tmp_path):
    pid_file = tmp_path / "worker.pid"
    task = asyncio.create_task(parse_isolated("slow.pdf", parsers.sleep_then, 60, str(pid_file)))
    while not pid_file.exists() or not pid_file.read_text():
        await asyncio.sleep(0.05)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    pid = int(pid_file.read_text())
    deadline = time.monotonic() + 10
    while _alive(pid) and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    assert not _alive(pid), "the worker parsing a cancelled file was left running"
    assert await parse_isolated("b.pdf", parsers.echo, 4) == 4


async def test_per_call_limits_override_the_settings(low_limits):
    roomy = ParserLimits(memory_mb=2048, cpu_seconds=5, timeout_seconds=20)
    assert await parse_isolated("a.pdf", parsers.allocate, 600, worker_limits=roomy) > 0
    failure = await _failure(parsers.allocate, 600)
    assert failure.details["limit"] == "memory"


async def test_workers_start_on_first_use_and_close_with_the_services(low_limits, services):
    before = set(multiprocessing.active_children())
    pool = services.get(PARSER_POOL)
    assert set(multiprocessing.active_children()) == before, "workers started before any file"
    await parse_isolated("a.md", parsers.echo, 1)
    workers = set(multiprocessing.active_children()) - before
    assert len(workers) == pool.workers == 2
    await services.aclose()
    assert not any(worker.is_alive() for worker in workers)


async def test_workers_keep_no_secrets_and_write_nothing_to_stdout(configure, monkeypatch):
    monkeypatch.setenv("GEMINI_API_KEY", "AIza-not-for-parsers")
    monkeypatch.setenv("LC_ALL", "C.UTF-8")
    configure(**LIMITS)
    environment = await parse_isolated("a.md", parsers.environment)
    assert "GEMINI_API_KEY" not in environment
    assert environment.get("LC_ALL") == "C.UTF-8"
    assert set(environment) <= {"PATH", "HOME", "LANG", "LANGUAGE", "TZ", "TMPDIR", "TEMP"} | {
        "TMP",
        "PYTHONPATH",
        *(key for key in environment if key.startswith("LC_")),
    }
    out, err = await parse_isolated("a.md", parsers.stdout_target)
    assert out == err


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0]
    except (FileNotFoundError, IndexError):
        return False
    return state != "Z"


async def test_progress_comes_back_through_the_pipe_and_our_own_errors_keep_their_type(
    low_limits,
):
    from video_research.media.speech import SpeechError
    from video_research.support.isolation import WorkerProgress

    seen: list[float] = []

    async def report(seconds: float) -> None:
        seen.append(seconds)

    done = await parse_isolated(
        "clip.mp4", parsers.ticking, 1.6, worker_progress=WorkerProgress("tick", report)
    )
    assert done == "done"
    # sent at most every 0.5 s by the worker (at most 4 in 1.6 s), in order, the latest kept
    assert 1 <= len(seen) <= 4 and seen == sorted(seen) and seen[-1] >= 1.0, seen
    with pytest.raises(SpeechError) as raised:
        await parse_isolated("clip.mp4", parsers.raise_speech_error)
    assert raised.value.reason == "no_audio" and raised.value.hint == "Pass a file with sound."
