"""The schema-version mechanism on a store of its own: stamping, stepping forward, a
failed step leaving the file as it was, and a newer file refused untouched."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from video_research.support import migrations

SCRIPT = "CREATE TABLE IF NOT EXISTS notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL);"


def _v1_to_v2(conn: sqlite3.Connection) -> None:
    conn.execute("ALTER TABLE notes ADD COLUMN tag TEXT NOT NULL DEFAULT ''")


def _v2_to_v3(conn: sqlite3.Connection) -> None:
    conn.execute("CREATE TABLE tags (name TEXT PRIMARY KEY)")
    conn.execute("INSERT INTO tags SELECT DISTINCT tag FROM notes")


def _create_v3(conn: sqlite3.Connection) -> None:
    conn.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL, tag TEXT)")
    conn.execute("CREATE TABLE tags (name TEXT PRIMARY KEY)")


V3 = migrations.Schema("notes", 3, create=_create_v3, steps={1: _v1_to_v2, 2: _v2_to_v3})


def _connect(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(path, isolation_level=None)


def _v1_file(path: Path, *, stamp: bool = True) -> None:
    conn = _connect(path)
    conn.execute(SCRIPT)
    conn.executemany("INSERT INTO notes (body) VALUES (?)", [("one",), ("two",)])
    if stamp:
        conn.execute("PRAGMA user_version = 1")
    conn.close()


def _dump(path: Path) -> tuple[int, list[str]]:
    conn = _connect(path)
    try:
        return migrations.user_version(conn), list(conn.iterdump())
    finally:
        conn.close()


def test_a_new_file_gets_todays_schema_and_version(tmp_path):
    conn = _connect(tmp_path / "n.db")
    assert migrations.migrate(conn, V3, "n.db") == 0
    assert migrations.user_version(conn) == 3
    assert migrations.migrate(conn, V3, "n.db") == 3  # a second open changes nothing
    conn.close()


def test_an_older_file_steps_forward_keeping_its_rows(tmp_path):
    path = tmp_path / "old.db"
    _v1_file(path)
    conn = _connect(path)
    assert migrations.migrate(conn, V3, str(path)) == 1
    assert migrations.user_version(conn) == 3
    assert conn.execute("SELECT body, tag FROM notes ORDER BY id").fetchall() == [
        ("one", ""),
        ("two", ""),
    ]
    assert conn.execute("SELECT name FROM tags").fetchall() == [("",)]
    conn.close()


def test_an_unversioned_file_is_taken_as_version_one_and_stamped(tmp_path):
    path = tmp_path / "legacy.db"
    _v1_file(path, stamp=False)
    conn = _connect(path)
    assert migrations.migrate(conn, V3, str(path)) == 0
    assert migrations.user_version(conn) == 3
    assert conn.execute("SELECT count(*) FROM notes").fetchone() == (2,)
    conn.close()


def test_a_step_that_fails_midway_leaves_the_file_exactly_as_it_was(tmp_path):
    path = tmp_path / "old.db"
    _v1_file(path)
    before = _dump(path)
    bytes_before = path.read_bytes()

    def breaks_after_writing(conn: sqlite3.Connection) -> None:
        conn.execute("CREATE TABLE tags (name TEXT PRIMARY KEY)")
        conn.execute("DELETE FROM notes")
        raise RuntimeError("disk on fire")

    broken = migrations.Schema(
        "notes", 3, create=_create_v3, steps={1: _v1_to_v2, 2: breaks_after_writing}
    )
    conn = _connect(path)
    with pytest.raises(migrations.MigrationError) as failure:
        migrations.migrate(conn, broken, str(path))
    assert "from schema version 1 to 3" in failure.value.message
    assert "disk on fire" in failure.value.message
    assert not conn.in_transaction
    conn.close()
    assert _dump(path) == before
    assert path.read_bytes() == bytes_before


def test_a_newer_file_is_refused_and_never_modified(tmp_path):
    path = tmp_path / "future.db"
    _v1_file(path)
    conn = _connect(path)
    conn.execute("PRAGMA user_version = 7")
    conn.close()
    bytes_before = path.read_bytes()
    conn = _connect(path)
    with pytest.raises(migrations.NewerSchemaError) as refused:
        migrations.migrate(conn, V3, str(path))
    conn.close()
    message = refused.value.message
    assert str(path) in message and "version 7" in message and "version 3" in message
    assert refused.value.category == "config_error"
    assert path.read_bytes() == bytes_before


def test_a_schema_with_a_missing_step_is_a_programming_error():
    with pytest.raises(ValueError, match="no step"):
        migrations.Schema("notes", 3, create=_create_v3, steps={1: _v1_to_v2})
