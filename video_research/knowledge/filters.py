"""Filters on stored objects: one small tree both backends translate.

Build conditions with the `Filter` constructors and combine them with `&` and `|`:

    Filter.eq("video_id", "dQw4w9WgXcQ") & Filter.gte("start_seconds", 60)
    Filter.prefix("source_path", "/papers/") & Filter.contains_any("tags", ["nix", "guix"])
    Filter.in_("language", ["en", "de"]) | Filter.lt("published_at", "2024-01-01")
    Filter.within("video_id", "start_time", [("dQw4w9WgXcQ", 60, 90), ("abc", 0, 30)])

Operators by property type (anything else is refused with a message naming the ones
that apply):

| type               | operators                                  |
|--------------------|--------------------------------------------|
| text               | eq, ne, in, prefix                         |
| text[]             | contains_any, contains_all                 |
| int, number, date  | eq, ne, in, gt, gte, lt, lte               |
| boolean            | eq, ne                                     |

`within(key, number, spans)` matches an object whose `key` equals one span's key and
whose `number` lies in that span's [low, high]: the same as an any_of of
eq/gte/lte triples, but one condition however many spans, which the embedded store
answers with one prepared statement (a search links its moments to their sentences
through a hundred spans or more; an any_of that long cost more to compile than to run).

`ne` also matches objects that lack the property. Text comparisons are exact and
case-sensitive. Only properties declared `filterable` can be filtered on. On Weaviate a
`prefix` cannot contain `*` or `?` (its Like operator has no escape for them).

`bind(node, definition)` checks a filter against a collection and normalises its
values (dates to the canonical UTC form) before a backend sees it; `from_json` reads the
`[{"property", "op", "value"}, ...]` list the knowledge tools accept.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from video_research.knowledge.collections import CollectionDef, DataType, coerce
from video_research.support.errors import invalid_input

Op = Literal["eq", "ne", "in", "gt", "gte", "lt", "lte", "prefix", "contains_any", "contains_all"]

OPERATORS: dict[DataType, tuple[Op, ...]] = {
    DataType.TEXT: ("eq", "ne", "in", "prefix"),
    DataType.TEXT_ARRAY: ("contains_any", "contains_all"),
    DataType.INT: ("eq", "ne", "in", "gt", "gte", "lt", "lte"),
    DataType.NUMBER: ("eq", "ne", "in", "gt", "gte", "lt", "lte"),
    DataType.DATE: ("eq", "ne", "in", "gt", "gte", "lt", "lte"),
    DataType.BOOLEAN: ("eq", "ne"),
}
LIST_OPERATORS = frozenset({"in", "contains_any", "contains_all"})


class _Node:
    def __and__(self, other: FilterNode) -> FilterNode:
        return AllOf((self, other))  # type: ignore[arg-type]

    def __or__(self, other: FilterNode) -> FilterNode:
        return AnyOf((self, other))  # type: ignore[arg-type]


@dataclass(frozen=True)
class Condition(_Node):
    prop: str
    op: Op
    value: Any


@dataclass(frozen=True)
class Within(_Node):
    """`key` equal to a span's first item and `number` within its (low, high), inclusive."""

    key: str
    number: str
    spans: tuple[tuple[Any, Any, Any], ...]


@dataclass(frozen=True)
class AllOf(_Node):
    items: tuple[FilterNode, ...]


@dataclass(frozen=True)
class AnyOf(_Node):
    items: tuple[FilterNode, ...]


FilterNode = Condition | Within | AllOf | AnyOf
"""A filter tree: what the store methods take as `where`."""


class Filter:
    """The constructors: `Filter.eq(...)` and friends build `FilterNode` trees."""

    @staticmethod
    def eq(prop: str, value: Any) -> Condition:
        return Condition(prop, "eq", value)

    @staticmethod
    def ne(prop: str, value: Any) -> Condition:
        return Condition(prop, "ne", value)

    @staticmethod
    def in_(prop: str, values: Sequence[Any]) -> Condition:
        return Condition(prop, "in", tuple(values))

    @staticmethod
    def gt(prop: str, value: Any) -> Condition:
        return Condition(prop, "gt", value)

    @staticmethod
    def gte(prop: str, value: Any) -> Condition:
        return Condition(prop, "gte", value)

    @staticmethod
    def lt(prop: str, value: Any) -> Condition:
        return Condition(prop, "lt", value)

    @staticmethod
    def lte(prop: str, value: Any) -> Condition:
        return Condition(prop, "lte", value)

    @staticmethod
    def between(prop: str, low: Any, high: Any) -> AllOf:
        """low <= prop <= high."""
        return AllOf((Condition(prop, "gte", low), Condition(prop, "lte", high)))

    @staticmethod
    def within(key: str, number: str, spans: Sequence[tuple[Any, Any, Any]]) -> Within:
        """key == span[0] and span[1] <= number <= span[2], for any one of `spans`."""
        return Within(key, number, tuple((k, low, high) for k, low, high in spans))

    @staticmethod
    def prefix(prop: str, value: str) -> Condition:
        return Condition(prop, "prefix", value)

    @staticmethod
    def contains_any(prop: str, values: Sequence[Any]) -> Condition:
        return Condition(prop, "contains_any", tuple(values))

    @staticmethod
    def contains_all(prop: str, values: Sequence[Any]) -> Condition:
        return Condition(prop, "contains_all", tuple(values))

    @staticmethod
    def all_of(*items: FilterNode) -> FilterNode:
        return items[0] if len(items) == 1 else AllOf(tuple(items))

    @staticmethod
    def any_of(*items: FilterNode) -> FilterNode:
        return items[0] if len(items) == 1 else AnyOf(tuple(items))


def properties_used(node: FilterNode | None) -> set[str]:
    if node is None:
        return set()
    if isinstance(node, Condition):
        return {node.prop}
    if isinstance(node, Within):
        return {node.key, node.number}
    return set().union(*(properties_used(item) for item in node.items))


def bind(node: FilterNode | None, definition: CollectionDef) -> FilterNode | None:
    """`node` checked against `definition`, values normalised; invalid_input when it cannot apply."""
    if node is None:
        return None
    if isinstance(node, AllOf | AnyOf):
        if not node.items:
            raise invalid_input("An all_of / any_of filter needs at least one condition.")
        return type(node)(tuple(bind(item, definition) for item in node.items))  # type: ignore[misc]
    if isinstance(node, Within):
        return _bind_within(node, definition)
    scalar = _operand(definition, node.prop, node.op)
    try:
        if node.op in LIST_OPERATORS:
            if isinstance(node.value, str | bytes) or not isinstance(node.value, Sequence):
                raise ValueError("expected a list of values")
            if not node.value:
                raise ValueError("expected at least one value")
            value: Any = tuple(dict.fromkeys(coerce(scalar, v) for v in node.value))
        else:
            value = coerce(scalar, node.value)
    except ValueError as exc:
        raise invalid_input(f"Filter on {node.prop} ({node.op}): {exc}.") from None
    return Condition(node.prop, node.op, value)


def _bind_within(node: Within, definition: CollectionDef) -> Within:
    """`node` checked as the eq / gte / lte conditions each span stands for."""
    if not node.spans:
        raise invalid_input("A within filter needs at least one span.")
    key = _operand(definition, node.key, "eq")
    number = _operand(definition, node.number, "gte")
    _operand(definition, node.number, "lte")
    try:
        spans = tuple(
            (coerce(key, k), coerce(number, low), coerce(number, high))
            for k, low, high in node.spans
        )
    except ValueError as exc:
        raise invalid_input(f"Filter within {node.key} / {node.number}: {exc}.") from None
    return Within(node.key, node.number, spans)


def _operand(definition: CollectionDef, name: str, op: Op) -> DataType:
    """The type `op`'s values on property `name` are coerced to; invalid_input when the
    property cannot be filtered on or `op` does not apply to it."""
    prop = definition.property(name)
    if not prop.filterable:
        raise invalid_input(
            f"{definition.name}.{prop.name} cannot be filtered on.",
            hint=f"Filterable properties of {definition.name}: "
            f"{', '.join(p.name for p in definition.filterable)}.",
        )
    allowed = OPERATORS[prop.data_type]
    if op not in allowed:
        raise invalid_input(
            f"Operator {op!r} does not apply to {prop.name} ({prop.data_type.value}).",
            hint=f"Operators for {prop.data_type.value}: {', '.join(allowed)}.",
        )
    return DataType.TEXT if prop.data_type is DataType.TEXT_ARRAY else prop.data_type


def from_json(items: Sequence[Mapping[str, Any]] | None) -> FilterNode | None:
    """The tools' filter list `[{"property", "op", "value"}, ...]`, all required to match."""
    if not items:
        return None
    return Filter.all_of(
        *(Condition(item["property"], item["op"], item.get("value")) for item in items)
    )
