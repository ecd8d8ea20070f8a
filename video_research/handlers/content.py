"""The content toolset: content_analyze, content_extract and content_batch_analyze.

Documents, web pages and text through Gemini; the work is in `video_research.content`
(analysis: one source; batch: many files). These handlers check the arguments, the Gemini
key and the URL policy, confine paths to the caller's roots, and shape the batch result.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from video_research.clients.gemini import client as gemini
from video_research.content import analysis
from video_research.content import batch as content_batch
from video_research.handlers.context import CallContext
from video_research.support import contracts, paths, url_policy
from video_research.support.errors import invalid_input

if TYPE_CHECKING:
    from video_research.support.schema_types.tools import (
        ContentAnalyzeInput,
        ContentAnalyzeOutput,
        ContentBatchAnalyzeInput,
        ContentBatchAnalyzeOutput,
        ContentExtractInput,
        ContentExtractOutput,
    )


async def content_analyze(args: ContentAnalyzeInput, ctx: CallContext) -> ContentAnalyzeOutput:
    given = [name for name in ("file_path", "url", "text") if args.get(name)]
    if len(given) != 1:
        raise invalid_input(
            "Pass exactly one of file_path, url or text"
            + (f" (got {', '.join(given)})." if given else "."),
        )
    # the checked schema, typed as the open object it is (its TypedDict names no keys)
    output_schema: dict[str, Any] | None = None
    if args.get("output_schema") is not None:
        output_schema = contracts.check_caller_schema(args.get("output_schema"), "output_schema")
    gemini.require_api_key(ctx.settings)
    instruction, thinking = args["instruction"], args["thinking_level"]
    if given[0] == "url":
        url = await url_policy.check_url(args["url"], ctx.settings)
        return await analysis.analyze_url(url, instruction, output_schema, thinking)
    if given[0] == "file_path":
        confined = await paths.confine(args["file_path"], ctx)
        return await analysis.analyze_file(
            confined, args["file_path"], instruction, output_schema, thinking
        )
    return await analysis.analyze_text(args["text"], instruction, output_schema, thinking)


async def content_extract(args: ContentExtractInput, ctx: CallContext) -> ContentExtractOutput:
    schema = contracts.check_caller_schema(args["schema"], "schema")
    gemini.require_api_key(ctx.settings)
    return await analysis.extract(args["content"], schema)


async def content_batch_analyze(
    args: ContentBatchAnalyzeInput, ctx: CallContext
) -> ContentBatchAnalyzeOutput:
    # the checked schema, typed as the open object it is (its TypedDict names no keys)
    output_schema: dict[str, Any] | None = None
    if args.get("output_schema") is not None:
        output_schema = contracts.check_caller_schema(args.get("output_schema"), "output_schema")
    if len([name for name in ("directory", "file_paths") if args.get(name)]) != 1:
        raise invalid_input("Pass exactly one of directory or file_paths.")
    files = await content_batch.find_files(
        directory=args.get("directory"),
        file_paths=args.get("file_paths"),
        glob_pattern=args["glob_pattern"],
        max_files=args["max_files"],
        ctx=ctx,
    )
    if files.targets:
        gemini.require_api_key(ctx.settings)
    request = content_batch.FileAnalysis(
        instruction=args["instruction"],
        thinking_level=args["thinking_level"],
        output_schema=output_schema,
        delivery=args["delivery"],
    )
    if args["mode"] == "compare":
        items, extra = await content_batch.compare(files, request, ctx)
    elif args["delivery"] == "batch":
        items, extra = await content_batch.analyze_each_in_job(files, request, ctx)
    else:
        items, extra = await content_batch.analyze_each(
            files, request, ctx, concurrency=ctx.settings.batch_concurrency
        )
    succeeded = sum(1 for item in items if item["status"] == "ok")
    result: ContentBatchAnalyzeOutput = {
        "mode": args["mode"],
        "delivery": args["delivery"],
        "instruction": args["instruction"],
        "total_files": len(items),
        "succeeded": succeeded,
        "failed": len(items) - succeeded,
        "skipped": files.skipped,
        "items": items,
    }
    # what the mode adds, in the order it adds it
    if "comparison" in extra:
        result["comparison"] = extra["comparison"]
    if "model" in extra:
        result["model"] = extra["model"]
    if "batch_job" in extra:
        result["batch_job"] = extra["batch_job"]
    if files.directory is not None:
        result["directory"] = files.directory
    return result
