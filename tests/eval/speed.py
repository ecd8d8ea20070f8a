"""Indexing speed and query latency of two embedders, measured the same way in one run.

`python -m tests.eval.speed --videos 12 --stores use-multilingual=DIR,multilingual-e5-small=DIR`

- Indexing: every `len(files) // videos`-th transcript of the large corpus
  (tests/eval/large_corpus.py) indexed through the real index_transcript_files tool into
  a fresh store per embedder, the embedders in turn and the first again at the end (so a
  change in the machine's load shows as two figures for it); chunks/s counts the chunks,
  and each chunk's windows are embedded too (as in any store), so the windows are printed.
- Query latency (with `--stores`): the same held-out queries through
  semantic_search_transcripts in default mode over each embedder's kept store of the
  whole corpus (a folder the distractor or fusion runs built), the embedders alternating
  query by query so the load touches both alike; p50 and p95 per embedder.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from tests.bench.common import percentile
from tests.eval import large_corpus
from tests.eval.calls import call_tool
from tests.eval.distractors import store_services
from tests.eval.metrics import load_queries


async def _index(model: str, files: Path, scratch: Path) -> str:
    from video_research.knowledge.store import get_store
    from video_research.support.services import use_services

    services = store_services(scratch / model, model)
    try:
        with use_services(services):
            store = await get_store()
            await store.embedder.embed(["warm up"], "document")  # the model's load is apart
            started = time.perf_counter()
            await call_tool(
                "index_transcript_files",
                {"path": str(files), "glob_pattern": "*", "fetch_metadata": False},
            )
            seconds = time.perf_counter() - started
            chunks = await store.count("TranscriptChunks")
            windows = await store.count("TranscriptWindows")
    finally:
        await services.aclose()
    return (
        f"| {model} | {chunks} | {windows} | {seconds:.0f} | {chunks / seconds:.1f} | "
        f"{os.getloadavg()[0]:.1f} |"
    )


async def _latency(stores: dict[str, Path], count: int) -> None:
    from video_research.support.services import use_services

    queries = [
        q
        for q in load_queries(large_corpus.corpus_dir() / "queries.jsonl")
        if q.split == "held-out"
    ][:count]
    services = {model: store_services(folder, model) for model, folder in stores.items()}
    seconds: dict[str, list[float]] = {model: [] for model in stores}
    try:
        for found in services.values():  # warm: the model, the indexes
            with use_services(found):
                await call_tool("semantic_search_transcripts", {"query": "warm up", "k": 10})
        for query in queries:
            for model, found in services.items():
                with use_services(found):
                    started = time.perf_counter()
                    await call_tool(
                        "semantic_search_transcripts",
                        {"query": query.query, "k": 10, "auto_index": False},
                    )
                    seconds[model].append(time.perf_counter() - started)
    finally:
        for found in services.values():
            await found.aclose()
    print("\n| embedder | queries | p50 ms | p95 ms | load |\n|---|---:|---:|---:|---:|")
    for model, values in seconds.items():
        print(
            f"| {model} | {len(values)} | {statistics.median(values) * 1e3:.0f} | "
            f"{percentile(values, 95) * 1e3:.0f} | {os.getloadavg()[0]:.1f} |"
        )


async def _main(args: argparse.Namespace) -> int:
    source = large_corpus.corpus_dir() / "transcripts"
    files = sorted(p for p in source.iterdir() if p.suffix in (".srt", ".json"))
    if not files:
        print(f"no eval corpus at {source}: run `make eval-corpus` first")
        return 2
    models = [m.strip() for m in args.embedders.split(",") if m.strip()]
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        picked = root / "transcripts"
        picked.mkdir()
        for path in files[:: max(1, len(files) // args.videos)][: args.videos]:
            shutil.copy(path, picked / path.name)
        os.environ["VIDEO_RESEARCH_FILE_ROOTS"] = ",".join([str(picked), str(root)])
        os.environ["VIDEO_RESEARCH_AUDIT_LOG"] = str(root / "audit.jsonl")
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        if args.videos:
            print(f"indexing {args.videos} videos of {source}\n")
            print("| embedder | chunks | windows | seconds | chunks/s | load |")
            print("|---|---:|---:|---:|---:|---:|")
            for at, model in enumerate([*models, models[0]]):
                print(await _index(model, picked, root / f"run{at}"), flush=True)
        if args.stores:
            stores = dict(part.split("=", 1) for part in args.stores.split(","))
            os.environ["VIDEO_RESEARCH_FILE_ROOTS"] = str(source)
            await _latency({m: Path(f) for m, f in stores.items()}, args.queries)
    return 0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.eval.speed", description=__doc__)
    parser.add_argument("--embedders", default="use-multilingual,multilingual-e5-small")
    parser.add_argument("--videos", type=int, default=12)
    parser.add_argument("--stores", default="", help="model=DIR,model=DIR (kept corpus stores)")
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args(argv)
    return asyncio.run(_main(args))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
