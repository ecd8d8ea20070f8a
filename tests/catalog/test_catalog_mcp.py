"""The catalog over a real MCP ClientSession on stdio: resources (read and subscribed),
prompts, completions, session claims in `_meta` (forged ones rejected) and the audit log."""

from __future__ import annotations

import json

import anyio
import mcp_types as types
import pytest

from tests.catalog_helpers import MOVIES, movie_arguments
from tests.helpers import mcp_client, tool_json


def _resource_json(result) -> dict:
    return json.loads(result.contents[0].text)


async def _seed(session) -> str:
    for arguments in movie_arguments():
        result = await session.call_tool("catalog_add", arguments)
        assert not result.is_error, result.content
    made = await session.call_tool(
        "playlist_create", {"name": "Friday Night", "video_ids": ["f13-1", "f13-2"]}
    )
    return tool_json(made)["playlist_id"]


class Notifications:
    """Collects the resources/updated notifications a client receives."""

    def __init__(self) -> None:
        self.uris: list[str] = []
        self.arrived = anyio.Event()

    async def __call__(self, message) -> None:
        if isinstance(message, types.ResourceUpdatedNotification):
            self.uris.append(str(message.params.uri))
            self.arrived.set()

    async def wait_for(self, uri: str) -> None:
        with anyio.fail_after(10):
            while uri not in self.uris:
                self.arrived = anyio.Event()
                await self.arrived.wait()


@pytest.mark.filterwarnings("ignore:resources/subscribe is removed")
async def test_resources_read_and_subscribed(server_env):
    seen = Notifications()
    async with mcp_client(server_env, message_handler=seen) as session:
        playlist_id = await _seed(session)

        listed = {str(r.uri) for r in (await session.list_resources()).resources}
        assert {uri for uri in listed if not uri.startswith("ui://")} == {
            "catalog://categories",
            "catalog://stats",
            "queue://current",
            "playlist://index",
        }
        templates = (await session.list_resource_templates()).resource_templates
        assert [t.uri_template for t in templates] == ["playlist://{playlist_id}"]

        categories = _resource_json(await session.read_resource("catalog://categories"))
        assert {"name": "Horror", "video_count": 4} in categories["categories"]
        stats = _resource_json(await session.read_resource("catalog://stats"))
        assert stats["video_count"] == len(MOVIES) and stats["playlist_count"] == 1
        index = _resource_json(await session.read_resource("playlist://index"))
        assert [p["playlist_id"] for p in index["playlists"]] == [playlist_id]
        one = _resource_json(await session.read_resource(f"playlist://{playlist_id}"))
        assert one["total_duration_seconds"] == 5700 + 5220

        for bad in ("playlist://pl_missing", "nope://x"):
            try:
                await session.read_resource(bad)
            except Exception as exc:  # the SDK raises the JSON-RPC error
                assert "pl_missing" in str(exc) or "Unknown resource" in str(exc)
            else:
                raise AssertionError(f"{bad} should not be readable")

        assert _resource_json(await session.read_resource("queue://current"))["queue_length"] == 0
        await session.subscribe_resource("queue://current")
        applied = await session.call_tool("queue_apply_playlist", {"playlist_id": playlist_id})
        assert not applied.is_error, applied.content
        await seen.wait_for("queue://current")
        queue = _resource_json(await session.read_resource("queue://current"))
        assert [i["video_id"] for i in queue["items"]] == ["f13-1", "f13-2"]


async def test_prompts_and_completions(server_env):
    async with mcp_client(server_env) as session:
        playlist_id = await _seed(session)
        marathon = await session.call_tool(
            "marathon_create",
            {"name": "Fri", "starts_at": "2030-10-31T20:00:00Z", "playlist_ids": [playlist_id]},
        )
        marathon_id = tool_json(marathon)["marathon_id"]

        names = {p.name for p in (await session.list_prompts()).prompts}
        assert {"queue_themed_marathon", "research_video", "announce_marathon"} <= names
        themed = await session.get_prompt(
            "queue_themed_marathon", {"theme": "Slashers", "category": "Horror"}
        )
        text = themed.messages[0].content.text
        assert 'catalog_search(categories=["Horror"]' in text and "queue_apply_playlist" in text
        research = await session.get_prompt(
            "research_video", {"url": "https://youtu.be/dQw4w9WgXcQ"}
        )
        assert "video_metadata" in research.messages[0].content.text
        try:
            await session.get_prompt("research_video", {})
        except Exception as exc:
            assert "url" in str(exc)
        else:
            raise AssertionError("a required prompt argument was not enforced")

        prompt = types.PromptReference(type="ref/prompt", name="queue_themed_marathon")
        done = await session.complete(prompt, {"name": "category", "value": "ho"})
        assert done.completion.values == ["Horror"]
        template = types.ResourceTemplateReference(
            type="ref/resource", uri="playlist://{playlist_id}"
        )
        by_name = await session.complete(template, {"name": "playlist_id", "value": "Friday"})
        assert by_name.completion.values == [playlist_id]
        announce = types.PromptReference(type="ref/prompt", name="announce_marathon")
        assert (
            await session.complete(announce, {"name": "marathon_id", "value": ""})
        ).completion.values == [marathon_id]
        other = await session.complete(prompt, {"name": "theme", "value": "x"})
        assert other.completion.values == []


def _claim(username: str, role: str, session_id: str) -> dict:
    return {"session": {"username": username, "role": role, "session_id": session_id}}


async def test_session_claims_are_verified_and_writes_audited(tmp_path, server_env):
    audit_file = tmp_path / "audit.jsonl"
    env = {**server_env, "VIDEO_RESEARCH_AUDIT_LOG": str(audit_file)}
    async with mcp_client(env) as session:
        playlist_id = await _seed(session)
        create = {"name": "Mine", "video_ids": ["elm"]}

        forged = await session.call_tool(
            "playlist_create", create, meta=_claim("mallory", "admin", "sess-forged")
        )
        error = tool_json(forged)
        assert forged.is_error and error["category"] == "forbidden"
        assert "'viewer'" in error["error"]
        read = await session.call_tool(
            "catalog_search", {"q": "elm"}, meta=_claim("mallory", "admin", "sess-forged")
        )
        assert not read.is_error and tool_json(read)["total"] == 1

        registered = await session.call_tool(
            "session_register", {"session_id": "sess-dj-0001", "username": "dj", "role": "blessed"}
        )
        assert not registered.is_error and "sess-dj-0001" not in registered.content[0].text
        as_dj = _claim("dj", "blessed", "sess-dj-0001")
        made = await session.call_tool("playlist_create", create, meta=as_dj)
        assert not made.is_error, made.content
        # a registered blessed session claiming admin gets blessed, not admin
        too_high = await session.call_tool(
            "queue_apply_playlist",
            {"playlist_id": playlist_id, "mode": "hard_replace"},
            meta=_claim("dj", "admin", "sess-dj-0001"),
        )
        assert tool_json(too_high)["category"] == "forbidden"
        # someone else presenting dj's session ID is a viewer
        stolen = await session.call_tool(
            "playlist_create",
            {"name": "X", "video_ids": ["elm"]},
            meta=_claim("eve", "blessed", "sess-dj-0001"),
        )
        assert tool_json(stolen)["category"] == "forbidden"

        await session.call_tool("session_revoke", {"session_id": "sess-dj-0001"})
        revoked = await session.call_tool(
            "playlist_create", {"name": "Y", "video_ids": ["elm"]}, meta=as_dj
        )
        assert tool_json(revoked)["category"] == "forbidden"

        log = tool_json(await session.call_tool("audit_log", {"tool": "playlist_create"}))
        entries = log["entries"]
        # an unverified claim is recorded as who really called (the local user here),
        # its claimed name kept beside it, so a token holder cannot write in another's name
        assert [(e["username"], e["claimed_username"], e["role"], e["ok"]) for e in entries] == [
            ("local", "dj", "viewer", False),
            ("local", "eve", "viewer", False),
            ("dj", None, "blessed", True),
            ("local", "mallory", "viewer", False),
            ("local", None, "admin", True),
        ]
        mine = entries[2]
        assert mine["input"] == create and mine["result"]["name"] == "Mine"
        assert mine["verified"] and mine["session"] and "sess-dj-0001" not in json.dumps(log)
        assert entries[3]["category"] == "forbidden" and not entries[3]["verified"]
        denied = await session.call_tool(
            "audit_log", {}, meta=_claim("dj", "blessed", "sess-dj-0001")
        )
        assert tool_json(denied)["category"] == "forbidden"

    lines = [json.loads(line) for line in audit_file.read_text().splitlines()]
    assert all(line["event"] == "audit" for line in lines)
    creates = [line for line in lines if line["tool"] == "playlist_create"]
    assert [(c["username"], c["claimed_username"]) for c in creates] == [
        ("local", None),
        ("local", "mallory"),
        ("dj", None),
        ("local", "eve"),
        ("local", "dj"),
    ]
    assert {"timestamp", "tool", "username", "role", "input", "result"} <= set(creates[0])
    assert "sess-dj-0001" not in audit_file.read_text()
