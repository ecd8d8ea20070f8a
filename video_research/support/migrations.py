"""Schema versions of the SQLite files the server writes, and moving them forward.

Each store describes its schema once (`Schema`): the statements that create today's
schema from nothing, and one step per release that changed it (`steps[n]` turns a
version-n file into version n+1). `migrate(conn, schema, path)` runs on every open:

- the version lives in the file header (`PRAGMA user_version`), readable without
  touching any table; 0 means "never stamped";
- a file newer than this release understands is refused *before anything is written*
  (`NewerSchemaError` names the file, its version and ours): an older release must never
  half-understand a newer file, and the file stays byte-for-byte as it was;
- an empty file gets today's schema and is stamped;
- a file written before versions were recorded holds version-1 content (or whatever
  `schema.unversioned` recognises), is brought to that version and stamped;
- an older file runs its steps in order inside ONE `BEGIN IMMEDIATE` transaction, the
  stamp included: SQLite's DDL is transactional, so a step that fails rolls back every
  step before it and the file is exactly as it was (`MigrationError`).

Callers run it right after connecting, before any PRAGMA that writes the header
(journal_mode=WAL does), so even a refused file is never modified. The transaction
re-reads the version once it holds the write lock: two processes opening one old file
at once migrate it once.

Why not a library: yoyo-migrations and alembic keep their own bookkeeping tables (a
write to every file, a newer one included) and run migrations from files on disk with
their own connections; none refuses a newer file untouched, and our stores open their
connections with their own isolation settings. The whole mechanism is this module.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from video_research.support.errors import ErrorCategory, ToolFailure

logger = logging.getLogger(__name__)

Step = Callable[[sqlite3.Connection], None]


class NewerSchemaError(ToolFailure):
    """The file was written by a newer release: refused, left untouched."""

    def __init__(self, path: str, name: str, found: int, understood: int) -> None:
        self.path, self.name, self.found, self.understood = path, name, found, understood
        super().__init__(
            ErrorCategory.CONFIG_ERROR,
            f"The {name} database {path} has schema version {found}; this release of "
            f"video-research understands version {understood} at most, so it will not open "
            "(or change) it.",
            hint="Upgrade video-research, or point the setting at another file "
            "(see the Operations page of the docs: upgrades and backups).",
        )


class MigrationError(ToolFailure):
    """A migration step failed; the transaction was rolled back, the file is unchanged."""

    def __init__(self, path: str, name: str, found: int, target: int, cause: BaseException):
        self.path, self.name, self.found, self.target = path, name, found, target
        super().__init__(
            ErrorCategory.INTERNAL_ERROR,
            f"Migrating the {name} database {path} from schema version {found} to {target} "
            f"failed ({type(cause).__name__}: {cause}); it was left as it was.",
            hint="Restore the file from a backup or report the failure; the file was not changed.",
        )


def _default_unversioned(_conn: sqlite3.Connection) -> int:
    return 1


@dataclass(frozen=True)
class Schema:
    """One store's schema history: `version` is what this release writes."""

    name: str
    version: int
    create: Step
    """Today's schema from nothing (also re-run, idempotently, on an unversioned file)."""
    steps: Mapping[int, Step] = field(default_factory=dict)
    """steps[n] turns a version-n file into version n+1."""
    unversioned: Callable[[sqlite3.Connection], int] = _default_unversioned
    """Which version an unstamped file with tables holds (after bringing it there)."""

    def __post_init__(self) -> None:
        missing = [n for n in range(1, self.version) if n not in self.steps]
        if missing:
            raise ValueError(f"schema {self.name}: no step from version(s) {missing}")


def user_version(conn: sqlite3.Connection) -> int:
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


def has_tables(conn: sqlite3.Connection) -> bool:
    row = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' LIMIT 1"
    ).fetchone()
    return row is not None


def check_not_newer(conn: sqlite3.Connection, schema: Schema, path: str) -> int:
    """The file's version; raises NewerSchemaError (having written nothing) if too new."""
    found = user_version(conn)
    if found > schema.version:
        raise NewerSchemaError(path, schema.name, found, schema.version)
    return found


def migrate(conn: sqlite3.Connection, schema: Schema, path: str) -> int:
    """Bring the file behind `conn` to `schema.version`; returns the version it had (0: new).

    `conn` must be in autocommit mode (isolation_level=None) and outside a transaction.
    """
    if check_not_newer(conn, schema, path) == schema.version:
        return schema.version
    conn.execute("BEGIN IMMEDIATE")
    found = target = schema.version
    try:
        found = check_not_newer(conn, schema, path)  # another process may have moved it
        if found == schema.version:
            conn.execute("COMMIT")
            return found
        version = found
        if found == 0:
            if has_tables(conn):
                version = schema.unversioned(conn)
                if version > schema.version:
                    raise NewerSchemaError(path, schema.name, version, schema.version)
                logger.info(
                    "%s database %s: unversioned, holds version %d", schema.name, path, version
                )
            else:
                schema.create(conn)
                version = schema.version
        while version < target:
            logger.info(
                "%s database %s: migrating version %d -> %d",
                schema.name,
                path,
                version,
                version + 1,
            )
            schema.steps[version](conn)
            version += 1
        conn.execute(f"PRAGMA user_version = {int(target)}")
        conn.execute("COMMIT")
    except NewerSchemaError:
        conn.execute("ROLLBACK")
        raise
    except BaseException as exc:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        if isinstance(exc, Exception):
            raise MigrationError(path, schema.name, found, target, exc) from exc
        raise
    return found


def run_script(conn: sqlite3.Connection, script: str) -> None:
    """Run a schema script statement by statement inside the caller's transaction
    (`executescript` would COMMIT it)."""
    buffer = ""
    for line in script.splitlines():
        if line.strip().startswith("--"):
            continue
        buffer += line + "\n"
        if sqlite3.complete_statement(buffer):
            conn.execute(buffer.strip())
            buffer = ""
    if buffer.strip():
        conn.execute(buffer.strip())


def first_schema(
    name: str, script: str, added_columns: Mapping[str, Mapping[str, str]] | None = None
) -> Schema:
    """Version 1 of a store whose schema is one idempotent script (CREATE ... IF NOT
    EXISTS), plus the columns (table -> {column: declaration}) ALTERed into files written
    before versions were recorded. Such a file is brought to version 1 by running both."""

    def create(conn: sqlite3.Connection) -> None:
        run_script(conn, script)
        for table, columns in (added_columns or {}).items():
            add_missing_columns(conn, table, columns)

    def unversioned(conn: sqlite3.Connection) -> int:
        create(conn)
        return 1

    return Schema(name, 1, create=create, unversioned=unversioned)


def add_missing_columns(conn: sqlite3.Connection, table: str, columns: Mapping[str, str]) -> None:
    """ALTER in the columns (name -> declaration) an older file's `table` lacks."""
    present = {row[1] for row in conn.execute(f'PRAGMA table_info("{table}")')}
    for column, declaration in columns.items():
        if column not in present:
            conn.execute(f'ALTER TABLE "{table}" ADD COLUMN {column} {declaration}')
