# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import NotRequired

from typing_extensions import TypedDict

from ..common import defs, gemini


class VideoCreateSessionOutput(TypedDict, closed=True):
    injections: NotRequired[defs.Injections]
    session_id: str
    video_title: str
    source: str
    description: str
    created_at: defs.DateTime
    expires_at: defs.DateTime
    turn_count: int
    max_turns: int
    model: NotRequired[str]
    sampling: NotRequired[gemini.Sampling]
    context_cache: NotRequired[gemini.ContextCache]
