# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import NotRequired, TypedDict

from ..common import defs


class PlaylistDeleteOutput(TypedDict):
    injections: NotRequired[defs.Injections]
    playlist_id: str
    name: NotRequired[str]
    deleted: bool
