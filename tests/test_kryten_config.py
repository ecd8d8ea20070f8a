"""A kryten-llm style client config, run exactly as written.

kryten-llm (and Claude Desktop) spawn `{"command": "python", "args": ["-m", "video_research"],
"env": {...}}` with `python` looked up on PATH, from whatever directory the bot runs in. The
test puts the project's environment first on PATH (as an activated venv does) and runs the
entry from an unrelated directory.
"""

from __future__ import annotations

import os
import sys

from tests.helpers import base_env, mcp_client, tool_json


async def test_kryten_style_entry_runs_as_written(tmp_path, monkeypatch):
    entry = {
        "name": "video-research",
        "command": "python",
        "args": ["-m", "video_research"],
        "env": {
            "VIDEO_RESEARCH_DATA_DIR": str(tmp_path / "data"),
            "GEMINI_CACHE_DIR": str(tmp_path / "cache"),
            "VIDEO_RESEARCH_TOOLSETS": "infra",
            "GEMINI_API_KEY": "",
        },
    }
    monkeypatch.setenv(
        "PATH", os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "")
    )
    elsewhere = tmp_path / "bot"
    elsewhere.mkdir()
    env = {k: v for k, v in base_env(tmp_path).items() if k != "PYTHONPATH"}
    env.update(entry["env"])
    async with mcp_client(
        env, command=entry["command"], args=entry["args"], cwd=elsewhere
    ) as session:
        tools = {t.name for t in (await session.list_tools()).tools}
        assert tools == {"infra_cache", "infra_configure"}
        stats = await session.call_tool("infra_cache", {})
        assert tool_json(stats)["stats"]["cache_dir"] == str(tmp_path / "cache")
