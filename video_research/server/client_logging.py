"""MCP logging: `logging/setLevel` per session, and the server's log records as
`notifications/message` to the session whose request caused them.

A client that calls `logging/setLevel` gets every record at or above that level that is
logged while one of its own requests is being served (a tool call's warnings, a failed
item of a batch), on that request's stream. Records logged outside any request
(start-up, background work) and the transport's own loggers (mcp, uvicorn, httpx) are
never sent. Until a session sets a level it gets nothing. On protocol 2026-07-28, where
`logging/setLevel` is gone, the level is the request's `io.modelcontextprotocol/logLevel`
`_meta` key.

Secrets are scrubbed exactly as on stderr: the same RedactingFilter runs on the record
and `redact` on the text (video_research/support/logs.py, video_research/support/redact.py).
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
from dataclasses import dataclass, field
from typing import Any

import mcp_types as types
from mcp_types import LOG_LEVEL_META_KEY
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from video_research.support.logs import RedactingFilter
from video_research.support.redact import redact
from video_research.tools import session_state

logger = logging.getLogger(__name__)

MCP_TO_PYTHON: dict[str, int] = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "notice": logging.INFO + 5,
    "warning": logging.WARNING,
    "error": logging.ERROR,
    "critical": logging.CRITICAL,
    "alert": logging.CRITICAL + 10,
    "emergency": logging.CRITICAL + 20,
}
_QUIET_LOGGERS = ("mcp", "uvicorn", "starlette", "sse_starlette", "httpx", "httpcore", "anyio")
_HANDLER_NAME = "video-research-mcp-notifications"
_SLOT = "video_research.log_level"
_FLUSH_SECONDS = 2.0


def mcp_level(levelno: int) -> str:
    """The MCP level of a Python level (the highest MCP level at or below it)."""
    name = "debug"
    for candidate, number in MCP_TO_PYTHON.items():
        if levelno >= number:
            name = candidate
    return name


@dataclass
class SessionLevel:
    """The level a session asked for with logging/setLevel (None: nothing is sent)."""

    levelno: int | None = None


@dataclass
class _RequestScope:
    session: Any
    request_id: Any
    meta: Any
    loop: asyncio.AbstractEventLoop
    pending: set[asyncio.Task[None]] = field(default_factory=set)

    def threshold(self) -> int | None:
        if session_state.protocol_version(self.session) in MODERN_PROTOCOL_VERSIONS:
            meta = self.meta if isinstance(self.meta, dict) else {}
            return MCP_TO_PYTHON.get(meta.get(LOG_LEVEL_META_KEY) or "")
        return session_state.slot(self.session, _SLOT, SessionLevel).levelno


_scope: contextvars.ContextVar[_RequestScope | None] = contextvars.ContextVar(
    "video_research_mcp_request", default=None
)
_sending: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "video_research_mcp_log_sending", default=False
)


async def set_level(ctx: Any, params: types.SetLevelRequestParams) -> types.EmptyResult:
    """`logging/setLevel`: this session gets records at `params.level` and above."""
    levelno = MCP_TO_PYTHON[params.level]
    session_state.slot(ctx.session, _SLOT, SessionLevel).levelno = levelno
    _let_records_through(levelno)
    return types.EmptyResult()


def _let_records_through(levelno: int) -> None:
    """Make the server's loggers create records down to `levelno` (stderr keeps its own
    level: the stderr handler was given the configured level in `install`)."""
    ours = logging.getLogger("video_research")
    if ours.getEffectiveLevel() > levelno:
        ours.setLevel(levelno)


class SessionLogMiddleware:
    """Server middleware: remembers which session and request is being served, so log
    records made while serving it can be sent there; waits for those sends to finish
    before the response goes out, so a client sees the log lines before the result."""

    async def __call__(self, ctx: Any, call_next: Any) -> Any:
        if ctx.request_id is None:
            return await call_next(ctx)
        scope = _RequestScope(
            session=ctx.session,
            request_id=ctx.request_id,
            meta=ctx.meta if isinstance(ctx.meta, dict) else _meta_dict(ctx.meta),
            loop=asyncio.get_running_loop(),
        )
        if scope.threshold() is None:  # this session asked for no log notifications
            return await call_next(ctx)
        token = _scope.set(scope)
        try:
            return await call_next(ctx)
        finally:
            _scope.reset(token)
            await _flush(scope)


def _meta_dict(meta: Any) -> dict[str, Any]:
    if meta is None:
        return {}
    if hasattr(meta, "model_dump"):
        return meta.model_dump(by_alias=True, exclude_none=True)
    return dict(meta) if isinstance(meta, dict) else {}


async def _flush(scope: _RequestScope) -> None:
    # Sends queued from worker threads land on the loop first; let them start.
    await asyncio.sleep(0)
    if scope.pending:
        await asyncio.wait(set(scope.pending), timeout=_FLUSH_SECONDS)


class NotificationHandler(logging.Handler):
    """Sends each record made while serving a request to that request's session."""

    def __init__(self) -> None:
        super().__init__(level=logging.DEBUG)
        self.set_name(_HANDLER_NAME)
        self.addFilter(RedactingFilter())

    def filter(self, record: logging.LogRecord) -> bool:  # type: ignore[override]
        scope = _scope.get()
        if scope is None or _sending.get() or record.name.startswith(_QUIET_LOGGERS):
            return False
        threshold = scope.threshold()
        if threshold is None or record.levelno < threshold:
            return False
        return super().filter(record)  # the redaction

    def emit(self, record: logging.LogRecord) -> None:
        scope = _scope.get()
        if scope is None:
            return
        text = record.getMessage()
        if record.exc_text:
            text = f"{text}\n{record.exc_text}"
        params = types.LoggingMessageNotificationParams(
            level=mcp_level(record.levelno), logger=record.name, data=redact(text)
        )
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is scope.loop:
            _spawn(scope, params)
        elif not scope.loop.is_closed():
            scope.loop.call_soon_threadsafe(_spawn, scope, params)


def _spawn(scope: _RequestScope, params: types.LoggingMessageNotificationParams) -> None:
    task = scope.loop.create_task(_send(scope, params))
    scope.pending.add(task)
    task.add_done_callback(scope.pending.discard)


async def _send(scope: _RequestScope, params: types.LoggingMessageNotificationParams) -> None:
    _sending.set(True)
    try:
        await scope.session.send_notification(
            types.LoggingMessageNotification(params=params), related_request_id=scope.request_id
        )
    except Exception as exc:  # the client went away: the log line goes to stderr only
        logger.debug("log notification dropped: %s", exc)


def install() -> None:
    """Add the notification handler to the root logger (idempotent).

    The stderr handler is pinned to the configured level first, so a session asking for
    debug notifications never makes stderr chattier.
    """
    root = logging.getLogger()
    for handler in root.handlers:
        if handler.get_name() == _HANDLER_NAME:
            return
    for handler in root.handlers:
        if handler.level == logging.NOTSET:
            handler.setLevel(root.level)
    root.addHandler(NotificationHandler())
