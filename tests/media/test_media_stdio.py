"""The media tools through the real MCP ClientSession over stdio: frames arrive as image
content a client can decode, with progress notifications on the way."""

from __future__ import annotations

import base64
import io

import mcp_types as types
import pytest
from PIL import Image

from tests.helpers import mcp_client, tool_json

pytestmark = pytest.mark.slow


async def test_frames_and_sheet_reach_a_real_client_as_images(server_env, lecture):
    server_env["VIDEO_RESEARCH_TOOLSETS"] = "media"
    progress: list[tuple[float, float | None]] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        progress.append((done, total))

    async with mcp_client(server_env) as session:
        names = {tool.name for tool in (await session.list_tools()).tools}
        assert {"media_frames", "media_contact_sheet", "media_scenes", "media_screen_text"} <= names
        result = await session.call_tool(
            "media_frames", {"path": str(lecture), "count": 3}, progress_callback=on_progress
        )
        assert not result.is_error, result.content
        described = tool_json(result)["frames"]
        images = [item for item in result.content if isinstance(item, types.ImageContent)]
        assert len(images) == len(described) == 3
        for item, frame in zip(images, described, strict=True):
            assert item.type == "image" and item.mime_type == "image/jpeg"
            picture = Image.open(io.BytesIO(base64.b64decode(item.data)))
            picture.load()
            assert picture.size == (frame["width"], frame["height"])
            assert result.content[frame["content_index"] - 1] is item
        assert result.structured_content["frames"] == described

        sheet = await session.call_tool("media_contact_sheet", {"path": str(lecture), "count": 4})
        assert not sheet.is_error
        (item,) = [c for c in sheet.content if isinstance(c, types.ImageContent)]
        assert (
            Image.open(io.BytesIO(base64.b64decode(item.data))).size[0]
            == (sheet.structured_content["sheet"]["width"])
        )

        # the server's own "started" notice (0 of unknown) may come first while the media
        # worker starts; the rest is the percent of the media decoded
        assert progress and all(total == 100 for done, total in progress if done or total)
        assert [done for done, _ in progress] == sorted(done for done, _ in progress)
        progress.clear()
        scenes = await session.call_tool(
            "media_scenes", {"path": str(lecture)}, progress_callback=on_progress
        )
        assert scenes.structured_content["scene_count"] == 6
        assert all(isinstance(c, types.TextContent) for c in scenes.content)

        read = await session.call_tool(
            "media_screen_text",
            {"path": str(lecture), "start": 24, "end": 36, "sample_seconds": 60},
        )
        assert not read.is_error, read.content
        assert [s["text"] for s in read.structured_content["spans"]][:1] == ["Plate Tectonics"]

        broken = await session.call_tool("media_frames", {"path": str(lecture.parent / "x.mp4")})
        assert broken.is_error and tool_json(broken)["category"] == "not_found"
    assert progress and [done for done, _ in progress] == sorted(d for d, _ in progress)
