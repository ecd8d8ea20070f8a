# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import Literal, NotRequired

from typing_extensions import TypedDict

from ..common import catalog


class QueueApplyPlaylistInput(TypedDict, closed=True):
    playlist_id: catalog.PlaylistId
    mode: NotRequired[Literal["append", "preserve_current", "hard_replace"]]
