# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import Literal, NotRequired, TypeAlias

from typing_extensions import TypedDict

from ..common import defs


class Window(TypedDict, closed=True):
    start: float
    end: float


class Checked(TypedDict, closed=True):
    lines: int
    speech: int
    screen: int


class Difference(TypedDict, closed=True):
    quoted: str
    said: str


Differences: TypeAlias = list[Difference]


class Evidence(TypedDict, closed=True):
    said: str
    time: float
    timestamp_url: str
    similarity: float
    differences: Differences


class FoundElsewhereItem(TypedDict, closed=True):
    video_id: str
    video_title: NotRequired[str | None]
    time: float
    timestamp_url: str
    match: Literal["exact", "close", "meaning"]
    similarity: float
    text: str
    evidence: str
    differences: NotRequired[Differences]
    same_video: bool
    in_window: bool


class VerifyCitationOutput(TypedDict, closed=True):
    injections: NotRequired[defs.Injections]
    verdict: Literal["exact", "close", "not_there"]
    quote: str
    video_id: str
    time: float
    window: Window
    checked: Checked
    evidence: Evidence | None
    found_elsewhere: list[FoundElsewhereItem]
