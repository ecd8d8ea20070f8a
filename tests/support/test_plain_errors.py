"""Schema failures reach the caller in plain words: the field, what was sent, what to send.

The property test walks every tool's input schema for every constrained property and
sends values that break it: whatever the value, the message never quotes a regular
expression or one of python-jsonschema's stock sentences.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.calls import call_error
from video_research.support import contracts
from video_research.support.plain_errors import shown
from video_research.support.redact import register_secret
from video_research.tools.table import TOOLS

STOCK = (
    "does not match",
    "is too short",
    "is too long",
    "is a required property",
    "Additional properties",
    "is not of type",
    "should be non-empty",
    "is not valid under any",
    "is not one of",
    "is less than the minimum",
    "is greater than the maximum",
)


def _patterns(node: Any) -> set[str]:
    found: set[str] = set()
    if isinstance(node, dict):
        if isinstance(node.get("pattern"), str):
            found.add(node["pattern"])
        for value in node.values():
            found |= _patterns(value)
    elif isinstance(node, list):
        for value in node:
            found |= _patterns(value)
    return found


ALL_PATTERNS = set().union(*(_patterns(contracts.tool_schema(t, "input")) for t in TOOLS))


def _sites(node: Any, path: tuple[Any, ...] = ()) -> list[tuple[tuple[Any, ...], dict]]:
    """Every (path, schema) of a property with a constraint a value can break."""
    sites: list[tuple[tuple[Any, ...], dict]] = []
    if not isinstance(node, dict):
        return sites
    if path and any(
        k in node for k in ("pattern", "minLength", "enum", "format", "minimum", "type")
    ):
        sites.append((path, node))
    for name, sub in node.get("properties", {}).items():
        sites.extend(_sites(sub, (*path, name)))
    if isinstance(node.get("items"), dict):
        sites.extend(_sites(node["items"], (*path, 0)))
    for branch in node.get("anyOf", []) + node.get("allOf", []):
        sites.extend(_sites(branch, path) if path else [])
    return sites


SITES = [
    (tool, path)
    for tool in sorted(TOOLS)
    for path, _ in _sites(contracts.tool_schema(tool, "input"))
]


def _place(path: tuple[Any, ...], value: Any) -> Any:
    for part in reversed(path):
        value = [value] if isinstance(part, int) else {part: value}
    return value


def _messages(tool: str, arguments: Any) -> list[str]:
    relative = contracts.tool_schema_path(tool, "input")
    return [p["message"] for p in contracts.validation_errors(relative, arguments, plain=True)]


def _assert_plain(message: str, sent: Any) -> None:
    bare = message.replace(shown(sent), "")
    for pattern in ALL_PATTERNS:
        assert pattern not in bare, message
    for phrase in STOCK:
        assert phrase not in bare, message
    assert not re.search(r"\^\[|\\[dsw]|\]\{\d|\$'", bare), message


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**6), 10**6) | st.text(max_size=30),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=6,
)


def test_every_pattern_has_words_for_it():
    """The sites are many (else the property test below proves little)."""
    assert len(SITES) > 200
    assert any("[Hh][Tt][Tt][Pp]" in p for p in ALL_PATTERNS)


@settings(max_examples=400, derandomize=True, deadline=None)
@given(site=st.sampled_from(SITES), value=JSON)
def test_no_message_for_any_tool_quotes_a_regex_or_the_schema(site, value):
    tool, path = site
    for message in _messages(tool, _place(path, value)):
        _assert_plain(message, value)


@settings(max_examples=300, derandomize=True, deadline=None)
@given(site=st.sampled_from(SITES), value=st.text(max_size=40))
def test_no_message_quotes_a_regex_whatever_string_is_sent(site, value):
    tool, path = site
    for message in _messages(tool, _place(path, value)):
        _assert_plain(message, value)


@pytest.mark.parametrize(
    "tool,arguments,expected",
    [
        (
            "video_analyze",
            {"url": "not a url"},
            "url: 'not a url' is not a web address; send a YouTube video URL such as "
            "https://www.youtube.com/watch?v=",
        ),
        (
            "content_analyze",
            {"url": "javascript:alert(1)"},
            "only http and https URLs are accepted",
        ),
        ("toolset_enable", {}, "Missing required field: toolset"),
        ("toolset_list", {"verbos": True}, "Unknown field: 'verbos'; accepted fields: (none)"),
        (
            "video_analyze",
            {"url": "https://youtu.be/dQw4w9WgXcQ", "thinking_level": "hgh"},
            '(did you mean \'high\'?); send one of: "minimal", "low", "medium", "high"',
        ),
        ("research_paper_search", {"query": "x", "year": "20x"}, "send 2019, 2016-2020"),
        ("document_ingest", {}, "Send path or paths: none of them was given."),
        ("knowledge_search", {"query": "q", "limit": 0}, "limit: 0 is below the minimum 1"),
        ("knowledge_search", {"query": 5}, "query: 5 is a whole number; send a text string."),
    ],
)
async def test_the_call_error_says_what_was_wrong_and_what_to_send(tool, arguments, expected):
    error = await call_error(tool, arguments)
    assert error["category"] == "invalid_input"
    assert expected in error["error"], error["error"]
    assert "details" in error


async def test_a_secret_sent_in_a_bad_argument_is_never_echoed():
    secret = "AIzaSyA-very-secret-key-0123456789abcdef"
    register_secret(secret)
    error = await call_error("content_analyze", {"url": secret})
    assert secret not in str(error) and "[REDACTED]" in error["error"]
    long_secret = "s3cr3t-" + "k" * 80
    register_secret(long_secret)
    error = await call_error("content_analyze", {"url": long_secret})
    assert long_secret[:40] not in str(error)


def test_long_values_are_truncated():
    assert len(shown("x" * 5000)) < 80


def _describe_all(schema: dict, instance: Any) -> list[str]:
    from jsonschema import Draft202012Validator

    from video_research.support.plain_errors import describe

    return [describe(e) for e in Draft202012Validator(schema).iter_errors(instance)]


@pytest.mark.parametrize(
    "schema,instance,expected",
    [
        (
            {"properties": {"q": {"type": "string"}}},
            {"q": {"a": 1}},
            "q: got a JSON object; send a text string.",
        ),
        (
            {"maxProperties": 1},
            {"a": 1, "b": 2},
            "arguments: an object has 2 entries; send at most 1.",
        ),
        (
            {"properties": {"f": {"additionalProperties": False, "properties": {"video_id": {}}}}},
            {"f": {"vidoe_id": 1}},
            "Unknown field in f: 'vidoe_id' (did you mean 'video_id'?)",
        ),
        (  # a synonym no spelling reaches: the tool's own field of that meaning
            {"properties": {"k": {}, "query": {}}, "additionalProperties": False},
            {"top_k": 3},
            "Unknown field: 'top_k' (did you mean 'k'?); accepted fields: k, query.",
        ),
        (
            {"properties": {"limit": {}, "q": {}}, "additionalProperties": False},
            {"k": 3},
            "Unknown field: 'k' (did you mean 'limit'?); accepted fields: limit, q.",
        ),
        (  # the field itself, sent in capitals: too short for difflib to match
            {"properties": {"k": {}, "q": {}}, "additionalProperties": False},
            {"Q": "tides"},
            "Unknown field: 'Q' (did you mean 'q'?); accepted fields: k, q.",
        ),
        (  # two fields of the group: which one is not guessed
            {"properties": {"k": {}, "count": {}}, "additionalProperties": False},
            {"limit": 3},
            "Unknown field: 'limit'; accepted fields: count, k.",
        ),
        (  # a guess shows the sent name as the list does: cut at 60 characters
            {"properties": {"a" * 70: {}, "b": {}}, "additionalProperties": False},
            {"a" * 69 + "x": 1, "c": 2},
            f"(did you mean {'a' * 60!r} -> {'a' * 70!r}?)",
        ),
        (
            {"properties": {"video_id": {}, "query": {}}, "additionalProperties": False},
            {"vidoe_id": 1, "qeury": 2},
            "Unknown fields: 'vidoe_id', 'qeury' (did you mean 'vidoe_id' -> 'video_id', "
            "'qeury' -> 'query'?)",
        ),
        (
            {"properties": {"xs": {"type": "array", "minItems": 1}}},
            {"xs": []},
            "xs: the list is empty; send at least one item.",
        ),
        (
            {"properties": {"n": {"type": "integer", "maximum": 5}}},
            {"n": 9},
            "n: 9 is above the maximum 5; send a number of at most 5.",
        ),
        (
            {
                "properties": {
                    "code": {
                        "type": "string",
                        "pattern": "^[a-z]{2}$",
                        "description": "A code such as en.",
                    }
                }
            },
            {"code": "ENG"},
            "code: 'ENG' is not in the accepted form; send a code such as en.",
        ),
        (
            {"properties": {"code": {"type": "string", "pattern": "^[a-z]{2}$"}}},
            {"code": "ENG"},
            "code: 'ENG' is not in the accepted form; see the description of code in tools/list.",
        ),
        (
            {"properties": {"api_token": {"type": "string", "maxLength": 3, "pattern": "^x"}}},
            {"api_token": "hunter2-secret"},
            "api_token: [REDACTED] is not in the accepted form",
        ),
    ],
)
def test_each_keyword_has_its_sentence(schema, instance, expected):
    messages = _describe_all(schema, instance)
    assert any(expected in m for m in messages), messages
    for message in messages:
        assert "hunter2" not in message


def _pattern_nodes(node: Any) -> list[dict]:
    found = []
    if isinstance(node, dict):
        if "pattern" in node:
            found.append(node)
        for value in node.values():
            found += _pattern_nodes(value)
    elif isinstance(node, list):
        for value in node:
            found += _pattern_nodes(value)
    return found


def test_every_input_pattern_carries_its_plain_advice():
    """A new `pattern` in an input schema comes with its `x-error` (docs/architecture.md)."""
    bare = sorted(
        {
            f"{tool}: {node['pattern']}"
            for tool in TOOLS
            for node in _pattern_nodes(contracts.tool_schema(tool, "input"))
            if "x-error" not in node
        }
    )
    assert not bare, bare
