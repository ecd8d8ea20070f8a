"""What `tools/list` publishes of a tool's contracts: the same rules, fewer bytes.

Every byte of a tool definition is paid on every agent turn, so the published schemas
drop what neither a model nor a client needs, automatically and for any schema file:

- everywhere: `$schema` (MCP's default dialect is 2020-12, and a `$schema` line makes
  Ajv's default draft-07 class refuse to compile the schema at all, as MCP Inspector
  does), `$id`, `$comment` and `title` (the tool has its own title);
- descriptions are said once per tool: a description already said (in the tool's
  description or earlier in its input schema) is not repeated;
- the input schema keeps every constraint, default and description: it is what the
  model fills in;
- the output schema is published as its shape: types, properties, `required`, items,
  `additionalProperties`, enums and unions. Descriptions, formats, bounds and patterns
  stay in the full contract (the server guarantees them: every result is validated
  against the full file before it is sent). `output_levels` gives its leaner forms, nesting
  cut one level at a time, for tool_listing.py to fit the whole list to its budget.
  Whatever the server returns still validates against what it published.
- an `allOf` branch is folded into its parent where one object says the same (what a
  `$ref` with keywords beside it leaves; `_flatten` has the rules), and `required: []`
  is left out; at its leanest, an output drops an `anyOf` that accepts any value of its
  type (`_without_vacuous_unions`): both are the same rules in fewer bytes;
- a subschema repeated within one document moves to that document's `$defs` when
  that saves bytes (`$ref: "#/$defs/..."` with no siblings: both the SDK client's
  jsonschema and Ajv's draft-07 class resolve it; Ajv's core vocabulary has `$defs`).

The full, documented contracts stay in schemas/ (bundled in the wheel), which is what
the server validates every call and every result against.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

_DROP_EVERYWHERE = frozenset({"$schema", "$id", "$comment", "title", "x-error"})
_OUTPUT_KEEP = frozenset(
    {
        "type",
        "properties",
        "required",
        "items",
        "prefixItems",
        "additionalProperties",
        "patternProperties",
        "enum",
        "const",
        "anyOf",
        "oneOf",
        "allOf",
        "$ref",
        "$defs",
    }
)
# Keywords whose value is data, not a schema: never walked into.
_DATA = frozenset({"enum", "const", "default", "examples", "required"})
# Keywords whose value maps names to schemas.
_SCHEMA_MAPS = frozenset({"properties", "patternProperties", "$defs", "dependentSchemas"})
_MIN_HOIST = 64


def compact(node: Any) -> str:
    return json.dumps(node, separators=(",", ":"), ensure_ascii=False)


def publish_input(schema: dict[str, Any], said: set[str]) -> dict[str, Any]:
    """The input schema as published; `said` collects the descriptions already given."""
    return _hoist(_flatten(_strip(schema, said, keep=None)))


def output_levels(schema: dict[str, Any], said: set[str]) -> list[dict[str, Any]]:
    """The output schema's published forms, richest first, each smaller than the last.

    First its whole shape; then its nesting cut one level at a time down to the top
    level's property types; then the top level without `required` and
    `additionalProperties` (still every property and its type); last without the unions
    that accept anything (`_without_vacuous_unions`), and last without the properties
    every output may carry (`SHARED_OUTPUT_PROPERTIES`).
    """
    # unevaluatedProperties is kept through folding, which may turn it into
    # additionalProperties, then dropped: Ajv's draft-07 class does not know it.
    folded = _flatten(_strip(schema, said, keep=_OUTPUT_KEEP | {"unevaluatedProperties"}))
    shape = _strip(folded, set(), keep=_OUTPUT_KEEP)
    forms = [_hoist(_cut(shape, depth)) for depth in range(_depth(shape), -1, -1)]
    bare = {k: v for k, v in forms[-1].items() if k not in ("required", "additionalProperties")}
    forms.append(bare)
    forms.append(_without_vacuous_unions(bare))
    forms.append(_without_shared(forms[-1]))
    levels: list[dict[str, Any]] = []
    for form in forms:
        if not levels or len(compact(form)) < len(compact(levels[-1])):
            levels.append(form)
    return levels


SHARED_OUTPUT_PROPERTIES = ("injections",)
"""Optional properties that every output schema declares (schemas/common/defs.json): the
leanest published form, an open object, still accepts them, so they need not be listed
in every tool's entry."""


def _without_shared(node: dict[str, Any]) -> dict[str, Any]:
    properties = node.get("properties")
    if not isinstance(properties, dict) or node.get("additionalProperties") is False:
        return node
    kept = {k: v for k, v in properties.items() if k not in SHARED_OUTPUT_PROPERTIES}
    return {**node, "properties": kept}


def _without_vacuous_unions(node: dict[str, Any]) -> dict[str, Any]:
    """`node` without an `anyOf` one of whose branches is `{}` or just `node`'s own type.

    Such a union accepts every value `node` accepts: its other branches are pure
    documentation. video_analyze's output is the case: its default shape or, with
    `output_schema`, any object; the tool's description names the default fields.
    Only `anyOf`: in `oneOf` the same branch would exclude the others' values."""
    branches = node.get("anyOf")
    anything = ({}, {"type": node["type"]}) if "type" in node else ({},)
    if isinstance(branches, list) and any(branch in anything for branch in branches):
        return {key: value for key, value in node.items() if key != "anyOf"}
    return node


def _strip(node: Any, said: set[str], keep: frozenset[str] | None) -> Any:
    if isinstance(node, list):
        return [_strip(item, said, keep) for item in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in _DROP_EVERYWHERE or (keep is not None and key not in keep):
            continue
        if key == "required" and value == []:
            continue  # requires nothing: the same as no `required`
        if key == "description":
            if not isinstance(value, str) or value in said:
                continue
            said.add(value)
            out[key] = value
        elif key in _DATA:
            out[key] = value
        elif key in _SCHEMA_MAPS and isinstance(value, dict):
            out[key] = {name: _strip(sub, said, keep) for name, sub in value.items()}
        else:
            out[key] = _strip(value, said, keep)
    return out


def _flatten(node: Any) -> Any:
    """Fold `allOf` branches into their parent where that is the same schema said once
    (what inlining a `$ref` with siblings leaves: `{"allOf": [shared], "minItems": 1}`).

    `{"allOf": [A], ...B}` accepts exactly what both A and B accept, so when no keyword
    of A acts on a keyword of B, one object holding the keywords of both says the same.
    A branch folds in only when every keyword it shares with the parent has the same
    value there, except `required` (the lists are joined), `properties` (joined when
    they name different properties and neither side has `additionalProperties` or
    `patternProperties`, which read the properties beside them) and `description` (the
    parent's is kept: documentation). Keywords that read a sibling (`items` and
    `prefixItems`, `contains` and its bounds, `if`/`then`/`else`) must all come from one
    side; references and `unevaluated*` are never folded. A branch that does not fold
    stays in `allOf`.

    `unevaluatedProperties: false` beside the branches (a shared object extended and
    closed) sees the properties of every branch: once all of them fold and nothing else
    beside it evaluates properties, it says what `additionalProperties: false` says of the
    one object, which the published output keeps (it drops `unevaluated*`)."""
    if isinstance(node, list):
        return [_flatten(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: value if key in _DATA else _flatten(value) for key, value in node.items()}
    for key in _SCHEMA_MAPS:
        if isinstance(node.get(key), dict):
            out[key] = {name: _flatten(sub) for name, sub in node[key].items()}
    branches = out.get("allOf")
    if not isinstance(branches, list):
        return out
    # Set aside while the branches fold (it reads them all; folding keeps what they
    # evaluate), put back after: as additionalProperties where that says the same.
    had_unevaluated = "unevaluatedProperties" in out
    unevaluated = out.pop("unevaluatedProperties", None)
    kept: list[Any] = []
    for branch in branches:
        folded = _fold(out, branch) if isinstance(branch, dict) else None
        if folded is None:
            kept.append(branch)
        else:
            out = folded
    if kept:
        out["allOf"] = kept
    else:
        out.pop("allOf")
    if unevaluated is False and not kept and not _EVALUATE_PROPERTIES & set(out):
        out["additionalProperties"] = False
    elif had_unevaluated:
        out["unevaluatedProperties"] = unevaluated
    return out


# Keywords that evaluate an object's properties for `unevaluatedProperties`, besides
# `properties`.
_EVALUATE_PROPERTIES = frozenset(
    {"patternProperties", "additionalProperties", "allOf", "anyOf", "oneOf"}
    | {"if", "then", "else", "dependentSchemas", "$ref", "$dynamicRef"}
)


# Keywords whose meaning depends on keywords beside them in the same schema object.
_NEIGHBOURLY = (
    frozenset({"properties", "patternProperties", "additionalProperties"}),
    frozenset({"prefixItems", "items"}),
    frozenset({"contains", "minContains", "maxContains"}),
    frozenset({"if", "then", "else"}),
)
_NEVER_FOLDED = frozenset(
    {"$ref", "$dynamicRef", "$anchor", "$dynamicAnchor", "$defs", "$id"}
    | {"unevaluatedProperties", "unevaluatedItems"}
)


def _fold(parent: dict[str, Any], branch: dict[str, Any]) -> dict[str, Any] | None:
    """`parent` with its `allOf` branch `branch` merged into it, or None when merging
    could change what the schema accepts (the rules are in `_flatten`)."""
    if _NEVER_FOLDED & (set(parent) | set(branch)):
        return None
    for family in _NEIGHBOURLY:
        here, there = family & set(parent), family & set(branch)
        if here and there and not here == there == {"properties"}:
            return None
    merged = dict(parent)
    for key, value in branch.items():
        if key == "description":
            merged.setdefault(key, value)
        elif key not in parent:
            merged[key] = value
        elif parent[key] == value:
            continue
        elif key == "required" and isinstance(value, list):
            merged[key] = list(dict.fromkeys([*parent[key], *value]))
        elif key == "properties" and isinstance(value, dict):
            if set(value) & set(parent[key]):
                return None
            merged[key] = {**value, **parent[key]}
        else:
            return None
    first = [key for key in branch if key in merged]  # the shared schema reads first
    return {key: merged[key] for key in [*first, *(k for k in merged if k not in first)]}


def _children(node: dict[str, Any]) -> list[tuple[Any, bool]]:
    """(child, deeper): the subschemas of `node`, and whether each is one level deeper."""
    found: list[tuple[Any, bool]] = []
    for key, value in node.items():
        if key in _DATA:
            continue
        if key in ("properties", "patternProperties") and isinstance(value, dict):
            found.extend((sub, True) for sub in value.values())
        elif key in ("items", "additionalProperties") and isinstance(value, dict):
            found.append((value, key == "additionalProperties"))
        elif key in ("prefixItems", "anyOf", "oneOf", "allOf") and isinstance(value, list):
            found.extend((sub, False) for sub in value)
    return found


def _depth(node: Any) -> int:
    if not isinstance(node, dict):
        return 0
    return max(
        (_depth(child) + (1 if deeper else 0) for child, deeper in _children(node)), default=0
    )


def _cut(node: Any, depth: int) -> Any:
    """`node` with every subschema below `depth` levels of properties reduced to its type."""
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in ("properties", "patternProperties") and isinstance(value, dict):
            out[key] = {name: _cut_below(sub, depth) for name, sub in value.items()}
        elif key == "additionalProperties" and isinstance(value, dict):
            out[key] = _cut_below(value, depth)
        elif key == "items" and isinstance(value, dict):
            out[key] = _cut(value, depth)
        elif key in ("prefixItems", "anyOf", "oneOf", "allOf") and isinstance(value, list):
            out[key] = [_cut(sub, depth) for sub in value]
        else:
            out[key] = value
    return out


def _cut_below(node: Any, depth: int) -> Any:
    if depth > 0:
        return _cut(node, depth - 1)
    return _type_only(node)


def _type_only(node: Any) -> Any:
    """The least that still says what a value is: its type (and the branches' types)."""
    if not isinstance(node, dict):
        return node
    kept = {key: node[key] for key in ("type", "enum", "const") if key in node}
    for key in ("anyOf", "oneOf"):
        if key in node:
            kept[key] = [_type_only(sub) for sub in node[key]]
    return kept


def _hoist(schema: dict[str, Any]) -> dict[str, Any]:
    """Move subschemas that occur more than once into `$defs`, when that saves bytes."""
    counts: Counter[str] = Counter()

    def count(node: Any, root: bool = False) -> None:
        if isinstance(node, dict):
            if not root and len(text := compact(node)) >= _MIN_HOIST:
                counts[text] += 1
            for child, _ in _children(node):
                count(child)

    count(schema, root=True)
    repeated = {text for text, n in counts.items() if n > 1}
    if not repeated or "$defs" in schema:
        return schema
    names: dict[str, str] = {}
    defs: dict[str, Any] = {}

    def replace(node: Any, inside: str | None = None) -> Any:
        if isinstance(node, list):
            return [replace(item) for item in node]
        if not isinstance(node, dict):
            return node
        text = compact(node)
        if text in repeated and text != inside:
            if text not in names:
                names[text] = f"d{len(names)}"
                defs[names[text]] = replace(node, inside=text)
            return {"$ref": f"#/$defs/{names[text]}"}
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key in _DATA:
                out[key] = value
            elif key in _SCHEMA_MAPS and isinstance(value, dict):
                out[key] = {name: replace(sub) for name, sub in value.items()}
            else:
                out[key] = replace(value)
        return out

    hoisted = _replace_root_children(schema, replace)
    if not defs:
        return schema
    hoisted["$defs"] = defs
    return hoisted if len(compact(hoisted)) < len(compact(schema)) else schema


def _replace_root_children(schema: dict[str, Any], replace: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in _DATA:
            out[key] = value
        elif key in _SCHEMA_MAPS and isinstance(value, dict):
            out[key] = {name: replace(sub) for name, sub in value.items()}
        else:
            out[key] = replace(value)
    return out
