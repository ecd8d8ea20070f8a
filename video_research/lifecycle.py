"""Shutdown hooks: shared clients (Gemini, the store, NATS) register how to close themselves.

A service registers its closer when it first opens, so nothing is opened at start-up
just to be closed again.
"""

from __future__ import annotations

import inspect
import logging
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
