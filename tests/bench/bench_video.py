"""Issue 3: video_analyze cache-hit latency vs a cache miss against the stub (zero
latency), and video_batch_analyze wall time for 12 files at concurrency 3 with 200 ms of
stub latency vs the ideal 12 / 3 x 200 ms = 800 ms."""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

from tests.bench.common import header, median, percentile, report, run_with_env
from tests.stubs.gemini import GeminiStub
from video_research import dispatch
from video_research.context import CallContext, Caller

RUNS = int(os.environ.get("BENCH_VIDEO_RUNS", "200"))
OWNER = Caller(username="bench", role="admin", verified=True)


async def _call(tool: str, arguments: dict) -> dict:
    ctx = CallContext(tool=tool, caller=OWNER)
    outcome = await dispatch.call(dispatch.TOOLS[tool], arguments, ctx)
    assert outcome.error is None, outcome.error
    return outcome.result


async def _run(stub: GeminiStub, tmp: Path) -> None:
    url = "https://www.youtube.com/watch?v=dQw4w9WgXcQ"
    misses, hits = [], []
    for i in range(RUNS):
        arguments = {"url": url, "instruction": f"question {i}"}
        started = time.perf_counter()
        result = await _call("video_analyze", arguments)
        misses.append(time.perf_counter() - started)
        assert result["cached"] is False
        started = time.perf_counter()
        result = await _call("video_analyze", arguments)
        hits.append(time.perf_counter() - started)
        assert result["cached"] is True
    header("video_analyze cache (in-process, stub with zero latency)")
    report(
        "cache hit p50",
        median(hits) * 1000,
        "ms",
        "cache miss p50 (stub, 0 ms)",
        median(misses) * 1000,
        higher_is_better=False,
    )
    report(
        "cache hit p95",
        percentile(hits, 95) * 1000,
        "ms",
        "cache miss p95 (stub, 0 ms)",
        percentile(misses, 95) * 1000,
        higher_is_better=False,
    )

    videos = tmp / "videos"
    videos.mkdir()
    for i in range(12):
        (videos / f"clip{i:02d}.mp4").write_bytes(os.urandom(4096))
    stub.latency = 0.2
    started = time.perf_counter()
    result = await _call("video_batch_analyze", {"directory": str(videos), "max_files": 12})
    wall = time.perf_counter() - started
    stub.latency = 0.0
    assert result["succeeded"] == 12
    header("video_batch_analyze, 12 files, concurrency 3, stub latency 200 ms")
    report(
        "batch wall time", wall * 1000, "ms", "ideal 12/3 x 200 ms", 800.0, higher_is_better=False
    )


def main() -> None:
    stub = GeminiStub().start()
    with tempfile.TemporaryDirectory() as tmp:
        env = {
            "GEMINI_API_KEY": "AIzaSyBENCH-0000000000000000000000000",
            "GEMINI_BASE_URL": stub.base_url,
            "GEMINI_CACHE_DIR": str(Path(tmp) / "cache"),
            "VIDEO_RESEARCH_DATA_DIR": str(Path(tmp) / "data"),
            "VIDEO_RESEARCH_FILE_ROOTS": tmp,
        }
        try:
            run_with_env(env, lambda: _run(stub, Path(tmp)))
        finally:
            stub.stop()
