"""In-process tool calls for tests: the dispatch path the server takes, without a transport.

Apart from tests/helpers.py, which stays standard-library only because the fuzz runner
imports it from an environment that does not have the server's dependencies.
"""

from __future__ import annotations

from typing import Any

from video_research.handlers.context import CallContext, Caller
from video_research.tools import dispatch

TESTER = Caller(username="tester", role="admin", verified=True)
"""The admin caller in-process calls run as unless a test names another."""


async def call_tool(
    tool: str,
    arguments: dict[str, Any] | None = None,
    *,
    caller: Any = None,
    progress: Any = None,
    session: Any = None,
    ctx: Any = None,
) -> Any:
    """Run one tool in-process through the dispatch table, as the server runs a call:
    role check, contracts, handler, output check. Returns the dispatcher's Outcome.

    The one way tests call a tool without a transport; the area helpers (the catalog's
    `call`, the video tests' `call`, the documents fixtures' `call_tool`) wrap it.
    """
    if ctx is None:
        ctx = CallContext(tool=tool, caller=caller or TESTER, session=session)
        if progress is not None:
            ctx.progress_fn = progress
    return await dispatch.call(
        dispatch.TOOLS[tool], arguments if arguments is not None else {}, ctx
    )


async def call_ok(tool: str, arguments: dict[str, Any] | None = None, **how: Any) -> dict[str, Any]:
    """The result of a call that must succeed (AssertionError with the ToolError if not)."""
    outcome = await call_tool(tool, arguments, **how)
    assert outcome.error is None, outcome.error
    return outcome.result


async def call_error(
    tool: str, arguments: dict[str, Any] | None = None, **how: Any
) -> dict[str, Any]:
    """The ToolError, as a dict, of a call that must fail."""
    outcome = await call_tool(tool, arguments, **how)
    assert outcome.error is not None, f"{tool} succeeded: {outcome.result}"
    return outcome.error.to_json_dict()
