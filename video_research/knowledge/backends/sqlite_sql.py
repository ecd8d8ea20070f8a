"""SQL pieces of the embedded store: filters as SQL, transactions, id chunks.

`compile_filter(node, table)` turns a bound filter into a boolean SQL expression over
`o.properties` (`o` a row of `table`), using exactly the `json_extract` expressions the
store's indexes are built on, so SQLite serves the filter from an index.

The store (`sqlite_store`), its vector search (`sqlite_vectors`) and its keyword search
(`fts`) all build their SQL from these pieces, so each is public; this module imports
none of them.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from video_research.knowledge.filters import AllOf, AnyOf, Condition, FilterNode, Within

_CHUNK = 500
"""Parameters per IN (...) list, well under SQLite's limit."""


def properties_json(properties: dict[str, Any]) -> str:
    """An object's properties as the compact JSON the `properties` column holds."""
    return json.dumps(properties, ensure_ascii=False, separators=(",", ":"))


def property_sql(prop: str, alias: str = "o") -> str:
    """The SQL expression for a property; identical to the expression the indexes use."""
    return f"json_extract({alias}.properties, '$.{prop}')"


def _sql_value(value: Any) -> Any:
    return int(value) if isinstance(value, bool) else value


def compile_filter(node: FilterNode | None, table: str, alias: str = "o") -> tuple[str, list[Any]]:
    """A bound filter as (SQL boolean expression, parameters) over `alias.properties`,
    `alias` a row of `table`."""
    if node is None:
        return "1", []
    if isinstance(node, Within):
        return _within(node, table, alias)
    if isinstance(node, AllOf | AnyOf):
        parts = [compile_filter(item, table, alias) for item in node.items]
        joiner = " AND " if isinstance(node, AllOf) else " OR "
        return (
            "(" + joiner.join(sql for sql, _ in parts) + ")",
            [p for _, params in parts for p in params],
        )
    return _condition(node, alias)


def _within(node: Within, table: str, alias: str) -> tuple[str, list[Any]]:
    """The rows of `table` in any of the spans, found through the (key, number) index one
    span at a time; the spans travel as one JSON parameter, so the statement's text is
    the same for any number of them and SQLite prepares it once."""
    key, number = property_sql(node.key, "w"), property_sql(node.number, "w")
    return (
        f'{alias}.id IN (SELECT w.id FROM json_each(?) s JOIN "{table}" w '
        f"ON {key} = s.value ->> 0 AND {number} BETWEEN s.value ->> 1 AND s.value ->> 2)",
        [json.dumps([[_sql_value(v) for v in span] for span in node.spans])],
    )


def _condition(node: Condition, alias: str) -> tuple[str, list[Any]]:
    field = property_sql(node.prop, alias)
    op, value = node.op, node.value
    comparisons = {"eq": "=", "gt": ">", "gte": ">=", "lt": "<", "lte": "<="}
    if op in comparisons:
        return f"{field} {comparisons[op]} ?", [_sql_value(value)]
    if op == "ne":
        return f"{field} IS NOT ?", [_sql_value(value)]
    if op == "in":
        marks = ",".join("?" * len(value))
        return f"{field} IN ({marks})", [_sql_value(v) for v in value]
    if op == "prefix":
        # A range, so the expression index serves it: every string that starts with the
        # prefix sorts between it and the prefix followed by the largest code point.
        return f"({field} >= ? AND {field} < ?)", [value, value + "\U0010ffff"]
    marks = ",".join("?" * len(value))
    each = f"json_each({alias}.properties, '$.{node.prop}')"
    if op == "contains_any":
        return f"EXISTS (SELECT 1 FROM {each} WHERE value IN ({marks}))", list(value)
    if op == "contains_all":
        return (
            f"(SELECT count(DISTINCT value) FROM {each} WHERE value IN ({marks})) = ?",
            [*value, len(value)],
        )
    raise ValueError(f"unknown operator {op}")  # pragma: no cover - bind() refuses it first


@contextmanager
def transaction(conn: sqlite3.Connection, immediate: bool = True) -> Iterator[sqlite3.Connection]:
    """One transaction: IMMEDIATE takes the write lock up front; plain BEGIN is a read snapshot."""
    conn.execute("BEGIN IMMEDIATE" if immediate else "BEGIN")
    try:
        yield conn
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise


def id_chunks(items: Sequence[Any]) -> Iterator[Sequence[Any]]:
    """`items` in slices short enough for one `IN (...)` list."""
    for start in range(0, len(items), _CHUNK):
        yield items[start : start + _CHUNK]


def rows_in(conn: sqlite3.Connection, select: str, items: Sequence[Any]) -> Iterator[Any]:
    """The rows of `select` (ending in `IN`) for every one of `items`: SQLite caps the
    parameters of one statement, so a long list is asked a slice at a time."""
    for chunk in id_chunks(items):
        yield from conn.execute(f"{select} ({','.join('?' * len(chunk))})", list(chunk))


def objects_by_row(
    conn: sqlite3.Connection, name: str, rows: Sequence[int]
) -> dict[int, tuple[str, str]]:
    """(uuid, properties JSON) of those of `rows` that collection `name` still holds: the
    indexes answer with row ids, and a row deleted since they caught up is left out."""
    select = f'SELECT id, uuid, properties FROM "obj_{name}" WHERE id IN'
    return {row: (uuid, body) for row, uuid, body in rows_in(conn, select, rows)}


def keyword_bodies(conn: sqlite3.Connection, name: str, rows: Sequence[int]) -> dict[int, str]:
    """The keyword text (the FTS5 body) of those of `rows` that collection `name` holds."""
    return dict(rows_in(conn, f'SELECT rowid, body FROM "fts_{name}" WHERE rowid IN', rows))


def log_vector_changes(conn: sqlite3.Connection, name: str, ids: Sequence[int]) -> None:
    """Record changed object ids in the vector log, in the transaction of the change: how
    every process's vector index learns which vectors to reread."""
    conn.executemany(
        "INSERT INTO vector_log (collection, id) VALUES (?, ?)", [(name, i) for i in ids]
    )
