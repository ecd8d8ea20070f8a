"""video_analyze cache-hit latency vs a cache miss against the stub (zero latency), and
video_batch_analyze wall time for 12 files at concurrency 3 with 200 ms of stub latency
vs the ideal 12 / 3 x 200 ms = 800 ms.

What Gemini bills (counted by the stub as Gemini counts them):
- input tokens of a 10-turn session on a one-hour video with context caching vs without
  (cached tokens weighted at Gemini's cache price, 10% of the input price);
- bytes uploaded to the File API for 5 analyses of one 100 MB file with upload reuse vs
  uploading on every call (the behaviour before reuse).
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

from tests.bench.common import (
    header,
    in_services,
    median,
    percentile,
    report,
    run_with_env,
    services_for,
)
from tests.stubs.gemini import GeminiStub
from video_research.handlers.context import CallContext, Caller
from video_research.tools import dispatch

RUNS = int(os.environ.get("BENCH_VIDEO_RUNS", "200"))
TURNS = int(os.environ.get("BENCH_SESSION_TURNS", "10"))
UPLOAD_MB = int(os.environ.get("BENCH_UPLOAD_MB", "100"))
ANALYSES = 5
CACHED_PRICE = 0.10
"""Gemini bills cached input tokens at a tenth of the input price (2.5 and 3 models)."""
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
    await _session_tokens(stub, tmp)
    await _upload_bytes(stub, tmp)


async def _session(tmp: Path, caching: bool) -> dict[str, int]:
    """A TURNS-turn session on one long video, with context caching on or off (settings
    of its own); summed usage of its turns."""
    services = services_for(GEMINI_CONTEXT_CACHE="true" if caching else "false")
    return await in_services(services, lambda: _session_turns(tmp, caching))


async def _session_turns(tmp: Path, caching: bool) -> dict[str, int]:
    video = tmp / f"lecture-{caching}.mp4"
    video.write_bytes(os.urandom(4096))
    created = await _call("video_create_session", {"file_path": str(video)})
    totals = {"prompt_tokens": 0, "cached_tokens": 0, "uncached_prompt_tokens": 0}
    for turn in range(TURNS):
        reply = await _call(
            "video_continue_session",
            {"session_id": created["session_id"], "prompt": f"question {turn}: what happens?"},
        )
        for key in totals:
            totals[key] += reply["usage"][key]
    return totals


async def _session_tokens(stub: GeminiStub, tmp: Path) -> None:
    stub.video_seconds = 3600.0
    with_cache = await _session(tmp, caching=True)
    without = await _session(tmp, caching=False)
    stub.video_seconds = 600.0
    header(f"{TURNS}-turn session on a one-hour video: input tokens billed")
    report(
        "uncached input tokens, with caching",
        with_cache["uncached_prompt_tokens"],
        "tokens",
        "without caching",
        without["uncached_prompt_tokens"],
        higher_is_better=False,
    )
    report(
        "cached input tokens, with caching",
        with_cache["cached_tokens"],
        "tokens",
        "without caching",
        without["cached_tokens"],
        higher_is_better=False,
    )
    effective = with_cache["uncached_prompt_tokens"] + CACHED_PRICE * with_cache["cached_tokens"]
    report(
        "input billed, cached at 10% (token-equiv.)",
        effective,
        "tokens",
        "without caching",
        without["prompt_tokens"],
        higher_is_better=False,
    )


async def _upload_bytes(stub: GeminiStub, tmp: Path) -> None:
    from video_research.clients.gemini import files as gemini_files

    big = tmp / "big.mp4"
    with big.open("wb") as handle:  # sparse: no disk written
        handle.truncate(UPLOAD_MB * 1024 * 1024)
    stub.reset()
    for _ in range(ANALYSES):  # before reuse: every call uploaded the file
        await gemini_files.upload_file(big, "video/mp4")
    before = stub.bytes_uploaded
    stub.reset()
    for n in range(ANALYSES):
        await _call("video_analyze", {"file_path": str(big), "instruction": f"question {n}"})
    after = stub.bytes_uploaded
    header(f"{ANALYSES} analyses of one {UPLOAD_MB} MB file: bytes uploaded to the File API")
    report(
        "with upload reuse",
        after / 1e6,
        "MB",
        "uploading on every call",
        before / 1e6,
        higher_is_better=False,
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
