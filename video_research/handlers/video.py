"""video_analyze, video_batch_analyze, video_create_session, video_continue_session.

The work lives in video.analysis (one analysis, the Batch API), video.batch (a directory
of videos) and video.sessions (sessions with context caching); these handlers read the
arguments and shape results.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from video_research.handlers.context import CallContext
from video_research.knowledge import writethrough
from video_research.support import contracts
from video_research.support.youtube_urls import is_youtube_url
from video_research.video import analysis as video_analysis
from video_research.video import batch as video_batch
from video_research.video import input as video_input
from video_research.video import sessions as video_sessions
from video_research.video.input import Sampling

if TYPE_CHECKING:
    from video_research.support.schema_types.tools import (
        VideoAnalyzeInput,
        VideoAnalyzeOutput,
        VideoBatchAnalyzeInput,
        VideoBatchAnalyzeOutput,
        VideoContinueSessionInput,
        VideoContinueSessionOutput,
        VideoCreateSessionInput,
        VideoCreateSessionOutput,
    )


def _request(args: Mapping[str, Any]) -> video_analysis.Request:
    output_schema = args.get("output_schema")
    if output_schema is not None:
        contracts.check_caller_schema(output_schema, "output_schema")
    return video_analysis.make_request(
        args["instruction"], output_schema, args["thinking_level"], Sampling.from_args(args)
    )


async def video_analyze(args: VideoAnalyzeInput, ctx: CallContext) -> VideoAnalyzeOutput:
    request = _request(args)
    source = await video_input.resolve(args.get("url"), args.get("file_path"), ctx)
    return await video_analysis.analyze(
        source, request, use_cache=args["use_cache"], tool="video_analyze"
    )


async def video_batch_analyze(
    args: VideoBatchAnalyzeInput, ctx: CallContext
) -> VideoBatchAnalyzeOutput:
    return await video_batch.analyze_directory(
        args["directory"],
        _request(args),
        instruction=args["instruction"],
        glob_pattern=args["glob_pattern"],
        max_files=args["max_files"],
        delivery=args.get("delivery", "direct"),
        ctx=ctx,
    )


async def video_create_session(
    args: VideoCreateSessionInput, ctx: CallContext
) -> VideoCreateSessionOutput:
    sampling = Sampling.from_args(args)
    source = await video_input.resolve(args.get("url"), args.get("file_path"), ctx)
    return await video_sessions.create(source, args["description"], sampling)


async def video_continue_session(
    args: VideoContinueSessionInput, ctx: CallContext
) -> VideoContinueSessionOutput:
    session, generation, context = await video_sessions.turn(args["session_id"], args["prompt"])
    await writethrough.store_session_turn(
        session.session_id,
        session.video_title,
        session.turn_count,
        args["prompt"],
        generation.text,
        session.source,
    )
    result: VideoContinueSessionOutput = {
        "session_id": session.session_id,
        "response": generation.text,
        "turn_count": session.turn_count,
        "video_title": session.video_title,
        # The session's video, so that a client (the analysis view) can play the moments
        # the answer names: the text alone does not say which video it is about.
        "source": session.source,
        "usage": generation.tokens,
        "context_cache": context,
    }
    if is_youtube_url(session.source) and session.content_id:
        result["video_id"] = session.content_id
    return result
