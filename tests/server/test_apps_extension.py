"""MCP Apps over the real SDK: the views' `ui://` links and resources are in every client's
lists (one list per configuration); a client that declares the extension renders them."""

from __future__ import annotations

import gzip
import re
from typing import Any

import mcp_types as types
import pytest
from mcp.shared.exceptions import MCPError

from tests.helpers import mcp_client
from video_research.server import apps, tool_listing
from video_research.support import contracts
from video_research.tools import dispatch

APPS = {apps.EXTENSION_ID: {"mimeTypes": [apps.APP_MIME_TYPE]}}


def _dump(result) -> str:
    return result.model_dump_json(by_alias=True, exclude_none=True)


async def test_a_host_with_the_extension_sees_the_views(server_env):
    async with mcp_client(server_env, extensions=APPS) as session:
        listed = {tool.name: tool for tool in (await session.list_tools()).tools}
        for name, uri in apps.TOOL_VIEWS.items():
            if name in dispatch.TOOLS:
                assert listed[name].meta == {"ui": {"resourceUri": uri}}
        assert listed["video_metadata"].meta is None
        views = [r for r in (await session.list_resources()).resources if r.uri.startswith("ui://")]
        assert {r.uri for r in views} == set(apps.VIEWS)
        for uri in apps.VIEWS:
            content = (await session.read_resource(uri)).contents[0]
            assert content.mime_type == "text/html;profile=mcp-app"
            csp = content.meta["ui"]["csp"]
            assert "connectDomains" not in csp
            assert csp.get("frameDomains", []) in ([], ["https://www.youtube-nocookie.com"])
            # Only the moments load pictures from outside: YouTube's thumbnails.
            thumbnails = ["https://i.ytimg.com"] if uri.endswith("/moments.html") else []
            assert csp.get("resourceDomains", []) == thumbnails
            # Self-contained: nothing loaded from anywhere, every include put in place.
            assert not re.search(
                r"""<(script|link|img)[^>]+(src|href)=["']?https?:""", content.text
            )
            assert "@include" not in content.text


async def test_every_client_gets_the_same_lists_and_results(server_env):
    """The lists are one per configuration (a shared cache may keep them, MCP 2026-07-28):
    a host without the extension gets the links too, and ignores them."""
    async with mcp_client(server_env) as plain, mcp_client(server_env, extensions=APPS) as host:
        plain_tools = await plain.list_tools()
        assert _dump(plain_tools) == _dump(await host.list_tools())
        assert any(tool.meta for tool in plain_tools.tools)
        assert _dump(await plain.list_resources()) == _dump(await host.list_resources())
        # The result itself is the same whether or not the client shows it as a view.
        assert _dump(await plain.call_tool("queue_status", {})) == _dump(
            await host.call_tool("queue_status", {})
        )


async def test_an_unknown_view_is_invalid_params(server_env):
    async with mcp_client(server_env, extensions=APPS) as session:
        with pytest.raises(MCPError, match="Unknown view") as raised:
            await session.read_resource("ui://video-research/nope.html")
        assert raised.value.error.code == types.INVALID_PARAMS
        assert raised.value.error.data == {"uri": "ui://video-research/nope.html"}


def test_the_default_profile_stays_within_budget_with_the_views_linked():
    from video_research.config import load_settings

    default = tool_listing.definitions(dispatch.enabled_tools(load_settings({})))
    linked = apps.with_views(default)
    assert tool_listing.tokens(linked) <= tool_listing.DEFAULT_PROFILE_BUDGET_TOKENS
    assert tool_listing.tokens(linked) > tool_listing.tokens(default)


def _fields_at(schema: dict[str, Any], step: str) -> list[dict[str, Any]]:
    """The subschemas `step` (a property name, or `[]` for an array's items) leads to, through
    allOf/anyOf/oneOf."""
    found = []
    pending = [schema]
    while pending:
        node = pending.pop()
        for key in ("allOf", "anyOf", "oneOf"):
            pending.extend(node.get(key, []))
        if step == "[]" and isinstance(node.get("items"), dict):
            found.append(node["items"])
        elif step in node.get("properties", {}):
            found.append(node["properties"][step])
    return found


@pytest.mark.parametrize("tool", sorted(apps.TOOL_VIEWS))
def test_a_view_reads_only_what_its_tool_returns(tool):
    """The contract between a tool and its view: every field the view reads is in the tool's
    output schema. A tool that drops or renames one fails here until its view (and READS)
    follow; a field the view names in READS must also appear in the view's code."""
    assert tool in apps.READS, f"{tool} opens a view: list the fields it reads in apps.READS"
    schema = contracts.tool_schema(tool, "output")
    page = apps.html(apps.VIEWS[apps.TOOL_VIEWS[tool]].name)
    for path in apps.READS[tool]:
        nodes = [schema]
        for step in re.findall(r"\[\]|[^.\[\]]+", path):
            nodes = [found for node in nodes for found in _fields_at(node, step)]
            assert nodes, f"{tool}'s output has no {path!r}, which its view reads"
        name = path.rsplit(".", 1)[-1].removesuffix("[]")
        assert re.search(rf"\b{re.escape(name)}\b", page), f"the view never reads {name!r}"


@pytest.mark.parametrize("uri", sorted(apps.VIEWS))
def test_each_view_weighs_at_most_20_kb_gzipped(uri):
    page = apps.html(apps.VIEWS[uri].name).encode()
    assert len(gzip.compress(page, 9)) <= 20 * 1024
