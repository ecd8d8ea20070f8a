"""What the meta-tools' handlers may ask of a session's tools (`CallContext.toolsets`).

The table of tools lives in the tools layer, above the handlers: the dispatcher hands
its `tools.toolsets.SessionControl` to every call, and this protocol is the part of it the
handlers see, typed with the meta-tools' contracts so that mypy checks both sides.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, Protocol

if TYPE_CHECKING:
    from video_research.support.schema_types.tools import ToolCallOutput, ToolDescribeOutput
    from video_research.support.schema_types.tools.tool_search_output import Tool
    from video_research.support.schema_types.tools.toolset_enable_output import AddedItem
    from video_research.support.schema_types.tools.toolset_list_output import Toolset

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
