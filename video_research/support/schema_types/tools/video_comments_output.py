# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import Any, NotRequired

from typing_extensions import TypedDict

from ..common import defs


class Comment(TypedDict):
    comment_id: str
    thread_id: str
    author: str
    author_channel_id: NotRequired[str | None]
    text: str
    like_count: int
    reply_count: int
    published_at: str
    url: NotRequired[str | None]
    replies: NotRequired[list[dict[str, Any]]]


class VideoCommentsOutput(TypedDict, closed=True):
    injections: NotRequired[defs.Injections]
    video_id: str
    url: str
    order: str
    comments: list[Comment]
    returned: int
    next_page_token: str | None
