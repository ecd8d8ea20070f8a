"""Tool profiles, toolsets on demand and the size of `tools/list`.

The budgets are asserted on whatever tools and schema files exist, so they keep holding
as tools are added: the default profile <= 8k tokens, every tool <= 24k (bytes / 4 of
the JSON tools/list result, as the SDK writes it).
"""

from __future__ import annotations

import asyncio
import json

import mcp_types as types
import pytest
from mcp.shared.exceptions import MCPError

from tests.helpers import http_server, mcp_client, tool_json
from video_research.config import load_settings
from video_research.server import schema_compaction, tool_listing
from video_research.tools import dispatch

META = {
    *("tool_search", "tool_describe", "tool_call"),
    *("toolset_list", "toolset_enable", "toolset_disable"),
}


def listed_tokens(result: types.ListToolsResult) -> int:
    return len(result.model_dump_json(by_alias=True, exclude_none=True).encode()) // 4


# ---------------------------------------------------------------- budgets, in process


def test_budgets_hold_for_the_default_profile_and_for_every_tool():
    default = dispatch.enabled_tools(load_settings({}))
    everything = dispatch.enabled_tools(load_settings({"VIDEO_RESEARCH_TOOLSETS": "all"}))
    assert len(everything) == len(dispatch.TOOLS) - len(META)
    assert tool_listing.tokens(tool_listing.definitions(default)) <= 8_000
    assert tool_listing.tokens(tool_listing.definitions(everything)) <= 24_000


def test_default_profile_is_the_documented_tools_plus_the_meta_tools():
    names = {spec.name for spec in dispatch.enabled_tools(load_settings({}))}
    assert names == set(dispatch.DEFAULT_PROFILE) | META
    assert set(dispatch.DEFAULT_PROFILE) <= set(dispatch.TOOLS)


def test_explicit_toolsets_list_exactly_those_unless_dynamic_is_on():
    infra = load_settings({"VIDEO_RESEARCH_TOOLSETS": "infra"})
    assert {s.name for s in dispatch.enabled_tools(infra)} == {"infra_cache", "infra_configure"}
    dynamic = load_settings(
        {"VIDEO_RESEARCH_TOOLSETS": "infra", "VIDEO_RESEARCH_DYNAMIC_TOOLSETS": "on"}
    )
    assert {s.name for s in dispatch.enabled_tools(dynamic)} == {
        "infra_cache",
        "infra_configure",
    } | META
    mixed = load_settings({"VIDEO_RESEARCH_TOOLSETS": "default,catalog"})
    names = {s.name for s in dispatch.enabled_tools(mixed)}
    assert "catalog_add" in names and "video_analyze" in names and names >= META


def test_published_schemas_keep_the_contract_shape():
    """Every input constraint is published; every output property keeps its type; nothing
    a draft-07 Ajv (MCP Inspector) cannot compile: no $schema, no output formats, $ref
    only to local $defs without siblings."""
    published = tool_listing.published_tools()
    for name, spec in dispatch.TOOLS.items():
        tool = published[name]
        full_in, full_out = spec.input_schema, spec.output_schema
        assert set(tool.input_schema["properties"]) == set(full_in.get("properties", {}))
        assert tool.input_schema.get("required", []) == full_in.get("required", [])
        assert tool.input_schema.get("additionalProperties") == full_in.get("additionalProperties")
        for prop, schema in full_in.get("properties", {}).items():
            published_prop = _resolve(tool.input_schema, tool.input_schema["properties"][prop])
            for keyword in (
                *("type", "enum", "default", "minimum", "maximum", "pattern", "format"),
                *("minLength", "maxLength", "minItems", "maxItems", "uniqueItems"),
            ):
                assert _keyword(published_prop, keyword) == _keyword(schema, keyword), (
                    name,
                    prop,
                    keyword,
                )
        if "properties" not in full_out:  # a union (caller-defined shapes): checked by type
            assert tool.output_schema.get("type") == full_out.get("type"), name
            continue
        out_props = tool.output_schema["properties"]
        full_props = _properties(full_out)
        # the properties every output may carry (injections) may be left to an open object
        dropped = set(full_props) - set(out_props)
        assert set(out_props) <= set(full_props), name
        assert dropped <= set(schema_compaction.SHARED_OUTPUT_PROPERTIES), name
        if dropped:
            assert tool.output_schema.get("additionalProperties") is not False, name
        for prop, schema in ((p, s) for p, s in full_props.items() if p not in dropped):
            assert _resolve(tool.output_schema, out_props[prop]).get("type") == schema.get(
                "type"
            ), (name, prop)
        assert set(tool.output_schema.get("required", [])) <= set(full_out.get("required", []))
        for document in (tool.input_schema, tool.output_schema):
            _check_ajv_friendly(document)
        assert not _has_key(tool.output_schema, "format")


def _all_of(schema) -> list:
    """`schema` and its `allOf` branches, which apply to the same value."""
    return [schema, *(b for b in schema.get("allOf", []) if isinstance(b, dict))]


def _keyword(schema, keyword):
    """A keyword's value, said by the schema itself or one of its `allOf` branches (the
    published form folds those branches into one object: schema_compaction._flatten)."""
    values = [part[keyword] for part in _all_of(schema) if keyword in part]
    assert len(values) <= 1 or all(v == values[0] for v in values), (keyword, values)
    return values[0] if values else None


def _properties(schema) -> dict:
    return {k: v for part in _all_of(schema) for k, v in part.get("properties", {}).items()}


def _resolve(document, node):
    ref = node.get("$ref") if isinstance(node, dict) else None
    if ref:
        return document["$defs"][ref.rsplit("/", 1)[1]]
    return node


def _has_key(node, key) -> bool:
    if isinstance(node, dict):
        return key in node or any(
            _has_key(v, key) for k, v in node.items() if k not in ("enum", "default")
        )
    if isinstance(node, list):
        return any(_has_key(v, key) for v in node)
    return False


def _check_ajv_friendly(node) -> None:
    if isinstance(node, dict):
        assert "$schema" not in node and "$id" not in node
        if "$ref" in node:
            assert node["$ref"].startswith("#/$defs/") and len(node) == 1
        for key, value in node.items():
            if key not in ("enum", "default", "const", "examples"):
                _check_ajv_friendly(value)
    elif isinstance(node, list):
        for value in node:
            _check_ajv_friendly(value)


def test_repeated_subschemas_move_to_defs_and_still_validate_as_the_sdk_client_does():
    """The SDK client compiles an outputSchema with jsonschema's validator_for; a published
    schema with local $defs must accept what the full one accepts and reject the rest."""
    from jsonschema.validators import validator_for

    item = {
        "type": "object",
        "additionalProperties": False,
        "required": ["video_id", "title", "seconds"],
        "properties": {
            "video_id": {"type": "string", "description": "An ID."},
            "title": {"type": "string"},
            "seconds": {"type": "number", "minimum": 0},
        },
    }
    full = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "x output",
        "type": "object",
        "additionalProperties": False,
        "required": ["first", "others"],
        "properties": {"first": item, "others": {"type": "array", "items": item}},
    }
    published = schema_compaction.output_levels(full, set())[0]
    assert "$defs" in published and published["properties"]["first"] == {"$ref": "#/$defs/d0"}
    validator = validator_for(published)(published)
    validator.check_schema(published)
    good = {"first": {"video_id": "a", "title": "t", "seconds": 1}, "others": []}
    assert validator.is_valid(good)
    assert not validator.is_valid({**good, "others": [{"video_id": "a"}]})
    assert not validator.is_valid({**good, "extra": 1})


def test_output_levels_get_smaller_and_end_at_the_top_level_types():
    spec = dispatch.TOOLS["semantic_search_transcripts"]
    levels = schema_compaction.output_levels(spec.output_schema, set())
    sizes = [len(schema_compaction.compact(level)) for level in levels]
    assert sizes == sorted(sizes, reverse=True) and len(set(sizes)) == len(sizes)
    shared = set(schema_compaction.SHARED_OUTPUT_PROPERTIES)
    assert set(levels[-2]["properties"]) == set(spec.output_schema["properties"])
    assert set(levels[-1]["properties"]) == set(spec.output_schema["properties"]) - shared
    assert "additionalProperties" not in levels[-1]


# ---------------------------------------------------------------- over a real ClientSession


class Notifications:
    def __init__(self):
        self.tools_changed = 0

    async def __call__(self, message):
        if isinstance(message, types.ToolListChangedNotification):
            self.tools_changed += 1


async def test_stdio_default_profile_and_toolsets_on_demand(server_env):
    server_env.pop("VIDEO_RESEARCH_TOOLSETS")
    seen = Notifications()
    async with mcp_client(server_env, message_handler=seen) as session:
        listed = await session.list_tools()
        assert {t.name for t in listed.tools} == set(dispatch.DEFAULT_PROFILE) | META
        assert listed_tokens(listed) <= 8_000
        caps = session.initialize_result.capabilities
        assert caps.tools.list_changed is True

        # a tool of a toolset that is off: a tool result naming the calls that reach it
        hidden = await session.call_tool("catalog_search", {"q": "x"})
        error = tool_json(hidden)
        assert hidden.is_error and error["category"] == "not_found"
        assert "toolset 'catalog'" in error["error"]
        assert 'toolset_enable {"toolset": "catalog"}' in error["hint"]
        assert 'tool_call {"name": "catalog_search"' in error["hint"]

        # a misspelt tool of a toolset that is off: named, with how to turn it on
        with pytest.raises(MCPError) as typo:
            await session.call_tool("catalog_serch", {"q": "x"})
        assert (
            "Did you mean 'catalog_search' (toolset 'catalog', not listed here: call it through "
            'tool_call {"name": "catalog_search"' in str(typo.value)
        )
        assert 'toolset_enable {"toolset": "catalog"}' in str(typo.value)

        overview = tool_json(await session.call_tool("toolset_list", {}))
        by_name = {t["name"]: t for t in overview["toolsets"]}
        assert by_name["catalog"]["state"] == "off" and by_name["video"]["state"] == "partly"
        assert all(t["description"] and "\n" not in t["description"] for t in overview["toolsets"])
        assert "toolsets" not in by_name

        enabled = tool_json(await session.call_tool("toolset_enable", {"toolset": "catalog"}))
        assert enabled["state"] == "on"
        assert {t["name"] for t in enabled["added"]} == set(dispatch.toolset_tools("catalog"))
        await _until(lambda: seen.tools_changed == 1)
        names = {t.name for t in (await session.list_tools()).tools}
        assert "catalog_search" in names
        assert not (await session.call_tool("catalog_search", {"q": "x"})).is_error

        again = tool_json(await session.call_tool("toolset_enable", {"toolset": "catalog"}))
        assert again["added"] == []

        disabled = tool_json(await session.call_tool("toolset_disable", {"toolset": "video"}))
        assert disabled["state"] == "off" and "video_analyze" in disabled["removed"]
        await _until(lambda: seen.tools_changed == 2)
        names = {t.name for t in (await session.list_tools()).tools}
        assert "video_analyze" not in names and "catalog_search" in names
        assert seen.tools_changed == 2

        unknown = await session.call_tool("toolset_enable", {"toolset": "bogus"})
        error = tool_json(unknown)
        assert unknown.is_error and error["category"] == "invalid_input"
        assert error["details"]["toolsets"] == dispatch.toolset_names()
        assert "catalog" in error["error"] and "transcripts" in error["error"]


async def _until(condition, timeout: float = 5.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not condition():
        assert asyncio.get_running_loop().time() < deadline, "timed out"
        await asyncio.sleep(0.02)


async def test_http_toolsets_are_per_client_session(server_env):
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    server_env.pop("VIDEO_RESEARCH_TOOLSETS")
    seen = Notifications()
    async with http_server(server_env) as (port, _):
        url = f"http://127.0.0.1:{port}/mcp"
        async with (
            streamable_http_client(url) as (read_a, write_a),
            ClientSession(read_a, write_a, message_handler=seen) as first,
            streamable_http_client(url) as (read_b, write_b),
            ClientSession(read_b, write_b) as second,
        ):
            await first.initialize()
            await second.initialize()
            assert first.initialize_result.capabilities.tools.list_changed is True
            await first.call_tool("toolset_enable", {"toolset": "queue"})
            await _until(lambda: seen.tools_changed == 1)
            assert "queue_status" in {t.name for t in (await first.list_tools()).tools}
            assert "queue_status" not in {t.name for t in (await second.list_tools()).tools}
            refused = await second.call_tool("queue_status", {})
            assert refused.is_error and "toolset_enable" in tool_json(refused)["hint"]


async def test_all_profile_over_http_is_within_budget(server_env):
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    async with (
        http_server(server_env) as (port, _),
        streamable_http_client(f"http://127.0.0.1:{port}/mcp") as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        listed = await session.list_tools()
        assert len(listed.tools) == len(dispatch.TOOLS) - len(META)
        assert listed_tokens(listed) <= 24_000


@pytest.mark.parametrize(
    "tool,arguments,fragment",
    [
        ("toolset_enable", {"toolset": "nope"}, "Unknown toolset 'nope'"),
        ("toolset_disable", {"toolset": "toolsets"}, "Unknown toolset 'toolsets'"),
        ("toolset_enable", {}, "Missing required field: toolset"),
        ("toolset_disable", {"toolset": ""}, "toolset: the text is empty"),
        ("toolset_list", {"verbose": True}, "Unknown field: 'verbose'"),
    ],
)
async def test_meta_tools_refuse_bad_input(tool, arguments, fragment):
    from video_research.handlers.context import CallContext, Caller

    ctx = CallContext(tool=tool, caller=Caller(username="u", role="viewer", verified=True))
    outcome = await dispatch.call(dispatch.TOOLS[tool], arguments, ctx)
    assert outcome.error is not None and outcome.error.category == "invalid_input"
    assert fragment in outcome.error.error or fragment in json.dumps(outcome.error.details)


@pytest.mark.parametrize(
    "name,expected",
    [
        ("search_transcripts_semantic", "semantic_search_transcripts"),
        ("index_transcript_file", "index_transcript_files"),
        ("catalog_serch", "catalog_search"),
        ("knowledge_searh", "knowledge_search"),
    ],
)
def test_an_unknown_tool_names_the_similar_tool_of_the_whole_table_and_its_toolset(name, expected):
    from video_research.tools import toolsets

    settings = load_settings()
    message = toolsets.unknown_tool_message(name, settings)
    spec = dispatch.TOOLS[expected]
    assert f"Did you mean {expected!r} (toolset '{spec.toolset}'" in message
    if expected not in dispatch.DEFAULT_PROFILE:
        assert f'toolset_enable {{"toolset": "{spec.toolset}"}}' in message
        assert f'tool_call {{"name": "{expected}"' in message
        # without sessions (2026-07-28) only the call that works in one request is offered
        stateless = toolsets.unknown_tool_message(name, settings, stateless=True)
        assert f'tool_call {{"name": "{expected}"' in stateless
        assert "toolset_enable" not in stateless


def test_an_unknown_tool_like_none_says_how_to_see_them_all_and_a_fixed_server_how_to_widen():
    from video_research.tools import toolsets

    settings = load_settings()
    message = toolsets.unknown_tool_message("zzzz", settings)
    assert f"{len(dispatch.TOOLS)} tools" in message and "tool_search" in message
    fixed = settings.model_copy(update={"toolsets": ["video"], "dynamic_toolsets": "off"})
    message = toolsets.unknown_tool_message("catalog_serch", fixed)
    assert "add catalog to VIDEO_RESEARCH_TOOLSETS" in message
