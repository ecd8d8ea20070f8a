"""Handlers that misbehave on purpose, to prove the dispatcher contains them."""

from __future__ import annotations

import asyncio


async def bad_output(args, ctx):
    return {"action": "stats", "stats": {"cache_dir": 42}}


async def explodes(args, ctx):
    raise RuntimeError("kaboom with key AIzaSyDUMMYDUMMYDUMMYDUMMYDUMMYDUMMY12")


async def returns_list(args, ctx):
    return ["not", "an", "object"]


async def hangs(args, ctx):
    """Says it started (sets the event in ctx.meta["started"]), then waits to be cancelled."""
    ctx.meta["started"].set()
    await asyncio.Event().wait()
