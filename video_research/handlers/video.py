"""video_analyze, video_batch_analyze, video_create_session, video_continue_session.

The work lives in video_analysis (one analysis, the Batch API) and video_sessions
(sessions with context caching); these handlers read the arguments and shape results.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

from video_research.clients.gemini import client as gemini
from video_research.handlers.context import CallContext
from video_research.knowledge import writethrough
from video_research.support import contracts, paths
from video_research.support.errors import ErrorCategory, ToolFailure, make_tool_error
from video_research.video import analysis as video_analysis
from video_research.video import input as video_input
from video_research.video import sessions as video_sessions
from video_research.video.input import Sampling

logger = logging.getLogger(__name__)

VIDEO_RESULT_SCHEMA = video_analysis.VIDEO_RESULT_SCHEMA


def _request(args: dict[str, Any]) -> video_analysis.Request:
    output_schema = args.get("output_schema")
    if output_schema is not None:
        contracts.check_caller_schema(output_schema, "output_schema")
    return video_analysis.make_request(
        args["instruction"], output_schema, args["thinking_level"], Sampling.from_args(args)
    )


async def video_analyze(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    request = _request(args)
    source = await video_input.resolve(args.get("url"), args.get("file_path"), ctx)
    return await video_analysis.analyze(
        source, request, use_cache=args["use_cache"], tool="video_analyze"
    )


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


async def video_batch_analyze(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    settings = ctx.settings
    request = _request(args)
    directory = await paths.confine(args["directory"], ctx)
    if not directory.is_dir():
        raise ToolFailure(ErrorCategory.FILE_NOT_FOUND, f"No such directory: {args['directory']}")
    files, skipped = await asyncio.to_thread(
        _batch_files, directory, args["glob_pattern"], args["max_files"]
    )
    if files:
        gemini.require_api_key(settings)
    delivery = args.get("delivery", "direct")
    if delivery == "batch":
        items, job = await _batch_mode(files, request, ctx, directory)
    else:
        items, job = await _direct_mode(files, request, ctx, settings.batch_concurrency), None
    succeeded = sum(1 for i in items if i["status"] == "ok")
    result: dict[str, Any] = {
        "directory": str(directory),
        "instruction": args["instruction"],
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


async def _direct_mode(
    files: list[Path], request: video_analysis.Request, ctx: CallContext, concurrency: int
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
    files: list[Path], request: video_analysis.Request, ctx: CallContext, directory: Path
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


async def video_create_session(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    sampling = Sampling.from_args(args)
    source = await video_input.resolve(args.get("url"), args.get("file_path"), ctx)
    return await video_sessions.create(source, args["description"], sampling)


async def video_continue_session(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    session, generation, context = await video_sessions.turn(args["session_id"], args["prompt"])
    await writethrough.store_session_turn(
        session.session_id,
        session.video_title,
        session.turn_count,
        args["prompt"],
        generation.text,
        session.source,
    )
    return {
        "session_id": session.session_id,
        "response": generation.text,
        "turn_count": session.turn_count,
        "video_title": session.video_title,
        "usage": generation.tokens,
        "context_cache": context,
    }
