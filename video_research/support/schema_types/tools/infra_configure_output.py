# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import NotRequired

from typing_extensions import TypedDict

from ..common import defs


class CurrentConfig(TypedDict, closed=True):
    default_model: str
    flash_model: str
    default_thinking_level: defs.ThinkingLevel
    default_temperature: float
    gemini_api_key_set: bool


class AvailablePresets(TypedDict):
    default_model: str
    flash_model: str
    description: str


class InfraConfigureOutput(TypedDict, closed=True):
    injections: NotRequired[defs.Injections]
    current_config: CurrentConfig
    active_preset: str | None
    available_presets: dict[str, AvailablePresets]
    changed: list[str]
