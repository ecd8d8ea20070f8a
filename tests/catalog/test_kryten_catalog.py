"""End to end as a chat bot uses it: a kryten-llm style client config spawns the server;
a viewer can search but not create; an admin queues a playlist and queue://current shows it.

The bot is the process owner (no `_meta.session`: the local role, admin), so it imports
its catalog and registers its admins' chat sessions; every chat user's call carries
their session in `_meta.session`, as kryten-llm sends it.
"""

from __future__ import annotations

import json
import os
import sys

from tests.helpers import base_env, mcp_client, tool_json


def _as(username: str, role: str, session_id: str) -> dict:
    return {"session": {"username": username, "role": role, "session_id": session_id}}


async def test_kryten_viewer_searches_admin_queues_a_playlist(tmp_path, monkeypatch):
    catalog_file = tmp_path / "catalog.json"
    catalog_file.write_text(
        json.dumps(
            [
                {
                    "video_id": "f13-1",
                    "title": "Friday the 13th",
                    "categories": "Horror",
                    "duration": "1:35:00",
                    "url": "https://media.example/f13-1.json",
                },
                {
                    "video_id": "f13-2",
                    "title": "Friday the 13th Part 2",
                    "categories": "Horror",
                    "duration": "1:27:00",
                    "url": "https://media.example/f13-2.json",
                },
                {
                    "video_id": "airplane",
                    "title": "Airplane!",
                    "categories": "Comedy",
                    "duration": "1:28:00",
                    "url": "https://media.example/airplane.json",
                },
            ]
        )
    )
    entry = {
        "name": "playlist",
        "command": "python",
        "args": ["-m", "video_research"],
        "env": {
            "VIDEO_RESEARCH_DATA_DIR": str(tmp_path / "data"),
            "VIDEO_RESEARCH_FILE_ROOTS": str(tmp_path),
            "VIDEO_RESEARCH_TOOLSETS": "catalog,playlists,queue,marathons,admin",
        },
    }
    monkeypatch.setenv(
        "PATH", os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "")
    )
    bot_dir = tmp_path / "bot"
    bot_dir.mkdir()
    # base_env's PYTHONPATH puts this checkout first, as the installed package would be.
    env = {**base_env(tmp_path), **entry["env"]}
    async with mcp_client(
        env, command=entry["command"], args=entry["args"], cwd=bot_dir
    ) as session:
        imported = await session.call_tool("catalog_import", {"file_path": str(catalog_file)})
        assert tool_json(imported)["imported"] == 3
        registered = await session.call_tool(
            "session_register",
            {"session_id": "chat-sess-admin-7", "username": "grumpy", "role": "admin"},
        )
        assert not registered.is_error, registered.content

        viewer = _as("lurker", "viewer", "chat-sess-lurker-1")
        found = await session.call_tool("catalog_search", {"q": "friday"}, meta=viewer)
        assert [v["title"] for v in tool_json(found)["items"]] == [
            "Friday the 13th",
            "Friday the 13th Part 2",
        ]
        denied = await session.call_tool(
            "playlist_create", {"name": "Lurker's list", "video_ids": ["airplane"]}, meta=viewer
        )
        assert denied.is_error and tool_json(denied)["category"] == "forbidden"

        admin = _as("grumpy", "admin", "chat-sess-admin-7")
        made = await session.call_tool(
            "playlist_create",
            {"name": "Friday the 13th Marathon", "video_ids": ["f13-1", "f13-2"]},
            meta=admin,
        )
        playlist_id = tool_json(made)["playlist_id"]
        queued = await session.call_tool(
            "queue_apply_playlist", {"playlist_id": playlist_id, "mode": "append"}, meta=admin
        )
        assert tool_json(queued)["enqueued_count"] == 2

        current = json.loads((await session.read_resource("queue://current")).contents[0].text)
        assert [i["title"] for i in current["items"]] == [
            "Friday the 13th",
            "Friday the 13th Part 2",
        ]
        assert current["total_duration_seconds"] == 95 * 60 + 87 * 60
        assert {i["added_by"] for i in current["items"]} == {"grumpy"}
