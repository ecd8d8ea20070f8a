"""Every Gemini tool through the real MCP client over stdio, against the Gemini stub.

The ClientSession validates each result's structured content against the tool's
published outputSchema, so a contract break fails here as it would for a user.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.helpers import REPO_ROOT, mcp_client, tool_json
from tests.stubs.gemini import SIGNATURE, _camel

pytestmark = pytest.mark.slow

URL = "https://youtu.be/dQw4w9WgXcQ"


async def test_every_gemini_tool_over_stdio(gemini_env, gemini_stub, tmp_path):
    video_dir = tmp_path / "videos"
    video_dir.mkdir()
    for name in ("one.mp4", "two.mp4"):
        (video_dir / name).write_bytes(name.encode() + os.urandom(512))
    progress = []

    async def on_progress(done, total, message):
        progress.append((done, total, message))

    calls = {
        "video_analyze": {"url": URL},
        "video_batch_analyze": {"directory": str(video_dir)},
        "research_deep": {"topic": "Is remote work here to stay?", "scope": "quick"},
        "research_plan": {"topic": "Is remote work here to stay?"},
        "research_assess_evidence": {
            "claim": "Remote work is growing",
            "sources": ["Survey 2025: 30%"],
        },
        "content_analyze": {"text": "Remote work grew in 2025."},
        "content_extract": {
            "content": "Remote work grew 30%.",
            "schema": {"type": "object", "properties": {"growth": {"type": "string"}}},
        },
        "web_search": {"query": "remote work statistics"},
    }
    async with mcp_client(gemini_env) as session:
        for tool, arguments in calls.items():
            result = await session.call_tool(tool, arguments, progress_callback=on_progress)
            assert not result.is_error, (tool, tool_json(result))
            assert result.structured_content == tool_json(result)
        created = await session.call_tool("video_create_session", {"url": URL})
        assert not created.is_error, tool_json(created)
        answer = await session.call_tool(
            "video_continue_session",
            {"session_id": created.structured_content["session_id"], "prompt": "What happens?"},
        )
        assert not answer.is_error, tool_json(answer)
        assert answer.structured_content["turn_count"] == 1
    batch = [p for p in progress if p[1] == 2]
    assert [p[0] for p in batch] == [0, 1, 2], "0/N first, then progress per finished file"
    assert len([p for p in progress if p[1] == 3]) == 4, "research_deep progress per phase"


async def test_sessions_survive_a_server_restart(gemini_env, gemini_stub):
    async with mcp_client(gemini_env) as session:
        created = await session.call_tool(
            "video_create_session", {"url": URL, "description": "restart test"}
        )
        session_id = created.structured_content["session_id"]
        first = await session.call_tool(
            "video_continue_session", {"session_id": session_id, "prompt": "first"}
        )
        assert first.structured_content["turn_count"] == 1
    async with mcp_client(gemini_env) as session:
        second = await session.call_tool(
            "video_continue_session", {"session_id": session_id, "prompt": "second"}
        )
    assert not second.is_error, tool_json(second)
    assert second.structured_content["turn_count"] == 2
    contents = gemini_stub.calls("generateContent")[-1].body["contents"]
    assert len(contents) == 4, "intro, the first turn (both sides) and the new prompt"
    model_turn = contents[2]
    assert model_turn["role"] == "model"
    thought, answer = (_camel(p) for p in model_turn["parts"])
    assert thought["thought"] is True, "the model's thought part goes back as it came"
    assert _b64(answer["thoughtSignature"]) == _b64(SIGNATURE), "signature survives the restart"


def _b64(text):
    import base64

    return base64.urlsafe_b64decode(
        text.replace("+", "-").replace("/", "_") + "=" * (-len(text) % 4)
    )


def test_cli_without_key_prints_a_config_error(server_env):
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "video_research",
            "call",
            "video_analyze",
            "--json",
            '{"url": "https://youtu.be/dQw4w9WgXcQ"}',
        ],
        capture_output=True,
        text=True,
        env=server_env,
        cwd=REPO_ROOT,
        timeout=60,
    )
    assert proc.returncode == 1
    assert '"category": "config_error"' in proc.stdout
    assert "GEMINI_API_KEY" in proc.stdout


async def test_other_tools_work_without_a_key(server_env):
    async with mcp_client(server_env) as session:
        tools = {t.name for t in (await session.list_tools()).tools}
        assert "video_analyze" in tools
        ok = await session.call_tool("infra_cache", {"action": "stats"})
        assert not ok.is_error
        no_key = await session.call_tool("web_search", {"query": "anything"})
        assert no_key.is_error and tool_json(no_key)["category"] == "config_error"
