"""video_batch_analyze: every video of a directory analysed with one instruction.

Two deliveries: `direct` analyses the videos `batch_concurrency` at a time through the
ordinary one-shot path (cache, write-through), reporting progress per video; `batch`
answers cache hits at once and sends everything else to Gemini as one Batch API job
(`analysis.analyze_batch`). Either way each video is an item with its result or its error,
so one bad file never fails the rest.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

from video_research.clients.gemini import client as gemini
from video_research.support import paths
from video_research.support.errors import ErrorCategory, ToolFailure, make_tool_error
from video_research.video import analysis as video_analysis
from video_research.video import input as video_input

logger = logging.getLogger(__name__)


async def analyze_directory(
    given: str,
    request: video_analysis.Request,
    *,
    instruction: str,
    glob_pattern: str,
    max_files: int,
    delivery: str,
    ctx: Any,
) -> dict[str, Any]:
    """video_batch_analyze's result for the directory `given`, confined to what the caller
    of `ctx` (the call's context: settings, readable roots, progress) may read."""
    settings = ctx.settings
    directory = await paths.confine(given, ctx)
    if not directory.is_dir():
        raise ToolFailure(ErrorCategory.NOT_FOUND, f"No such directory: {given}")
    files, skipped = await asyncio.to_thread(_batch_files, directory, glob_pattern, max_files)
    if files:
        gemini.require_api_key(settings)
    if delivery == "batch":
        items, job = await _batch_mode(files, request, ctx, directory)
    else:
        items, job = await _direct_mode(files, request, ctx, settings.batch_concurrency), None
    succeeded = sum(1 for i in items if i["status"] == "ok")
    result: dict[str, Any] = {
        "directory": str(directory),
        "instruction": instruction,
        "delivery": delivery,
        "total_files": len(files),
        "succeeded": succeeded,
        "failed": len(files) - succeeded,
        "skipped": skipped,
        "items": items,
    }
    if job is not None:
        result["batch_job"] = job
    usages = [i["result"]["usage"] for i in items if i["status"] == "ok" and "usage" in i["result"]]
    if usages:
        total = {k: sum(u.get(k, 0) for u in usages) for k in usages[0] if k != "batch"}
        if delivery == "batch":
            total["batch"] = True
        result["usage"] = total
    return result


def _batch_files(directory: Path, pattern: str, max_files: int) -> tuple[list[Path], list[str]]:
    """(videos to analyse, matching files skipped) for a directory and glob."""
    paths.check_glob(pattern)
    matches = sorted(p for p in directory.glob(pattern) if paths.is_listed_file(p))
    videos = [p for p in matches if p.suffix.lower() in video_input.VIDEO_MIME_TYPES]
    skipped = [str(p) for p in matches if p.suffix.lower() not in video_input.VIDEO_MIME_TYPES]
    skipped += [str(p) for p in videos[max_files:]]
    return videos[:max_files], skipped


def _item(path: Path, result: dict[str, Any] | None, error: BaseException | None) -> dict:
    item: dict[str, Any] = {"file_path": str(path), "file_name": path.name}
    if error is None and result is not None:
        item.update(status="ok", result=result)
    else:
        item.update(
            status="error", error=make_tool_error(error or RuntimeError("no result")).to_json_dict()
        )
        logger.warning("batch: %s failed: %s", path.name, item["error"]["error"])
    return item


async def _direct_mode(
    files: list[Path], request: video_analysis.Request, ctx: Any, concurrency: int
) -> list[dict[str, Any]]:
    semaphore = asyncio.Semaphore(concurrency)
    done = 0

    async def one(path: Path) -> dict[str, Any]:
        nonlocal done
        result, error = None, None
        async with semaphore:
            try:
                source = await video_input.from_file(str(path), ctx)
                result = await video_analysis.analyze(
                    source, request, use_cache=True, tool="video_batch_analyze"
                )
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                error = exc
        item = _item(path, result, error)
        done += 1
        await ctx.report_progress(done, len(files), f"{path.name}: {item['status']}")
        return item

    await ctx.report_progress(0, len(files), f"{len(files)} file(s) to analyse")
    return list(await asyncio.gather(*(one(p) for p in files)))


async def _batch_mode(
    files: list[Path], request: video_analysis.Request, ctx: Any, directory: Path
) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """Cache hits answer at once; everything else goes to Gemini as one Batch API job."""
    items = [video_analysis.BatchItem(key=str(n)) for n in range(len(files))]
    for item, path in zip(items, files, strict=True):
        try:
            item.source = await video_input.from_file(str(path), ctx)
            item.result = await asyncio.to_thread(
                video_analysis.cached_result, item.source, request
            )
        except ToolFailure as failure:
            item.error = failure
    run = await video_analysis.analyze_batch(
        items,
        request,
        tool="video_batch_analyze",
        progress=ctx.report_progress,
        display_name=f"video_batch_analyze {directory.name}",
    )
    items_out = [_item(p, i.result, i.error) for p, i in zip(files, items, strict=True)]
    return items_out, run.summary()
