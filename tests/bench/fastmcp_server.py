"""The baseline: a minimal FastMCP server with the same infra_cache tool doing the same work.

Runs in the separate bench environment (.venv-fastmcp), which has fastmcp and not our
dependencies; it imports only our dependency-free cache module (PYTHONPATH=repo root).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

from fastmcp import FastMCP

from video_research.support.cache import Cache

mcp = FastMCP("fastmcp-baseline")
CACHE = Cache(directory=Path(os.environ["GEMINI_CACHE_DIR"]), ttl_days=30)


@mcp.tool
def infra_cache(
    action: Literal["stats", "list", "clear"] = "stats", content_id: str | None = None
) -> dict:
    """Inspect or clear the analysis cache (stats, list, clear)."""
    if action == "stats":
        return {"action": action, "stats": CACHE.stats()}
    if action == "list":
        entries, total = CACHE.list_entries(content_id=content_id)
        return {"action": action, "entries": entries, "total": total}
    return {"action": action, "removed": CACHE.clear(content_id=content_id)}


if __name__ == "__main__":
    mcp.run(show_banner=False)
