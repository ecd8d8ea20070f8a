"""The file cache of results: Gemini analyses, and the video titles oEmbed answered.

It lives in support, below the clients, so that a client (the YouTube oEmbed lookup)
caches in the same store, cleared and listed by the same infra tools, as the analyses.

One JSON file per (content, tool, instruction, model):
`{content_id}_{tool}_{instruction_hash}_{model_hash}.json`, holding an envelope
`{cached_at, content_id, tool, model, instruction_hash, analysis}`. Entries older than
`cache_ttl_days` (by file mtime) are misses. Writes go to a temp file in the same
directory and are renamed into place, so a reader never sees half a file and a crash
never leaves a corrupt entry behind.

A saved entry's mtime is set to `clock.stamp_ns()`, above every mtime in the folder: the
newest-first list follows the order entries were written in even after the wall clock
stepped back (NTP, an operator), and expiry counts from that stamp. A step moves an
entry's expiry by at most the step (the TTL is in days); it never reorders entries.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from video_research.support import clock
from video_research.support.services import current_settings

if TYPE_CHECKING:
    from video_research.support.schema_types.tools.infra_cache_output import Entry, Stats

logger = logging.getLogger(__name__)

_SAFE = re.compile(r"[^A-Za-z0-9_\-]")


def _short_hash(text: str) -> str:
    return hashlib.md5(text.encode("utf-8"), usedforsecurity=False).hexdigest()[:8]


def instruction_hash(instruction: str | None) -> str:
    return _short_hash(instruction) if instruction else "default"


def safe_id(content_id: str) -> str:
    """A content id usable in a file name: no separators, no traversal, bounded length."""
    cleaned = _SAFE.sub("-", content_id)[:120]
    return cleaned or "unknown"


@dataclass(frozen=True)
class Cache:
    directory: Path
    ttl_days: int

    @property
    def ttl_seconds(self) -> float:
        return self.ttl_days * 86400.0

    def path_for(
        self, content_id: str, tool: str, model: str, instruction: str | None = None
    ) -> Path:
        name = f"{safe_id(content_id)}_{safe_id(tool)}_{instruction_hash(instruction)}_{_short_hash(model)}.json"
        return self.directory / name

    def _expired(self, path: Path, now: float | None = None) -> bool:
        try:
            age = (now or clock.wall()) - path.stat().st_mtime
        except FileNotFoundError:
            return True
        return age > self.ttl_seconds

    def load(
        self, content_id: str, tool: str, model: str, instruction: str | None = None
    ) -> dict[str, Any] | None:
        """The cached analysis, or None on a miss, an expired entry or an unreadable file."""
        path = self.path_for(content_id, tool, model, instruction)
        if self._expired(path):
            return None
        envelope = _read_envelope(path)
        if envelope is None or not isinstance(envelope.get("analysis"), dict):
            return None
        return envelope["analysis"]

    def save(
        self,
        content_id: str,
        tool: str,
        model: str,
        analysis: dict[str, Any],
        instruction: str | None = None,
    ) -> Path:
        """Write an entry atomically (temp file + rename); returns its path."""
        path = self.path_for(content_id, tool, model, instruction)
        envelope = {
            "cached_at": clock.now().isoformat(timespec="seconds"),
            "content_id": content_id,
            "tool": tool,
            "model": model,
            "instruction_hash": instruction_hash(instruction),
            "analysis": analysis,
        }
        atomic_write_json(path, envelope)
        stamp = clock.stamp_ns(_newest_stamp(self.directory))
        with contextlib.suppress(OSError):  # a file system without mtimes: the OS's stands
            os.utime(path, ns=(stamp, stamp))
        _newest[self.directory] = stamp
        return path

    def _files(self) -> list[Path]:
        if not self.directory.is_dir():
            return []
        return sorted(p for p in self.directory.glob("*.json") if p.is_file())

    def clear(self, content_id: str | None = None) -> int:
        """Remove every entry, or only those of one content id; returns how many."""
        removed = 0
        for path in self._files():
            if content_id is not None:
                envelope = _read_envelope(path)
                if envelope is None or envelope.get("content_id") != content_id:
                    continue
            try:
                path.unlink()
                removed += 1
            except FileNotFoundError:
                continue
        return removed

    def stats(self) -> Stats:
        now = clock.wall()
        files = self._files()
        sizes = []
        expired = 0
        for path in files:
            try:
                sizes.append(path.stat().st_size)
            except FileNotFoundError:
                continue
            expired += self._expired(path, now)
        return {
            "cache_dir": str(self.directory),
            "total_files": len(sizes),
            "total_size_bytes": sum(sizes),
            "expired_files": expired,
            "ttl_days": self.ttl_days,
        }

    def list_entries(
        self, content_id: str | None = None, limit: int = 100
    ) -> tuple[list[Entry], int]:
        """(entries, total matching) newest first (in the order they were written: by
        their stamped mtime, module docstring); `limit` bounds the list, not the total."""
        now = clock.wall()
        entries: list[Entry] = []
        written: dict[str, int] = {}
        for path in self._files():
            envelope = _read_envelope(path)
            if envelope is None:
                continue
            if content_id is not None and envelope.get("content_id") != content_id:
                continue
            try:
                stat = path.stat()
            except FileNotFoundError:
                continue
            written[path.name], size = stat.st_mtime_ns, stat.st_size
            entries.append(
                {
                    "file": path.name,
                    "content_id": str(envelope.get("content_id", "")),
                    "tool": str(envelope.get("tool", "")),
                    "model": str(envelope.get("model", "")),
                    "cached_at": str(envelope.get("cached_at", "")),
                    "size_bytes": size,
                    "expired": self._expired(path, now),
                }
            )
        entries.sort(key=lambda e: (written[e["file"]], e["file"]), reverse=True)
        return entries[:limit], len(entries)


_newest: dict[Path, int] = {}
"""Per cache folder, the newest stamp this process saw (read from the folder once)."""


FLOOR_AHEAD_NS = 86400 * 10**9
"""Stored stamps further ahead of the clock than this (a folder copied from a machine whose
clock was years ahead) are not a floor: every entry after them would inherit their
expiry in the far future."""


def _newest_stamp(directory: Path) -> int:
    """The newest entry's mtime in `directory` (nanoseconds; 0 when empty), read once per
    process: the floor a new stamp must clear so it sorts after everything stored."""
    if directory not in _newest:
        stamps = []
        for path in directory.glob("*.json"):
            with contextlib.suppress(OSError):
                stamps.append(path.stat().st_mtime_ns)
        limit = int(clock.wall() * 1e9) + FLOOR_AHEAD_NS
        _newest[directory] = max((s for s in stamps if s <= limit), default=0)
    return _newest[directory]


def _read_envelope(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def atomic_write_json(path: Path, data: Any) -> None:
    """Write JSON so that readers see the old file or the new one, never a torn one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(data, handle, ensure_ascii=False, default=str)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def get_cache() -> Cache:
    cfg = current_settings()
    return Cache(directory=cfg.cache_dir, ttl_days=cfg.cache_ttl_days)
