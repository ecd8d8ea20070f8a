# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import NotRequired

from typing_extensions import TypedDict

from ..common import defs, gemini


class VideoCreateSessionInput(TypedDict, closed=True):
    url: NotRequired[defs.YoutubeUrlOrFile]
    file_path: NotRequired[defs.FilePath]
    description: NotRequired[str]
    start_offset: NotRequired[gemini.StartOffset]
    end_offset: NotRequired[gemini.EndOffset]
    fps: NotRequired[gemini.Fps]
    media_resolution: NotRequired[gemini.MediaResolution]
