# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import NotRequired

from typing_extensions import TypedDict

from ..common import defs, gemini


class VideoBatchAnalyzeInput(TypedDict, closed=True):
    directory: defs.FilePath
    instruction: NotRequired[defs.Instruction]
    glob_pattern: NotRequired[str]
    output_schema: NotRequired[defs.OutputSchema]
    thinking_level: NotRequired[defs.ThinkingLevel]
    max_files: NotRequired[int]
    start_offset: NotRequired[gemini.StartOffset]
    end_offset: NotRequired[gemini.EndOffset]
    fps: NotRequired[gemini.Fps]
    media_resolution: NotRequired[gemini.MediaResolution]
    delivery: NotRequired[gemini.Delivery]
