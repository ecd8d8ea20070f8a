"""The one path every call takes through the dispatch table.

`TOOLS` (built in `video_research.tools.table`, one module per area) maps a tool name to
its spec: handler, contracts (schemas/tools/<name>.*.json), annotations, toolset and the
role it needs; `video_research.tools.toolsets` says which of them a session sees.
`tools/list`, `tools/call`, the CLI and the contract tests all read this one table, and
reach it through this module.

A call goes: look up (unknown -> JSON-RPC invalid params; known but not listed here -> a
`not_found` tool result naming the call that reaches it) -> role check -> input
defaults + validation -> handler -> output validation -> result. Whatever a handler
raises becomes a structured ToolError; a result that breaks its own output contract is
a server bug, logged and answered as `internal_error`.

Handlers are named as "module:function" and imported on first call, so listing tools
never imports an SDK and the server starts fast.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from video_research.handlers.context import CallContext, ImageAttachment
from video_research.support import contracts, injection
from video_research.support.errors import ErrorCategory, ToolError, ToolFailure, make_tool_error
from video_research.support.services import use_services
from video_research.tools import batches, toolsets
from video_research.tools.table import TOOLS, ToolSpec
from video_research.tools.toolsets import (
    DEFAULT_PROFILE,
    META_TOOLSET,
    TOOLSET_DESCRIPTIONS,
    base_names,
    dynamic_toolsets,
    enabled_tools,
    lookup,
    reachable,
    toolset_description,
    toolset_names,
    toolset_tools,
)

__all__ = [
    "DEFAULT_PROFILE",
    "META_TOOLSET",
    "TOOLSET_DESCRIPTIONS",
    "TOOLS",
    "Outcome",
    "ToolSpec",
    "base_names",
    "call",
    "dynamic_toolsets",
    "enabled_tools",
    "lookup",
    "reachable",
    "resolve_handler",
    "toolset_description",
    "toolset_names",
    "toolset_tools",
]

logger = logging.getLogger(__name__)

Handler = Callable[[Any, CallContext], Awaitable[Mapping[str, Any]]]
"""A handler: its tool's input TypedDict (support/schema_types, validated before the call)
and context in, its output TypedDict out. The arguments are typed Any here because each
handler takes its own tool's shape."""


@cache
def resolve_handler(ref: str) -> Handler:
    module_name, _, function = ref.partition(":")
    if "." not in module_name:
        module_name = f"video_research.handlers.{module_name}"
    module = importlib.import_module(module_name)
    handler: Handler = getattr(module, function)
    return handler


@dataclass
class Outcome:
    """A finished call: exactly one of `result` and `error` is set. `images` are the
    pictures a successful handler attached (`CallContext.attach_image`), returned as MCP
    image content after the result's JSON."""

    result: dict[str, Any] | None = None
    error: ToolError | None = None
    images: list[ImageAttachment] = field(default_factory=list)

    @property
    def is_error(self) -> bool:
        return self.error is not None


async def call(spec: ToolSpec, arguments: dict[str, Any] | None, ctx: CallContext) -> Outcome:
    """Run one tool call through roles, contracts and the handler. Never raises Exception.

    The call's services are in force for its length (`current_services()`), so the
    shared resources the code below reaches through accessors are the call's own.
    """
    if ctx.toolsets is None:
        ctx.toolsets = toolsets.SessionControl(
            ctx.settings,
            toolsets.of(ctx.session),
            stateless=toolsets.is_stateless(ctx.session),
            runner=call,
        )
    with use_services(ctx.services):
        return await _call_timed(spec, arguments, ctx)


async def _call_timed(
    spec: ToolSpec, arguments: dict[str, Any] | None, ctx: CallContext
) -> Outcome:
    started = time.perf_counter()
    try:
        outcome = await _call(spec, arguments or {}, ctx)
    except asyncio.CancelledError:
        if spec.audits(arguments or {}):
            await _audit_cancelled(spec, arguments or {}, ctx)
        raise
    elapsed_ms = (time.perf_counter() - started) * 1000
    if outcome.error is not None:
        logger.info(
            "tool %s failed in %.0f ms: %s (%s)",
            spec.name,
            elapsed_ms,
            outcome.error.category,
            outcome.error.error,
        )
    else:
        logger.debug("tool %s ok in %.0f ms", spec.name, elapsed_ms)
    if spec.audits(arguments or {}):
        await _audit(spec, arguments or {}, ctx, outcome)
    return outcome


async def _call(spec: ToolSpec, arguments: dict[str, Any], ctx: CallContext) -> Outcome:
    if not ctx.caller.has_role(spec.role):
        return Outcome(
            error=ToolFailure(
                ErrorCategory.FORBIDDEN,
                f"{spec.name} requires the '{spec.role}' role; {ctx.caller.username} has '{ctx.caller.role}'.",
            ).to_tool_error()
        )
    if not isinstance(arguments, dict):
        return Outcome(
            error=_invalid(spec, [{"path": "$", "message": "arguments must be a JSON object"}])
        )
    arguments = contracts.apply_defaults(spec.input_schema, arguments)
    problems = _non_finite(arguments) or contracts.validation_errors(
        spec.input_path, arguments, plain=True
    )
    if problems:
        return Outcome(error=_invalid(spec, problems))
    try:
        handler = resolve_handler(spec.handler)
        # Any: what a handler returns is checked against its output contract below (a
        # handler that breaks it, returning a list or None, is answered as internal_error)
        result: Any = await handler(arguments, ctx)
    except ToolFailure as failure:
        return Outcome(error=failure.to_tool_error())
    except Exception as exc:
        error = make_tool_error(exc)
        level = logging.ERROR if error.category == ErrorCategory.INTERNAL_ERROR else logging.WARNING
        logger.log(level, "tool %s raised %s", spec.name, type(exc).__name__, exc_info=exc)
        return Outcome(error=error)
    problems = contracts.validation_errors(spec.output_path, result)
    if problems:
        logger.error("tool %s broke its output contract (server bug): %s", spec.name, problems)
        return Outcome(
            error=ToolFailure(
                ErrorCategory.INTERNAL_ERROR,
                f"{spec.name} produced a result that does not match its output schema.",
                details={"errors": problems},
            ).to_tool_error()
        )
    every_item_failed = batches.all_failed(spec.name, result)
    if every_item_failed is not None:
        return Outcome(error=every_item_failed.to_tool_error())
    return Outcome(result=_flag_injections(spec, result, arguments), images=list(ctx.images))


def _flag_injections(
    spec: ToolSpec, result: dict[str, Any], arguments: dict[str, Any]
) -> dict[str, Any]:
    """The result with `injections`: every span of its text that addresses an agent.

    The one place every tool's result passes after its contract is checked, so captions,
    slides, documents, pages and descriptions are all read, once, and marked as quoted
    material (support/injection.py). Only the flag is added; nothing else changes. The
    caller's own words echoed back (a query) are theirs, not the media's: not flagged.
    """
    try:
        found = injection.scan_result(result, arguments)
    except Exception:  # a flag is an aid, never a reason to lose the answer
        logger.exception("tool %s: the injection scan failed", spec.name)
        return result
    if not found:
        return result
    return {**result, "injections": found}


def _non_finite(arguments: dict[str, Any]) -> list[dict[str, str]]:
    """NaN and infinities anywhere in the arguments: schema-valid, never meant."""
    return contracts.non_finite_numbers(arguments)


def _invalid(spec: ToolSpec, problems: list[dict[str, str]]) -> ToolError:
    first = problems[0]
    more = f" ({len(problems) - 1} more in details.errors)" if len(problems) > 1 else ""
    return ToolFailure(
        ErrorCategory.INVALID_INPUT,
        f"Invalid arguments for {spec.name}: {first['message']}{more}",
        hint=f"Fix the arguments listed in details.errors; the input schema of {spec.name} is in tools/list.",
        details={"errors": problems},
    ).to_tool_error()


async def _audit(
    spec: ToolSpec, arguments: dict[str, Any], ctx: CallContext, outcome: Outcome
) -> None:
    """Record a call of a tool marked `audited` (see video_research/catalog/audit.py)."""
    from video_research.catalog import audit

    entry = audit.make_entry(
        tool=spec.name,
        caller=ctx.caller,
        arguments=arguments if isinstance(arguments, dict) else {"arguments": arguments},
        result=outcome.result,
        error=outcome.error.to_json_dict() if outcome.error is not None else None,
    )
    await audit.record(entry)


# Audit entries of cancelled calls still being written (a task needs a reference).
_pending_audits: set[asyncio.Task[None]] = set()


async def _audit_cancelled(spec: ToolSpec, arguments: dict[str, Any], ctx: CallContext) -> None:
    """Record a write that was cancelled before it answered: it may have committed.

    The entry is written under asyncio.shield, so a second cancellation of this call
    stops only the waiting, never the write of the entry.
    """
    outcome = Outcome(
        error=ToolError(
            error=f"{spec.name} was cancelled before it answered; its change may or may not "
            "have been applied.",
            category=ErrorCategory.CANCELLED.value,
            hint="Check the current state before repeating the call.",
        )
    )
    task = asyncio.ensure_future(_audit(spec, arguments, ctx, outcome))
    _pending_audits.add(task)
    task.add_done_callback(_pending_audits.discard)
    await asyncio.shield(task)
