"""MCP prompts: ready-made workflows a user can pick in their client.

(Named mcp_prompts because video_research/prompts/ holds the Gemini prompt templates.)
"""

from __future__ import annotations

from typing import Any

import mcp_types as types
from mcp.shared.exceptions import MCPError


async def list_prompts(ctx: Any, params: Any) -> types.ListPromptsResult:
    return types.ListPromptsResult(prompts=[])


async def get_prompt(ctx: Any, params: types.GetPromptRequestParams) -> types.GetPromptResult:
    raise MCPError(types.INVALID_PARAMS, f"Unknown prompt: {params.name}")
