"""The query sets of the ranking eval and their candidates, kept between runs.

Sets (each a list of `Sample`s once collected, `ranking_eval`):

- `large`: the large corpus of `make eval-corpus` (360 videos, 10 channels, English and
  Chinese; generated literal, notes and cross-language queries, the hand-written
  paraphrases), with the chapter-title queries of the Coding Train's own site when the
  export holds them (`chapter_queries.jsonl`: labels nobody here wrote);
- `no-answer`: tests/eval/no_answer_queries.jsonl asked of the same store;
- `small`: the 39 videos of ../shared/data/transcripts with the hand-written sets.

The store of each corpus is indexed once through the real index_transcript_files tool
into the eval cache (`<cache>/ranking/<corpus>-<model>`) and kept; the candidates of
each query set are collected once per store and kept beside it
(`candidates-<set>.pickle`); delete them to collect again after an indexing change.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

from tests.eval import large_corpus, ranking_eval
from tests.eval.metrics import NOTES, Query, load_queries
from tests.helpers import DATA, shared_data

NO_ANSWER = Path(__file__).with_name("no_answer_queries.jsonl")


def cache_root() -> Path:
    from tests.eval import distractors

    return distractors.cache_dir() / "ranking"


def channels_of(transcripts: Path) -> dict[str, str]:
    """video id -> channel: a .json transcript's own `channel`, else the folder it is in
    (the corpus export's .srt files are 3Blue1Brown's captions)."""
    found = {}
    for path in transcripts.rglob("*"):
        if not path.is_file():
            continue
        channel = "3Blue1Brown" if path.parent == transcripts else path.parent.name
        if path.suffix == ".json":
            with contextlib.suppress(ValueError, AttributeError):
                channel = json.loads(path.read_text(encoding="utf-8")).get("channel") or channel
        found[path.name.split(".")[0]] = channel
    return found


def large_queries(root: Path) -> list[Query]:
    return load_queries(root / "queries.jsonl") + large_corpus.paraphrases(root)


def chapter_queries(path: Path) -> list[Query]:
    """The Coding Train's chapter titles as queries (kind "chapter")."""
    fields = set(Query.__dataclass_fields__)
    found = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            found.append(Query(**{k: v for k, v in row.items() if k in fields}))
    return found


async def samples(corpus: str, model: str, sets: dict[str, list[Query]]):
    """{set name: samples} for the store of `corpus` embedded by `model`: indexed and
    collected on first use, read from the cache after."""
    from tests.eval import distractors
    from tests.eval.__main__ import _index
    from video_research.knowledge.store import get_store
    from video_research.support.services import use_services

    if corpus == "large":
        transcripts = large_corpus.corpus_dir() / "transcripts"
    else:
        transcripts = shared_data() / "transcripts"
    folder = cache_root() / f"{corpus}-{model}"
    os.environ["VIDEO_RESEARCH_FILE_ROOTS"] = ",".join([str(transcripts), str(DATA), str(folder)])
    os.environ["VIDEO_RESEARCH_AUDIT_LOG"] = str(folder / "audit.jsonl")
    channels = channels_of(transcripts)
    found: dict[str, list] = {}
    missing = {}
    for name, queries in sets.items():
        cached = folder / f"candidates-{name}-{len(queries)}.pickle"
        if cached.is_file():
            found[name] = ranking_eval.load(cached)
        else:
            missing[name] = (queries, cached)
    if not missing:
        return found
    services = distractors.store_services(folder, model)
    with use_services(services):
        try:
            await get_store()
            if not (folder / "indexed").is_file():
                chunks, seconds = await _index(transcripts)
                (folder / "indexed").write_text(f"{chunks} chunks in {seconds:.0f} s\n")
            await _sentences_again(folder)
            for name, (queries, cached) in missing.items():
                found[name] = await ranking_eval.collect(queries, channels)
                ranking_eval.save(cached, found[name])
        finally:
            await services.aclose()
    return found


async def _sentences_again(folder: Path) -> None:
    """Store the sentences again of the videos listed in `folder`/sentences-again.json
    (indexed before sentences were stored: they hold ~20 s windows), then forget the list."""
    from video_research.knowledge.store import get_store
    from video_research.transcripts import indexer, windows

    listed = folder / "sentences-again.json"
    if not listed.is_file():
        return
    store = await get_store()
    for video_id in json.loads(listed.read_text()):
        record = await indexer.get_video(video_id)
        if record is not None:
            await windows.store_windows(store, video_id, indexer.cues_of(record))
    listed.unlink()


def small_queries() -> list[Query]:
    return load_queries() + load_queries(NOTES)


def no_answer_queries() -> list[Query]:
    return load_queries(NO_ANSWER)


def main() -> None:
    """Index and collect a corpus's sets: python -m tests.eval.ranking_data [MODEL [large|small]]."""
    import asyncio
    import sys

    model = sys.argv[1] if len(sys.argv) > 1 else "use-multilingual"
    corpus = sys.argv[2] if len(sys.argv) > 2 else "large"
    found = asyncio.run(samples(corpus, model, sets_of(corpus)))
    for name, collected in found.items():
        print(name, len(collected), flush=True)


def sets_of(corpus: str) -> dict[str, list[Query]]:
    """The query sets asked of `corpus`'s store (see the module docstring)."""
    if corpus == "small":
        return {"small": small_queries(), "no-answer": no_answer_queries()}
    root = large_corpus.corpus_dir()
    sets = {"large": large_queries(root), "no-answer": no_answer_queries()}
    if (root / "chapter_queries.jsonl").is_file():
        sets["chapters"] = chapter_queries(root / "chapter_queries.jsonl")
    return sets


if __name__ == "__main__":
    main()


async def latency(corpus: str, model: str, queries: list[Query], count: int = 100) -> dict:
    """p50 / p95 of the transcript search (`transcripts.search.search`, k 10, the whole
    pipeline: embedding, candidates, fusion, moments, sentence links) beside the store's
    own hybrid call (`KnowledgeStore.hybrid`, 30 results, embedding the query too) on the
    same queries, asked in turn so the machine's load touches both alike; and the whole
    semantic_search_transcripts tool call (schema checks, injection scan, audit) beside."""
    import time

    from tests.bench.common import percentile
    from tests.eval import distractors
    from tests.eval.calls import call_tool
    from video_research.knowledge.store import get_store
    from video_research.transcripts import search
    from video_research.transcripts.indexer import CHUNKS

    folder = cache_root() / f"{corpus}-{model}"
    services = distractors.store_services(folder, model)
    from video_research.support.services import use_services

    tool, store_only, whole = [], [], []
    with use_services(services):
        try:
            store = await get_store()
            for query in queries[:count]:
                started = time.perf_counter()
                await store.hybrid(CHUNKS, query.query, limit=30)
                store_only.append(time.perf_counter() - started)
                started = time.perf_counter()
                await search.search(query.query, k=10, alpha=None, where=None, min_score=None)
                tool.append(time.perf_counter() - started)
                started = time.perf_counter()
                await call_tool(SEARCH_TOOL, {"query": query.query, "k": 10, "auto_index": False})
                whole.append(time.perf_counter() - started)
        finally:
            await services.aclose()
    return {
        name: {pct: percentile(times, pct) * 1e3 for pct in (50, 95)}
        for name, times in (("search", tool), ("store hybrid", store_only), ("tool", whole))
    }


SEARCH_TOOL = "semantic_search_transcripts"
