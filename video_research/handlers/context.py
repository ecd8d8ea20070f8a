"""What a handler knows about the call it serves: who is calling, and how to report back.

Handlers are plain `async def handler(args: dict, ctx: CallContext) -> dict` functions;
`ctx` is their only window on the MCP session. The same handler runs under the stdio
server, the HTTP server and the in-process `video-research call` command, where there is
no session and progress goes nowhere.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol

from video_research.config import ROLE_RANK, Role, Settings
from video_research.support.progress import Forward
from video_research.support.services import Services, current_services

if TYPE_CHECKING:
    from video_research.support.schema_types.tools import ToolCallOutput, ToolDescribeOutput
    from video_research.support.schema_types.tools.tool_search_output import Tool
    from video_research.support.schema_types.tools.toolset_enable_output import AddedItem
    from video_research.support.schema_types.tools.toolset_list_output import Toolset

logger = logging.getLogger(__name__)

ProgressFn = Callable[[float, float | None, str | None], Awaitable[None]]


@dataclass(frozen=True)
class Caller:
    """The person behind a call. `verified` says whether the role was checked."""

    username: str
    role: Role
    session_id: str | None = None
    verified: bool = False
    transport_user: str | None = None
    """Who the transport authenticated (a bearer token's user) when the call also claims a
    session; None on stdio and without tokens. The audit log records this user, not an
    unverified claim's name."""

    def has_role(self, required: str) -> bool:
        return ROLE_RANK[self.role] >= ROLE_RANK[required]


async def _no_progress(progress: float, total: float | None, message: str | None) -> None:
    return None


@dataclass(frozen=True)
class ImageAttachment:
    """An image a handler returns beside its JSON result (MCP ImageContent): the bytes of
    an encoded picture and its MIME type; the JSON result describes it (time, size, link)."""

    data: bytes
    mime_type: str


@dataclass
class CallContext:
    tool: str
    caller: Caller
    meta: dict[str, Any] = field(default_factory=dict)
    progress_fn: ProgressFn = _no_progress
    session: Any = None
    """The SDK's ServerSession, or None outside a server (CLI)."""
    request_id: Any = None
    """The JSON-RPC id of the tools/call being served (None outside a server)."""
    services: Services = field(default_factory=current_services)
    """The settings and shared resources, built once when the server started (by default
    the Services in force where the context is made)."""
    answered_roots: list[str] | None = None
    """The root URIs the client answered in this request's input-required round trip
    (MCP 2026-07-28, which has no roots/list request of its own); None when not asked."""
    toolsets: ToolsetControl | None = None
    """This session's toolsets for the toolset meta-tools (`tools.toolsets.SessionControl`),
    set by the dispatcher for every call."""
    images: list[ImageAttachment] = field(default_factory=list, init=False)
    """Images the handler attached (`attach_image`), returned after the JSON text content."""
    progress: Forward = field(default_factory=Forward)
    """The progress sent for this call's token: MCP progress must increase with each
    notification. A context copied for an inner call (`tool_call`) shares it, so the
    inner tool's reports and the outer call's timer go forward together."""

    @property
    def last_progress(self) -> float | None:
        """The last progress value sent (None before the first)."""
        return self.progress.value

    def allowed(self, tools: tuple[str, ...]) -> list[str]:
        """The tools of `tools` this caller may call, so a view shows only the controls
        that would work (all of them outside a server, where no role is checked)."""
        if self.toolsets is None:
            return list(tools)
        return self.toolsets.callable_by(self.caller, tools)

    @property
    def settings(self) -> Settings:
        """The settings in force for this call (what handlers read instead of a global)."""
        return self.services.settings

    def attach_image(self, data: bytes, mime_type: str) -> None:
        """Return `data` as an MCP image content item of this call's result, in the order
        attached. The structured result stays the JSON the output schema describes; the
        images follow its text copy in `content`, where clients that see images look."""
        self.images.append(ImageAttachment(data, mime_type))

    async def report_progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        """Send an MCP progress notification when the client asked for progress.

        A value that does not increase on the last one sent is dropped, and a total once
        sent is never dropped nor made smaller (`support.progress.Forward`: the spec
        requires progress to increase). Never raises: a client that went away must not
        fail the work.
        """
        try:
            await self.progress.send(self.progress_fn, progress, total, message)
        except Exception as exc:  # pragma: no cover - depends on the transport going away
            logger.debug("progress notification dropped: %s", exc)

    def start_progress_timer(self, delay: float) -> Callable[[], None]:
        """Report progress 0 after `delay` seconds unless the handler reported progress by
        then; returns the function that stops the timer (call it when the call ends).

        Long calls (batches, ingests, re-embeds) report after their first item; this tells
        the client at once that the call is running, whatever the handler does.
        """
        import asyncio

        loop = asyncio.get_running_loop()
        sending: list[asyncio.Task[None]] = []

        def fire() -> None:
            if self.last_progress is None:
                sending.append(
                    loop.create_task(self.report_progress(0, None, f"{self.tool}: started"))
                )

        handle = loop.call_later(delay, fire)

        def stop() -> None:
            handle.cancel()
            for task in sending:
                task.cancel()

        return stop

    def toolset_of(self, tool: str) -> tuple[str | None, bool]:
        """The toolset holding `tool` and whether this session lists it, for notes that
        tell the user what to run. Without an MCP session (`video-research call`) every
        tool can be called by name, so each counts as listed."""
        if self.toolsets is None:
            return None, False
        toolset, listed = self.toolsets.toolset_of(tool)
        return toolset, listed or self.session is None

    async def notify_tools_changed(self) -> None:
        """Tell this session's client that its tool list changed (toolset_enable/disable).

        Sent on the request's own stream, so a streamable-HTTP client gets it without a
        standalone GET stream. Never raises.
        """
        if self.session is None:
            return
        import mcp_types as types

        try:
            await self.session.send_notification(
                types.ToolListChangedNotification(), related_request_id=self.request_id
            )
        except Exception as exc:  # pragma: no cover - depends on the transport going away
            logger.debug("tools/list_changed notification dropped: %s", exc)


# ---------------------------------------------------------------- the session's tools

# What the meta-tools' handlers may ask of a session's tools (`CallContext.toolsets`).
# The table of tools lives in the tools layer, above the handlers: the dispatcher hands
# its `tools.toolsets.SessionControl` to every call, and this protocol is the part of it
# the handlers see, typed with the meta-tools' contracts so that mypy checks both sides.

ToolsetState = Literal["on", "partly", "off"]
"""All of a toolset's tools listed, some of them, or none."""


class ToolsetControl(Protocol):
    def served(self) -> list[str]: ...

    def search(self, query: str, limit: int) -> list[Tool]: ...

    def describe(self, name: str) -> ToolDescribeOutput: ...

    async def call(self, name: str, arguments: dict[str, Any], ctx: Any) -> ToolCallOutput: ...

    def overview(self) -> list[Toolset]: ...

    def listed(self) -> int: ...

    def state_of(self, toolset: str) -> ToolsetState: ...

    def enable(self, toolset: str) -> list[AddedItem]: ...

    def disable(self, toolset: str) -> list[str]: ...

    def callable_by(self, caller: Any, names: tuple[str, ...]) -> list[str]: ...

    def toolset_of(self, tool: str) -> tuple[str | None, bool]: ...
