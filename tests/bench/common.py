"""Benchmark helpers: every figure is printed beside a baseline measured in the same run.

A line reads: `name  value unit  | baseline  value unit  | ratio xN (better/worse)`. Run
everything with `make bench`, or one module with `python -m tests.bench startup`.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import time
from collections.abc import Awaitable, Callable
from contextlib import contextmanager
from typing import TypeVar

from video_research.support.services import Services, use_services

T = TypeVar("T")


def percentile(values: list[float], pct: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    k = (len(ordered) - 1) * pct / 100
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def median(values: list[float]) -> float:
    return statistics.median(values)


@contextmanager
def stopwatch():
    box: dict[str, float] = {}
    start = time.perf_counter()
    try:
        yield box
    finally:
        box["s"] = time.perf_counter() - start


def report(
    name: str,
    value: float,
    unit: str,
    baseline_name: str,
    baseline_value: float,
    *,
    higher_is_better: bool,
) -> float:
    """Print one figure with its same-run baseline and return value/baseline."""
    ratio = value / baseline_value if baseline_value else float("inf")
    better = ratio >= 1 if higher_is_better else ratio <= 1
    verdict = "better" if better else "worse"
    print(
        f"{name:<44} {value:>12.3f} {unit:<8} | {baseline_name:<34} {baseline_value:>12.3f} {unit:<8}"
        f" | ratio x{ratio:.2f} ({verdict})",
        flush=True,
    )
    return ratio


def report_latency(name: str, ours: list[float], base_name: str, base: list[float]) -> None:
    """p50 and p95 of `ours` beside the same percentiles of `base` (seconds, shown in ms)."""
    for pct in (50, 95):
        report(
            f"{name} p{pct}",
            percentile(ours, pct) * 1e3,
            "ms",
            f"{base_name} p{pct}",
            percentile(base, pct) * 1e3,
            higher_is_better=False,
        )


def header(title: str) -> None:
    print(f"\n== {title}", flush=True)


Bench = Callable[[], None]


def services_for(**env: str) -> Services:
    """A Services with settings of its own: the environment's, with `env` on top.

    A benchmark runs under one (`in_services`) and changes a setting by running under
    another, the way a test does, never by resetting the process-wide settings.
    """
    from video_research import config

    return Services(config.load_settings({**os.environ, **env}))


async def in_services(services: Services, run: Callable[[], Awaitable[T]]) -> T:
    """`run()` with `services` in force; their resources are closed after it, on this
    event loop (the clients belong to it)."""
    with use_services(services):
        try:
            return await run()
        finally:
            await services.aclose()


def run_with_env(env: dict[str, str], run: Callable[[], Awaitable[None]]) -> None:
    """Run the coroutine `run()` with these environment variables (the libraries read
    some of them) under a Services loaded from them, closing its resources after it, and
    restore the environment."""
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        asyncio.run(in_services(services_for(), run))
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


async def warm_up(embedder) -> None:
    """Load the embedding model before anything is timed: one text loads the numpy engine,
    a bulk-sized batch the torch one (the local embedder keeps both)."""
    await embedder.embed(["warm-up: load the model before anything is timed"])
    await embedder.embed([f"warm-up text {n}" for n in range(getattr(embedder, "BULK_TEXTS", 1))])


async def fill_with_copies(store, sources: list, needed: int, **extra) -> None:
    """Store copies of transcript chunks `sources` ((properties, vector) pairs) under new
    video ids until `needed` more chunks are written: a large store in seconds, with real
    text and the vectors it already has. Each copy's text differs a little (" the N ") so
    the keyword side is not all ties; `extra` maps a property to a function of the copy's
    number (e.g. channel_id=lambda copy: f"UCscale{copy % 50}")."""
    from video_research.knowledge.store import generate_uuid5
    from video_research.transcripts.indexer import CHUNKS

    copy, written = 0, 0
    while written < needed:
        copy += 1
        batch = sources[: needed - written]
        objects = [
            {
                **props,
                "video_id": f"c{copy:05d}-{props['video_id']}",
                **{name: make(copy) for name, make in extra.items()},
                "text": props["text"].replace(" the ", f" the {copy} ", 2),
            }
            for props, _ in batch
        ]
        # By place in `sources`, not chunk_index: a video's chapter chunks number from 0
        # beside its spoken ones.
        uuids = [generate_uuid5(f"{o['video_id']}#{n}", "bench") for n, o in enumerate(objects)]
        await store.insert_many(CHUNKS, objects, uuids=uuids, vectors=[v for _, v in batch])
        written += len(batch)
