"""Consistent copies of the server's SQLite stores while it serves, and bringing them back.

`backup` copies each store with SQLite's online backup API in ONE step
(`Connection.backup(pages=-1)`): the copy is the snapshot of a single read transaction,
so it holds every write committed before the copy began and none half-done. In WAL mode
that read transaction never blocks the server's writers (a stepped backup would restart
whenever a writer committed, and under steady writes might never finish). Each store is
consistent in itself; stores are copied one after another, not as one snapshot.

Beside the copies, `manifest.json` (written last, atomically: a backup without one is
incomplete) records for each store its schema version, the rows of every table, the
file's SHA-256 and size, and that PRAGMA integrity_check passed on the copy.

`restore` checks the manifest (every checksum, every copy's integrity, no schema version
newer than this release reads), refuses while a server holds the data dir (the shared
lock of `server_lock`) unless forced, then writes each copy over its store with the same
backup API, so a reader that holds the file open sees the old or the new database,
never a mixture. Derived files (the knowledge store's vector index beside it) are
removed: they are rebuilt from SQLite on first use. An older backup is migrated forward
by the stores themselves when the server next opens them.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import sqlite3
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from video_research.support.errors import ErrorCategory, ToolFailure, config_error, invalid_input

MANIFEST = "manifest.json"
MANIFEST_FORMAT = 1
LOCK_NAME = ".server.lock"


@dataclass(frozen=True)
class StoreFile:
    """One SQLite store: where it lives and the schema version this release reads."""

    name: str
    path: Path
    understood: int
    derived: Sequence[Path] = field(default_factory=tuple)
    """Files or folders rebuilt from the store (removed on restore, never copied)."""


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def describe(conn: sqlite3.Connection) -> dict[str, Any]:
    """Schema version, rows per ordinary table, and integrity of an open database."""
    tables = [
        row[0]
        for row in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
            "AND sql NOT LIKE 'CREATE VIRTUAL TABLE%' ORDER BY name"
        )
    ]
    counts = {t: conn.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0] for t in tables}
    integrity = [row[0] for row in conn.execute("PRAGMA integrity_check")]
    return {
        "schema_version": conn.execute("PRAGMA user_version").fetchone()[0],
        "tables": counts,
        "integrity": "ok" if integrity == ["ok"] else "; ".join(integrity[:5]),
    }


def _copy(source: Path, target: Path, *, source_readonly: bool) -> None:
    """SQLite's online backup of `source` into `target` in one step (one snapshot)."""
    if source_readonly:
        src = sqlite3.connect(f"{source.resolve().as_uri()}?mode=ro", uri=True, timeout=30)
    else:
        src = sqlite3.connect(source, timeout=30)
    try:
        dst = sqlite3.connect(target, timeout=30)
        try:
            src.backup(dst, pages=-1)
        finally:
            dst.close()
    finally:
        src.close()


def backup(stores: Sequence[StoreFile], dest: Path, *, version: str = "") -> dict[str, Any]:
    """Copy every existing store into `dest` (new or empty) and write its manifest."""
    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        raise invalid_input(
            f"The backup destination {dest} exists and is not an empty folder.",
            hint="Name a new folder: a backup never overwrites another.",
        )
    made = not dest.exists()
    try:
        dest.mkdir(parents=True, exist_ok=True)
        return _backup_into(stores, dest, version)
    except (OSError, sqlite3.Error) as exc:
        # Take back what this backup wrote, so the same command can simply be run again
        # once the cause is gone: a half-written folder would be refused as not empty.
        if made:
            shutil.rmtree(dest, ignore_errors=True)
        else:
            _empty(dest)
        raise config_error(
            f"The backup to {dest} could not be written: {getattr(exc, 'strerror', None) or exc}. "
            "Nothing was left there; the stores themselves are untouched.",
            hint="Free space on that disk (or name a folder on another one), then run the "
            "same command again.",
        ) from exc


def _empty(folder: Path) -> None:
    for entry in folder.iterdir():
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry, ignore_errors=True)
        else:
            entry.unlink(missing_ok=True)


def _backup_into(stores: Sequence[StoreFile], dest: Path, version: str) -> dict[str, Any]:
    manifest: dict[str, Any] = {
        "format": MANIFEST_FORMAT,
        "video_research": version,
        "started_at": time.time(),
        "stores": {},
        "skipped": {},
    }
    for store in stores:
        if not store.path.exists():
            manifest["skipped"][store.name] = f"{store.path} does not exist"
            continue
        target = dest / f"{store.name}.sqlite"
        _copy(store.path, target, source_readonly=True)
        conn = sqlite3.connect(target, isolation_level=None)
        try:
            conn.execute("PRAGMA journal_mode = DELETE")  # one self-contained file
            facts = describe(conn)
        finally:
            conn.close()
        if facts["integrity"] != "ok":
            raise ToolFailure(
                ErrorCategory.INTERNAL_ERROR,
                f"The copy of {store.path} fails PRAGMA integrity_check: {facts['integrity']}.",
                hint="The store itself may be damaged: run PRAGMA integrity_check on it.",
            )
        manifest["stores"][store.name] = {
            "file": target.name,
            "source": str(store.path),
            **facts,
            "understood_by_writer": store.understood,
            "bytes": target.stat().st_size,
            "sha256": _sha256(target),
            "derived_not_copied": [str(p) for p in store.derived],
        }
    manifest["finished_at"] = time.time()
    partial = dest / (MANIFEST + ".partial")
    partial.write_text(json.dumps(manifest, indent=2, sort_keys=True))
    os.replace(partial, dest / MANIFEST)
    return manifest


def read_manifest(src: Path) -> dict[str, Any]:
    path = src / MANIFEST
    try:
        manifest = json.loads(path.read_text())
    except FileNotFoundError:
        raise invalid_input(
            f"{src} holds no {MANIFEST}: not a backup, or one that did not finish.",
            hint="Name the folder `video-research backup` wrote.",
        ) from None
    except (OSError, ValueError) as exc:
        raise invalid_input(f"{path} cannot be read: {exc}") from None
    if not isinstance(manifest, dict) or manifest.get("format") != MANIFEST_FORMAT:
        raise invalid_input(f"{path} is not a backup manifest this release reads.")
    return manifest


def verify(src: Path, stores: Sequence[StoreFile]) -> dict[str, Any]:
    """The manifest, once every copy matches its checksum, is intact and not too new."""
    manifest = read_manifest(src)
    known = {s.name: s for s in stores}
    for name, entry in manifest["stores"].items():
        if name not in known:
            raise invalid_input(f"The backup holds a store this release does not know: {name}.")
        copy = src / Path(entry["file"]).name
        if not copy.is_file() or _sha256(copy) != entry["sha256"]:
            raise invalid_input(
                f"{copy} is missing or does not match its checksum in {MANIFEST}.",
                hint="The backup was changed or damaged; use another one.",
            )
        conn = sqlite3.connect(f"{copy.resolve().as_uri()}?mode=ro", uri=True)
        try:
            facts = describe(conn)
        finally:
            conn.close()
        if facts["integrity"] != "ok":
            raise invalid_input(f"{copy} fails PRAGMA integrity_check: {facts['integrity']}.")
        if facts["schema_version"] > known[name].understood:
            raise config_error(
                f"The backup's {name} database {copy} has schema version "
                f"{facts['schema_version']}; this release understands version "
                f"{known[name].understood} at most.",
                hint="Restore it with the release that wrote it, or a newer one.",
            )
    return manifest


@contextlib.contextmanager
def server_lock(data_dir: Path, *, exclusive: bool = False) -> Iterator[bool]:
    """The data dir's lock: every serving process holds it shared; restore needs it
    alone. Yields whether it was taken (never blocks)."""
    data_dir.mkdir(parents=True, exist_ok=True)
    fd = os.open(data_dir / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, (fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH) | fcntl.LOCK_NB)
            taken = True
        except BlockingIOError:
            taken = False
        yield taken
    finally:
        os.close(fd)  # releases the lock


def hold_server_lock(data_dir: Path) -> int:
    """Take the shared lock for the life of this process (a serving server); returns the fd."""
    data_dir.mkdir(parents=True, exist_ok=True)
    fd = os.open(data_dir / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(fd, fcntl.LOCK_SH)
    return fd


def restore(
    src: Path, stores: Sequence[StoreFile], data_dir: Path, *, force: bool = False
) -> dict[str, Any]:
    """Write the backup in `src` over the stores; returns what was restored."""
    manifest = verify(src, stores)
    known = {s.name: s for s in stores}
    with server_lock(data_dir, exclusive=True) as alone:
        if not alone and not force:
            raise ToolFailure(
                ErrorCategory.CONFIG_ERROR,
                f"A video-research server is serving from {data_dir}; restoring under it "
                "would change its data while it runs.",
                hint="Stop the server first, or pass --force (then restart it afterwards: "
                "its in-memory indexes do not follow a restore).",
            )
        restored: dict[str, Any] = {}
        for name, entry in manifest["stores"].items():
            store = known[name]
            store.path.parent.mkdir(parents=True, exist_ok=True)
            _copy(src / Path(entry["file"]).name, store.path, source_readonly=True)
            for derived in store.derived:
                if derived.is_dir():
                    shutil.rmtree(derived, ignore_errors=True)
                elif derived.exists():
                    derived.unlink()
            restored[name] = {"path": str(store.path), "tables": entry["tables"]}
    untouched = [s.name for s in stores if s.name not in manifest["stores"]]
    return {"restored": restored, "not_in_backup": untouched, "forced": force and not alone}
