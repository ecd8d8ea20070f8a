"""content_batch_analyze: many local files, one instruction, per file or compared.

Files come from a directory and glob or from a list; every one is confined to the roots
this caller may read (paths.readable_roots: blessed and up) and read the way
content_analyze reads a file (PDF inline, text files as text, 20 MB each). In
`individual` mode each file is one content_analyze-shaped analysis, VIDEO_RESEARCH_BATCH_
CONCURRENCY at a time, written through to the knowledge base; in `compare` mode the files
that could be read go to Gemini together, each introduced by its name, for one comparison.
Either way a file that cannot be read or analysed fails alone, in its item, with a
ToolError; progress is reported per file.

`file_request` builds the Gemini request for one file: the one place to change when the
requests go through the Batch API instead.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

from video_research import contracts, gemini, paths, prompts
from video_research.config import get_config
from video_research.context import CallContext
from video_research.errors import ErrorCategory, ToolFailure, invalid_input, make_tool_error
from video_research.handlers.content import CONTENT_RESULT_SCHEMA, MAX_FILE_BYTES, TEXT_SUFFIXES
from video_research.handlers.content import _read_file as read_file
from video_research.knowledge import writethrough

logger = logging.getLogger(__name__)

COMPARISON = "common/content_batch.json"
SUPPORTED = frozenset({".pdf", *TEXT_SUFFIXES})
EXPAND_LIMIT = 5000
"""Most matching files looked at in a directory: a glob over a huge tree stops here."""
COMPARE_BYTES = MAX_FILE_BYTES
"""Most bytes compared in one request (Gemini's inline request limit)."""


def file_request(part: Any, instruction: str, custom: bool) -> list[Any]:
    """The Gemini contents for analysing one file (its part, then the instruction)."""
    template = "content_custom" if custom else "content_analysis"
    return [
        gemini.user_content(
            part, gemini.text_part(prompts.render(template, instruction=instruction))
        )
    ]


def _expand(directory: Path, pattern: str, max_files: int) -> tuple[list[Path], list[str]]:
    """(supported files, in name order, up to max_files; the paths skipped) of a directory."""
    matches: list[Path] = []
    for found in directory.glob(pattern):
        relative = found.relative_to(directory).parts
        if any(part.startswith(".") for part in relative) or not found.is_file():
            continue
        matches.append(found)
        if len(matches) >= EXPAND_LIMIT:
            break
    matches.sort()
    supported = [p for p in matches if p.suffix.lower() in SUPPORTED]
    skipped = [str(p) for p in matches if p.suffix.lower() not in SUPPORTED]
    return supported[:max_files], skipped + [str(p) for p in supported[max_files:]]


async def _targets(
    args: dict[str, Any], ctx: CallContext
) -> tuple[list[tuple[str, Path | None, ToolFailure | None]], list[str], str | None]:
    """([(as given, confined path or None, why not)], skipped, directory) for the request."""
    given = [name for name in ("directory", "file_paths") if args.get(name)]
    if len(given) != 1:
        raise invalid_input("Pass exactly one of directory or file_paths.")
    if args.get("directory"):
        paths.check_glob(args["glob_pattern"])
    roots, client_roots = await paths.readable_roots(ctx)
    if args.get("directory"):
        directory = paths.confine_to(args["directory"], roots, client_roots)
        if not directory.is_dir():
            raise ToolFailure(
                ErrorCategory.FILE_NOT_FOUND, f"No such directory: {args['directory']}"
            )
        found, skipped = await asyncio.to_thread(
            _expand, directory, args["glob_pattern"], args["max_files"]
        )
        candidates, named = [str(p) for p in found], str(directory)
    else:
        unique = list(dict.fromkeys(args["file_paths"]))
        candidates, skipped, named = unique[: args["max_files"]], unique[args["max_files"] :], None
    targets: list[tuple[str, Path | None, ToolFailure | None]] = []
    for raw in candidates:
        try:
            targets.append((raw, paths.confine_to(raw, roots, client_roots), None))
        except ToolFailure as failure:  # e.g. a link inside a root that points outside it
            targets.append((raw, None, failure))
    return targets, skipped, named


def _failed(item: dict[str, Any], exc: BaseException) -> dict[str, Any]:
    item["status"] = "error"
    item["error"] = make_tool_error(exc).to_json_dict()
    logger.warning("content batch: %s failed: %s", item["file_name"], item["error"]["error"])
    return item


async def content_batch_analyze(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    output_schema = args.get("output_schema")
    if output_schema is not None:
        contracts.check_caller_schema(output_schema, "output_schema")
    targets, skipped, directory = await _targets(args, ctx)
    if targets:
        gemini.require_api_key()
    run = _individual if args["mode"] == "individual" else _compare
    items, extra = await run(targets, args, output_schema, ctx)
    succeeded = sum(1 for item in items if item["status"] == "ok")
    result = {
        "mode": args["mode"],
        "instruction": args["instruction"],
        "total_files": len(items),
        "succeeded": succeeded,
        "failed": len(items) - succeeded,
        "skipped": skipped,
        "items": items,
        **extra,
    }
    if directory is not None:
        result["directory"] = directory
    return result


async def _individual(
    targets: list[tuple[str, Path | None, ToolFailure | None]],
    args: dict[str, Any],
    output_schema: dict[str, Any] | None,
    ctx: CallContext,
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    custom = output_schema is not None
    schema = output_schema if custom else contracts.gemini_response_schema(CONTENT_RESULT_SCHEMA)
    semaphore = asyncio.Semaphore(get_config().batch_concurrency)
    done = 0

    async def one(raw: str, path: Path | None, refused: ToolFailure | None) -> dict[str, Any]:
        nonlocal done
        item: dict[str, Any] = {"file_path": str(path or raw), "file_name": Path(raw).name}
        async with semaphore:
            try:
                if refused is not None:
                    raise refused
                assert path is not None
                part, source, content_key = await asyncio.to_thread(read_file, path, raw)
                data, generation = await gemini.generate_json(
                    file_request(part, args["instruction"], custom),
                    schema=schema,
                    thinking_level=args["thinking_level"],
                )
                if not custom:
                    data = {**data, "source": source, "source_type": "file"}
                    await writethrough.store_content_analysis(
                        data,
                        source,
                        args["instruction"],
                        content_key=content_key,
                        model=generation.model,
                        source_tool="content_batch_analyze",
                    )
                item.update(status="ok", result=data)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                _failed(item, exc)
        done += 1
        await ctx.report_progress(done, len(targets), f"{item['file_name']}: {item['status']}")
        return item

    await ctx.report_progress(0, len(targets), f"{len(targets)} file(s) to analyse")
    return list(await asyncio.gather(*(one(*t) for t in targets))), {}


async def _compare(
    targets: list[tuple[str, Path | None, ToolFailure | None]],
    args: dict[str, Any],
    output_schema: dict[str, Any] | None,
    ctx: CallContext,
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    total = len(targets) + 1
    items: list[dict[str, Any]] = []
    parts: list[Any] = []
    budget = COMPARE_BYTES
    for done, (raw, path, refused) in enumerate(targets, start=1):
        item: dict[str, Any] = {"file_path": str(path or raw), "file_name": Path(raw).name}
        try:
            if refused is not None:
                raise refused
            assert path is not None
            size = path.stat().st_size if path.is_file() else 0
            if size > budget:
                raise ToolFailure(
                    ErrorCategory.FILE_TOO_LARGE,
                    f"{path.name} does not fit in one comparison: the files compared together "
                    f"may hold {COMPARE_BYTES / 1e6:.0f} MB at most.",
                    hint="Compare fewer or smaller files, or use mode individual.",
                )
            part, _, _ = await asyncio.to_thread(read_file, path, raw)
            budget -= size
            parts += [gemini.text_part(f"File: {item['file_name']}"), part]
            item["status"] = "ok"
        except Exception as exc:
            _failed(item, exc)
        items.append(item)
        await ctx.report_progress(done, total, f"read {item['file_name']}: {item['status']}")
    readable = [item for item in items if item["status"] == "ok"]
    if len(readable) < 2:
        raise invalid_input(
            f"compare needs at least two readable files; {len(readable)} of {len(items)} could be read.",
            hint="details.items says why each file failed.",
            items=items,
        )
    custom = output_schema is not None
    schema = output_schema if custom else contracts.gemini_definition(COMPARISON, "comparison")
    instruction = prompts.render(
        "content_compare", count=len(readable), instruction=args["instruction"]
    )
    comparison, generation = await gemini.generate_json(
        [gemini.user_content(*parts, gemini.text_part(instruction))],
        schema=schema,
        thinking_level=args["thinking_level"],
    )
    await ctx.report_progress(total, total, "compared")
    return items, {"comparison": comparison, "model": generation.model}
