"""The transcript retrieval benchmark: `make eval` (python -m tests.eval).

By default: the ranking pipeline over the large corpus of `make eval-corpus` (360 videos,
10 channels, English and Chinese, with the Coding Train's own chapter titles as queries
where the export holds them): baselines beside the default, leave-one-channel-out
cross-validation of the fitted fusion, the ablation of every stage and the relevance
report (tests/eval/ranking_report.py, over candidates kept by ranking_data.py).
`--fit` refits every parameter first and writes video_research/knowledge/ranking_params.json.

Options: --embedders all-MiniLM-L6-v2,use-multilingual  --limit N (first N queries)
--small: the 39 videos of ../shared/data/transcripts (local only) through the real
index_transcript_files tool, every query of tests/eval/queries.jsonl through
semantic_search_transcripts in each search mode, beside two naive baselines over fixed
60-second windows (see baselines.py), for each embedder installed; with --sweep (a grid
of fixed weights), --json PATH (write the numbers), --keep DIR (keep the index there).
--corpus large: the same run over the large corpus.
--distractors 100000,1000000 (quality with that many distractor chunks added, default
embedder only, and the ceiling any reranking of the three modes' candidates could reach;
--check-approximation validates their cached vectors: see distractors.py; --true-vectors
embeds every distractor with the model itself instead, for models whose approximation is
unfit, e5: about an hour per 100k on 2 idle cores); --export-distractors DIR writes their
texts for another machine (or `embed_elsewhere here`, resumably) to embed,
--distractor-vectors DIR stores what it computed (see embed_elsewhere.py).
--distractor-pool DIR (draw the distractors from the transcripts of other videos that
`make eval-pool` exported there, see pool.py; without it, from the corpus's own lines).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from tests.eval import large_corpus
from tests.eval.baselines import Bm25, Cosine, windows
from tests.eval.calls import call_tool
from tests.eval.metrics import (
    MOMENT_SECONDS,
    NOTES,
    Query,
    Scores,
    load_queries,
    overlap,
    subset,
    table,
)
from tests.helpers import DATA, shared_data

DEFAULT_EMBEDDERS = ("all-MiniLM-L6-v2", "use-multilingual")
MODES: dict[str, dict] = {
    "default": {},
    "default, pinpoint off": {"pinpoint": False},
    "keywords only (alpha 0)": {"alpha": 0.0},
    "vectors only (alpha 1)": {"alpha": 1.0},
}
QUERY_SETS = {
    "viewer queries (queries.jsonl)": lambda q: q.kind != "notes",
    "notes, tuning part (notes_queries.jsonl)": lambda q: (
        q.kind == "notes" and q.split != "held-out"
    ),
    "notes, HELD-OUT part (never tuned on)": lambda q: q.kind == "notes" and q.split == "held-out",
    "notes, Chinese only (both parts)": lambda q: q.kind == "notes" and q.query_language == "zh",
}
SHARED_GLOBS = ("3blue1brown/*.srt", "coding-train/*.json", "*.vtt")


def _say(text: str = "") -> None:
    print(text, flush=True)


async def _index(shared: Path) -> tuple[int, float]:
    started = time.perf_counter()
    chunks = 0
    if large_corpus.is_corpus(shared):
        jobs = [(shared, "*.srt"), (shared, "*.json")]
    else:
        jobs = [(shared, pattern) for pattern in SHARED_GLOBS]
        jobs.append((DATA / "transcripts" / "formats", "*"))
    for folder, pattern in jobs:
        result = await call_tool(
            "index_transcript_files",
            {
                "path": str(folder),
                "glob_pattern": pattern,
                "fetch_metadata": False,
                "max_files": 5000,
            },
        )
        batch = result["batch"]
        chunks += batch["chunk_count"]
        for failure in batch["failed"]:
            _say(f"   (not indexed: {failure['file']}: {failure['error']})")
    return chunks, time.perf_counter() - started


async def _transcripts() -> dict[str, list[tuple[float, str]]]:
    from video_research.transcripts import indexer

    found: dict[str, list[tuple[float, str]]] = {}
    offset: int | None = 0
    while offset is not None:
        videos, _, offset = await indexer.list_videos(None, 100, offset)
        for video in videos:
            record = await indexer.get_video(video["video_id"])
            found[video["video_id"]] = [(c.start, c.text) for c in indexer.cues_of(record)]
    return found


async def _ask(query: Query, arguments: dict, scores: Scores) -> None:
    started, cpu = time.perf_counter(), time.process_time()
    result = await call_tool(
        "semantic_search_transcripts",
        {"query": query.query, "k": 10, "auto_index": False, **arguments},
    )
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    answers = [(r["video_id"], r["match_time"]) for r in result["results"]]
    scores.add(query, answers, seconds, cpu)


async def _search(queries: list[Query], arguments: dict) -> Scores:
    scores = Scores()
    for query in queries:
        await _ask(query, arguments, scores)
    return scores


async def _ask_baseline(query: Query, engine, scores: Scores) -> None:
    cpu = time.process_time()
    result = engine.search(query.query)
    answers, seconds = (await result) if asyncio.iscoroutine(result) else result
    scores.add(query, answers, seconds, time.process_time() - cpu)


async def _every_mode(queries: list[Query], engines: dict) -> dict[str, Scores]:
    """Each query through every mode and baseline in turn, so a change in the machine's
    load during the run touches every mode alike."""
    per_mode = {name: Scores() for name in [*MODES, *engines]}
    for query in queries:
        for name, arguments in MODES.items():
            await _ask(query, arguments, per_mode[name])
        for name, engine in engines.items():
            await _ask_baseline(query, engine, per_mode[name])
    return per_mode


def _groups(queries: list[Query], per_mode: dict[str, Scores], group=lambda q: q.group) -> str:
    """moment@5 / MRR@10 of each mode per query group (of `queries` only)."""
    names = sorted({group(q) for q in queries})
    counts = {g: sum(group(q) == g for q in queries) for g in names}
    wanted = {q.id for q in queries}
    lines = [
        "| mode | " + " | ".join(f"{g} (n={counts[g]})" for g in names) + " |",
        "|---|" + "---:|" * len(names),
    ]
    for mode, scores in per_mode.items():
        rows = [
            subset(scores, lambda q, g=g: q.id in wanted and group(q) == g).row() for g in names
        ]
        cells = [f"{row['moment@5']:.2f} / {row['MRR@10']:.2f}" for row in rows]
        lines.append(f"| {mode} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _verdicts(rows: dict[str, dict]) -> str:
    """Whether the default scores at least the better single mode, per metric."""
    lines = []
    default = rows["default"]
    for metric in ("moment@5", "MRR@10"):
        best = max(rows["keywords only (alpha 0)"][metric], rows["vectors only (alpha 1)"][metric])
        verdict = "holds" if default[metric] >= best - 1e-9 else "DOES NOT hold"
        lines.append(
            f"- default >= max(keywords only, vectors only) on {metric}: {verdict} "
            f"({default[metric]:.3f} vs {best:.3f})"
        )
    return "\n".join(lines)


def _pinpoint_report(on: Scores, off: Scores) -> str:
    def describe(scores: Scores) -> str:
        errors = scores.link_errors
        if not errors:
            return "no answers in the right video"
        near = sum(abs(e) <= MOMENT_SECONDS for e in errors) / len(errors)
        never_later = sum(e <= 2.0 for e in errors) / len(errors)
        return (
            f"median |link - label| {statistics.median(abs(e) for e in errors):.1f} s, "
            f"within {MOMENT_SECONDS:.0f} s {near:.3f}, at or before the label {never_later:.3f} "
            f"(n={len(errors)})"
        )

    return f"- pinpoint on: {describe(on)}\n- pinpoint off (chunk start): {describe(off)}"


def _meaning_link(query: Query) -> bool:
    """The queries whose moment must be linked by meaning: they share no words with it."""
    return query.group in ("cross-language", "paraphrase")


def _link_held_out(query: Query) -> bool:
    """The part of the link queries no tuning of link placement looked at: the notes'
    held-out part, and every third viewer query (q003, q006, ...)."""
    if query.kind == "notes":
        return query.split == "held-out"
    return query.id[1:].isdigit() and int(query.id[1:]) % 3 == 0


def _link_misses(scores: Scores) -> str:
    """Each link query whose top answer in the right video links more than MOMENT_SECONDS
    from its label: where it linked, and at what rank that answer came."""
    lines = []
    for query, _, answers in scores.trace:
        found = next(
            ((rank, at) for rank, (video, at) in enumerate(answers) if video == query.video_id),
            None,
        )
        if found is None:
            lines.append(f"  {query.id} ({query.group}): right video not in the top 10")
        elif abs(found[1] - query.second) > MOMENT_SECONDS:
            lines.append(
                f"  {query.id} ({query.group}{', held-out' if _link_held_out(query) else ''}): "
                f"label {query.second:.0f} s, linked {found[1]:.0f} s "
                f"({found[1] - query.second:+.0f} s) at rank {found[0] + 1}"
            )
    return "\n".join([f"link misses (default mode): {len(lines)} of {scores.count}", *lines])


def _overlap_report(queries: list[Query], transcripts: dict[str, list[tuple[float, str]]]) -> str:
    lines = []
    paraphrases = [q for q in queries if q.kind == "paraphrase"]
    for query in paraphrases:
        cues = transcripts.get(query.video_id, [])
        caption = " ".join(t for s, t in cues if abs(s - query.second) <= 15)
        shared = overlap(query, caption)
        if shared:
            lines.append(f"  {query.id} shares {sorted(shared)}")
    head = (
        f"- paraphrased queries sharing content words with the captions within 15 s of their "
        f"label: {len(lines)} of {len(paraphrases)}"
    )
    return "\n".join([head, *lines])


async def _sweep(queries: list[Query], embedder) -> None:
    """A grid of fixed weights on this set. Query vectors are cached here (the grid changes fusion, not the query), so
    latencies in this table mean nothing."""
    original = embedder.embed
    cache: dict[str, object] = {}

    async def cached(texts, kind="document"):
        if kind != "query" or len(texts) != 1:
            return await original(texts, kind)
        if texts[0] not in cache:
            cache[texts[0]] = await original(texts, kind)
        return cache[texts[0]]

    embedder.embed = cached
    rows = {}
    try:
        for alpha in (0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8):
            rows[f"alpha {alpha}"] = (await _search(queries, {"alpha": alpha})).row()
    finally:
        del embedder.embed
    _say(table(rows))


async def _run_embedder(
    model: str,
    shared: Path,
    queries: list[Query],
    sweep: bool,
    only_sweep: bool = False,
) -> dict:
    from video_research.knowledge.store import get_store
    from video_research.support.errors import ToolFailure
    from video_research.support.services import current_services

    try:
        store = await get_store()
        await store.embedder.embed(["warm up"], "query")
    except ToolFailure as failure:
        _say(f"\n## {model}: skipped ({failure.message})")
        return {}
    _say(f"\n## embedder {model} ({store.embedder.identity})")
    _, index_s = await _index(shared)
    chunks = await store.count("TranscriptChunks")
    transcripts = await _transcripts()
    _say(f"indexed {len(transcripts)} videos, {chunks} chunks in {index_s:.0f} s")
    missing = sorted({q.video_id for q in queries} - set(transcripts))
    if missing:
        _say(f"(queries name videos that are not indexed, they count as misses: {missing})")
    if only_sweep:
        await _sweep([q for q in queries if q.split != "held-out"], store.embedder)
        await current_services().aclose()
        return {}
    if large_corpus.is_corpus(shared):
        return await _large_report(queries, chunks, len(transcripts), store.embedder.identity)
    items = windows(transcripts)
    cosine = Cosine(items, store.embedder)
    await cosine.prepare()
    per_mode = await _every_mode(
        queries,
        {"baseline: BM25, 60 s windows": Bm25(items), "baseline: cosine, 60 s windows": cosine},
    )
    _say(f"\n{len(queries)} queries, {len(items)} windows; moment = within {MOMENT_SECONDS:.0f} s")
    rows: dict[str, dict] = {}
    for label, keep in QUERY_SETS.items():
        part = {name: subset(scores, keep) for name, scores in per_mode.items()}
        if not any(s.count for s in part.values()):
            continue
        rows[label] = {name: scores.row() for name, scores in part.items()}
        _say(f"\n### {label}\n")
        _say(table(rows[label]))
        _say("")
        _say(_verdicts(rows[label]))
    _say("\nmoment@5 / MRR@10 by query group (all sets):\n")
    _say(_groups(queries, per_mode))
    _say("\nlinks of the top answer in the right video:\n")
    _say(_pinpoint_report(per_mode["default"], per_mode["default, pinpoint off"]))
    for label, keep in (
        ("cross-language and paraphrase", _meaning_link),
        (
            "cross-language and paraphrase, tuning part",
            lambda q: _meaning_link(q) and not _link_held_out(q),
        ),
        (
            "cross-language and paraphrase, HELD-OUT part",
            lambda q: _meaning_link(q) and _link_held_out(q),
        ),
    ):
        _say(f"\nlinks, {label} queries only:\n")
        _say(
            _pinpoint_report(
                subset(per_mode["default"], keep), subset(per_mode["default, pinpoint off"], keep)
            )
        )
    _say("\n" + _link_misses(subset(per_mode["default"], _meaning_link)))
    _say("")
    _say(_overlap_report(queries, transcripts))
    if sweep:
        _say("\ntuning sweep (default mode; held-out queries left out):\n")
        await _sweep([q for q in queries if q.split != "held-out"], store.embedder)
    await current_services().aclose()
    return {
        "embedder": store.embedder.identity,
        "chunks": chunks,
        "index_seconds": index_s,
        "rows": rows,
    }


LARGE_MODES = {
    name: MODES[name] for name in ("default", "keywords only (alpha 0)", "vectors only (alpha 1)")
}


async def _large_report(queries: list[Query], chunks: int, videos: int, identity: str) -> dict:
    """The large corpus (tests/eval/large_corpus.py): the default and both single modes,
    per query group, the tuning and the HELD-OUT part apart (no baselines: embedding its
    windows for the cosine baseline would cost as much as the index)."""
    per_mode = {name: Scores() for name in LARGE_MODES}
    for query in queries:
        for name, arguments in LARGE_MODES.items():
            await _ask(query, arguments, per_mode[name])
    _say(f"\n{len(queries)} queries, {videos} videos, {chunks} chunks; moment within 30 s")
    rows: dict[str, dict] = {}
    for label, keep in large_corpus.query_sets(queries).items():
        part = {name: subset(scores, keep) for name, scores in per_mode.items()}
        rows[label] = {name: scores.row() for name, scores in part.items()}
        _say(f"\n### {label}\n")
        _say(table(rows[label]))
        _say("")
        _say(_verdicts(rows[label]))
    for split in ("tune", "held-out"):
        part = [q for q in queries if q.split == split]
        _say(f"\nmoment@5 / MRR@10 by query group, {split} part:\n")
        _say(_groups(part, per_mode, large_corpus.group))
    return {"embedder": identity, "chunks": chunks, "videos": videos, "rows": rows}


async def _ranking(args: argparse.Namespace) -> int:
    """The default `make eval`: the ranking pipeline's tables over the large corpus
    (tests/eval/ranking_report.py), `--fit` first refitting its parameters; then the
    latency of the search beside the store's hybrid call. `--ranking-corpus small` runs
    the same over the 39 videos of ../shared/data/transcripts (the suite's MiniLM fit)."""
    from tests.eval import ranking_data, ranking_report

    corpus = args.ranking_corpus
    root = large_corpus.corpus_dir()
    if corpus == "large" and not (root / "queries.jsonl").is_file():
        _say(f"no eval corpus at {root}: run `make eval-corpus` first (tests/eval/large_corpus.py)")
        return 2
    sets = ranking_data.sets_of(corpus)
    for model in args.embedders.split(",") if args.embedders_given else [distractors_model()]:
        samples = await ranking_data.samples(corpus, model.strip(), sets)
        _say(
            f"\n## ranking, {model}, {corpus} corpus ({sum(len(v) for v in samples.values())} queries)"
        )
        if args.fit:
            ranking_report.fit(samples)
        ranking_report.report(samples)
        queries = [s.query for s in samples.get("large", samples.get("small", []))]
        held = [q for q in queries if q.split == "held-out"] or queries
        timing = await ranking_data.latency(corpus, model.strip(), held)
        search, store, tool = timing["search"], timing["store hybrid"], timing["tool"]
        _say(
            "\n### latency: semantic_search_transcripts beside the store's hybrid call\n\n"
            f"| | p50 ms | p95 ms |\n|---|---:|---:|\n"
            f"| search (k 10: embedding, candidates, fusion, moments, links) | {search[50]:.1f} | {search[95]:.1f} |\n"
            f"| store.hybrid (30 results, embedding too) | {store[50]:.1f} | {store[95]:.1f} |\n"
            f"| ratio | x{search[50] / store[50]:.2f} | x{search[95] / store[95]:.2f} |\n"
            f"| the whole tool call (schemas, injection scan, audit) | {tool[50]:.1f} | {tool[95]:.1f} |"
        )
    return 0


async def _main(args: argparse.Namespace) -> int:
    from video_research import config
    from video_research.support.services import Services, use_services

    shared_root = shared_data()
    shared = shared_root / "transcripts" if shared_root else None
    if shared is None or not shared.is_dir():
        _say(
            "The retrieval eval needs the real transcripts in ../shared/data/transcripts (local "
            "only, never committed); that folder is not here, so nothing was measured."
        )
        return 2
    queries = (load_queries() + load_queries(NOTES))[: args.limit or None]
    if not (args.small or args.corpus or args.distractors or args.check_approximation):
        return await _ranking(args)
    if args.corpus:
        root = large_corpus.corpus_dir() if args.corpus == "large" else Path(args.corpus)
        if not (root / "queries.jsonl").is_file():
            _say(
                f"no eval corpus at {root}: run `make eval-corpus` first (tests/eval/large_corpus.py)"
            )
            return 2
        shared = root / "transcripts"
        queries = load_queries(root / "queries.jsonl") + large_corpus.paraphrases(root)
        queries = queries[: args.limit or None]
    if args.distractors or args.check_approximation:
        return await _at_scale(args, shared, queries)
    results = []
    with tempfile.TemporaryDirectory() as scratch:
        tmp = args.keep or scratch
        saved = dict(os.environ)
        os.environ["VIDEO_RESEARCH_FILE_ROOTS"] = ",".join([str(shared), str(DATA), tmp])
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        # The audit trail of the eval's own indexing calls is not part of its report.
        os.environ["VIDEO_RESEARCH_AUDIT_LOG"] = str(Path(tmp) / "audit.jsonl")
        try:
            for model in args.embedders.split(","):
                # Each embedder runs under settings of its own: its model, its data folder.
                settings = config.load_settings(
                    {
                        **os.environ,
                        "VIDEO_RESEARCH_DATA_DIR": str(Path(tmp) / model),
                        "KNOWLEDGE_EMBEDDING_MODEL": (model.strip()),
                    }
                )
                services = Services(settings)
                with use_services(services):
                    try:
                        result = await _run_embedder(
                            model.strip(),
                            shared,
                            queries,
                            args.sweep,
                            args.sweep_only,
                        )
                    finally:
                        await services.aclose()
                if result:
                    results.append(result)
        finally:
            os.environ.clear()
            os.environ.update(saved)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    return 0


async def _at_scale(args: argparse.Namespace, shared: Path, queries: list[Query]) -> int:
    """The distractor runs (tests/eval/distractors.py), under the eval's file roots."""
    from tests.eval import distractors

    model = args.embedders.split(",")[0] if args.embedders_given else distractors_model()
    large = large_corpus.is_corpus(shared)
    harness = distractors.Harness(_index, _transcripts, _ask, "large" if large else "")
    os.environ["VIDEO_RESEARCH_FILE_ROOTS"] = ",".join([str(shared), str(DATA)])
    os.environ["VIDEO_RESEARCH_AUDIT_LOG"] = str(distractors.cache_dir() / "audit.jsonl")
    pool = Path(args.distractor_pool) if args.distractor_pool else None
    if pool is not None and not pool.is_dir():
        _say(f"no distractor pool at {pool}: run `make eval-pool` first (see tests/eval/pool.py)")
        return 2
    if args.check_approximation:
        await distractors.check_approximation(harness, shared, model, queries, pool)
    sizes = [int(size) for size in args.distractors.split(",") if size.strip()]
    sets = large_corpus.scale_sets(queries) if large else None
    summary = (
        await distractors.report(
            harness,
            shared,
            model,
            queries,
            sizes,
            pool,
            sets,
            sets,
            args.true_vectors,
            Path(args.export_distractors) if args.export_distractors else None,
            Path(args.distractor_vectors) if args.distractor_vectors else None,
        )
        if sizes
        else {}
    )
    if args.json:
        Path(args.json).write_text(json.dumps(summary, indent=1))
    return 0


def distractors_model() -> str:
    from video_research.knowledge.embedders.embeddings import DEFAULT_LOCAL_MODEL

    return DEFAULT_LOCAL_MODEL


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.eval", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--embedders", default=",".join(DEFAULT_EMBEDDERS))
    parser.add_argument("--limit", type=int, default=0)
    parser.add_argument("--sweep", action="store_true")
    parser.add_argument("--sweep-only", action="store_true")
    parser.add_argument("--json", default="")
    parser.add_argument("--keep", default="")
    parser.add_argument("--distractors", default="")
    parser.add_argument("--check-approximation", action="store_true")
    parser.add_argument("--distractor-pool", default="")
    parser.add_argument(
        "--true-vectors",
        action="store_true",
        help="--distractors embedded by the model itself, not approximated (slow: for e5)",
    )
    parser.add_argument(
        "--export-distractors",
        default="",
        help="write the --distractors' texts to DIR for another machine to embed, then stop",
    )
    parser.add_argument(
        "--distractor-vectors",
        default="",
        help="DIR/<size>: the --distractors' own vectors, embedded elsewhere from those texts",
    )
    parser.add_argument(
        "--corpus", default="", help="large (tests/eval/large_corpus.py) or a folder"
    )
    parser.add_argument(
        "--small", action="store_true", help="the 39 videos' run through the server, every mode"
    )
    parser.add_argument(
        "--fit", action="store_true", help="fit the ranking's parameters (ranking_report.fit)"
    )
    parser.add_argument("--ranking-corpus", default="large", choices=("large", "small"))
    args = parser.parse_args(argv)
    args.embedders_given = any(a.startswith("--embedders") for a in argv)
    return asyncio.run(_main(args))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
