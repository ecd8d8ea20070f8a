"""Prompt templates for Gemini, kept as text files beside this module.

Templates use `$name` placeholders (string.Template), so JSON and braces in a template
need no escaping. `render` fails loudly on a missing variable: a half-filled prompt is a
bug, not something to send.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from string import Template

_DIR = Path(__file__).resolve().parent


@cache
def template(name: str) -> Template:
    return Template((_DIR / f"{name}.txt").read_text(encoding="utf-8"))


def render(name: str, **values: object) -> str:
    return template(name).substitute({k: str(v) for k, v in values.items()})
