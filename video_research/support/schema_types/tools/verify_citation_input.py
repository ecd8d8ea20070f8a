# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import NotRequired

from typing_extensions import TypedDict

from ..common import transcripts


class VerifyCitationInput(TypedDict, closed=True):
    quote: str
    link: NotRequired[str]
    video_id: NotRequired[transcripts.VideoRef]
    time: NotRequired[float]
    window_seconds: NotRequired[float]
