"""Index 300 videos' worth of transcripts and search them, then search at scale (100k
chunks).

The corpus is synthesised from the shared data folder's real transcripts (3blue1brown
.srt, Coding Train .json) when present, else from tests/data/transcripts: each of
BENCH_TRANSCRIPT_VIDEOS (300) files is one source transcript under a new video ID, in
one of ten channels, with its numbers in the words so no two are identical.

- Indexing: chunks/s of one index_transcript_files call (parse, chunk, embed, store),
  beside the store alone writing the same number of ready-made chunks with insert_many
  (the floor: embedding and SQLite).
- Search: p50 of semantic_search_transcripts (hybrid search, merging, pinpointing from
  the stored line times), unfiltered and filtered to one channel, beside the store's bare
  hybrid search of the chunks with the same filter.
- Search at scale (target: default search p50 <= 60 ms at 100k chunks): the
  indexed chunks are copied, with their vectors, under new video IDs (their words get
  the copy's number, so no two are identical) until BENCH_TRANSCRIPT_CHUNKS (100000)
  chunks are stored; then p50/p95 of default search, pinpoint off, keywords only and
  long mixed-script queries (Chinese with English names, 30-80 characters), beside the
  store's bare hybrid search of the same query. What the transcript layer adds on top
  of the store is the difference.
"""

from __future__ import annotations

import itertools
import os
import tempfile
import time
from pathlib import Path

from tests.bench.common import (
    fill_with_copies,
    header,
    median,
    percentile,
    report,
    run_with_env,
    warm_up,
)
from tests.helpers import DATA, shared_data
from video_research.handlers.context import CallContext, Caller
from video_research.tools import dispatch

VIDEOS = int(os.environ.get("BENCH_TRANSCRIPT_VIDEOS", "300"))
SEARCHES = int(os.environ.get("BENCH_TRANSCRIPT_SEARCHES", "40"))
BASELINE_CHUNKS = int(os.environ.get("BENCH_TRANSCRIPT_BASELINE_CHUNKS", "1000"))
SCALE_CHUNKS = int(os.environ.get("BENCH_TRANSCRIPT_CHUNKS", "100000"))
SCALE_SEARCHES = int(os.environ.get("BENCH_TRANSCRIPT_SCALE_SEARCHES", "60"))
LONG_QUERIES = [
    "请问哪个视频讲到了用 Newton 方法求多项式的根，以及为什么不同根之间的边界会形成分形图案？",
    "我记得有一段讲 JavaScript 里的 Promise.all，如果其中一个 promise 出错，所有结果都拿不到，是哪一段？",
    "有没有视频解释 Fourier transform 和 sinc 函数的积分，为什么这个模式最后会在 113 附近失效？",
    "在 Monty Hall 问题的程序里，作者玩了 44 次，换门的胜率大约是多少？",
    "哪一集讲到用 matter.js 做 plinko 游戏，并且把离开屏幕的粒子从 world 里删除？",
    "讲 Hilbert curve 的视频里，为什么伪希尔伯特曲线比 snake curve 更适合把像素映射到频率？",
    "有一段讲大型语言模型里的 MLP，Michael Jordan 打篮球这个事实是怎么存在参数里的？",
    "哪个视频讲 Taylor series，说 cos(θ) 可以近似成 1 - θ²/2？",
]
OWNER = Caller(username="bench", role="admin", verified=True)
QUERIES = [
    "why does the gradient point uphill",
    "how do promises chain in javascript",
    "the probability of a positive review",
    "drawing a graph on the plane without crossing edges",
    "wait an hour before cutting the bread",
    "compiler tracks how long a reference lives",
    "tides caused by the moon",
    "what happens when the loop never ends",
]


def _sources() -> list[Path]:
    shared = shared_data()
    if shared and (shared / "transcripts").is_dir():
        root = shared / "transcripts"
        found = sorted(root.glob("3blue1brown/*.srt")) + sorted(root.glob("coding-train/*.json"))
        if found:
            return found
    own = DATA / "transcripts"
    return sorted(own.glob("*.srt")) + sorted(own.glob("*.json")) + sorted(own.glob("vtt/*.vtt"))


def _synthesise(folder: Path) -> dict[str, dict[str, str]]:
    """The corpus files, and the `videos` mapping that spreads them over ten channels."""
    sources = _sources()
    mapping = {}
    for n, source in zip(range(VIDEOS), itertools.cycle(sources), strict=False):
        text = source.read_text(encoding="utf-8-sig")
        name = f"Episode {n} of {source.stem} [v{n:010d}]{source.suffix}"
        (folder / name).write_text(text.replace(" the ", f" the {n} ", 3))
        # Its own ID: a JSON sample names its video inside, and copies of one video are
        # duplicates (reported, not indexed twice).
        mapping[name] = {"channel_id": f"UCbench{n % 10}", "video_id": f"v{n:010d}"}
    return mapping


async def _call(tool: str, arguments: dict) -> dict:
    ctx = CallContext(tool=tool, caller=OWNER)
    outcome = await dispatch.call(dispatch.TOOLS[tool], arguments, ctx)
    assert outcome.error is None, outcome.error
    return outcome.result


async def _run(tmp: Path) -> None:
    from video_research.knowledge.filters import Filter
    from video_research.knowledge.store import get_store
    from video_research.transcripts.indexer import CHUNKS

    folder = tmp / "corpus"
    folder.mkdir()
    mapping = _synthesise(folder)
    store = await get_store()
    await warm_up(store.embedder)

    started = time.perf_counter()
    indexed = await _call(
        "index_transcript_files",
        {"path": str(folder), "max_files": VIDEOS, "fetch_metadata": False, "videos": mapping},
    )
    index_s = time.perf_counter() - started
    chunks = indexed["batch"]["chunk_count"]
    assert indexed["batch"]["indexed_count"] == VIDEOS, indexed["batch"]["failed"][:3]

    page = await store.fetch(CHUNKS, limit=min(chunks, BASELINE_CHUNKS))
    sample = [obj.properties for obj in page.objects]
    baseline_rows = [
        {**props, "video_id": f"baseline-{n}", "chunk_index": n} for n, props in enumerate(sample)
    ]
    started = time.perf_counter()
    await store.insert_many("TranscriptChunks", baseline_rows)
    store_s = time.perf_counter() - started
    await store.delete_where(CHUNKS, Filter.prefix("video_id", "baseline-"))

    header(
        f"transcript indexing: {VIDEOS} videos, {chunks} chunks ({_sources()[0].parent.name} samples)"
    )
    report(
        "index_transcript_files",
        chunks / index_s,
        "chunks/s",
        "store.insert_many of ready chunks",
        len(baseline_rows) / store_s,
        higher_is_better=True,
    )

    for label, arguments, where in (
        ("unfiltered", {}, None),
        ("one channel", {"channel_ids": ["UCbench3"]}, Filter.in_("channel_id", ["UCbench3"])),
    ):
        times: dict[str, list[float]] = {"pinpoint": [], "chunk start": [], "bare": []}
        for i in range(SEARCHES):
            query = QUERIES[i % len(QUERIES)]
            for mode, pinpoint in (("pinpoint", True), ("chunk start", False)):
                started = time.perf_counter()
                result = await _call(
                    "semantic_search_transcripts",
                    {"query": query, "auto_index": False, "pinpoint": pinpoint, **arguments},
                )
                times[mode].append(time.perf_counter() - started)
                assert result["results"]
            started = time.perf_counter()
            await store.hybrid(CHUNKS, query, alpha=0.6, where=where, limit=30)
            times["bare"].append(time.perf_counter() - started)
        header(f"semantic_search_transcripts at {chunks} chunks, {label}, k=10")
        for mode in ("chunk start", "pinpoint"):
            report(
                f"search p50 ({mode})",
                median(times[mode]) * 1000,
                "ms",
                "store.hybrid p50 (same filter)",
                median(times["bare"]) * 1000,
                higher_is_better=False,
            )
    if chunks < SCALE_CHUNKS:
        await _scale(store, chunks)


async def _scale(store, chunks_now: int) -> None:
    """Copy the indexed chunks (with vectors) until SCALE_CHUNKS are stored, then time search."""
    from video_research.knowledge.filters import Filter
    from video_research.transcripts.indexer import CHUNKS, VIDEOS

    # The store pages at most 4,096 objects deep: read the chunks video by video.
    sources = []
    videos = await store.fetch(VIDEOS, limit=4000)
    for video in videos.objects:
        where = Filter.eq("video_id", video.properties["video_id"])
        page = await store.fetch(CHUNKS, where=where, limit=4000)
        for obj in page.objects:
            full = await store.get(CHUNKS, obj.uuid, include_vector=True)
            sources.append((full.properties, full.vector))
    needed = max(0, SCALE_CHUNKS - chunks_now)
    started = time.perf_counter()
    await fill_with_copies(store, sources, needed, channel_id=lambda copy: f"UCscale{copy % 50}")
    fill_s = time.perf_counter() - started
    total = await store.count(CHUNKS)
    header(
        f"semantic_search_transcripts at {total} chunks ({needed} copied with their vectors "
        f"in {fill_s:.0f} s), k=10; target p50 <= 60 ms"
    )
    cases = [
        ("default (pinpoint on)", QUERIES, {}, 0.6),
        ("pinpoint off", QUERIES, {"pinpoint": False}, 0.6),
        ("keywords only", QUERIES, {"alpha": 0.0}, 0.0),
        ("long mixed-script, default", LONG_QUERIES, {}, 0.6),
        ("long mixed-script, keywords only", LONG_QUERIES, {"alpha": 0.0}, 0.0),
    ]
    for label, queries, arguments, alpha in cases:
        tool_times: list[float] = []
        bare_times: list[float] = []
        for i in range(SCALE_SEARCHES):
            query = queries[i % len(queries)]
            started = time.perf_counter()
            await _call(
                "semantic_search_transcripts",
                {"query": query, "auto_index": False, **arguments},
            )
            tool_times.append(time.perf_counter() - started)
            started = time.perf_counter()
            await store.hybrid(CHUNKS, query, alpha=alpha, limit=30)
            bare_times.append(time.perf_counter() - started)
        report(
            f"{label} p50",
            median(tool_times) * 1000,
            "ms",
            "store.hybrid p50 (same query)",
            median(bare_times) * 1000,
            higher_is_better=False,
        )
        report(
            f"{label} p95",
            percentile(tool_times, 95) * 1000,
            "ms",
            "store.hybrid p95 (same query)",
            percentile(bare_times, 95) * 1000,
            higher_is_better=False,
        )


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        env = {
            "VIDEO_RESEARCH_DATA_DIR": str(Path(tmp) / "data"),
            "VIDEO_RESEARCH_FILE_ROOTS": tmp,
            "VIDEO_RESEARCH_AUDIT_LOG": str(Path(tmp) / "audit.jsonl"),  # not stderr
        }
        run_with_env(env, lambda: _run(Path(tmp)))
