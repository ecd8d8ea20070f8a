"""Telling the MCP surface that catalog resources changed, without importing it.

The catalog's state is published as MCP resources (`catalog://stats`, `queue://current`,
`playlist://<id>`, ...), and clients that subscribed want `notifications/resources/updated`
when one changes. The handlers and the catalog sit below the server, so they announce
changes here; the server's resources module registers the listener that sends the
notifications. With no server (the `call` command, tests that use the catalog alone)
nobody listens and an announcement does nothing, as publishing to no subscribers did.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

CATALOG_CATEGORIES = "catalog://categories"
CATALOG_STATS = "catalog://stats"
QUEUE_CURRENT = "queue://current"
PLAYLIST_INDEX = "playlist://index"
PLAYLIST_PREFIX = "playlist://"
PLAYLIST_TEMPLATE = "playlist://{playlist_id}"

Listener = Callable[..., Awaitable[None]]
"""Called with the URIs of the resources that changed."""

_listeners: list[Listener] = []


def on_change(listener: Listener) -> None:
    """Call `listener(*uris)` when resources change; registering it again is a no-op."""
    if listener not in _listeners:
        _listeners.append(listener)


async def announce(*uris: str) -> None:
    """Tell every listener that these resources changed (listeners must not raise)."""
    for listener in list(_listeners):
        await listener(*uris)


async def entries_changed() -> None:
    """The catalog's counts and categories changed (a YouTube result fed new entries)."""
    await announce(CATALOG_STATS, CATALOG_CATEGORIES)


async def playlists_changed(playlist_ids: list[str]) -> None:
    """The playlist index and these playlists changed."""
    await announce(PLAYLIST_INDEX, *(PLAYLIST_PREFIX + pid for pid in playlist_ids))
