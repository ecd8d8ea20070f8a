# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import Literal, NotRequired, TypeAlias

from typing_extensions import TypedDict

from ..common import transcripts

Path: TypeAlias = str


Url: TypeAlias = str


class IndexMediaFilesInput(TypedDict, closed=True):
    paths: NotRequired[list[Path]]
    urls: NotRequired[list[Url]]
    glob_pattern: NotRequired[str]
    max_files: NotRequired[int]
    language: NotRequired[transcripts.Language]
    speech: NotRequired[Literal["fallback", "always"]]
    screen_text: NotRequired[bool]
    force_reindex: NotRequired[bool]
