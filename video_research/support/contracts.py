"""The contracts: JSON Schema files (draft 2020-12) under `schemas/`.

Every tool has `schemas/tools/<tool>.input.json` and `schemas/tools/<tool>.output.json`;
shared pieces live under `schemas/common/` and are pulled in with `$ref` (a relative file
path plus an optional JSON pointer, e.g. `../common/defs.json#/$defs/thinking_level`).

The loader inlines every `$ref` so what the server publishes (tools/list), what it
validates against and what Gemini receives as `response_json_schema` is one
self-contained document per file: MCP clients resolve `$ref` only inside the document
they were given. Validators are compiled once per schema and cached.

Validation runs on every call (input and output), so it has a fast path: jsonschema-rs
(Rust, draft 2020-12, ~100x faster than jsonschema here: 3 us against 370 us for one
infra_cache call's input and output) answers "valid?"; only when it says no does
python-jsonschema, the authority, produce the errors (and may still find none). Schema
files are meta-validated by the contract tests, not at every server start (that was most
of the start-up time); python-jsonschema is imported only when it is needed.
"""

from __future__ import annotations

import copy
import json
import math
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import ValidationError

DRAFT = "https://json-schema.org/draft/2020-12/schema"

# Keywords that only annotate: safe to merge beside an inlined $ref.
_ANNOTATIONS = {
    "description",
    "title",
    "default",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
    "$comment",
}


class SchemaError(RuntimeError):
    """A schema file is missing, unreadable or not valid draft 2020-12."""


@cache
def schema_root() -> Path:
    """`schemas/` beside the package in a checkout, or the copy bundled into a wheel."""
    package = Path(__file__).resolve().parent.parent
    for candidate in (package / "_schemas", package.parent / "schemas"):
        if candidate.is_dir():
            return candidate
    raise SchemaError(f"No schemas/ directory found near {package}")


@cache
def _read(path: Path) -> dict[str, Any]:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SchemaError(f"Schema file missing: {path}") from None
    except json.JSONDecodeError as exc:
        raise SchemaError(f"Schema file {path} is not valid JSON: {exc}") from None


def _pointer(document: Any, pointer: str, where: str) -> Any:
    node = document
    if not pointer or pointer == "/":
        return node
    for raw in pointer.lstrip("/").split("/"):
        part = raw.replace("~1", "/").replace("~0", "~")
        try:
            node = node[int(part)] if isinstance(node, list) else node[part]
        except (KeyError, IndexError, ValueError):
            raise SchemaError(f"$ref {where} points at nothing") from None
    return node


def _inline(node: Any, base: Path, document: dict[str, Any], stack: tuple[str, ...]) -> Any:
    if isinstance(node, list):
        return [_inline(item, base, document, stack) for item in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node and isinstance(node["$ref"], str):
        ref = node["$ref"]
        file_part, _, pointer = ref.partition("#")
        if file_part:
            target_path = (base.parent / file_part).resolve()
            target_doc = _read(target_path)
        else:
            target_path, target_doc = base, document
        key = f"{target_path}#{pointer}"
        if key in stack:
            raise SchemaError(f"Recursive $ref {ref} in {base} cannot be inlined")
        target = _pointer(target_doc, pointer, f"{ref} in {base}")
        # no copy needed: _inline builds new containers and never mutates its input
        resolved = _inline(target, target_path, target_doc, (*stack, key))
        siblings = {k: v for k, v in node.items() if k != "$ref"}
        if not siblings:
            return resolved
        siblings = _inline(siblings, base, document, stack)
        if set(siblings) <= _ANNOTATIONS and isinstance(resolved, dict):
            return {**resolved, **siblings}
        return {"allOf": [resolved], **siblings}
    return {k: _inline(v, base, document, stack) for k, v in node.items() if k != "$defs"}


@cache
def load_schema(relative: str) -> dict[str, Any]:
    """A schema file, `$ref`s inlined, `$schema` kept, `$defs` dropped once used.

    `relative` is a path under schemas/, e.g. "tools/infra_cache.input.json".
    Raises SchemaError when the file is missing or not a valid 2020-12 schema.
    """
    path = (schema_root() / relative).resolve()
    document = _read(path)
    if document.get("$schema") != DRAFT:
        raise SchemaError(f'{relative} must declare "$schema": "{DRAFT}"')
    resolved = _inline(document, path, document, ())
    resolved["$schema"] = DRAFT
    return resolved


def check_schema(relative: str) -> None:
    """Meta-validate a schema file against draft 2020-12 (the contract tests call this for
    every file; the server does not, to start fast). Raises SchemaError."""
    from jsonschema import Draft202012Validator

    try:
        Draft202012Validator.check_schema(load_schema(relative))
    except Exception as exc:  # jsonschema.SchemaError, with the failing keyword
        raise SchemaError(f"{relative} is not a valid draft 2020-12 schema: {exc}") from None


@cache
def load_definition(relative: str, name: str) -> dict[str, Any]:
    """One `$defs` entry of a shared schema file (e.g. a research phase), refs inlined."""
    anchor = schema_root() / "_"  # refs resolve relative to schemas/
    return _inline({"$ref": f"{relative}#/$defs/{name}"}, anchor, {}, ())


def tool_schema_path(tool: str, kind: str) -> str:
    if kind not in ("input", "output"):
        raise ValueError(kind)
    return f"tools/{tool}.{kind}.json"


def tool_schema(tool: str, kind: str) -> dict[str, Any]:
    """A tool's published input or output schema."""
    return load_schema(tool_schema_path(tool, kind))


@cache
def validator(relative: str) -> Draft202012Validator:
    """A compiled validator for a schema file, built once per process."""
    from jsonschema import Draft202012Validator

    return Draft202012Validator(
        load_schema(relative), format_checker=Draft202012Validator.FORMAT_CHECKER
    )


@cache
def fast_validator(relative: str) -> Any:
    """The jsonschema-rs validator of a schema file, or None if it cannot compile it."""
    try:
        import jsonschema_rs

        return jsonschema_rs.validator_for(load_schema(relative), validate_formats=True)
    except Exception:  # an unsupported construct: python-jsonschema alone decides
        return None


def is_valid_fast(relative: str, instance: Any) -> bool:
    """True when jsonschema-rs finds `instance` valid (False means "ask jsonschema")."""
    fast = fast_validator(relative)
    if fast is None:
        return False
    try:
        return bool(fast.is_valid(instance))
    except Exception:  # a value it cannot convert (a tuple, a huge int): the slow path
        return False


def validation_errors(
    relative: str, instance: Any, limit: int = 20, *, plain: bool = False
) -> list[dict[str, str]]:
    """Every way `instance` breaks the schema, as [{path, message}], most shallow first.

    `path` is a JSON path such as `$.items[2].title`. The message is jsonschema's, or with
    `plain` (what a caller's input gets) a sentence in the user's terms: the field, what
    was sent, what to send instead (support/plain_errors.py). An empty list means the
    instance is valid.
    """
    if is_valid_fast(relative, instance):
        return []
    errors: list[ValidationError] = sorted(
        validator(relative).iter_errors(instance), key=lambda e: (len(e.absolute_path), e.json_path)
    )
    if plain:
        from video_research.support.plain_errors import describe

        return [{"path": e.json_path, "message": describe(e)} for e in errors[:limit]]
    return [{"path": e.json_path, "message": _short(e)} for e in errors[:limit]]


def _short(error: ValidationError) -> str:
    message = error.message
    return message if len(message) <= 300 else message[:297] + "..."


def apply_defaults(schema: dict[str, Any], arguments: dict[str, Any]) -> dict[str, Any]:
    """Fill top-level `default`s from the schema, so handlers read one source of defaults."""
    filled = dict(arguments)
    for name, prop in schema.get("properties", {}).items():
        if name not in filled and isinstance(prop, dict) and "default" in prop:
            filled[name] = copy.deepcopy(prop["default"])
    return filled


def gemini_definition(relative: str, name: str) -> dict[str, Any]:
    """A `$defs` entry of a shared schema file, for Gemini's `response_json_schema`."""
    return copy.deepcopy(load_definition(relative, name))


def gemini_response_schema(relative: str, *, drop: tuple[str, ...] = ()) -> dict[str, Any]:
    """A schema file shaped for Gemini's `response_json_schema`.

    Same document the server validates against, minus the keys Gemini does not take
    (`$schema`, `$id`) and minus the properties listed in `drop` (fields the server
    adds itself, such as `cached`), so the model is asked for exactly what it produces.
    """
    schema = copy.deepcopy(load_schema(relative))
    schema.pop("$schema", None)
    schema.pop("$id", None)
    for name in drop:
        schema.get("properties", {}).pop(name, None)
        if name in schema.get("required", []):
            schema["required"] = [r for r in schema["required"] if r != name]
    return schema


def check_caller_schema(schema: Any, argument: str) -> dict[str, Any]:
    """A JSON Schema a caller passed (output_schema, content_extract's schema), checked.

    It must be a valid draft 2020-12 schema describing an object: results are MCP
    structured content, which is always a JSON object. Raises invalid_input otherwise.
    """
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError as JsonSchemaError

    from video_research.support.errors import invalid_input

    if not isinstance(schema, dict):
        raise invalid_input(f"{argument} must be a JSON Schema object.")
    try:
        Draft202012Validator.check_schema(schema)
    except JsonSchemaError as exc:
        where = "/".join(str(p) for p in exc.absolute_path) or "(root)"
        raise invalid_input(
            f"{argument} is not a valid JSON Schema at {where}: {exc.message}",
            hint='Pass a draft 2020-12 JSON Schema such as {"type": "object", "properties": {...}}.',
        ) from None
    if schema.get("type") != "object":
        raise invalid_input(
            f'{argument} must describe an object ("type": "object" at its root).',
            hint='Wrap lists in an object, e.g. {"type": "object", "properties": {"items": {"type": "array"}}}.',
        )
    return schema


def non_finite_numbers(instance: Any, path: str = "$", limit: int = 20) -> list[dict[str, str]]:
    """Where `instance` holds NaN or an infinity, as [{path, message}] like validation_errors.

    JSON has no such numbers, but Python's json (and so the SDK) accepts `NaN` and
    `Infinity`, and JSON Schema lets them through: NaN passes `minimum` and `maximum`
    alike, so `min_score: NaN` silently matched nothing. Every tool input is checked.
    """
    found: list[dict[str, str]] = []
    stack: list[tuple[str, Any]] = [(path, instance)]
    while stack and len(found) < limit:
        where, value = stack.pop()
        if isinstance(value, float) and not math.isfinite(value):
            field = where.removeprefix("$.").removeprefix("$") or "arguments"
            found.append(
                {
                    "path": where,
                    "message": f"{field}: {value} is not a finite number; send a number.",
                }
            )
        elif isinstance(value, dict):
            stack.extend((f"{where}.{key}", item) for key, item in reversed(value.items()))
        elif isinstance(value, list):
            stack.extend((f"{where}[{i}]", item) for i, item in reversed(list(enumerate(value))))
    return found
