"""Many local files, one instruction, analysed per file or compared (content_batch_analyze).

Files come from a directory and glob or from a list; every one is confined to the roots
this caller may read (paths.readable_roots: blessed and up) and read the way
content_analyze reads a file (PDF inline, text files as text, 20 MB each). In
`individual` mode each file is one content_analyze-shaped analysis, VIDEO_RESEARCH_BATCH_
CONCURRENCY at a time, written through to the knowledge base; in `compare` mode the files
that could be read go to Gemini together, each introduced by its name, for one comparison.
Either way a file that cannot be read or analysed fails alone, in its item, with a
ToolError; progress is reported per file.

`delivery: batch` sends the same requests as one Gemini Batch API job instead (half
price, results later; gemini_batch.run_batch): every file of `individual` mode is one
request of the job, a `compare` is a job of one request. A job carries at most
INLINE_JOB_BYTES of files inline; the files past that go by File API reference
(gemini_files.ensure_uploaded, reused by content hash).
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, TypedDict

from video_research.clients.gemini import batch as gemini_batch
from video_research.clients.gemini import client as gemini
from video_research.clients.gemini import files as gemini_files
from video_research.clients.gemini import templates as prompts
from video_research.content.analysis import (
    MAX_FILE_BYTES,
    TEXT_SUFFIXES,
    file_request,
    read_file,
    result_schema,
)
from video_research.knowledge import writethrough
from video_research.support import contracts, paths
from video_research.support.errors import ErrorCategory, ToolFailure, invalid_input, make_tool_error

if TYPE_CHECKING:
    from video_research.support.schema_types.common.gemini import BatchJob
    from video_research.support.schema_types.tools.content_batch_analyze_output import Item

logger = logging.getLogger(__name__)

Mode = Literal["individual", "compare"]
Delivery = Literal["direct", "batch"]

COMPARISON = "common/content_batch.json"
SUPPORTED = frozenset({".pdf", *TEXT_SUFFIXES})
EXPAND_LIMIT = 5000
"""Most matching files looked at in a directory: a glob over a huge tree stops here."""
COMPARE_BYTES = MAX_FILE_BYTES
"""Most bytes compared in one request (Gemini's inline request limit)."""
INLINE_JOB_BYTES = 16 * 1024 * 1024
"""Most file bytes (base64 counted) one Batch API job carries inline: Gemini takes about
20 MB of inline requests per job, and the prompts and JSON need the rest."""


class Target(NamedTuple):
    """One file of a batch: as the caller named it, confined to the roots, or why not."""

    given: str
    path: Path | None
    refused: ToolFailure | None


@dataclass(frozen=True)
class FileSet:
    """The files a batch analyses, the matching files it leaves out, and the directory
    they came from (None for a list of files)."""

    targets: list[Target]
    skipped: list[str]
    directory: str | None


class Extra(TypedDict, total=False):
    """The result fields a mode adds to content_batch_analyze's counts and items."""

    comparison: dict[str, Any]
    model: str
    batch_job: BatchJob


@dataclass(frozen=True)
class FileAnalysis:
    """What to ask of every file, and how to send it."""

    instruction: str
    thinking_level: str
    output_schema: dict[str, Any] | None
    delivery: Delivery

    @property
    def custom(self) -> bool:
        return self.output_schema is not None


class _JobParts:
    """Turns file parts into parts a Batch API job can carry: inline while the job's inline
    budget lasts, a File API reference after that."""

    def __init__(self) -> None:
        self.budget = INLINE_JOB_BYTES

    async def part(self, part: Any, path: Path, content_key: str) -> Any:
        inline = part.inline_data
        size = len(inline.data) * 4 // 3 if inline is not None else len(part.text.encode())
        if size <= self.budget:
            self.budget -= size
            return part
        mime_type = "application/pdf" if inline is not None else "text/plain"
        uploaded = await gemini_files.ensure_uploaded(
            path, mime_type, sha256=content_key.removeprefix("file:")
        )
        return gemini.file_uri_part(uploaded.uri, uploaded.mime_type)


def _display_name(directory: str | None, count: int) -> str:
    return f"content_batch_analyze {Path(directory).name if directory else f'{count} files'}"


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


async def find_files(
    *,
    directory: str | None,
    file_paths: list[str] | None,
    glob_pattern: str,
    max_files: int,
    ctx: Any,
) -> FileSet:
    """The files of a directory and glob, or of a list (exactly one is given), each
    confined to the roots `ctx`'s caller may read; a file outside them fails alone."""
    if directory:
        paths.check_glob(glob_pattern)
    roots, client_roots = await paths.readable_roots(ctx)
    if directory:
        confined = paths.confine_to(directory, roots, client_roots)
        if not confined.is_dir():
            raise ToolFailure(ErrorCategory.NOT_FOUND, f"No such directory: {directory}")
        found, skipped = await asyncio.to_thread(_expand, confined, glob_pattern, max_files)
        candidates, named = [str(p) for p in found], str(confined)
    else:
        unique = list(dict.fromkeys(file_paths or []))
        candidates, skipped, named = unique[:max_files], unique[max_files:], None
    targets: list[Target] = []
    for raw in candidates:
        try:
            targets.append(Target(raw, paths.confine_to(raw, roots, client_roots), None))
        except ToolFailure as failure:  # e.g. a link inside a root that points outside it
            targets.append(Target(raw, None, failure))
    return FileSet(targets, skipped, named)


def _ok(file_path: str, file_name: str, result: dict[str, Any]) -> Item:
    return {"file_path": file_path, "file_name": file_name, "status": "ok", "result": result}


def _failed(file_path: str, file_name: str, exc: BaseException) -> Item:
    error = make_tool_error(exc).to_json_dict()
    logger.warning("content batch: %s failed: %s", file_name, error["error"])
    return {"file_path": file_path, "file_name": file_name, "status": "error", "error": error}


async def analyze_each(
    files: FileSet, analysis: FileAnalysis, ctx: Any, *, concurrency: int
) -> tuple[list[Item], Extra]:
    """`individual` mode, direct: each file one content_analyze-shaped analysis,
    `concurrency` at a time, written through; (items, extra result fields)."""
    targets = files.targets
    custom = analysis.custom
    schema = result_schema(analysis.output_schema)
    semaphore = asyncio.Semaphore(concurrency)
    done = 0

    async def one(raw: str, path: Path | None, refused: ToolFailure | None) -> Item:
        nonlocal done
        file_path, file_name = str(path or raw), Path(raw).name
        async with semaphore:
            try:
                if refused is not None:
                    raise refused
                assert path is not None
                part, source, content_key = await asyncio.to_thread(read_file, path, raw)
                data, generation = await gemini.generate_json(
                    file_request(part, analysis.instruction, custom),
                    schema=schema,
                    thinking_level=analysis.thinking_level,
                )
                if not custom:
                    data = {**data, "source": source, "source_type": "file"}
                    await writethrough.store_content_analysis(
                        data,
                        source,
                        analysis.instruction,
                        content_key=content_key,
                        model=generation.model,
                        source_tool="content_batch_analyze",
                    )
                item = _ok(file_path, file_name, data)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                item = _failed(file_path, file_name, exc)
        done += 1
        await ctx.report_progress(done, len(targets), f"{item['file_name']}: {item['status']}")
        return item

    await ctx.report_progress(0, len(targets), f"{len(targets)} file(s) to analyse")
    return list(await asyncio.gather(*(one(*t) for t in targets))), {}


async def analyze_each_in_job(
    files: FileSet, analysis: FileAnalysis, ctx: Any
) -> tuple[list[Item], Extra]:
    """`individual` mode through one Batch API job: read every file (progress per file),
    submit the readable ones, then collect and write through each answer."""
    targets = files.targets
    custom = analysis.custom
    schema = result_schema(analysis.output_schema)
    config = gemini.generation_config(
        response_schema=schema, thinking_level=analysis.thinking_level
    )
    job_parts = _JobParts()
    # each file's item by its number: a file that cannot be read fails now, the others
    # when their answers come back (one per request), and the items keep the files' order
    items: dict[int, Item] = {}
    requests: list[gemini_batch.BatchRequest] = []
    pending: dict[str, tuple[int, str, str, str, str]] = {}
    for number, (raw, path, refused) in enumerate(targets, start=1):
        file_path, file_name = str(path or raw), Path(raw).name
        try:
            if refused is not None:
                raise refused
            assert path is not None
            part, source, content_key = await asyncio.to_thread(read_file, path, raw)
            part = await job_parts.part(part, path, content_key)
            key = str(number)
            requests.append(
                gemini_batch.BatchRequest(
                    key, file_request(part, analysis.instruction, custom), config
                )
            )
            pending[key] = (number, file_path, file_name, source, content_key)
            message = f"prepared {file_name} for the batch job"
        except Exception as exc:
            items[number] = _failed(file_path, file_name, exc)
            message = f"{file_name}: error"
        await ctx.report_progress(number, None, message)
    run = await gemini_batch.run_batch(
        requests,
        progress=ctx.report_progress,
        progress_start=len(targets),
        display_name=_display_name(files.directory, len(targets)),
    )
    for outcome in run.results:
        number, file_path, file_name, source, content_key = pending[outcome.key]
        try:
            if outcome.error is not None or outcome.generation is None:
                raise outcome.error or ToolFailure(ErrorCategory.INTERNAL_ERROR, "No answer.")
            data = gemini.parse_structured(outcome.generation, schema)
            if not custom:
                data = {**data, "source": source, "source_type": "file"}
                await writethrough.store_content_analysis(
                    data,
                    source,
                    analysis.instruction,
                    content_key=content_key,
                    model=outcome.generation.model,
                    source_tool="content_batch_analyze",
                )
            items[number] = _ok(file_path, file_name, data)
        except Exception as exc:
            items[number] = _failed(file_path, file_name, exc)
    job = run.summary()
    return [items[n] for n in sorted(items)], {} if job is None else {"batch_job": job}


async def _compare_job(
    contents: list[Any],
    schema: dict[str, Any],
    analysis: FileAnalysis,
    ctx: Any,
    **kw: Any,
) -> tuple[dict[str, Any], gemini.Generation, BatchJob]:
    """One comparison as a one-request Batch API job: (answer, generation, batch_job)."""
    request = gemini_batch.BatchRequest(
        "compare",
        contents,
        gemini.generation_config(response_schema=schema, thinking_level=analysis.thinking_level),
    )
    run = await gemini_batch.run_batch([request], progress=ctx.report_progress, **kw)
    (outcome,) = run.results
    if outcome.error is not None or outcome.generation is None:
        raise outcome.error or ToolFailure(ErrorCategory.INTERNAL_ERROR, "No answer.")
    job = run.summary()
    assert job is not None
    return gemini.parse_structured(outcome.generation, schema), outcome.generation, job


async def compare(files: FileSet, analysis: FileAnalysis, ctx: Any) -> tuple[list[Item], Extra]:
    """`compare` mode: the readable files to Gemini together, each introduced by its name,
    for one comparison (directly, or as a one-request Batch API job); (items, extra
    result fields: comparison, model, batch_job)."""
    targets = files.targets
    batch = analysis.delivery == "batch"
    total = None if batch else len(targets) + 1
    job_parts = _JobParts() if batch else None
    items: list[Item] = []
    parts: list[Any] = []
    budget = COMPARE_BYTES
    for done, (raw, path, refused) in enumerate(targets, start=1):
        file_path, file_name = str(path or raw), Path(raw).name
        try:
            if refused is not None:
                raise refused
            assert path is not None
            size = path.stat().st_size if path.is_file() else 0
            if size > budget:
                raise ToolFailure(
                    ErrorCategory.TOO_LARGE,
                    f"{path.name} does not fit in one comparison: the files compared together "
                    f"may hold {COMPARE_BYTES / 1e6:.0f} MB at most.",
                    hint="Compare fewer or smaller files, or use mode individual.",
                )
            part, _, content_key = await asyncio.to_thread(read_file, path, raw)
            if job_parts is not None:
                part = await job_parts.part(part, path, content_key)
            budget -= size
            parts += [gemini.text_part(f"File: {file_name}"), part]
            item: Item = {"file_path": file_path, "file_name": file_name, "status": "ok"}
        except Exception as exc:
            item = _failed(file_path, file_name, exc)
        items.append(item)
        await ctx.report_progress(done, total, f"read {item['file_name']}: {item['status']}")
    readable = [item for item in items if item["status"] == "ok"]
    if len(readable) < 2:
        raise invalid_input(
            f"compare needs at least two readable files; {len(readable)} of {len(items)} could be read.",
            hint="details.items says why each file failed.",
            items=items,
        )
    schema = (
        analysis.output_schema
        if analysis.output_schema is not None
        else contracts.gemini_definition(COMPARISON, "comparison")
    )
    instruction = prompts.render(
        "content_compare", count=len(readable), instruction=analysis.instruction
    )
    contents = [gemini.user_content(*parts, gemini.text_part(instruction))]
    if batch:
        comparison, generation, job = await _compare_job(
            contents,
            schema,
            analysis,
            ctx,
            progress_start=len(targets),
            display_name=_display_name(files.directory, len(targets)),
        )
        return items, {"comparison": comparison, "model": generation.model, "batch_job": job}
    comparison, generation = await gemini.generate_json(
        contents, schema=schema, thinking_level=analysis.thinking_level
    )
    await ctx.report_progress(len(targets) + 1, total, "compared")
    return items, {"comparison": comparison, "model": generation.model}
