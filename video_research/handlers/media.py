"""The media toolset: frames, contact sheets, scene cuts and on-screen text of local videos.

Each handler confines the path to the caller's roots, then runs the media package's plain
functions in a bounded worker process of the media pool (`parse_isolated`): the server never
decodes an untrusted file itself, so a decoder bug, a memory bomb or a hang costs one worker
and fails one call (the limits: `media.limits.worker_limits`). The worker reports the media
time it has reached through its `tick` (a pipe, at most twice a second); the server turns it
into progress (percent of the range's duration). A cancelled call kills its worker at once.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict, TypeVar

from video_research.handlers.context import CallContext
from video_research.media.limits import MediaLimits, worker_limits
from video_research.support import paths
from video_research.support.isolation import MEDIA_POOL, WorkerProgress, parse_isolated
from video_research.support.progress import Stages

if TYPE_CHECKING:
    from video_research.media.coverage import Coverage
    from video_research.media.frames import EncodedFrame
    from video_research.support.schema_types.common import media as contract
    from video_research.support.schema_types.tools import (
        MediaContactSheetInput,
        MediaContactSheetOutput,
        MediaFramesInput,
        MediaFramesOutput,
        MediaScenesInput,
        MediaScenesOutput,
        MediaScreenTextInput,
        MediaScreenTextOutput,
    )
    from video_research.support.schema_types.tools.media_screen_text_output import Indexed


def file_uri_time(given: str) -> tuple[str, float | None]:
    """(path, seconds) of a `file://` link with a `#t=` fragment, as `link` writes and the
    transcript index stores for local files; (given, None) for a plain path. So a search
    hit's `timestamp_url` can be passed straight to `media_frames` as its path."""
    if not given.startswith("file://"):
        return given, None
    from urllib.parse import unquote, urlparse

    parsed = urlparse(given)
    seconds = None
    if parsed.fragment.startswith("t="):
        try:
            seconds = max(0.0, float(parsed.fragment[2:].split(",")[0]))
        except ValueError:
            seconds = None
    return unquote(parsed.path), seconds


async def _confined(args: Mapping[str, Any], ctx: CallContext) -> tuple[str, MediaLimits]:
    from video_research.media.probe import check_suffix

    given, _ = file_uri_time(args["path"])
    path = await paths.confine(given, ctx)
    check_suffix(str(path))
    return str(path), MediaLimits.from_settings(ctx.settings)


def link(path: str, seconds: float) -> str:
    """The file at `seconds`: a file URI with a media fragment players understand."""
    return f"{Path(path).as_uri()}#t={seconds:.1f}"


def _ticker(ctx: CallContext, start: float, end: float | None, what: str) -> WorkerProgress | None:
    """Progress of a worker's `tick(seconds)`: percent of [start, end] (none when the end
    is unknown). The worker sends at most every isolation_worker.PROGRESS_EVERY_SECONDS."""
    if end is None:
        return None
    span = max(end - start, 1e-6)

    def report(seconds: float) -> Awaitable[None]:
        percent = round(min(99.0, max(0.0, (seconds - start) / span * 100)), 1)
        return ctx.report_progress(percent, 100.0, f"{what}: {seconds:.0f} of {end:.0f} s")

    return WorkerProgress("tick", report)


Found = TypeVar("Found")


async def _in_worker(
    ctx: CallContext,
    function: Callable[..., Found],
    path: str,
    *args: Any,
    work: str = "decode",
    tick: WorkerProgress | None = None,
    **kwargs: Any,
) -> Found:
    """`function(path, *args, **kwargs)` in a media worker under the limits of `work`."""
    return await parse_isolated(
        paths.printable(Path(path).name),
        function,
        path,
        *args,
        worker_limits=worker_limits(ctx.settings, work),
        worker_pool=MEDIA_POOL,
        worker_progress=tick,
        **kwargs,
    )


async def _measured(ctx: CallContext, path: str, limits: MediaLimits) -> tuple[float, Coverage]:
    """(the file's duration, its `Coverage`): what it claims, and how much of it is there
    (a download cut short opens and claims its whole length)."""
    from video_research.media.probe import probe_measured, require_video

    info, coverage = await _in_worker(ctx, probe_measured, path, limits)
    require_video(info, path)
    return info.duration_seconds, coverage


def _read_end(args: Mapping[str, Any], coverage: Coverage) -> float | None:
    """The end of the range to read: the one asked for, else where a partial file ends
    (None: the end of the file), so a cut file's frames and scenes are spread over what
    it holds."""
    if args.get("end"):
        return float(args["end"])
    return None if coverage.complete else max(coverage.seconds_read, 0.001)


class _Said(TypedDict):
    complete: bool
    coverage: contract.Coverage


def _said(coverage: Coverage) -> _Said:
    """What a media result says of the file's completeness (schemas/common/media.json)."""
    return {"complete": coverage.complete, "coverage": coverage.to_dict()}


def _image_items(
    ctx: CallContext, path: str, frames: list[EncodedFrame], first_index: int = 2
) -> list[contract.Image]:
    """Attach each frame as image content; their descriptions for the JSON result."""
    described: list[contract.Image] = []
    for n, frame in enumerate(frames):
        ctx.attach_image(frame.data, frame.mime_type)
        described.append(frame.describe(link(path, frame.time), first_index + n))
    return described


async def media_frames(args: MediaFramesInput, ctx: CallContext) -> MediaFramesOutput:
    from video_research.media.frames import extract_frames

    path, limits = await _confined(args, ctx)
    duration, coverage = await _measured(ctx, path, limits)
    end = _read_end(args, coverage)
    times = args.get("times")
    per_scene = bool(args.get("per_scene"))
    count = args.get("count")
    chosen = sum(1 for given in (times is not None, per_scene, count is not None) if given)
    if chosen > 1:
        from video_research.support.errors import invalid_input

        raise invalid_input(
            "Give one of times, count and per_scene, not several.",
            hint="times: frames at those seconds; count: evenly spaced; per_scene: one per scene.",
        )
    if chosen == 0:
        _, at = file_uri_time(args["path"])
        times, count = ([at], None) if at is not None else (None, 6)
    start = args.get("start", 0.0)
    found = await _in_worker(
        ctx,
        extract_frames,
        path,
        limits,
        times=times,
        count=count,
        per_scene=per_scene,
        start=start,
        end=end,
        max_edge=args.get("max_edge"),
        image_format=args.get("format", "jpeg"),
        scene_threshold=args.get("scene_threshold") or ctx.settings.media_scene_threshold,
        tick=_ticker(ctx, start, end or duration, "frames"),
    )
    return {
        "path": paths.printable(path),
        "duration_seconds": found["duration_seconds"],
        **_said(coverage),
        "media": found["media"].to_dict(),
        "frames": _image_items(ctx, path, found["frames"]),
        "omitted": found["omitted"],
    }


async def media_contact_sheet(
    args: MediaContactSheetInput, ctx: CallContext
) -> MediaContactSheetOutput:
    from video_research.media.sheet import contact_sheet

    path, limits = await _confined(args, ctx)
    duration, coverage = await _measured(ctx, path, limits)
    end = _read_end(args, coverage)
    start = args.get("start", 0.0)
    found = await _in_worker(
        ctx,
        contact_sheet,
        path,
        limits,
        count=args.get("count", 12),
        columns=args.get("columns", 4),
        cell_width=args.get("cell_width", 320),
        start=start,
        end=end,
        per_scene=bool(args.get("per_scene")),
        image_format=args.get("format", "jpeg"),
        scene_threshold=args.get("scene_threshold") or ctx.settings.media_scene_threshold,
        tick=_ticker(ctx, start, end or duration, "contact sheet"),
    )
    sheet = found["sheet"]
    ctx.attach_image(sheet.data, sheet.mime_type)
    return {
        "path": paths.printable(path),
        "duration_seconds": found["duration_seconds"],
        **_said(coverage),
        "media": found["media"].to_dict(),
        "sheet": sheet.describe(link(path, sheet.requested), 2),
        "cells": [{**cell, "link": link(path, cell["time"])} for cell in found["cells"]],
    }


async def media_scenes(args: MediaScenesInput, ctx: CallContext) -> MediaScenesOutput:
    from video_research.media.scenes import detect_scenes

    path, limits = await _confined(args, ctx)
    duration, coverage = await _measured(ctx, path, limits)
    end = _read_end(args, coverage)
    start = args.get("start", 0.0)
    found = await _in_worker(
        ctx,
        detect_scenes,
        path,
        limits,
        threshold=args.get("threshold") or ctx.settings.media_scene_threshold,
        start=start,
        end=end,
        min_scene_seconds=args.get("min_scene_seconds", 0.5),
        tick=_ticker(ctx, start, end or duration, "scenes"),
    )
    scenes = found["scenes"]
    limit = args.get("limit", 200)
    return {
        "path": paths.printable(path),
        "duration_seconds": found["duration_seconds"],
        **_said(coverage),
        "scene_count": len(scenes),
        "scenes": [{**scene, "link": link(path, scene["start"])} for scene in scenes[:limit]],
        "frames_compared": found["frames_compared"],
        "truncated": len(scenes) > limit,
    }


async def media_screen_text(args: MediaScreenTextInput, ctx: CallContext) -> MediaScreenTextOutput:
    from video_research.media.ocr import read_screen_text
    from video_research.media.scenes import detect_scenes

    path, limits = await _confined(args, ctx)
    settings = ctx.settings
    threshold = args.get("scene_threshold") or settings.media_scene_threshold
    # stages: probe, scene cuts, on-screen text, index; each reported as it starts and at
    # least every few seconds while it runs (support.progress)
    async with Stages(ctx.report_progress, 100.0) as stages:
        await stages.stage(0.1, 2, "probe: reading the file's streams")
        duration, coverage = await _measured(ctx, path, limits)
        start = args.get("start", 0.0)
        read_end = _read_end(args, coverage)
        end = read_end or duration
        await stages.stage(2, 30, "scenes: finding the scene cuts")
        cuts = await _in_worker(
            ctx,
            detect_scenes,
            path,
            limits,
            threshold=threshold,
            start=start,
            end=read_end,
            tick=_stage_tick(stages, start, end, "scenes"),
        )
        reading = f"on-screen text: reading {len(cuts['scenes'])} scene(s)"
        await stages.stage(30, 90 if args.get("index") else 99, reading)
        found = await _in_worker(
            ctx,
            read_screen_text,
            path,
            limits,
            start=start,
            end=read_end,
            sample_seconds=args.get("sample_seconds", 10.0),
            min_confidence=args.get("min_confidence", 0.6),
            overlay_fraction=settings.media_ocr_overlay_fraction,
            keep_overlays=bool(args.get("keep_overlays")),
            scene_threshold=threshold,
            scenes=cuts["scenes"],
            work="ocr",
            tick=_stage_tick(stages, start, end, "on-screen text"),
        )
        spans: list[contract.TextSpan] = [
            {**span, "link": link(path, span["appeared"])} for span in found["spans"]
        ]
        indexed = None
        if args.get("index"):
            await stages.stage(90, 99, f"index: {len(found['spans'])} lines shown")
            indexed = await _index_screen_text(path, args, found["spans"], coverage)
    return {
        "path": paths.printable(path),
        "duration_seconds": found["duration_seconds"],
        **_said(coverage),
        "spans": spans,
        "overlays": found["overlays"],
        "keyframes_read": found["keyframes_read"],
        "ms_per_keyframe": found["ms_per_keyframe"],
        "indexed": indexed,
    }


def _stage_tick(stages: Stages, start: float, end: float, what: str) -> WorkerProgress:
    """A worker's `tick(seconds)` as the current stage's share of [start, end]."""
    span = max(end - start, 1e-6)

    def report(seconds: float) -> None:
        stages.update((seconds - start) / span, f"{what}: {seconds:.0f} of {end:.0f} s")

    return WorkerProgress("tick", report)


async def _index_screen_text(
    path: str, args: Mapping[str, Any], spans: Sequence[Mapping[str, Any]], coverage: Coverage
) -> Indexed:
    """Write the timeline to the transcript index under the ID a transcript of the same
    file would get (`sources.identify`: yt-dlp's `Title [ID]`, else the file's name), so
    what was said and what was shown land on one video."""
    from video_research.transcripts.indexer import VideoInfo
    from video_research.transcripts.screen import index_screen_text
    from video_research.transcripts.sources import identify

    named = identify(Path(path))
    video_id = args.get("video_id") or named["video_id"]
    info = VideoInfo(
        video_id=video_id,
        title=args.get("title") or named.get("title") or Path(path).stem,
        url=Path(path).as_uri(),
    )
    return await index_screen_text(info, spans, source_path=path, coverage=coverage.fields())
