"""NATS JetStream for the queue and the session registry: one connection per event loop.

Used only when NATS_URL is set. The connection opens on first use and reconnects on
its own; every operation is bounded by NATS_TIMEOUT_SECONDS, so a NATS server that goes
away turns into a `nats_error` (retryable) instead of a hang. `nats` is imported here,
inside functions, never at server start-up.

`update_json` is the one read-modify-write loop: get the key's value and revision, apply
a pure function, write with `kv.update(key, value, last=revision)`. When another writer
got there first JetStream refuses the write (wrong last sequence) and the loop starts
again from the fresh value, so concurrent writers on any number of servers never lose
an update.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Callable
from typing import Any

from tenacity import AsyncRetrying, retry_if_exception_type, stop_after_attempt, wait_random

from video_research.config import Settings
from video_research.support.errors import ErrorCategory, ToolFailure
from video_research.support.redact import redact
from video_research.support.services import Resource, current_services

logger = logging.getLogger(__name__)

MAX_CONFLICT_RETRIES = 50


class Ambiguous(ToolFailure):
    """The write was sent but its answer never came: it may or may not have applied."""


def nats_failure(exc: BaseException, settings: Settings, *, what: str) -> ToolFailure:
    return ToolFailure(
        ErrorCategory.UNAVAILABLE,
        redact(
            f"NATS at {settings.nats_url} failed while {what}: {type(exc).__name__} {exc}".strip()
        ),
        hint="Nothing was changed. Check that the NATS server (with JetStream) is running at "
        "NATS_URL, then retry.",
    )


def _is_nats_error(exc: BaseException) -> bool:
    import nats.errors

    return isinstance(exc, nats.errors.Error | asyncio.TimeoutError | TimeoutError | OSError)


async def _connect(settings: Settings) -> Any:
    import nats

    try:
        return await nats.connect(
            settings.nats_url,
            connect_timeout=settings.nats_timeout_seconds,
            max_reconnect_attempts=-1,
            reconnect_time_wait=0.5,
            allow_reconnect=True,
            name="video-research",
            # No buffering while disconnected: a write either reaches the server now
            # or fails now, so a nats_error never turns into a late write.
            pending_size=0,
            error_cb=_log_error,
        )
    except Exception as exc:
        raise nats_failure(exc, settings, what="connecting") from None


async def _log_error(exc: Exception) -> None:
    logger.debug("nats: %s", redact(str(exc)))


async def _close(nc: Any) -> None:
    with contextlib.suppress(Exception):  # best effort at exit
        await asyncio.wait_for(nc.close(), 2)


NATS_CONNECTION: Resource[Any] = Resource(
    "nats",
    # A client belongs to the event loop it was opened on.
    key=lambda settings: (settings.nats_url, asyncio.get_running_loop()),
    open=_connect,
    close=_close,
    usable=lambda nc: not nc.is_closed,
)


async def client(settings: Settings | None = None) -> Any:
    """The connected NATS client for NATS_URL (opened on first use, reopened if closed)."""
    return await current_services().aget(NATS_CONNECTION, settings)


async def bucket(name: str, settings: Settings | None = None, *, history: int = 10) -> Any:
    """The KV bucket `name`, created on first use."""
    from nats.js.api import KeyValueConfig
    from nats.js.errors import BucketNotFoundError

    settings = settings or current_services().settings
    nc = await client(settings)
    js = nc.jetstream(timeout=settings.nats_timeout_seconds)
    try:
        try:
            return await js.key_value(name)
        except BucketNotFoundError:
            return await js.create_key_value(KeyValueConfig(bucket=name, history=history))
    except ToolFailure:
        raise
    except Exception as exc:
        if _is_nats_error(exc):
            raise nats_failure(exc, settings, what=f"opening KV bucket {name}") from None
        raise


async def read_json(kv: Any, key: str, settings: Settings) -> tuple[Any, int]:
    """(decoded value, revision) of `key`; (None, 0) when it does not exist."""
    from nats.js.errors import KeyNotFoundError

    try:
        entry = await kv.get(key)
    except KeyNotFoundError:
        return None, 0
    except Exception as exc:
        if _is_nats_error(exc):
            raise nats_failure(exc, settings, what=f"reading {key}") from None
        raise
    return (json.loads(entry.value) if entry.value else None), entry.revision


async def update_json(
    kv: Any, key: str, change: Callable[[Any], Any], settings: Settings
) -> tuple[Any, int]:
    """Apply `change(old) -> new` to the key under optimistic concurrency; (new, revision).

    A write whose answer times out raises `Ambiguous` (a nats_error whose message says
    so), because JetStream may have stored it. A value larger than the server's
    max_payload is refused before it is sent (a definite nats_error, not retryable), and
    a key that other writers keep changing for MAX_CONFLICT_RETRIES attempts is a
    retryable `conflict`; neither wrote anything.
    """
    from nats.errors import MaxPayloadError
    from nats.js.errors import KeyWrongLastSequenceError

    try:
        async for attempt in AsyncRetrying(
            retry=retry_if_exception_type(KeyWrongLastSequenceError),
            stop=stop_after_attempt(MAX_CONFLICT_RETRIES),
            wait=wait_random(0, 0.05),
            reraise=True,
        ):
            with attempt:
                new, new_revision = await _write_once(kv, key, change, settings)
    except KeyWrongLastSequenceError:
        raise ToolFailure(
            ErrorCategory.CONFLICT,
            f"{key} kept changing under this write ({MAX_CONFLICT_RETRIES} attempts); "
            "nothing was written.",
            hint="Other writers are busy on the same key. Retry in a moment.",
            retryable=True,
        ) from None
    except MaxPayloadError:
        raise ToolFailure(
            ErrorCategory.UNAVAILABLE,
            f"The new value of {key} is larger than the NATS server accepts (max_payload); "
            "nothing was written.",
            hint="Make the change smaller (for the queue: remove or clear items first), or "
            "raise max_payload on the NATS server.",
            retryable=False,
        ) from None
    return new, new_revision


async def _write_once(
    kv: Any, key: str, change: Callable[[Any], Any], settings: Settings
) -> tuple[Any, int]:
    """One read-apply-write of `update_json`; KeyWrongLastSequenceError when outrun."""
    from nats.errors import MaxPayloadError
    from nats.js.errors import KeyWrongLastSequenceError

    old, revision = await read_json(kv, key, settings)
    new = change(old)
    payload = json.dumps(new, separators=(",", ":")).encode()
    try:
        if revision == 0:
            new_revision = await kv.create(key, payload)
        else:
            new_revision = await kv.update(key, payload, last=revision)
    except (KeyWrongLastSequenceError, MaxPayloadError):
        raise
    except Exception as exc:
        if not _is_nats_error(exc):
            raise
        raise Ambiguous(
            ErrorCategory.UNAVAILABLE,
            redact(
                f"NATS at {settings.nats_url} did not confirm the write of {key} "
                f"({type(exc).__name__}); it may or may not have been applied."
            ),
            hint="Check the current state (queue_status) once NATS is back before retrying.",
            retryable=False,
        ) from None
    return new, new_revision


async def publish(subject: str, payload: dict[str, Any], settings: Settings) -> None:
    nc = await client(settings)
    try:
        await nc.publish(subject, json.dumps(payload, separators=(",", ":")).encode())
        await nc.flush(timeout=settings.nats_timeout_seconds)
    except Exception as exc:
        if _is_nats_error(exc):
            raise nats_failure(exc, settings, what=f"publishing to {subject}") from None
        raise
