"""Short garbage-collector pauses for a long-running server.

CPython's full (generation 2) collection walks every object the collector tracks, and
holds the GIL while it does: the event loop, every request and every worker thread wait.
A started server tracks about 90,000 objects that live as long as the process (modules,
tool schemas, the MCP SDK, pydantic models), and a full collection over them took
60-90 ms on a 2-core machine, long enough to stall pings and stretch a loop callback
past asyncio's slow-callback mark during a bulk ingest. `gc.freeze` moves the objects
that exist now into a permanent generation that collections skip (its documented use);
after it, a full collection over what a served process adds (the embedding model, its
results, caches) took 2-5 ms.
"""

from __future__ import annotations

import gc
import logging

logger = logging.getLogger(__name__)


def freeze_start_up_heap() -> int:
    """Freeze every object the collector tracks now: call once the server is built,
    before it serves. Returns how many objects were frozen.

    Objects frozen are never collected, so this runs before any request: what a request
    allocates stays collectable. No collection runs first: at start-up one found 36
    objects of garbage among ~90,000 and cost 45-55 ms of a ~630 ms start, while the
    freeze itself takes well under a millisecond."""
    gc.freeze()
    frozen = gc.get_freeze_count()
    logger.debug("froze %d start-up objects: full collections skip them", frozen)
    return frozen
