# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypeAlias

from typing_extensions import TypedDict

from . import defs

GeminiCostControlsAndUsage: TypeAlias = Any


Offset: TypeAlias = float | str


StartOffset: TypeAlias = Offset


EndOffset: TypeAlias = Offset


Fps: TypeAlias = float


MediaResolution: TypeAlias = Literal["low", "medium", "high"]


class Sampling(TypedDict, closed=True):
    start_seconds: NotRequired[float]
    end_seconds: NotRequired[float]
    fps: NotRequired[float]
    media_resolution: NotRequired[Literal["low", "medium", "high"]]


class Usage(TypedDict, closed=True):
    prompt_tokens: int
    cached_tokens: int
    uncached_prompt_tokens: int
    output_tokens: int
    thoughts_tokens: int
    total_tokens: int
    batch: NotRequired[bool]


class ContextCache(TypedDict, closed=True):
    state: Literal["used", "created", "off", "unavailable"]
    name: NotRequired[str]
    expires_at: NotRequired[defs.DateTime]
    reason: NotRequired[str]


Delivery: TypeAlias = Literal["direct", "batch"]


class BatchJob(TypedDict, closed=True):
    name: str
    state: str
    requests: NotRequired[int]
