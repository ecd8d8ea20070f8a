"""`python -m tests.faults.serve [video-research args]`: the real server, plus a fault inlet.

The fault rows start the server through this module instead of `python -m video_research`
so that a test can inject a fault the operating system will not let it cause from outside
(a full disk at an exact moment, a wall clock step) into the *running* process. Everything
else is the real server: the same `cli.main`, its stores, workers and transports.

The inlet is a folder (`FAULTS_CONTROL`; the server writes its PID there as `server.pid`,
for the rows that kill it): a test drops `<name>.json` there holding one
command; a daemon thread applies it and writes `<name>.done` with the outcome (or
`<name>.failed` with the error). Commands:

- `{"op": "max_pages", "extra": N}`: every open knowledge store may grow by N pages more
  (`PRAGMA max_page_count`), so the next larger write fails with SQLITE_FULL, the way a
  full disk fails it; `"extra": null` lifts the cap.
- `{"op": "clock_step", "seconds": S}`: the wall clock the code reads
  (`video_research.support.clock`) jumps by S seconds (negative: back), as an NTP step or
  an operator's `date -s` would; the system clock itself is never touched.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
import traceback
from pathlib import Path
from typing import Any

from video_research.knowledge.backends import sqlite_store

_STORES: list[sqlite_store.SqliteStore] = []
_UNCAPPED = 1_073_741_823
"""SQLite's largest max_page_count: the cap lifted."""

_open_store = sqlite_store.SqliteStore.__init__


def _remembered(self: sqlite_store.SqliteStore, *args: Any, **kwargs: Any) -> None:
    _open_store(self, *args, **kwargs)
    _STORES.append(self)


sqlite_store.SqliteStore.__init__ = _remembered  # type: ignore[method-assign]


def _max_pages(extra: int | None) -> dict[str, Any]:
    applied = []
    for store in _STORES:
        if extra is None:
            store.apply_pragma(f"PRAGMA max_page_count = {_UNCAPPED}")
            applied.append({"store": str(store.path), "max_page_count": None})
            continue
        (pages,) = store._conn().execute("PRAGMA page_count").fetchone()
        store.apply_pragma(f"PRAGMA max_page_count = {pages + extra}")
        applied.append({"store": str(store.path), "max_page_count": pages + extra})
    return {"stores": applied}


def _clock_step(seconds: float) -> dict[str, Any]:
    from video_research.support import clock

    clock.step(seconds)
    return {"now": clock.now().isoformat()}


COMMANDS = {
    "max_pages": lambda command: _max_pages(command.get("extra")),
    "clock_step": lambda command: _clock_step(float(command["seconds"])),
}


def _watch(folder: Path) -> None:
    while True:
        for path in sorted(folder.glob("*.json")):
            try:
                command = json.loads(path.read_text())
                outcome = COMMANDS[command["op"]](command)
                path.with_suffix(".done").write_text(json.dumps(outcome))
            except Exception:  # noqa: BLE001 - reported to the test, never fatal here
                path.with_suffix(".failed").write_text(traceback.format_exc())
            path.unlink()
        time.sleep(0.02)


def main() -> int:
    folder = os.environ.get("FAULTS_CONTROL")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        (Path(folder) / "server.pid").write_text(str(os.getpid()))
        threading.Thread(target=_watch, args=(Path(folder),), daemon=True).start()
    from video_research.cli import main as serve

    return serve(sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
