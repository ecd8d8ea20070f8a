"""Benchmark helpers: every figure is printed beside a baseline measured in the same run.

A line reads: `name  value unit  | baseline  value unit  | ratio xN (better/worse)`. Run
everything with `make bench`, or one module with `python -m tests.bench startup`.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Awaitable, Callable
from contextlib import contextmanager


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


def header(title: str) -> None:
    print(f"\n== {title}", flush=True)


Bench = Callable[[], None]


def run_with_env(env: dict[str, str], run: Callable[[], Awaitable[None]]) -> None:
    """Run the coroutine `run()` with these environment variables and a fresh config,
    shut the server's resources down after it, and restore the environment."""
    import asyncio
    import os

    from video_research import config
    from video_research.support.services import current_services

    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    config.reset_config()

    async def run_and_close() -> None:
        try:
            await run()
        finally:
            await current_services().aclose()

    try:
        asyncio.run(run_and_close())
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        config.reset_config()


async def warm_up(embedder) -> None:
    """Load the embedding model before anything is timed: one text loads the numpy engine,
    a bulk-sized batch the torch one (the local embedder keeps both)."""
    await embedder.embed(["warm-up: load the model before anything is timed"])
    await embedder.embed([f"warm-up text {n}" for n in range(getattr(embedder, "BULK_TEXTS", 1))])
