# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import NotRequired

from ..common import defs
from ..common.catalog import Video


class CatalogGetVideoOutput(Video):
    injections: NotRequired[defs.Injections]
