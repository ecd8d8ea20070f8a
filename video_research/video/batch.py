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
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from video_research.clients.gemini import client as gemini
from video_research.support import paths
from video_research.support.errors import ErrorCategory, ToolFailure, make_tool_error
from video_research.video import analysis as video_analysis
from video_research.video import input as video_input

if TYPE_CHECKING:
    from video_research.support.schema_types.common.gemini import BatchJob, Usage
    from video_research.support.schema_types.tools import VideoBatchAnalyzeOutput
    from video_research.support.schema_types.tools.video_batch_analyze_output import Item

logger = logging.getLogger(__name__)


async def analyze_directory(
    given: str,
    request: video_analysis.Request,
    *,
    instruction: str,
    glob_pattern: str,
    max_files: int,
    delivery: Literal["direct", "batch"],
    ctx: Any,
) -> VideoBatchAnalyzeOutput:
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
    result: VideoBatchAnalyzeOutput = {
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
    usages: list[Usage] = [
        i["result"]["usage"] for i in items if i["status"] == "ok" and "usage" in i["result"]
    ]
    if usages:
        total: Usage = {
            "prompt_tokens": sum(u["prompt_tokens"] for u in usages),
            "cached_tokens": sum(u["cached_tokens"] for u in usages),
            "uncached_prompt_tokens": sum(u["uncached_prompt_tokens"] for u in usages),
            "output_tokens": sum(u["output_tokens"] for u in usages),
            "thoughts_tokens": sum(u["thoughts_tokens"] for u in usages),
            "total_tokens": sum(u["total_tokens"] for u in usages),
        }
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


def _item(path: Path, result: Mapping[str, Any] | None, error: BaseException | None) -> Item:
    if error is None and result is not None:
        return {
            "file_path": str(path),
            "file_name": path.name,
            "status": "ok",
            "result": {**result},
        }
    failure = make_tool_error(error or RuntimeError("no result")).to_contract()
    logger.warning("batch: %s failed: %s", path.name, failure["error"])
    return {"file_path": str(path), "file_name": path.name, "status": "error", "error": failure}


async def _direct_mode(
    files: list[Path], request: video_analysis.Request, ctx: Any, concurrency: int
) -> list[Item]:
    semaphore = asyncio.Semaphore(concurrency)
    done = 0

    async def one(path: Path) -> Item:
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
) -> tuple[list[Item], BatchJob | None]:
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
