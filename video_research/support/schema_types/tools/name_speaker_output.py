# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import NotRequired

from typing_extensions import TypedDict

from ..common import defs


class Speaker(TypedDict, closed=True):
    label: str
    name: str | None


class NameSpeakerOutput(TypedDict, closed=True):
    video_id: str
    speakers: list[Speaker]
    injections: NotRequired[defs.Injections]
