"""video_analyze, video_batch_analyze, video_create_session, video_continue_session."""

from __future__ import annotations

import asyncio
import json
import logging
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from video_research import contracts, gemini, paths, prompts, sessions, video_input
from video_research.cache import get_cache
from video_research.config import get_config
from video_research.context import CallContext
from video_research.errors import ErrorCategory, ToolFailure, make_tool_error
from video_research.knowledge import writethrough

logger = logging.getLogger(__name__)

VIDEO_RESULT_SCHEMA = "common/video_result.json"


def _cache_instruction(instruction: str, output_schema: dict[str, Any] | None) -> str:
    """The instruction as the cache sees it: a custom schema is part of the question."""
    if output_schema is None:
        return instruction
    return instruction + "\n#schema:" + json.dumps(output_schema, sort_keys=True)


async def analyze(
    source: video_input.VideoSource,
    *,
    instruction: str,
    output_schema: dict[str, Any] | None,
    thinking_level: str,
    use_cache: bool,
    tool: str,
) -> dict[str, Any]:
    """One video through cache -> Gemini -> cache -> knowledge store."""
    settings = get_config()
    model = settings.default_model
    cache = get_cache()
    key_instruction = _cache_instruction(instruction, output_schema)
    if use_cache:
        hit = cache.load(source.content_id, "video_analyze", model, instruction=key_instruction)
        if hit is not None:
            return {**hit, "cached": True}
    gemini.require_api_key(settings)
    if output_schema is None:
        schema = contracts.gemini_response_schema(VIDEO_RESULT_SCHEMA)
        prompt = prompts.render("video_analysis", instruction=instruction)
    else:
        schema = output_schema
        prompt = prompts.render("video_custom", instruction=instruction)
    part = await video_input.video_part(source)
    data, generation = await gemini.generate_json(
        [gemini.user_content(part, gemini.text_part(prompt))],
        schema=schema,
        model=model,
        thinking_level=thinking_level,
    )
    if output_schema is None:
        data = {
            **data,
            "source": source.source,
            "content_id": source.content_id,
            "model": generation.model,
        }
    cache.save(source.content_id, "video_analyze", model, data, instruction=key_instruction)
    await writethrough.store_video_analysis(
        data, source.content_id, instruction, source.source, source_tool=tool
    )
    return {**data, "cached": False}


async def video_analyze(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    output_schema = args.get("output_schema")
    if output_schema is not None:
        contracts.check_caller_schema(output_schema, "output_schema")
    source = await video_input.resolve(args.get("url"), args.get("file_path"), ctx)
    return await analyze(
        source,
        instruction=args["instruction"],
        output_schema=output_schema,
        thinking_level=args["thinking_level"],
        use_cache=args["use_cache"],
        tool="video_analyze",
    )


def _batch_files(directory: Path, pattern: str, max_files: int) -> tuple[list[Path], list[str]]:
    """(videos to analyse, matching files skipped) for a directory and glob."""
    paths.check_glob(pattern)
    matches = sorted(p for p in directory.glob(pattern) if paths.is_listed_file(p))
    videos = [p for p in matches if p.suffix.lower() in video_input.VIDEO_MIME_TYPES]
    skipped = [str(p) for p in matches if p.suffix.lower() not in video_input.VIDEO_MIME_TYPES]
    skipped += [str(p) for p in videos[max_files:]]
    return videos[:max_files], skipped


async def video_batch_analyze(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    settings = get_config()
    output_schema = args.get("output_schema")
    if output_schema is not None:
        contracts.check_caller_schema(output_schema, "output_schema")
    directory = await paths.confine(args["directory"], ctx)
    if not directory.is_dir():
        raise ToolFailure(ErrorCategory.FILE_NOT_FOUND, f"No such directory: {args['directory']}")
    files, skipped = await asyncio.to_thread(
        _batch_files, directory, args["glob_pattern"], args["max_files"]
    )
    if files:
        gemini.require_api_key(settings)
    semaphore = asyncio.Semaphore(settings.batch_concurrency)
    done = 0

    async def one(path: Path) -> dict[str, Any]:
        nonlocal done
        item: dict[str, Any] = {"file_path": str(path), "file_name": path.name}
        async with semaphore:
            try:
                source = await video_input.from_file(str(path), ctx)
                item["result"] = await analyze(
                    source,
                    instruction=args["instruction"],
                    output_schema=output_schema,
                    thinking_level=args["thinking_level"],
                    use_cache=True,
                    tool="video_batch_analyze",
                )
                item["status"] = "ok"
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                item["status"] = "error"
                item["error"] = make_tool_error(exc).to_json_dict()
                logger.warning("batch: %s failed: %s", path.name, item["error"]["error"])
        done += 1
        await ctx.report_progress(done, len(files), f"{path.name}: {item['status']}")
        return item

    items = await asyncio.gather(*(one(p) for p in files))
    succeeded = sum(1 for i in items if i["status"] == "ok")
    return {
        "directory": str(directory),
        "instruction": args["instruction"],
        "total_files": len(files),
        "succeeded": succeeded,
        "failed": len(files) - succeeded,
        "skipped": skipped,
        "items": list(items),
    }


async def _video_title(source: video_input.VideoSource, part: Any) -> str:
    """The video's title: YouTube Data API first, Gemini (flash) as the fallback."""
    if source.kind == "file":
        return source.path.stem if source.path else source.source
    from video_research import youtube

    try:
        metadata = await youtube.get_video(source.content_id)
        if metadata.get("title"):
            return str(metadata["title"])
    except Exception as exc:  # any failure here only costs us the cheaper path
        logger.info("title via YouTube Data API unavailable (%s); asking Gemini", exc)
    settings = get_config()
    generation = await gemini.generate(
        [gemini.user_content(part, gemini.text_part(prompts.render("video_title")))],
        model=settings.flash_model,
        thinking_level="minimal",
    )
    return generation.text.strip().splitlines()[0][:300]


def _iso(timestamp: float) -> str:
    return (
        datetime.fromtimestamp(timestamp, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    )


async def video_create_session(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    settings = get_config()
    source = await video_input.resolve(args.get("url"), args.get("file_path"), ctx)
    gemini.require_api_key(settings)
    if source.kind == "youtube":
        video_uri, mime_type = source.source, "video/mp4"
        part = gemini.youtube_part(video_uri)
    else:
        assert source.path is not None
        uploaded = await gemini.upload_file(source.path, source.mime_type)
        video_uri, mime_type = uploaded.uri, uploaded.mime_type
        part = gemini.file_uri_part(video_uri, mime_type)
    title = await _video_title(source, part)
    session = await sessions.get_store().create(
        sessions.Session(
            session_id="",
            source=source.source,
            video_uri=video_uri,
            mime_type=mime_type,
            video_title=title,
            description=args["description"],
        )
    )
    return {
        "session_id": session.session_id,
        "video_title": session.video_title,
        "source": session.source,
        "description": session.description,
        "created_at": _iso(session.created_at),
        "expires_at": _iso(session.last_active + settings.session_timeout_hours * 3600),
        "turn_count": 0,
        "max_turns": settings.session_max_turns,
    }


def _conversation(session: sessions.Session, prompt: str) -> list[Any]:
    """The request contents: the video on the first user turn, then the window, then the prompt."""
    video = gemini.file_uri_part(session.video_uri, session.mime_type)
    turns = [*session.history, {"role": "user", "text": prompt}]
    contents = []
    for index, turn in enumerate(turns):
        if index == 0:
            intro = prompts.render(
                "session_intro",
                description=session.description or "(none given)",
                prompt=turn["text"],
            )
            contents.append(gemini.content(turn["role"], video, gemini.text_part(intro)))
        else:
            contents.append(gemini.content(turn["role"], gemini.text_part(turn["text"])))
    return contents


async def video_continue_session(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    store = sessions.get_store()
    session = await store.get(args["session_id"])
    if session is None:
        raise ToolFailure(
            ErrorCategory.NOT_FOUND,
            f"Session {args['session_id']} does not exist or has expired.",
            hint="Sessions expire after GEMINI_SESSION_TIMEOUT_HOURS idle; start a new one with video_create_session.",
        )
    generation = await gemini.generate(_conversation(session, args["prompt"]))
    updated = await store.add_turn(session.session_id, args["prompt"], generation.text)
    turn_count = updated.turn_count if updated else session.turn_count + 1
    await writethrough.store_session_turn(
        session.session_id,
        session.video_title,
        turn_count,
        args["prompt"],
        generation.text,
        session.source,
    )
    return {
        "session_id": session.session_id,
        "response": generation.text,
        "turn_count": turn_count,
        "video_title": session.video_title,
    }
