"""One video analysis: analysis cache -> Gemini (a live context cache when there is one) ->
analysis cache -> knowledge store; and many of them through the Batch API.

What makes two analyses "the same" (the analysis cache key and the knowledge object id):
the video (YouTube ID or file hash), the instruction, a custom output schema, the clip
and sampling, and the model.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from video_research.clients.gemini import batch as gemini_batch
from video_research.clients.gemini import caching as gemini_caching
from video_research.clients.gemini import client as gemini
from video_research.clients.gemini import templates as prompts
from video_research.config import Settings
from video_research.knowledge import writethrough
from video_research.support import contracts
from video_research.support.cache import get_cache
from video_research.support.errors import ToolFailure
from video_research.support.services import current_settings
from video_research.video import input as video_input
from video_research.video.input import Sampling, VideoSource

if TYPE_CHECKING:
    from video_research.support.schema_types.common.gemini import ContextCache
    from video_research.support.schema_types.tools import VideoAnalyzeOutput

logger = logging.getLogger(__name__)

VIDEO_RESULT_SCHEMA = "common/video_result.json"
CACHE_TOOL = "video_analyze"

ProgressFn = Callable[[float, float | None, str | None], Awaitable[None]]


@dataclass(frozen=True)
class Request:
    """What to ask of a video: the parts of a call that shape the answer."""

    instruction: str
    output_schema: dict[str, Any] | None
    thinking_level: str
    sampling: Sampling
    model: str

    @property
    def key_instruction(self) -> str:
        """The instruction as caches and knowledge ids see it: a custom schema and the
        clip/sampling are part of the question."""
        key = self.instruction
        if self.output_schema is not None:
            key += "\n#schema:" + json.dumps(self.output_schema, sort_keys=True)
        if not self.sampling.is_default:
            key += "\n#sampling:" + self.sampling.tag()
        return key

    @property
    def schema(self) -> dict[str, Any]:
        if self.output_schema is None:
            return contracts.gemini_response_schema(VIDEO_RESULT_SCHEMA)
        return self.output_schema

    @property
    def prompt(self) -> str:
        template = "video_analysis" if self.output_schema is None else "video_custom"
        return prompts.render(template, instruction=self.instruction)

    def config(self, *, cached: bool = False) -> Any:
        """The generation config (media resolution lives in the cache when one is used)."""
        return gemini.generation_config(
            response_schema=self.schema,
            thinking_level=self.thinking_level,
            media_resolution=None if cached else self.sampling.media_resolution,
        )


def make_request(
    instruction: str,
    output_schema: dict[str, Any] | None,
    thinking_level: str,
    sampling: Sampling,
    settings: Settings | None = None,
) -> Request:
    settings = settings or current_settings()
    return Request(instruction, output_schema, thinking_level, sampling, settings.default_model)


def cached_result(source: VideoSource, request: Request) -> VideoAnalyzeOutput | None:
    hit = get_cache().load(
        source.content_id, CACHE_TOOL, request.model, instruction=request.key_instruction
    )
    # what `finish` saved under this request's key, read back as the JSON it was
    return None if hit is None else cast("VideoAnalyzeOutput", {**hit, "cached": True})


async def analyze(
    source: VideoSource, request: Request, *, use_cache: bool, tool: str
) -> VideoAnalyzeOutput:
    """One video through cache -> Gemini -> cache -> knowledge store."""
    if use_cache:
        hit = await asyncio.to_thread(cached_result, source, request)
        if hit is not None:
            return hit
    gemini.require_api_key()
    video_uri, mime_type = await _remote_video(source)
    generation: gemini.Generation | None = None
    context: ContextCache = {"state": "off"}
    if video_uri is not None:
        generation, context = await _from_context_cache(video_uri, request)
    if generation is None:
        if video_uri is not None:
            part = gemini.with_video_metadata(
                gemini.file_uri_part(video_uri, mime_type), request.sampling.video_metadata()
            )
        else:
            part = await video_input.video_part(source, sampling=request.sampling)
        generation = await gemini.generate(
            [gemini.user_content(part, gemini.text_part(request.prompt))],
            model=request.model,
            response_schema=request.schema,
            thinking_level=request.thinking_level,
            media_resolution=request.sampling.media_resolution,
        )
    data = gemini.parse_structured(generation, request.schema)
    return await finish(source, request, data, generation, tool=tool, context=context)


async def finish(
    source: VideoSource,
    request: Request,
    data: dict[str, Any],
    generation: gemini.Generation,
    *,
    tool: str,
    context: ContextCache | None = None,
) -> VideoAnalyzeOutput:
    """Save a fresh analysis (cache, knowledge store) and return it as the tool reports it."""
    if request.output_schema is None:
        data = {
            **data,
            "source": source.source,
            "content_id": source.content_id,
            "model": generation.model,
        }
        if not request.sampling.is_default:
            data["sampling"] = request.sampling.to_json()
    await asyncio.to_thread(
        get_cache().save,
        source.content_id,
        CACHE_TOOL,
        request.model,
        data,
        request.key_instruction,
    )
    await writethrough.store_video_analysis(
        data,
        source.content_id,
        request.instruction,
        source.source,
        source_tool=tool,
        model=request.model,
        key_instruction=request.key_instruction,
    )
    result = {**data, "cached": False}
    if request.output_schema is None:
        usage = generation.tokens.copy()
        if generation.usage.get("batch"):
            usage["batch"] = True
        result["usage"] = usage
        if context is not None:
            result["context_cache"] = context
    # `data` passed `request.schema` in gemini.parse_structured: the analysis contract's
    # video result, or the caller's own output_schema (an object the contract leaves open)
    return cast("VideoAnalyzeOutput", result)


async def _remote_video(source: VideoSource) -> tuple[str | None, str]:
    """(URI, MIME type) when Gemini reads the video by reference (YouTube, or a file large
    enough for the File API); (None, ...) for a small file sent inline."""
    if source.kind == "youtube":
        return source.source, "video/mp4"
    if source.size >= video_input.INLINE_LIMIT_BYTES:
        file = await video_input.uploaded(source)
        return file.uri, file.mime_type
    return None, source.mime_type


async def _from_context_cache(
    video_uri: str, request: Request
) -> tuple[gemini.Generation | None, ContextCache]:
    """The analysis from a live context cache of this video (a session's), if any."""
    key = gemini_caching.cache_key(
        video_uri=video_uri,
        video_metadata=request.sampling.video_metadata(),
        media_resolution=request.sampling.media_resolution,
        model=request.model,
    )
    row = await gemini_caching.live(key)
    if row is None:
        return None, {"state": "off"}
    try:
        generation = await gemini.generate(
            [gemini.user_content(gemini.text_part(request.prompt))],
            model=request.model,
            response_schema=request.schema,
            thinking_level=request.thinking_level,
            cached_content=row.name,
        )
    except ToolFailure as failure:
        if not gemini_caching.is_gone(failure):
            raise
        logger.info("context cache %s is gone (%s); sending the video", row.name, failure.message)
        await gemini_caching.forget(row.name)
        return None, {"state": "off"}
    return generation, {"state": "used", "name": row.name}


# ----------------------------------------------------------------------------- Batch API


@dataclass
class BatchItem:
    """One file of a batch: its source once resolved, its result or error when done."""

    key: str
    source: VideoSource | None = None
    result: VideoAnalyzeOutput | None = None
    error: BaseException | None = None


async def analyze_batch(
    items: list[BatchItem],
    request: Request,
    *,
    tool: str,
    progress: ProgressFn,
    display_name: str,
) -> gemini_batch.BatchRun:
    """Analyse the items still without a result through one Batch API job.

    Each file is uploaded first (reused when already uploaded), so the job's requests
    carry File API URIs, not video bytes. Results land in the items; a failed upload or
    answer fails its item alone.
    """
    pending = [i for i in items if i.result is None and i.error is None and i.source]
    parts: dict[str, Any] = {}
    for number, item in enumerate(pending, start=1):
        assert item.source is not None
        try:
            parts[item.key] = await video_input.video_part(
                item.source, upload=True, sampling=request.sampling
            )
        except ToolFailure as failure:
            item.error = failure
        await progress(number, None, f"prepared {item.source.label} for the batch job")
    ready = [i for i in pending if i.key in parts]
    requests = [
        gemini_batch.BatchRequest(
            key=item.key,
            contents=[gemini.user_content(parts[item.key], gemini.text_part(request.prompt))],
            config=request.config(),
        )
        for item in ready
    ]
    run = await gemini_batch.run_batch(
        requests,
        model=request.model,
        progress=progress,
        progress_start=len(pending),
        display_name=display_name,
    )
    by_key = {item.key: item for item in ready}
    for outcome in run.results:
        item = by_key[outcome.key]
        assert item.source is not None
        if outcome.error is not None or outcome.generation is None:
            item.error = outcome.error
            continue
        try:
            data = gemini.parse_structured(outcome.generation, request.schema)
            item.result = await finish(item.source, request, data, outcome.generation, tool=tool)
        except ToolFailure as failure:
            item.error = failure
    return run
