"""The parts of a Gemini request: videos, files, bytes and text, and the contents that
hold them, built from google-genai's types; `client` re-exports them, so a caller builds
and sends a request through one module.

google-genai is imported inside the functions: importing this module costs nothing.
"""

from __future__ import annotations

import json
from typing import Any

MEDIA_RESOLUTIONS = {
    "low": "MEDIA_RESOLUTION_LOW",
    "medium": "MEDIA_RESOLUTION_MEDIUM",
    "high": "MEDIA_RESOLUTION_HIGH",
}


def content_to_json(content: Any) -> dict[str, Any]:
    """A Content as a JSON-safe dict (bytes such as thought signatures as base64)."""
    return json.loads(content.model_dump_json(exclude_none=True))


def content_from_json(data: dict[str, Any]) -> Any:
    """The Content a `content_to_json` dict stands for (signatures back to bytes)."""
    from google.genai import types

    return types.Content.model_validate_json(json.dumps(data))


def youtube_part(url: str) -> Any:
    return file_uri_part(url, "video/mp4")


def file_uri_part(uri: str, mime_type: str) -> Any:
    from google.genai import types

    return types.Part(file_data=types.FileData(file_uri=uri, mime_type=mime_type))


def bytes_part(data: bytes, mime_type: str) -> Any:
    from google.genai import types

    return types.Part.from_bytes(data=data, mime_type=mime_type)


def text_part(text: str) -> Any:
    from google.genai import types

    return types.Part(text=text)


def content(role: str, *parts: Any) -> Any:
    from google.genai import types

    return types.Content(role=role, parts=list(parts))


def user_content(*parts: Any) -> Any:
    return content("user", *parts)


def with_video_metadata(part: Any, video_metadata: dict[str, Any] | None) -> Any:
    """`part` clipped and sampled: VideoMetadata(start_offset, end_offset, fps)."""
    if not video_metadata:
        return part
    from google.genai import types

    return part.model_copy(update={"video_metadata": types.VideoMetadata(**video_metadata)})


def with_media_resolution(part: Any, media_resolution: str | None) -> Any:
    """`part` with a part-level media resolution (what a context cache's contents carry;
    a direct request sets it in the generation config instead)."""
    if not media_resolution:
        return part
    from google.genai import types

    level = MEDIA_RESOLUTIONS[media_resolution]
    return part.model_copy(update={"media_resolution": types.PartMediaResolution(level=level)})
