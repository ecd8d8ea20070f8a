"""The validation fast path (jsonschema-rs) never accepts what python-jsonschema rejects.

contracts.validation_errors returns [] straight away when jsonschema-rs says valid; the
property below checks, over every tool's input schema and generated arguments built from
its own property names, that python-jsonschema agrees whenever the fast path says valid.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from video_research.support import contracts
from video_research.tools import dispatch

TOOLS = sorted(dispatch.TOOLS)

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=40),
    st.sampled_from(
        [
            "stats",
            "https://youtu.be/dQw4w9WgXcQ",
            "0123456789ab",
            "0123456789ab\n",
            "2026-01-01T00:00:00Z",
            "1:30",
            "low",
            "batch",
            "",
        ]
    ),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=8,
)


def arguments(tool: str):
    names = sorted(contracts.tool_schema(tool, "input").get("properties", {})) or ["x"]
    return st.dictionaries(st.sampled_from([*names, "unknown"]), values, max_size=5)


@pytest.mark.parametrize("tool", TOOLS)
def test_fast_valid_implies_valid(tool):
    path = contracts.tool_schema_path(tool, "input")

    @settings(
        max_examples=25,
        derandomize=True,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow],
    )
    @given(arguments(tool))
    def check(args):
        if contracts.is_valid_fast(path, args):
            errors = sorted(contracts.validator(path).iter_errors(args), key=lambda e: e.json_path)
            assert not errors, (args, errors[0].message)

    check()


def test_the_fast_path_answers_and_falls_back():
    path = contracts.tool_schema_path("infra_cache", "input")
    assert contracts.fast_validator(path) is not None
    assert contracts.validation_errors(path, {"action": "stats", "limit": 5}) == []
    problems = contracts.validation_errors(path, {"action": "nuke"})
    assert problems and problems[0]["path"] == "$.action"
    assert contracts.validation_errors(path, {"limit": math.nan})[0]["path"] == "$.limit"
    assert not contracts.is_valid_fast(path, {"limit": (1, 2)})  # unconvertible: slow path
