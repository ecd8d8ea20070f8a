# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import Literal, NotRequired

from typing_extensions import TypedDict

from ..common import defs, gemini


class ContentBatchAnalyzeInput(TypedDict, closed=True):
    directory: NotRequired[defs.FilePath]
    glob_pattern: NotRequired[str]
    file_paths: NotRequired[list[defs.FilePath]]
    instruction: NotRequired[defs.Instruction]
    mode: NotRequired[Literal["individual", "compare"]]
    delivery: NotRequired[gemini.Delivery]
    output_schema: NotRequired[defs.OutputSchema]
    thinking_level: NotRequired[defs.ThinkingLevel]
    max_files: NotRequired[int]
