"""MCP resources: read-only context an agent can pull in (catalog, queue, playlists).

The handlers take the SDK's (ctx, params) pair. Until resources are registered the lists
are empty and reading any URI is an invalid-params error.
"""

from __future__ import annotations

from typing import Any

import mcp_types as types
from mcp.shared.exceptions import MCPError


async def list_resources(ctx: Any, params: Any) -> types.ListResourcesResult:
    return types.ListResourcesResult(resources=[])


async def list_resource_templates(ctx: Any, params: Any) -> types.ListResourceTemplatesResult:
    return types.ListResourceTemplatesResult(resource_templates=[])


async def read_resource(
    ctx: Any, params: types.ReadResourceRequestParams
) -> types.ReadResourceResult:
    raise MCPError(types.INVALID_PARAMS, f"Unknown resource: {params.uri}")


async def subscribe(ctx: Any, params: types.SubscribeRequestParams) -> types.EmptyResult:
    raise MCPError(types.INVALID_PARAMS, f"Resource {params.uri} does not support subscriptions")


async def unsubscribe(ctx: Any, params: types.UnsubscribeRequestParams) -> types.EmptyResult:
    return types.EmptyResult()
