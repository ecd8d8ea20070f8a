"""Video sessions: the video held in a context cache, the conversation sent back faithfully.

Each turn sends Gemini:
  [context cache: the video]  user: session intro  | history (as exchanged) | user: prompt
or, without a cache,
  user: video + session intro | history (as exchanged) | user: prompt
The intro is fixed for the session (its description), so trimming the history never
loses it; the history holds the user Contents as sent and the model's Contents exactly
as Gemini returned them (thought signatures included), so the model sees what it said.

The cache is created with the session, renewed when less than half its TTL is left,
recreated when it expired between turns (or was deleted), and given up for good where
Gemini refuses to cache this model or content (the session then sends the video each
turn). See gemini_caching.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Literal

from video_research.clients.gemini import caching as gemini_caching
from video_research.clients.gemini import client as gemini
from video_research.clients.gemini import templates as prompts
from video_research.support import clock
from video_research.support.errors import ErrorCategory, ToolFailure
from video_research.support.services import current_settings
from video_research.video import input as video_input
from video_research.video import session_store as sessions
from video_research.video.input import Sampling, VideoSource

if TYPE_CHECKING:
    from video_research.support.schema_types.common.gemini import ContextCache
    from video_research.support.schema_types.tools import VideoCreateSessionOutput

logger = logging.getLogger(__name__)


def _iso(timestamp: float) -> str:
    return (
        datetime.fromtimestamp(timestamp, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    )


def _video_part(session: sessions.Session, *, for_cache: bool = False) -> Any:
    sampling = Sampling.from_json(session.sampling)
    part = gemini.with_video_metadata(
        gemini.file_uri_part(session.video_uri, session.mime_type), sampling.video_metadata()
    )
    if for_cache:
        part = gemini.with_media_resolution(part, sampling.media_resolution)
    return part


def _cache_key(session: sessions.Session) -> str:
    sampling = Sampling.from_json(session.sampling)
    return gemini_caching.cache_key(
        video_uri=session.video_uri,
        video_metadata=sampling.video_metadata(),
        media_resolution=sampling.media_resolution,
        model=session.model,
    )


def _context(
    state: Literal["used", "created", "off", "unavailable"],
    name: str = "",
    expires_at: float = 0.0,
    reason: str = "",
) -> ContextCache:
    out: ContextCache = {"state": state}
    if name:
        out["name"] = name
    if expires_at:
        out["expires_at"] = _iso(expires_at)
    if reason:
        out["reason"] = reason[:300]
    return out


def _too_short(session: sessions.Session) -> str:
    """Why a clip is known to be below every model's cache minimum ("" if not known)."""
    sampling = Sampling.from_json(session.sampling)
    estimate = gemini_caching.estimated_tokens(
        sampling.seconds, sampling.fps, sampling.media_resolution
    )
    if estimate is not None and estimate < gemini_caching.MIN_CACHE_TOKENS:
        return f"the clip is about {estimate} tokens, below the {gemini_caching.MIN_CACHE_TOKENS}-token minimum"
    return ""


async def _create_cache(session: sessions.Session) -> tuple[str, ContextCache]:
    store = sessions.get_store()
    short = _too_short(session)
    if short:
        await store.set_cache(session.session_id, state=f"unavailable: {short}")
        return "", _context("unavailable", reason=short)
    try:
        made = await gemini_caching.create(
            _video_part(session, for_cache=True),
            model=session.model,
            key=_cache_key(session),
            content_id=session.content_id,
            session_id=session.session_id,
        )
    except gemini_caching.CacheUnavailable as unavailable:
        logger.info(
            "session %s: no context cache (%s); the video is sent with every turn",
            session.session_id,
            unavailable.reason,
        )
        if unavailable.permanent:
            await store.set_cache(session.session_id, state=f"unavailable: {unavailable.reason}")
        return "", _context("unavailable", reason=unavailable.reason)
    session.cache_name, session.cache_expires_at = made.name, made.expires_at
    await store.set_cache(session.session_id, made.name, made.expires_at)
    return made.name, _context("created", made.name, made.expires_at)


async def _session_cache(session: sessions.Session) -> tuple[str, ContextCache]:
    """(cache name or "", context report) for this turn: renewed, recreated or created."""
    settings = current_settings()
    if not settings.context_cache_enabled:
        return "", _context("off")
    if session.cache_state.startswith("unavailable"):
        return "", _context("unavailable", reason=session.cache_state.partition(": ")[2])
    now = clock.wall()  # the clock its expiry was computed with (gemini caching)
    left = session.cache_expires_at - now
    if session.cache_name and left > gemini_caching.REFRESH_MARGIN_SECONDS:
        if left < gemini_caching.ttl_seconds(settings) / 2:
            try:
                renewed = await gemini_caching.refresh(session.cache_name)
            except ToolFailure as failure:  # keep using it while it lives
                logger.info("renewing %s failed: %s", session.cache_name, failure.message)
                renewed = session.cache_expires_at
            if renewed is None:
                return await _create_cache(session)
            session.cache_expires_at = renewed
            await sessions.get_store().set_cache(session.session_id, session.cache_name, renewed)
        return session.cache_name, _context("used", session.cache_name, session.cache_expires_at)
    if session.cache_name:  # expired (or about to): a new one
        await gemini_caching.forget(session.cache_name)
    return await _create_cache(session)


async def create(
    source: VideoSource, description: str, sampling: Sampling
) -> VideoCreateSessionOutput:
    """Open a session on `source`: upload (or reuse) the file, name it, cache the video."""
    settings = current_settings()
    gemini.require_api_key(settings)
    if source.kind == "youtube":
        video_uri, mime_type = source.source, "video/mp4"
    else:
        uploaded = await video_input.uploaded(source)
        video_uri, mime_type = uploaded.uri, uploaded.mime_type
    part = gemini.with_video_metadata(
        gemini.file_uri_part(video_uri, mime_type), sampling.video_metadata()
    )
    title = await _video_title(source, part)
    session = await sessions.get_store(settings).create(
        sessions.Session(
            session_id="",
            source=source.source,
            video_uri=video_uri,
            mime_type=mime_type,
            video_title=title,
            description=description,
            content_id=source.content_id,
            model=settings.default_model,
            sampling=dict(sampling.to_json()),
        )
    )
    _, context = await _session_cache(session)
    result: VideoCreateSessionOutput = {
        "session_id": session.session_id,
        "video_title": session.video_title,
        "source": session.source,
        "description": session.description,
        "created_at": _iso(session.created_at),
        "expires_at": _iso(session.last_active + settings.session_timeout_hours * 3600),
        "turn_count": 0,
        "max_turns": settings.session_max_turns,
        "model": session.model,
        "context_cache": context,
    }
    if not sampling.is_default:
        result["sampling"] = sampling.to_json()
    return result


async def _video_title(source: VideoSource, part: Any) -> str:
    """The video's title: YouTube Data API first, Gemini (flash) as the fallback."""
    if source.kind == "file":
        return source.path.stem if source.path else source.source
    from video_research.clients import youtube

    try:
        metadata = await youtube.get_video(source.content_id)
        if metadata.get("title"):
            return str(metadata["title"])
    except Exception as exc:  # any failure here only costs us the cheaper path
        logger.info("title via YouTube Data API unavailable (%s); asking Gemini", exc)
    settings = current_settings()
    generation = await gemini.generate(
        [gemini.user_content(part, gemini.text_part(prompts.render("video_title")))],
        model=settings.flash_model,
        thinking_level="minimal",
    )
    return generation.text.strip().splitlines()[0][:300]


async def turn(
    session_id: str, prompt: str
) -> tuple[sessions.Session, gemini.Generation, ContextCache]:
    """Ask one question in a session; (session after the turn, the answer, cache report)."""
    store = sessions.get_store()
    session = await store.get(session_id)
    if session is None:
        raise ToolFailure(
            ErrorCategory.NOT_FOUND,
            f"Session {session_id} does not exist or has expired.",
            hint="Sessions expire after GEMINI_SESSION_TIMEOUT_HOURS idle; start a new one with video_create_session.",
        )
    gemini.require_api_key()
    if not session.model:  # a session from before models were stored
        session.model = current_settings().default_model
    user = {"role": "user", "parts": [{"text": prompt}]}
    intro = prompts.render("session_intro", description=session.description or "(none given)")
    history = [gemini.content_from_json(c) for c in [*session.history, user]]
    name, context = await _session_cache(session)

    async def cached_turn(cache: str) -> gemini.Generation | None:
        """The answer with the video from `cache`; None when the cache is gone."""
        try:
            return await gemini.generate(
                [gemini.user_content(gemini.text_part(intro)), *history],
                model=session.model,
                cached_content=cache,
            )
        except ToolFailure as failure:
            if not gemini_caching.is_gone(failure):
                raise
            logger.info("context cache %s is gone (%s)", cache, failure.message)
            await gemini_caching.forget(cache)
            session.cache_name = ""
            return None

    generation = await cached_turn(name) if name else None
    if name and generation is None:  # expired or deleted between turns: a new one
        name, context = await _create_cache(session)
        generation = await cached_turn(name) if name else None
        if name and generation is None:
            context = _context("unavailable", reason="the new context cache vanished too")
    if generation is None:
        sampling = Sampling.from_json(session.sampling)
        generation = await gemini.generate(
            [gemini.user_content(_video_part(session), gemini.text_part(intro)), *history],
            model=session.model,
            media_resolution=sampling.media_resolution,
        )
    model_content = generation.content or {"role": "model", "parts": [{"text": generation.text}]}
    model_content.setdefault("role", "model")
    updated = await store.add_turn(session.session_id, user, model_content)
    return updated or session, generation, context
