# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import NotRequired, TypeAlias, TypedDict

from ..common import defs, gemini
from ..common.video_result import VideoResult


class VideoAnalyzeOutput2(TypedDict):
    injections: NotRequired[defs.Injections]


class VideoAnalyzeOutput1(VideoResult):
    source: str
    content_id: str
    model: str
    cached: bool
    usage: NotRequired[gemini.Usage]
    sampling: NotRequired[gemini.Sampling]
    context_cache: NotRequired[gemini.ContextCache]
    injections: NotRequired[defs.Injections]


VideoAnalyzeOutput: TypeAlias = VideoAnalyzeOutput1 | VideoAnalyzeOutput2
