"""Shutdown hooks: shared clients (Gemini, the store, NATS) register how to close themselves.

A service registers its closer when it first opens, so nothing is opened at start-up
just to be closed again.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import os
import sys
from collections.abc import Awaitable, Callable

logger = logging.getLogger(__name__)

Closer = Callable[[], Awaitable[None] | None]

_closers: dict[str, Closer] = {}


def on_shutdown(name: str, closer: Closer) -> None:
    """Run `closer` when the server stops; registering a name again replaces it."""
    _closers[name] = closer


async def shutdown() -> None:
    """Close every registered service, last opened first; a failing closer is only logged."""
    for name in reversed(list(_closers)):
        closer = _closers.pop(name)
        try:
            result = closer()
            if inspect.isawaitable(result):
                await result
        except Exception as exc:  # pragma: no cover - best effort at exit
            logger.warning("closing %s failed: %s", name, exc)


WORKER_GRACE_SECONDS = 3.0
"""How long a stopping server waits for worker threads still busy with cancelled work."""


async def leave_busy_workers(grace: float = WORKER_GRACE_SECONDS) -> None:
    """Once the server has stopped: wait at most `grace` seconds for worker threads, then
    end the process without them.

    A cancelled call's worker thread (a document being extracted or embedded) cannot be
    stopped and may run for minutes, and asyncio waits for every worker thread before
    the process may exit, so a client that closed stdin mid-ingest kept the server
    alive long after (81 s, or more). The work such a thread does is either committed in
    one SQLite transaction or not at all, and an uncommitted transaction is rolled back
    when the database is next opened, so leaving it stores nothing partial.
    """
    loop = asyncio.get_running_loop()
    try:
        await asyncio.wait_for(asyncio.shield(loop.shutdown_default_executor()), grace)
    except TimeoutError:
        logger.warning(
            "worker threads still busy %.0f s after the server stopped: exiting without them "
            "(their unfinished work is not stored)",
            grace,
        )
        logging.shutdown()
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError):
                stream.flush()
        os._exit(0)
