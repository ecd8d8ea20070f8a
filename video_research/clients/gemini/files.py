"""Local files in the Gemini File API: uploaded once per content, reused while they live.

`ensure_uploaded(path, mime_type, sha256)` is what the video tools call. It remembers
each upload by the file's SHA-256 (gemini_registry, SQLite in the data dir) and, before
reusing one, asks the File API whether it is still there:
- ACTIVE -> reused (no bytes sent);
- PROCESSING -> waited for, then reused;
- FAILED, deleted, expired, or expiring within GEMINI_UPLOAD_REUSE_MARGIN -> uploaded
  again, and the registry updated.
Two concurrent calls on one content upload it once: the second waits on a lock per
(account, hash) and then finds the first one's upload. (The lock is per process; two
server processes sharing a data dir may each upload once.)

`upload_file` is the bare upload-and-wait-until-ACTIVE, without reuse.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import mimetypes
import os
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from video_research.clients.gemini.client import call_with_retry, client
from video_research.clients.gemini.registry import UploadRow, account_of, get_registry
from video_research.config import Settings
from video_research.support import clock, paths
from video_research.support.errors import ErrorCategory, ToolFailure
from video_research.support.services import current_settings

logger = logging.getLogger(__name__)

FILE_LIFETIME_SECONDS = 48 * 3600
"""How long the File API keeps an upload (used when a reply carries no expirationTime)."""


@dataclass(frozen=True)
class UploadedFile:
    name: str
    uri: str
    mime_type: str
    expires_at: float = 0.0
    reused: bool = False
    """True when an earlier upload of the same content was reused (no bytes sent)."""


# ----------------------------------------------------------------------------- hashing

_hashes: dict[tuple[str, int, int, int], str] = {}
_HASH_MEMO_LIMIT = 4096


def sha256_of(path: Path) -> str:
    """The file's SHA-256 (hex), remembered per (path, size, mtime, inode) in this process,
    so analysing one large file five times reads it once."""
    stat = path.stat()
    memo_key = (str(path), stat.st_size, stat.st_mtime_ns, stat.st_ino)
    known = _hashes.get(memo_key)
    if known is not None:
        return known
    digest = hashlib.sha256()
    with paths.open_regular(path) as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    value = digest.hexdigest()
    if len(_hashes) >= _HASH_MEMO_LIMIT:
        _hashes.clear()
    _hashes[memo_key] = value
    return value


# ----------------------------------------------------------------------------- locks

_locks: dict[tuple[str, str], tuple[asyncio.Lock, int]] = {}


@contextlib.asynccontextmanager
async def _hash_lock(key: tuple[str, str]) -> AsyncIterator[None]:
    """One holder at a time per key; the lock is dropped when nobody holds or waits on it
    (so it never outlives the event loop it was made in)."""
    lock, users = _locks.get(key, (None, 0))
    if lock is None:
        lock = asyncio.Lock()
    _locks[key] = (lock, users + 1)
    try:
        async with lock:
            yield
    finally:
        lock, users = _locks[key]
        if users <= 1:
            del _locks[key]
        else:
            _locks[key] = (lock, users - 1)


# ----------------------------------------------------------------------------- File API


def _state(file: Any) -> str:
    return str(getattr(file, "state", "") or "").rsplit(".", 1)[-1]


def _expires_at(file: Any) -> float:
    expiration = getattr(file, "expiration_time", None)
    if expiration is not None:
        with contextlib.suppress(AttributeError, OverflowError, ValueError):
            return expiration.timestamp()
    return clock.wall() + FILE_LIFETIME_SECONDS


def _failed(display: str, file: Any) -> ToolFailure:
    reason = getattr(getattr(file, "error", None), "message", None) or "no reason given"
    return ToolFailure(
        ErrorCategory.INVALID_INPUT,
        f"Gemini could not process {display} ({reason}).",
        hint="Check that the file plays and is a supported format; re-encode it (e.g. H.264 MP4) and retry.",
    )


async def _wait_active(sdk: Any, file: Any, display: str, settings: Settings) -> Any:
    """Poll files.get until ACTIVE; FAILED or still PROCESSING at the deadline is an error."""
    deadline = time.monotonic() + settings.file_poll_timeout_seconds
    current = file
    while True:
        state = _state(current)
        if state == "ACTIVE":
            return current
        if state == "FAILED":
            raise _failed(display, current)
        if time.monotonic() >= deadline:
            raise ToolFailure(
                ErrorCategory.TIMEOUT,
                f"{display} was still {state or 'PROCESSING'} after {settings.file_poll_timeout_seconds:g} s.",
                hint="Gemini is slow to process large videos; retry later or raise GEMINI_FILE_POLL_TIMEOUT.",
            )
        await asyncio.sleep(settings.file_poll_interval_seconds)
        current = await _get(sdk, current.name, settings)


async def _get(sdk: Any, name: str, settings: Settings) -> Any:
    async def get() -> Any:
        return await sdk.aio.files.get(name=name)

    return await call_with_retry("files.get", get, settings)


async def upload_file(
    path: Path, mime_type: str | None = None, settings: Settings | None = None
) -> UploadedFile:
    """Upload through the File API and wait until the file is ACTIVE (no reuse).

    Polls every GEMINI_FILE_POLL_INTERVAL seconds for at most GEMINI_FILE_POLL_TIMEOUT;
    a FAILED file or one still PROCESSING at the deadline is a clear error.
    """
    settings = settings or current_settings()
    sdk = client(settings)
    mime_type = mime_type or mimetypes.guess_type(path.name)[0] or "application/octet-stream"

    async def upload() -> Any:
        return await sdk.aio.files.upload(
            file=str(path), config={"mime_type": mime_type, "display_name": path.name}
        )

    uploaded = await call_with_retry("files.upload", upload, settings)
    active = await _wait_active(sdk, uploaded, path.name, settings)
    return UploadedFile(
        name=active.name,
        uri=active.uri,
        mime_type=active.mime_type or mime_type,
        expires_at=_expires_at(active),
    )


def _gone(failure: ToolFailure) -> bool:
    """files.get says the file is gone: 404, or the 403 the API answers for a file that
    was deleted or expired ("... or it may not exist")."""
    return failure.category in (
        ErrorCategory.NOT_FOUND,
        ErrorCategory.UNAUTHORIZED,
        ErrorCategory.FORBIDDEN,
    )


async def _reusable(
    sdk: Any, row: UploadRow, display: str, settings: Settings
) -> UploadedFile | None:
    """The remembered upload if the File API still has it usable, else None."""
    if row.expires_at - clock.wall() < settings.upload_reuse_margin_seconds:
        logger.info("upload %s of %s expires soon; uploading again", row.name, display)
        return None
    try:
        current = await _get(sdk, row.name, settings)
    except ToolFailure as failure:
        if _gone(failure):
            logger.info(
                "upload %s of %s is gone (%s); uploading again", row.name, display, failure.message
            )
            return None
        raise
    try:
        current = await _wait_active(sdk, current, display, settings)
    except ToolFailure as failure:
        if failure.category is ErrorCategory.INVALID_INPUT:  # FAILED since
            logger.info("upload %s of %s turned FAILED; uploading again", row.name, display)
            return None
        raise
    return UploadedFile(
        name=current.name,
        uri=current.uri or row.uri,
        mime_type=current.mime_type or row.mime_type,
        expires_at=_expires_at(current),
        reused=True,
    )


async def ensure_uploaded(
    path: Path,
    mime_type: str,
    *,
    sha256: str | None = None,
    settings: Settings | None = None,
) -> UploadedFile:
    """The ACTIVE File API file holding this content: an earlier upload when it still
    lives, else a fresh one (see the module docstring)."""
    settings = settings or current_settings()
    sdk = client(settings)
    digest = sha256 or await asyncio.to_thread(sha256_of, path)
    account = account_of(settings)
    registry = get_registry(settings)
    async with _hash_lock((account, digest)):
        row = await asyncio.to_thread(registry.upload, account, digest, mime_type)
        if row is not None:
            reused = await _reusable(sdk, row, path.name, settings)
            if reused is not None:
                logger.debug("reusing upload %s for %s", reused.name, path.name)
                return reused
            await asyncio.to_thread(registry.drop_upload, account, digest, mime_type)
        fresh = await upload_file(path, mime_type, settings)
        size = await asyncio.to_thread(lambda: os.stat(path).st_size)
        await asyncio.to_thread(
            registry.put_upload,
            account,
            UploadRow(
                sha256=digest,
                mime_type=mime_type,
                size=size,
                name=fresh.name,
                uri=fresh.uri,
                expires_at=fresh.expires_at,
                uploaded_at=clock.wall(),
            ),
        )
        return fresh
