# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import Literal, NotRequired

from typing_extensions import TypedDict

from ..common import defs


class VideoCommentsInput(TypedDict, closed=True):
    url: defs.YoutubeUrl
    order: NotRequired[Literal["relevance", "time"]]
    max_results: NotRequired[int]
    page_token: NotRequired[str]
    include_replies: NotRequired[bool]
    search_terms: NotRequired[str]
