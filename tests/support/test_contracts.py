"""Contract tests generated from the dispatch table: every tool has valid 2020-12 schemas,
the files are what the server publishes, and nothing in schemas/ is orphaned."""

from __future__ import annotations

import json

import mcp_types as types
import pytest
from jsonschema import Draft202012Validator

from tests.helpers import mcp_client
from video_research.support import contracts
from video_research.tools import dispatch

TOOL_NAMES = sorted(dispatch.TOOLS)


@pytest.mark.parametrize("name", TOOL_NAMES)
@pytest.mark.parametrize("kind", ["input", "output"])
def test_schema_file_exists_and_is_valid_2020_12(name, kind):
    path = contracts.schema_root() / contracts.tool_schema_path(name, kind)
    assert path.is_file(), f"{name} is missing {path}"
    raw = json.loads(path.read_text())
    assert raw.get("$schema") == contracts.DRAFT
    Draft202012Validator.check_schema(raw)
    resolved = contracts.tool_schema(name, kind)
    Draft202012Validator.check_schema(resolved)
    assert resolved["type"] == "object", f"{name} {kind} schema must have an object root"
    assert "$ref" not in json.dumps(resolved), "published schemas must be self-contained"


@pytest.mark.parametrize("name", TOOL_NAMES)
def test_input_schema_rejects_unknown_arguments(name):
    schema = contracts.tool_schema(name, "input")
    assert schema.get("additionalProperties") is False, f"{name} must reject unknown arguments"
    problems = contracts.validation_errors(
        contracts.tool_schema_path(name, "input"), {"definitely_not_an_argument": 1}
    )
    assert problems, f"{name} accepted an unknown argument"


@pytest.mark.parametrize("name", TOOL_NAMES)
def test_spec_is_complete(name):
    spec = dispatch.TOOLS[name]
    assert spec.description.strip() and spec.summary
    assert spec.role in ("viewer", "blessed", "admin")
    assert callable(dispatch.resolve_handler(spec.handler)), (
        f"{name}: handler {spec.handler} not found"
    )
    if spec.destructive:
        assert not spec.read_only


def test_no_orphan_schema_files():
    tools_dir = contracts.schema_root() / "tools"
    names = {p.name.rsplit(".", 2)[0] for p in tools_dir.glob("*.json")}
    assert names <= set(dispatch.TOOLS), (
        f"schemas without a tool: {sorted(names - set(dispatch.TOOLS))}"
    )


def test_every_common_schema_is_valid():
    for path in (contracts.schema_root() / "common").glob("*.json"):
        raw = json.loads(path.read_text())
        assert raw.get("$schema") == contracts.DRAFT, path
        Draft202012Validator.check_schema(raw)


def test_ref_is_inlined_with_sibling_description():
    schema = contracts.tool_schema("infra_cache", "input")
    content_id = schema["properties"]["content_id"]
    assert content_id["type"] == "string" and content_id["maxLength"] == 200
    assert "video ID or file hash" in content_id["description"]


def test_broken_ref_is_reported(tmp_path, monkeypatch):
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "x.input.json").write_text(
        json.dumps(
            {
                "$schema": contracts.DRAFT,
                "type": "object",
                "properties": {"a": {"$ref": "../common/nope.json"}},
            }
        )
    )
    monkeypatch.setattr(contracts, "schema_root", lambda: tmp_path)
    contracts.load_schema.cache_clear()
    try:
        with pytest.raises(contracts.SchemaError, match="missing"):
            contracts.load_schema("tools/x.input.json")
    finally:
        contracts.load_schema.cache_clear()


async def test_listed_schemas_are_the_published_form_of_the_files(server_env):
    """tools/list shows each contract in its published form (schema_compaction.py: the
    same input contract, the output's shape); the server validates against the files."""
    from video_research.server import tool_listing

    async with mcp_client(server_env) as session:
        listed = (await session.list_tools()).tools
    by_name = {tool.name: tool for tool in listed}
    meta = set(dispatch.toolset_tools(dispatch.META_TOOLSET))
    assert set(by_name) == set(dispatch.TOOLS) - meta
    published = tool_listing.published_tools()
    for name, tool in by_name.items():
        assert tool.input_schema == published[name].input_schema, name
        assert tool.output_schema == published[name].output_schema, name
        spec = dispatch.TOOLS[name]
        assert tool.description == spec.description
        hints = tool.annotations or types.ToolAnnotations()
        # MCP defaults: readOnly false, destructive true, idempotent false, openWorld true
        assert (hints.read_only_hint is True) is spec.read_only
        assert hints.read_only_hint is not False  # a default is left out, never spelled
        if not spec.read_only:
            assert (hints.destructive_hint is not False) is spec.destructive
            assert (hints.idempotent_hint is True) is spec.idempotent
        assert (hints.open_world_hint is not False) is spec.open_world
