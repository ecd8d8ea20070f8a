# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import NotRequired, TypedDict

from ..common import defs
from ..common.catalog import QueueWrite


class NowPlaying(TypedDict):
    uid: NotRequired[str]
    video_id: NotRequired[str]
    title: NotRequired[str]
    duration_seconds: NotRequired[int | None]


class QueueAdvanceOutput(QueueWrite):
    injections: NotRequired[defs.Injections]
    now_playing: NowPlaying | None
