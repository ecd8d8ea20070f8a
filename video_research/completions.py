"""Argument completion (completion/complete) for prompts and resource templates."""

from __future__ import annotations

from typing import Any

import mcp_types as types


async def complete(ctx: Any, params: types.CompleteRequestParams) -> types.CompleteResult:
    return types.CompleteResult(completion=types.Completion(values=[], total=0, has_more=False))
