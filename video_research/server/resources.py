"""MCP resources: read-only context an agent can pull in (catalog, queue, playlists).

    catalog://categories      every category with its video count
    catalog://stats           counts and total duration of the catalog
    queue://current           the watch queue (what queue_status returns)
    playlist://index          every saved playlist, summarised
    playlist://{playlist_id}  one playlist with its items (a resource template)
    ui://video-research/...   the MCP Apps views (listed to every client: the list is one
                              per configuration, so a cache can share it)

Every one of them can be subscribed to: when a tool call of this server changes it, each
subscribed client gets `notifications/resources/updated` with the URI and re-reads it.
A session of MCP 2025-11-25 or older subscribes with `resources/subscribe`; a client of
2026-07-28, which has no sessions, opens a `subscriptions/listen` stream (the SDK's
ListenHandler, fed by `BUS`) naming the URIs. Tools call `publish_updated` after a change,
which serves both.
"""

from __future__ import annotations

import json
import logging
from typing import Any

import mcp_types as types
from mcp.server.subscriptions import InMemorySubscriptionBus, ResourceUpdated
from mcp.shared.exceptions import MCPError

from video_research.catalog import changes
from video_research.server import apps

logger = logging.getLogger(__name__)

CATALOG_CATEGORIES = changes.CATALOG_CATEGORIES
CATALOG_STATS = changes.CATALOG_STATS
QUEUE_CURRENT = changes.QUEUE_CURRENT
PLAYLIST_INDEX = changes.PLAYLIST_INDEX
PLAYLIST_PREFIX = changes.PLAYLIST_PREFIX
PLAYLIST_TEMPLATE = changes.PLAYLIST_TEMPLATE
JSON = "application/json"

_STATIC: dict[str, tuple[str, str]] = {
    CATALOG_CATEGORIES: ("Catalog categories", "Every category name with its number of videos."),
    CATALOG_STATS: (
        "Catalog statistics",
        "Videos, categories, playlists and marathons counted; total catalog duration.",
    ),
    QUEUE_CURRENT: (
        "Current watch queue",
        "The video playing now (with elapsed time) and the upcoming items. Subscribe to be "
        "told when it changes.",
    ),
    PLAYLIST_INDEX: ("Playlist index", "Every saved playlist: ID, name, item count, duration."),
}

# uri -> {connection key -> ServerSession}: one entry per client connection.
_subscribers: dict[str, dict[int, Any]] = {}

BUS = InMemorySubscriptionBus()
"""The events every `subscriptions/listen` stream of this process is fed from (each server
registers its own ListenHandler on it). In process: the catalog's changes already reach
every process through NATS (catalog.changes), and each process publishes them here."""


async def list_resources(ctx: Any, params: Any) -> types.ListResourcesResult:
    listed = [
        types.Resource(uri=uri, name=name, description=description, mime_type=JSON)
        for uri, (name, description) in _STATIC.items()
    ]
    return types.ListResourcesResult(resources=listed + apps.resources())


async def list_resource_templates(ctx: Any, params: Any) -> types.ListResourceTemplatesResult:
    return types.ListResourceTemplatesResult(
        resource_templates=[
            types.ResourceTemplate(
                uri_template=PLAYLIST_TEMPLATE,
                name="Playlist by ID",
                description="A saved playlist's items and total duration (IDs from playlist://index).",
                mime_type=JSON,
            )
        ]
    )


def unknown_resource(uri: str, message: str | None = None) -> MCPError:
    """Invalid params (-32602) for a URI this server has no resource at, with the URI in
    `data.uri` as the spec asks, so a client can tell which of its reads failed."""
    return MCPError(
        types.INVALID_PARAMS,
        message
        or f"Unknown resource: {uri[:200]}. Call resources/list and resources/templates/list.",
        {"uri": uri},
    )


def _playlist_id(uri: str) -> str | None:
    if uri.startswith(PLAYLIST_PREFIX) and uri != PLAYLIST_INDEX:
        playlist_id = uri[len(PLAYLIST_PREFIX) :]
        return playlist_id or None
    return None


def _known(uri: str) -> bool:
    return uri in _STATIC or _playlist_id(uri) is not None


async def _content(uri: str) -> Any:
    from video_research.catalog import playlists, videos
    from video_research.catalog import queue as q
    from video_research.catalog.db import get_db
    from video_research.support.errors import ToolFailure

    if uri == CATALOG_CATEGORIES:
        return {"categories": await get_db().read(videos.all_categories)}
    if uri == CATALOG_STATS:
        return await get_db().read(videos.stats)
    if uri == QUEUE_CURRENT:
        state, revision = await q.backend().read()
        return q.status(state, revision)
    if uri == PLAYLIST_INDEX:
        return {"playlists": await get_db().read(playlists.list_all)}
    playlist_id = _playlist_id(uri)
    try:
        return await get_db().read(playlists.get, playlist_id)
    except ToolFailure as failure:
        raise MCPError(types.INVALID_PARAMS, failure.message, {"uri": uri}) from None


async def read_resource(
    ctx: Any, params: types.ReadResourceRequestParams
) -> types.ReadResourceResult:
    from video_research.support.errors import ToolFailure

    uri = str(params.uri)
    if uri.startswith(apps.SCHEME):
        return apps.read(uri)
    if not _known(uri):
        raise unknown_resource(uri)
    try:
        data = await _content(uri)
    except ToolFailure as failure:  # e.g. NATS unreachable while reading queue://current
        raise MCPError(types.INTERNAL_ERROR, f"{failure.category}: {failure.message}") from None
    return types.ReadResourceResult(
        contents=[
            types.TextResourceContents(
                uri=uri, mime_type=JSON, text=json.dumps(data, ensure_ascii=False, default=str)
            )
        ]
    )


def _connection_key(session: Any) -> int:
    # The SDK builds a ServerSession per request; all of them share the connection's
    # object, which is what identifies "this client".
    return id(getattr(session, "_connection", session))


async def subscribe(ctx: Any, params: types.SubscribeRequestParams) -> types.EmptyResult:
    uri = str(params.uri)
    if not _known(uri):
        raise unknown_resource(uri)
    _subscribers.setdefault(uri, {})[_connection_key(ctx.session)] = ctx.session
    return types.EmptyResult()


async def unsubscribe(ctx: Any, params: types.UnsubscribeRequestParams) -> types.EmptyResult:
    _subscribers.get(str(params.uri), {}).pop(_connection_key(ctx.session), None)
    return types.EmptyResult()


async def publish_updated(*uris: str) -> None:
    """Send notifications/resources/updated to every client subscribed to these URIs:
    sessions that sent resources/subscribe, and listen streams that named them.

    Never raises: a client that went away is dropped from the subscribers.
    """
    for uri in uris:
        await BUS.publish(ResourceUpdated(uri=uri))
        for key, session in list(_subscribers.get(uri, {}).items()):
            try:
                await session.send_resource_updated(uri)
            except Exception as exc:
                logger.debug("dropping subscriber of %s: %s", uri, exc)
                _subscribers[uri].pop(key, None)


async def _on_catalog_change(*uris: str) -> None:
    await publish_updated(*uris)


changes.on_change(_on_catalog_change)
