"""The published form of a schema accepts exactly what the full one accepts where it
claims to (schema_compaction.py): an `allOf` folded into its parent, a `required: []`
left out; and it folds nothing whose meaning depends on the keywords beside it."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema.validators import validator_for

from video_research.server import tool_listing
from video_research.server.schema_compaction import output_levels, publish_input
from video_research.tools import dispatch

SHARED_IDS = {"type": "array", "items": {"type": "string", "maxLength": 3}, "description": "IDs."}

# (name, full schema, whether the published form still needs an `allOf`)
CASES = [
    (
        "ref with bounds beside it",
        {
            "type": "object",
            "properties": {"ids": {"allOf": [SHARED_IDS], "minItems": 1, "maxItems": 2}},
        },
        False,
    ),
    (
        "shared properties beside the tool's own",
        {
            "allOf": [
                {"type": "object", "required": ["a"], "properties": {"a": {"type": "integer"}}}
            ],
            "type": "object",
            "required": ["b"],
            "properties": {"b": {"type": "string"}},
        },
        False,
    ),
    (
        "a shared object extended and closed by unevaluatedProperties",
        {
            "allOf": [
                {"type": "object", "required": ["a"], "properties": {"a": {"type": "integer"}}}
            ],
            "type": "object",
            "properties": {"b": {"type": "string"}},
            "unevaluatedProperties": False,
        },
        False,
    ),
    (
        "unevaluatedProperties with a schema of its own",
        {
            "allOf": [{"properties": {"a": {"type": "integer"}}}],
            "properties": {"b": {"type": "string"}},
            "unevaluatedProperties": {"type": "string"},
        },
        False,
    ),
    (
        "unevaluatedProperties beside a branch that cannot fold",
        {
            "allOf": [{"properties": {"a": {"type": "integer"}}, "additionalProperties": False}],
            "properties": {"b": {"type": "string"}},
            "unevaluatedProperties": False,
        },
        True,
    ),
    (
        "additionalProperties reads the properties beside it",
        {
            "allOf": [{"properties": {"a": {"type": "integer"}}, "additionalProperties": False}],
            "properties": {"b": {"type": "string"}},
        },
        True,
    ),
    (
        "items reads the prefixItems beside it",
        {
            "type": "object",
            "properties": {
                "ids": {
                    "allOf": [{"prefixItems": [{"type": "string"}]}],
                    "items": {"type": "integer"},
                }
            },
        },
        True,
    ),
    (
        "the same keyword with another value",
        {"type": "object", "properties": {"a": {"allOf": [{"minimum": 1}], "minimum": 5}}},
        True,
    ),
    (
        "types that disagree",
        {"type": "object", "properties": {"a": {"allOf": [{"type": "string"}], "type": "integer"}}},
        True,
    ),
    (
        "the same property on both sides",
        {
            "allOf": [{"properties": {"a": {"type": "integer"}}}],
            "properties": {"a": {"minimum": 3}},
        },
        True,
    ),
]

# Instances that tell the cases apart, then random ones near them.
POOL = [
    *(None, "ab", 5, [], {}, {"c": 1}),
    *({"a": 1}, {"a": "x"}, {"a": 0}, {"a": 3}, {"a": 6}, {"b": "ab"}, {"b": 1}),
    {"a": 1, "b": "ab"},
    *({"ids": []}, {"ids": ["ab"]}, {"ids": ["abcd"]}, {"ids": ["a", "b", "c"]}),
    *({"ids": [1]}, {"ids": ["ab", 1]}, {"ids": [1, "ab"]}),
]
SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(-2, 8), st.sampled_from(["", "ab", "abcd", "x"])
)
VALUES = st.one_of(SCALARS, st.lists(SCALARS, max_size=3))
INSTANCES = st.one_of(
    st.sampled_from(POOL),
    VALUES,
    st.dictionaries(st.sampled_from(["a", "b", "ids", "c"]), VALUES, max_size=3),
)


def _has(node, key) -> bool:
    if isinstance(node, dict):
        return key in node or any(_has(value, key) for value in node.values())
    if isinstance(node, list):
        return any(_has(value, key) for value in node)
    return False


@pytest.mark.parametrize(("name", "full", "keeps_all_of"), CASES, ids=[c[0] for c in CASES])
def test_all_of_folds_only_where_it_means_the_same(name, full, keeps_all_of):
    published = publish_input(full, set())
    validator_for(published).check_schema(published)
    assert _has(published, "allOf") is keeps_all_of, published


@pytest.mark.parametrize(("name", "full", "keeps_all_of"), CASES, ids=[c[0] for c in CASES])
def test_published_input_decides_the_telling_instances_as_the_full_one(name, full, keeps_all_of):
    published = publish_input(full, set())
    full_validator, published_validator = (
        validator_for(full)(full),
        validator_for(published)(published),
    )
    for instance in POOL:
        assert published_validator.is_valid(instance) is full_validator.is_valid(instance), instance


@settings(max_examples=300, derandomize=True, deadline=None)
@given(case=st.sampled_from(CASES), instance=INSTANCES)
def test_published_input_accepts_exactly_what_the_full_schema_accepts(case, instance):
    _, full, _ = case
    published = publish_input(full, set())
    expected = validator_for(full)(full).is_valid(instance)
    assert validator_for(published)(published).is_valid(instance) is expected


def test_folding_joins_required_and_properties_and_keeps_the_parents_description():
    full = {
        "type": "object",
        "properties": {"ids": {"allOf": [SHARED_IDS], "description": "Here: the new order."}},
    }
    ids = publish_input(full, set())["properties"]["ids"]
    assert ids == {
        "type": "array",
        "items": {"type": "string", "maxLength": 3},
        "description": "Here: the new order.",
    }
    merged = publish_input(CASES[1][1], set())
    assert merged["required"] == ["b", "a"]
    assert set(merged["properties"]) == {"a", "b"}


def test_a_closed_extension_is_published_closed():
    """The knowledge hit is the shared `where` extended and closed: its published output
    still refuses a field it does not name (additionalProperties: false)."""
    closed = publish_input(CASES[2][1], set())
    assert closed["additionalProperties"] is False and "unevaluatedProperties" not in closed
    fullest = output_levels(dispatch.TOOLS["knowledge_search"].output_schema, set())[0]
    hit = _find_hit(fullest)
    assert hit is not None and hit.get("additionalProperties") is False, fullest


def _find_hit(node):
    if isinstance(node, dict):
        if "object_id" in node.get("properties", {}):
            return node
        for value in node.values():
            if (found := _find_hit(value)) is not None:
                return found
    if isinstance(node, list):
        for value in node:
            if (found := _find_hit(value)) is not None:
                return found
    return None


def test_empty_required_is_left_out():
    published = publish_input({"type": "object", "required": [], "properties": {}}, set())
    assert published == {"type": "object", "properties": {}}


def test_the_leanest_output_drops_a_union_that_accepts_any_object_but_keeps_one_of():
    shape = {"type": "object", "required": ["title"], "properties": {"title": {"type": "string"}}}
    union = {"type": "object", "anyOf": [shape, {"type": "object", "description": "Yours."}]}
    assert output_levels(union, set())[-1] == {"type": "object"}
    one_of = {"type": "object", "oneOf": [shape, {"type": "object"}]}
    assert "oneOf" in output_levels(one_of, set())[-1]


def test_annotations_spell_only_hints_that_differ_from_the_defaults():
    """MCP's defaults: readOnly false, destructive true, idempotent false, openWorld true."""
    for name, tool in tool_listing.published_tools().items():
        hints = tool.annotations.model_dump(exclude_none=True) if tool.annotations else {}
        spec = dispatch.TOOLS[name]
        assert hints.get("read_only_hint", True) is True, name
        assert hints.get("destructive_hint", False) is False, name
        assert hints.get("idempotent_hint", True) is True, name
        assert hints.get("open_world_hint", False) is False, name
        if spec.read_only:
            assert set(hints) <= {"read_only_hint", "open_world_hint"}, name
