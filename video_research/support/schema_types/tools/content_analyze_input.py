# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import NotRequired

from typing_extensions import TypedDict

from ..common import defs


class ContentAnalyzeInput(TypedDict, closed=True):
    instruction: NotRequired[defs.Instruction]
    file_path: NotRequired[defs.FilePath]
    url: NotRequired[str]
    text: NotRequired[str]
    output_schema: NotRequired[defs.OutputSchema]
    thinking_level: NotRequired[defs.ThinkingLevel]
