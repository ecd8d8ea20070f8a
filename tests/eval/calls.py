"""One tool call through the real dispatch, as the evals make it: an admin caller, the
tool's schemas checked on the way in and out, a failure raised rather than returned (an
eval that goes on past a failed index or search would measure nothing)."""

from __future__ import annotations


async def call_tool(tool: str, arguments: dict) -> dict:
    """`tool`'s result for `arguments`; RuntimeError with its ToolError when it fails."""
    from video_research.handlers.context import CallContext, Caller
    from video_research.tools import dispatch

    ctx = CallContext(tool=tool, caller=Caller(username="eval", role="admin", verified=True))
    outcome = await dispatch.call(dispatch.TOOLS[tool], arguments, ctx)
    if outcome.error is not None:
        raise RuntimeError(f"{tool}: {outcome.error.to_json_dict()}")
    return outcome.result
