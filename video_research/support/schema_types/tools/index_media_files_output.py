# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import NotRequired

from typing_extensions import TypedDict

from ..common import defs, transcripts


class IndexMediaFilesOutput(TypedDict, closed=True):
    injections: NotRequired[defs.Injections]
    files_found: int
    urls: int
    speech_model: str
    transcribed_count: int
    screen_chunk_count: int
    speech_seconds: float
    batch: transcripts.Batch
