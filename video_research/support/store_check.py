"""Is a SQLite store whole? `PRAGMA quick_check`, bounded in time, on a read-only connection.

What `video-research doctor` reports per store and what the server logs at start: a
damaged file is named with what to do, before a write fails on it. quick_check reads
every page (it skips only the index-content cross-check of integrity_check), so on a
big file it is stopped after `seconds` through SQLite's progress handler and reported
"not finished" rather than holding a start-up or a doctor run for minutes. The
connection is read-only (`mode=ro`): checking never writes a byte, and a server may be
serving from the file meanwhile (WAL readers do not block its writers).
"""

from __future__ import annotations

import logging
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

logger = logging.getLogger(__name__)

CHECK_SECONDS = 5.0
"""How long doctor lets quick_check run on one file."""

START_CHECK_SECONDS = 2.0
"""How long the server's start-up check runs on one file (in a thread, beside serving)."""

_STEPS = 20_000
"""SQLite VM steps between looks at the clock (microseconds of work)."""

RESTORE_HINT = (
    "Restore it from a backup (`video-research restore FOLDER`), or move it aside to start "
    "a new one; files rebuilt from it (the .ann and .kw beside the knowledge store) rebuild "
    "by themselves."
)


@dataclass(frozen=True)
class Health:
    state: str
    """"ok", "missing", "damaged", "not finished" (the time ran out first) or "interrupted
    write" (a hot journal only a writer may roll back)."""
    detail: str = ""
    seconds: float = 0.0

    @property
    def damaged(self) -> bool:
        return self.state == "damaged"


def check(path: Path, seconds: float = CHECK_SECONDS) -> Health:
    """quick_check of the database at `path`, stopped after `seconds`."""
    if not path.exists():
        return Health("missing", "not created yet (made on first use)")
    started = time.monotonic()
    deadline = started + seconds
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=5)
    except sqlite3.Error as exc:
        return Health("damaged", f"cannot be opened: {exc}")
    try:
        conn.set_progress_handler(lambda: time.monotonic() > deadline, _STEPS)
        rows = [row[0] for row in conn.execute("PRAGMA quick_check(20)")]
    except sqlite3.OperationalError as exc:
        took = round(time.monotonic() - started, 2)
        if "interrupted" in str(exc):
            size = path.stat().st_size / 1e6
            return Health(
                "not finished",
                f"quick_check stopped after {seconds:g} s ({size:.0f} MB); run "
                f"`sqlite3 {path} 'PRAGMA quick_check'` to check it all",
                took,
            )
        if "readonly" in str(exc):
            # A hot journal (a write cut off: a crash, a killed migration) can only be
            # rolled back by a writer; the stores' own connection does it on open.
            return Health(
                "interrupted write",
                "a journal of a write cut off is beside it; the server rolls it back when "
                "it next opens the file (nothing to do)",
                took,
            )
        return Health("damaged", str(exc), took)
    except sqlite3.DatabaseError as exc:
        return Health("damaged", str(exc), round(time.monotonic() - started, 2))
    finally:
        conn.close()
    took = round(time.monotonic() - started, 2)
    if rows == ["ok"]:
        return Health("ok", "", took)
    return Health("damaged", "; ".join(rows[:3]), took)


def log_damaged(stores: list[tuple[str, Path]], seconds: float = START_CHECK_SECONDS) -> None:
    """Check each store and log every damaged one by name (the server's start)."""
    for name, path in stores:
        try:
            health = check(path, seconds)
        except Exception as exc:  # noqa: BLE001 - a check must never stop the server
            logger.debug("could not check %s: %s", path, exc)
            continue
        if health.damaged:
            logger.error(
                "the %s store %s is damaged (%s): reads of intact pages still answer, "
                "writes to it fail. %s",
                name,
                path,
                health.detail,
                RESTORE_HINT,
            )
