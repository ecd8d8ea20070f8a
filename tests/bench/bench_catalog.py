"""catalog_search over 20,000 videos through the whole tool path (validation, FTS5 prefix
match ranked by bm25 plus the substring fallback, categories, output contract) vs the
naive page a plain `title LIKE '%q%'` query gives on the same connection, and
queue_add_video on SQLite vs catalog_add (one plain write) as a per-write baseline."""

from __future__ import annotations

import os
import random
import tempfile
import time
from pathlib import Path

from tests.bench.common import header, median, report, report_latency, run_with_env
from video_research.catalog import videos
from video_research.catalog.db import get_db
from video_research.handlers.context import CallContext, Caller
from video_research.tools import dispatch

VIDEOS = int(os.environ.get("BENCH_CATALOG_VIDEOS", "20000"))
RUNS = int(os.environ.get("BENCH_CATALOG_RUNS", "200"))
OWNER = Caller(username="bench", role="admin", verified=True)
WORDS = [
    "friday",
    "night",
    "dead",
    "return",
    "house",
    "street",
    "blood",
    "moon",
    "summer",
    "camp",
    "city",
    "space",
    "dark",
    "love",
    "island",
    "game",
    "final",
    "chapter",
    "part",
    "lake",
    "river",
    "storm",
    "ghost",
    "dream",
    "king",
    "queen",
]
CATEGORIES = ["Horror", "Comedy", "Drama", "Sci-Fi", "Action", "Documentary", "Anime", "Music"]
QUERIES = ["friday", "fri 13", "dead moon", "chapter 2", "ost", "night", "ghost king", "amp"]


async def _call(tool: str, arguments: dict) -> dict:
    ctx = CallContext(tool=tool, caller=OWNER)
    outcome = await dispatch.call(dispatch.TOOLS[tool], arguments, ctx)
    assert outcome.error is None, outcome.error
    return outcome.result


def _fill(conn, rng: random.Random) -> None:
    for i in range(VIDEOS):
        title = " ".join(rng.choice(WORDS) for _ in range(rng.randint(2, 5)))
        record = videos.VideoRecord(
            video_id=f"v{i:06d}",
            title=f"{title.title()} {rng.randint(1, 13)}",
            manifest_url=f"https://media.example/v{i:06d}.json",
            categories=rng.sample(CATEGORIES, rng.randint(1, 2)),
            duration_seconds=rng.randint(60, 9000),
        )
        videos.upsert(conn, record, source="bench")


def _naive(conn, q: str) -> list:
    pattern = f"%{q}%"
    conn.execute("SELECT COUNT(*) FROM videos WHERE title LIKE ?", (pattern,)).fetchone()
    return conn.execute(
        "SELECT * FROM videos WHERE title LIKE ? ORDER BY title LIMIT 20", (pattern,)
    ).fetchall()


async def _timed(fn, *args) -> float:
    started = time.perf_counter()
    await fn(*args)
    return time.perf_counter() - started


async def _run() -> None:
    await get_db().write(_fill, random.Random(7))
    ours, naive = [], []
    for i in range(RUNS):
        q = QUERIES[i % len(QUERIES)]
        ours.append(await _timed(_call, "catalog_search", {"q": q}))
        naive.append(await _timed(get_db().read, _naive, q))
    header(f"catalog_search, {VIDEOS} videos, {len(QUERIES)} queries")
    report_latency("catalog_search (tool path)", ours, "plain LIKE page + count", naive)
    filtered = [
        await _timed(_call, "catalog_search", {"q": "night", "categories": ["Horror"]})
        for _ in range(RUNS // 4)
    ]
    report(
        "catalog_search q + category p50",
        median(filtered) * 1000,
        "ms",
        "plain LIKE page + count p50",
        median(naive) * 1000,
        higher_is_better=False,
    )

    adds, plain = [], []
    for i in range(RUNS):
        adds.append(await _timed(_call, "queue_add_video", {"video_id": f"v{i:06d}"}))
        plain.append(
            await _timed(
                _call,
                "catalog_add",
                {"video_id": f"extra{i}", "title": "Extra", "manifest_url": "https://m/x"},
            )
        )
    header("queue_add_video on SQLite (read-modify-write of the queue document, audited)")
    report(
        "queue_add_video p50",
        median(adds) * 1000,
        "ms",
        "catalog_add p50 (one upsert, audited)",
        median(plain) * 1000,
        higher_is_better=False,
    )


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        env = {
            "VIDEO_RESEARCH_DATA_DIR": str(Path(tmp) / "data"),
            "VIDEO_RESEARCH_AUDIT_LOG": str(Path(tmp) / "audit.jsonl"),
        }
        run_with_env(env, _run)
