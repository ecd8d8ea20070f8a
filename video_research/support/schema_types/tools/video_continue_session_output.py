# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import NotRequired

from typing_extensions import TypedDict

from ..common import defs, gemini


class VideoContinueSessionOutput(TypedDict, closed=True):
    injections: NotRequired[defs.Injections]
    session_id: str
    response: str
    turn_count: int
    video_title: str
    source: NotRequired[str]
    video_id: NotRequired[str]
    usage: NotRequired[gemini.Usage]
    context_cache: NotRequired[gemini.ContextCache]
