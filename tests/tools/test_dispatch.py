"""The one call path: roles, input validation with exact paths, contained handler
failures and output contract enforcement."""

from __future__ import annotations

import dataclasses

import pytest

from video_research.handlers.context import CallContext, Caller
from video_research.tools import dispatch

ADMIN = Caller(username="owner", role="admin", verified=True)
VIEWER = Caller(username="guest", role="viewer")


def ctx(caller=ADMIN, tool="infra_cache"):
    return CallContext(tool=tool, caller=caller)


def spec_with(handler: str, **changes):
    return dataclasses.replace(dispatch.TOOLS["infra_cache"], handler=handler, **changes)


async def test_defaults_come_from_the_schema():
    outcome = await dispatch.call(dispatch.TOOLS["infra_cache"], {}, ctx())
    assert outcome.result["action"] == "stats"


@pytest.mark.parametrize(
    ("arguments", "path"),
    [
        ({"action": "purge"}, "$.action"),
        ({"limit": 0, "action": "list"}, "$.limit"),
        ({"limit": "ten"}, "$.limit"),
        ({"content_id": ""}, "$.content_id"),
        ({"surprise": True}, "$"),
    ],
)
async def test_invalid_input_names_the_failing_path(arguments, path):
    outcome = await dispatch.call(dispatch.TOOLS["infra_cache"], arguments, ctx())
    assert outcome.error.category == "invalid_input"
    assert outcome.error.retryable is False
    assert path in [e["path"] for e in outcome.error.details["errors"]]


async def test_arguments_must_be_an_object():
    outcome = await dispatch.call(dispatch.TOOLS["infra_cache"], ["stats"], ctx())
    assert outcome.error.category == "invalid_input"


async def test_role_is_enforced_before_the_handler():
    spec = spec_with("tests.fake_handlers:explodes", role="admin")
    outcome = await dispatch.call(spec, {}, ctx(VIEWER))
    assert outcome.error.category == "forbidden"
    assert "admin" in outcome.error.error


async def test_handler_exception_becomes_a_structured_error_without_secrets():
    outcome = await dispatch.call(spec_with("tests.fake_handlers:explodes"), {}, ctx())
    assert outcome.error.category == "internal_error"
    assert "kaboom" in outcome.error.error
    assert "AIzaSy" not in outcome.error.error


@pytest.mark.parametrize(
    "handler", ["tests.fake_handlers:bad_output", "tests.fake_handlers:returns_list"]
)
async def test_output_contract_violation_is_an_internal_error(handler, caplog):
    outcome = await dispatch.call(spec_with(handler), {}, ctx())
    assert outcome.error.category == "internal_error"
    assert "output schema" in outcome.error.error
    assert any("output contract" in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize("cancellations", [1, 2])
async def test_a_cancelled_write_is_audited(cancellations):
    """A write cancelled mid-flight may have committed: the audit log says so, even when
    the call is cancelled again while the entry is being written."""
    import asyncio

    spec = spec_with("tests.fake_handlers:hangs", audited=True, audit_if=None, read_only=False)
    started = asyncio.Event()
    context = CallContext(tool="infra_cache", caller=ADMIN, meta={"started": started})
    task = asyncio.create_task(dispatch.call(spec, {}, context))
    await started.wait()
    for _ in range(cancellations):
        task.cancel()
        await asyncio.sleep(0)
    with pytest.raises(asyncio.CancelledError):
        await task
    for _ in range(100):  # the shielded entry may still be on its way
        entries = (await dispatch.call(dispatch.TOOLS["audit_log"], {}, ctx())).result["entries"]
        if entries:
            break
        await asyncio.sleep(0.05)
    assert [(e["tool"], e["ok"], e["category"]) for e in entries] == [
        ("infra_cache", False, "cancelled")
    ]
    assert "may or may not" in entries[0]["result"]["error"]


async def test_toolsets_limit_lookup():
    from video_research.config import load_settings

    only_infra = load_settings({"VIDEO_RESEARCH_TOOLSETS": "infra"})
    assert dispatch.lookup("infra_cache", only_infra) is not None
    assert dispatch.lookup("no_such_tool", only_infra) is None
    assert {s.toolset for s in dispatch.enabled_tools(only_infra)} == {"infra"}


async def test_infra_cache_through_the_whole_path(tmp_path):
    from video_research.support.cache import get_cache

    get_cache().save("vid1", "video_analyze", "m", {"x": 1})
    get_cache().save("vid2", "video_analyze", "m", {"x": 2})
    listed = await dispatch.call(dispatch.TOOLS["infra_cache"], {"action": "list"}, ctx())
    assert listed.result["total"] == 2
    cleared = await dispatch.call(
        dispatch.TOOLS["infra_cache"], {"action": "clear", "content_id": "vid1"}, ctx()
    )
    assert cleared.result["removed"] == 1
    stats = await dispatch.call(dispatch.TOOLS["infra_cache"], {"action": "stats"}, ctx())
    assert stats.result["stats"]["total_files"] == 1


async def test_infra_configure_presets_and_overrides(services):
    spec = dispatch.TOOLS["infra_configure"]
    report = (await dispatch.call(spec, {}, ctx())).result
    assert report["active_preset"] == "best" and report["changed"] == []
    report = (await dispatch.call(spec, {"preset": "stable", "temperature": 0.2}, ctx())).result
    assert report["active_preset"] == "stable"
    assert report["current_config"]["default_model"] == "gemini-3-pro-preview"
    assert services.settings.default_temperature == 0.2
    report = (
        await dispatch.call(spec, {"preset": "budget", "model": "gemini-custom"}, ctx())
    ).result
    assert report["current_config"]["default_model"] == "gemini-custom"
    assert report["active_preset"] is None
    bad = await dispatch.call(spec, {"temperature": 5}, ctx())
    assert bad.error.category == "invalid_input"


async def test_reads_of_audited_tools_are_not_audited(tmp_path):
    """infra_cache stats/list/context_list and infra_configure without changes are reads:
    no audit row. Clears and configuration changes are."""
    calls = [
        ("infra_cache", {}),
        ("infra_cache", {"action": "stats"}),
        ("infra_cache", {"action": "list"}),
        ("infra_cache", {"action": "context_list"}),
        ("infra_configure", {}),
    ]
    for tool, arguments in calls:
        outcome = await dispatch.call(dispatch.TOOLS[tool], arguments, ctx(tool=tool))
        assert outcome.error is None, (tool, outcome.error)
    log = await dispatch.call(dispatch.TOOLS["audit_log"], {}, ctx(tool="audit_log"))
    assert log.result["entries"] == []
    await dispatch.call(dispatch.TOOLS["infra_cache"], {"action": "clear"}, ctx())
    await dispatch.call(
        dispatch.TOOLS["infra_configure"], {"temperature": 0.5}, ctx(tool="infra_configure")
    )
    await dispatch.call(dispatch.TOOLS["infra_cache"], {"action": "nuke"}, ctx())
    log = await dispatch.call(dispatch.TOOLS["audit_log"], {}, ctx(tool="audit_log"))
    assert sorted((e["tool"], e["ok"]) for e in log.result["entries"]) == [
        ("infra_cache", True),
        ("infra_configure", True),
    ], "writes are audited; an invalid action is neither a read nor a write of the cache"
