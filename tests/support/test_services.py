"""The registry of shared resources: one per key, one at a time where asked, one shutdown
path; and which Services an accessor reaches, inside a call and outside one."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from typing import Any

import pytest

from video_research import config
from video_research.config import load_settings
from video_research.handlers.context import CallContext, Caller
from video_research.support.services import (
    Resource,
    Services,
    current_services,
    current_settings,
    default_services,
    use_services,
)
from video_research.tools import dispatch

ADMIN = Caller(username="owner", role="admin", verified=True)


class Thing:
    """A resource that remembers what it was opened for and whether it was closed."""

    def __init__(self, key: Any, log: list[str]) -> None:
        self.key = key
        self.log = log
        self.closed = False

    def close(self) -> None:
        self.closed = True
        self.log.append(f"closed {self.key}")


def thing(name: str, log: list[str], *, single: bool = False, field: str = "default_model"):
    """A Resource keyed on one settings field, recording opens and closes in `log`."""

    def open_one(settings: Any) -> Thing:
        log.append(f"opened {getattr(settings, field)}")
        return Thing(getattr(settings, field), log)

    return Resource(
        name,
        key=lambda settings: getattr(settings, field),
        open=open_one,
        close=Thing.close,
        single=single,
    )


def settings_with(**values: Any) -> Any:
    return config.with_overrides(load_settings({}), **values)


async def test_one_resource_per_key():
    log: list[str] = []
    resource = thing("things", log)
    services = Services(settings_with(default_model="a"))
    first = services.get(resource)
    assert services.get(resource) is first
    other = services.get(resource, settings_with(default_model="b"))
    assert other is not first and other.key == "b"
    assert log == ["opened a", "opened b"]
    assert services.opened(resource) == [first, other]
    await services.aclose()
    assert first.closed and other.closed


async def test_a_single_resource_replaces_and_closes_the_previous_one():
    log: list[str] = []
    resource = thing("store", log, single=True)
    services = Services(settings_with(default_model="a"))
    first = await services.aget(resource)
    second = await services.aget(resource, settings_with(default_model="b"))
    assert first.closed and not second.closed
    assert services.opened(resource) == [second]
    assert await services.aget(resource, settings_with(default_model="b")) is second
    assert log == ["opened a", "opened b", "closed a"]


async def test_a_single_resource_replaced_from_sync_code_is_closed_by_aclose_at_latest():
    log: list[str] = []
    resource = thing("store", log, single=True)
    services = Services(settings_with(default_model="a"))
    first = services.get(resource)
    services.get(resource, settings_with(default_model="b"))
    await services.aclose()
    assert first.closed
    assert sorted(log) == ["closed a", "closed b", "opened a", "opened b"]


async def test_aclose_closes_in_reverse_order_and_survives_a_failing_closer(caplog):
    log: list[str] = []

    def broken(_: Any) -> None:
        raise RuntimeError("will not close")

    async def async_close(value: Thing) -> None:
        await asyncio.sleep(0)
        value.close()

    services = Services(settings_with(default_model="m"))
    services.get(thing("first", log))
    services.get(Resource("broken", key=lambda s: 0, open=lambda s: object(), close=broken))
    services.get(dataclasses.replace(thing("third", log), close=async_close))
    caplog.set_level(logging.WARNING, logger="video_research.support.services")
    await services.aclose()
    assert log == ["opened m", "opened m", "closed m", "closed m"]
    assert "closing broken failed: will not close" in caplog.text
    assert services.opened() == []
    # The Services stays usable: asked again, a resource opens again.
    assert not services.get(thing("first", log)).closed


async def test_async_open_connects_once_per_key_without_blocking_the_loop():
    opened: list[int] = []

    async def connect(settings: Any) -> dict[str, bool]:
        opened.append(1)
        await asyncio.sleep(0.05)  # the loop serves the other callers meanwhile
        return {"closed": False}

    resource = Resource("conn", key=lambda s: "url", open=connect, usable=lambda c: not c["closed"])
    services = Services(settings_with())
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0.005)

    ticking = asyncio.create_task(ticker())
    got = await asyncio.gather(*(services.aget(resource) for _ in range(5)))
    ticking.cancel()
    assert ticks > 1
    assert len(opened) == 1 and all(c is got[0] for c in got)
    got[0]["closed"] = True  # closed under us: the next caller gets a new one
    assert await services.aget(resource) is not got[0]
    assert len(opened) == 2
    with pytest.raises(TypeError, match="aget"):
        services.get(resource)


async def test_two_services_keep_their_own_resources():
    log: list[str] = []
    resource = thing("things", log)
    one, two = Services(settings_with()), Services(settings_with())
    mine, theirs = one.get(resource), two.get(resource)
    assert mine is not theirs
    await one.aclose()
    assert mine.closed and not theirs.closed
    assert two.opened(resource) == [theirs]
    await two.aclose()


def test_use_services_puts_services_in_force_for_a_block(services):
    assert current_services() is services  # the test's own (conftest)
    other = Services()
    with use_services(other):
        assert current_services() is other
    assert current_services() is services


def test_outside_any_block_the_default_services_are_current(services):
    import contextvars

    bare = contextvars.Context()  # a context where nothing was put in force
    assert bare.run(current_services) is default_services()
    assert default_services() is not services


async def seen_services(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    """A handler that records which Services the code under a call reaches."""
    from video_research.handlers.infra import infra_cache

    ctx.meta["seen"] = {
        "handler": current_services(),
        "task": await asyncio.create_task(_current()),
        "thread": await asyncio.to_thread(current_services),
    }
    return await infra_cache(args, ctx)


async def _current() -> Services:
    return current_services()


async def test_a_call_puts_its_context_services_in_force(services):
    spec = dataclasses.replace(
        dispatch.TOOLS["infra_cache"], handler="tests.support.test_services:seen_services"
    )
    theirs = Services(services.settings)
    ctx = CallContext(tool="infra_cache", caller=ADMIN, services=theirs)
    outcome = await dispatch.call(spec, {}, ctx)
    assert outcome.error is None, outcome.error
    assert ctx.meta["seen"] == {"handler": theirs, "task": theirs, "thread": theirs}
    assert current_services() is services  # the call's services ended with the call


async def test_a_context_made_without_services_takes_those_in_force(services):
    assert CallContext(tool="infra_cache", caller=ADMIN).services is services


async def test_infra_configure_changes_the_settings_through_the_services(live_config):
    """The server's Services follow the process's live settings: a change made through
    them is the process's (what `video-research` started from and what every session
    sees next)."""
    from tests.fixtures.documents import call_tool

    live = Services()
    assert live.settings is config.get_config()
    ctx = CallContext(tool="infra_configure", caller=ADMIN, services=live)
    result = await call_tool("infra_configure", {"temperature": 0.25}, ctx)
    assert result["changed"] == ["default_temperature"]
    assert live.settings.default_temperature == 0.25
    assert config.get_config().default_temperature == 0.25
    assert config.get_config().sources["default_temperature"] == "runtime"
    await live.aclose()


async def test_services_with_settings_of_their_own_keep_a_change_to_themselves(services):
    from tests.fixtures.documents import call_tool

    own = Services(settings_with(default_temperature=0.5))
    ctx = CallContext(tool="infra_configure", caller=ADMIN, services=own)
    result = await call_tool("infra_configure", {"temperature": 0.75}, ctx)
    assert result["current_config"]["default_temperature"] == 0.75
    assert own.settings.default_temperature == 0.75
    assert services.settings.default_temperature != 0.75  # the test's own, untouched
    await own.aclose()


async def test_the_shared_stores_come_from_the_services_in_force(services):
    from video_research.catalog.db import get_db
    from video_research.clients.gemini.registry import get_registry
    from video_research.deepresearch.tasks import get_store as task_store
    from video_research.knowledge.store import get_store as knowledge_store
    from video_research.video.session_store import get_store as session_store

    opened = [get_db(), get_registry(), task_store(), session_store(), await knowledge_store()]
    assert [get_db(), get_registry(), task_store(), session_store()] == opened[:4]
    assert await knowledge_store() is opened[4]
    assert services.opened() == opened
    other = Services(services.settings)
    with use_services(other):
        assert get_db() is not opened[0]
    await other.aclose()


async def test_two_services_with_different_settings_each_see_their_own(tmp_path):
    """What the code below the handlers reads (`current_settings()`, and the domain
    accessors built on it) is the settings of the Services in force, block by block and
    task by task, not a process-wide value the last one to set it wins."""
    from video_research.support.cache import get_cache

    one = Services(settings_with(default_model="model-one", cache_dir=tmp_path / "one"))
    two = Services(settings_with(default_model="model-two", cache_dir=tmp_path / "two"))

    async def seen(services: Services) -> tuple[str, str, Any]:
        with use_services(services):
            await asyncio.sleep(0)  # let the other task put its own in force meanwhile
            in_thread = await asyncio.to_thread(lambda: current_settings().default_model)
            return current_settings().default_model, in_thread, get_cache().directory

    assert await asyncio.gather(seen(one), seen(two)) == [
        ("model-one", "model-one", tmp_path / "one"),
        ("model-two", "model-two", tmp_path / "two"),
    ]
    with use_services(one):
        assert current_settings() is one.settings
        with use_services(two):
            assert current_settings() is two.settings
        assert current_settings() is one.settings


async def seen_settings(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    """A handler that records the settings it and the code under it see, and has the
    Gemini client (domain code that is not handed settings) make one request."""
    from video_research.clients.gemini import client as gemini
    from video_research.handlers.infra import infra_cache

    await gemini.generate("which model answers?")
    ctx.meta["seen"] = {
        "ctx.settings": ctx.settings.default_model,
        "handler": current_settings().default_model,
        "task": await asyncio.create_task(_current_model()),
        "thread": await asyncio.to_thread(lambda: current_settings().default_model),
    }
    return await infra_cache(args, ctx)


async def _current_model() -> str:
    return current_settings().default_model


async def test_a_call_and_the_code_under_it_see_the_calls_settings(
    gemini_stub, services, live_config
):
    """A call's settings are its Services' own, whatever the process's live settings say:
    the handler and the domain code below it (here the Gemini client, which picks the
    model when none is given) read the call's."""
    config.set_config(config.with_overrides(services.settings, default_model="process-model"))
    theirs = Services(config.with_overrides(services.settings, default_model="call-model"))
    spec = dataclasses.replace(
        dispatch.TOOLS["infra_cache"], handler="tests.support.test_services:seen_settings"
    )
    ctx = CallContext(tool="infra_cache", caller=ADMIN, services=theirs)
    outcome = await dispatch.call(spec, {}, ctx)
    await theirs.aclose()  # the call's Gemini client belongs to this event loop
    assert outcome.error is None, outcome.error
    assert set(ctx.meta["seen"].values()) == {"call-model"}, ctx.meta["seen"]
    assert gemini_stub.calls("generateContent")[-1].model == "call-model"
    assert config.get_config().default_model == "process-model"  # left as it was
