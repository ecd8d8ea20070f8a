"""Ingest local files into the document library: confine, hash, extract, chunk, store.

`ingest(request, ctx)` runs a whole request. Explicit paths are checked before anything
is read: one outside the allowed roots fails the call with `forbidden`, one that
does not exist with `not_found`. Directories expand through the glob (hidden files and
folders skipped, unsupported types counted and skipped), and every file they expand to
is confined again, so a symbolic link inside a root that points outside it is refused.

Each file then goes alone: read and hash (SHA-256 of its bytes); unchanged content with
the same type and tags is left alone; otherwise it is extracted in a bounded parser worker
process (support/isolation.py: memory, CPU and wall-clock limits), chunked in a worker
thread and written as one replacement of its previous chunks. A file that cannot be read
(encrypted, corrupt, too large) or has no text becomes a failed item with a
ToolError-shaped error before anything is written, and the batch goes on; a failure that
is not about the file (config_error, unauthorized, network: the store refuses
writes or cannot be reached) fails the whole call. `max_files` counts the files actually
read (ingested, updated or failed), not the unchanged ones, so calling again takes the
rest. Progress is reported after every file. A cancelled request stops at the next file
boundary, store call or batch of folders walked; every document is then either fully
written or untouched.
"""

from __future__ import annotations

import asyncio
import fnmatch
import hashlib
import itertools
import logging
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from video_research.config import Settings
from video_research.documents import library
from video_research.documents.chunking import chunk_blocks
from video_research.documents.extract import (
    EXTENSIONS,
    DocumentType,
    document_type_for,
    extract,
    no_text,
)
from video_research.documents.guards import ArchiveLimits
from video_research.knowledge.embedders.tokens import TokenCounter
from video_research.knowledge.store import KnowledgeStore, get_store
from video_research.support import paths
from video_research.support.errors import ErrorCategory, ToolFailure, invalid_input, make_tool_error
from video_research.support.isolation import parse_isolated
from video_research.support.services import current_settings

if TYPE_CHECKING:
    from video_research.support.schema_types.common.documents import FileError
    from video_research.support.schema_types.tools.document_ingest_output import File

logger = logging.getLogger(__name__)

Status = Literal["ingested", "updated", "unchanged", "failed"]


@dataclass
class IngestRequest:
    paths: list[str]
    glob: str = "**/*"
    document_type: DocumentType | None = None
    tags: tuple[str, ...] | None = None
    """None (left out): a document already stored keeps its tags; () clears them."""
    force: bool = False
    max_files: int = 1000


@dataclass(frozen=True)
class StoredDocument:
    """What the library holds for a file it has: every file but a failed one."""

    document_id: str
    document_type: DocumentType
    title: str | None
    pages: int | None


@dataclass
class FileResult:
    path: str
    status: Status
    stored: StoredDocument | None = None
    """None for a failed file, which has an error instead."""
    chunks: int = 0
    error: FileError | None = None

    def to_dict(self) -> File:
        """The file's entry in document_ingest's `files`: what every file has, then what
        the library holds of it or why it failed; the unset (None) fields left out."""
        out: File = {"path": self.path, "status": self.status, "chunks": self.chunks}
        stored = self.stored
        if stored is not None:
            out["document_id"] = stored.document_id
            if stored.title is not None:
                out["title"] = stored.title
            out["document_type"] = stored.document_type.value
            if stored.pages is not None:
                out["pages"] = stored.pages
        if self.error is not None:
            out["error"] = self.error
        return out


@dataclass
class IngestReport:
    files: list[FileResult] = field(default_factory=list)
    files_found: int = 0
    skipped_unsupported: int = 0
    truncated: bool = False


def chunk_budget(settings: Settings, tokens: TokenCounter) -> int:
    """Tokens per chunk: the setting, capped by what the embedding model reads."""
    if tokens.window is None:
        return settings.documents_chunk_tokens
    return min(settings.documents_chunk_tokens, tokens.window)


async def _targets(
    request: IngestRequest, ctx: Any
) -> tuple[list[Path], list[FileResult], IngestReport]:
    """(files to ingest, per-file failures found while expanding, the report to fill)."""
    roots, client_roots = await paths.readable_roots(ctx)
    report = IngestReport()
    explicit: list[Path] = []
    for raw in request.paths:
        resolved = paths.confine_to(raw, roots, client_roots)
        if not resolved.exists():
            raise ToolFailure(
                ErrorCategory.NOT_FOUND,
                f"No such file or directory: {paths.explain(raw, resolved)}",
                hint="Check the path; relative paths are resolved from the server's working "
                "directory, so prefer absolute ones.",
            )
        explicit.append(resolved)
    files: list[Path] = []
    failures: list[FileResult] = []
    for resolved in explicit:
        if not resolved.is_dir():  # a file; a FIFO or device is refused when it is read
            files.append(resolved)
            continue
        # A few hundred folders per worker-thread hop, so a cancelled call stops soon even
        # in a large tree.
        walker = _expand(resolved, request.glob)
        while found := await asyncio.to_thread(_take, walker, EXPAND_FOLDERS):
            for candidate in (path for folder in found for path in folder):
                if request.document_type is None and document_type_for(candidate) is None:
                    report.skipped_unsupported += 1
                    continue
                try:
                    files.append(paths.confine_to(candidate, roots, client_roots))
                except ToolFailure as failure:
                    failures.append(_failed(paths.printable(candidate), failure))
    unique = list(dict.fromkeys(files))
    report.files_found = len(unique) + len(failures)
    return unique, failures, report


EXPAND_FOLDERS = 256
"""Folders walked per worker-thread hop while a directory is expanded."""


def _take(walker: Iterator[list[Path]], count: int) -> list[list[Path]]:
    return list(itertools.islice(walker, count))


def _expand(directory: Path, pattern: str) -> Iterator[list[Path]]:
    """Per folder under `directory`, its files matching `pattern` (sorted), hidden files and
    folders left out. Hidden folders, and folders the pattern cannot reach, are not entered;
    links to folders are not followed (as `**` in pathlib)."""
    wanted = Path(pattern).parts
    for folder, subfolders, names in os.walk(directory):
        here = Path(folder)
        relative = here.relative_to(directory).parts
        subfolders[:] = sorted(
            name
            for name in subfolders
            if not name.startswith(".") and _glob_match((*relative, name), wanted, prefix=True)
        )
        yield [
            here / name
            for name in sorted(names)
            if not name.startswith(".") and _glob_match((*relative, name), wanted)
        ]


def _glob_match(parts: tuple[str, ...], pattern: tuple[str, ...], *, prefix: bool = False) -> bool:
    """Whether the relative path `parts` matches the glob `pattern` (split into components,
    `**` any number of them) or, with `prefix`, may lead to a path that does."""
    seen: dict[tuple[int, int], bool] = {}

    def match(i: int, j: int) -> bool:
        if (i, j) not in seen:
            if i == len(parts):
                result = j < len(pattern) if prefix else all(p == "**" for p in pattern[j:])
            elif j == len(pattern):
                result = False
            elif pattern[j] == "**":
                result = prefix or match(i, j + 1) or match(i + 1, j)
            else:
                result = fnmatch.fnmatchcase(parts[i], pattern[j]) and match(i + 1, j + 1)
            seen[(i, j)] = result
        return seen[(i, j)]

    return match(0, 0)


def _failed(path: str, exc: BaseException) -> FileResult:
    error = make_tool_error(exc)
    return FileResult(
        path=path,
        status="failed",
        error={
            "error": error.error,
            # A ToolError's category is always one of ErrorCategory's values.
            "category": ErrorCategory(error.category).value,
            "hint": error.hint,
            "retryable": error.retryable,
        },
    )


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


async def _ingest_file(
    store: KnowledgeStore, path: Path, request: IngestRequest, settings: Settings
) -> FileResult:
    stat = paths.check_regular(path)  # a FIFO or device is never opened
    name = paths.printable(path.name)
    document_type = request.document_type or document_type_for(path)
    if document_type is None:
        raise ToolFailure(
            ErrorCategory.INVALID_INPUT,
            f"{name}: unsupported file type {path.suffix or '(no extension)'!r}.",
            hint=f"Supported: {', '.join(sorted(EXTENSIONS))}; or pass document_type to read it as one of "
            f"{', '.join(t.value for t in DocumentType)}.",
        )
    limit = int(settings.documents_max_file_mb * 1024 * 1024)
    if stat.st_size > limit:
        raise _too_large(path, stat.st_size, settings)
    try:
        data = await asyncio.to_thread(paths.read_regular, path, limit)
    except ToolFailure as failure:
        if failure.category is ErrorCategory.TOO_LARGE:  # it grew since the stat
            raise _too_large(path, limit + 1, settings) from None
        raise
    content_hash = _sha256(data)
    head = await library.stored_head(store, path)
    kept = head.properties if head is not None else {}
    # What the call leaves out keeps its stored value (docs/updates.md): tags, and a
    # document_type the file was read as.
    tags = tuple(sorted(set(kept.get("tags") or () if request.tags is None else request.tags)))
    if request.document_type is None and kept.get("document_type") in _TYPE_VALUES:
        document_type = DocumentType(kept["document_type"])
    if (
        head is not None
        and not request.force
        and _same(head.properties, content_hash, document_type, tags)
    ):
        props = head.properties
        return FileResult(
            path=paths.printable(path),
            status="unchanged",
            stored=StoredDocument(
                props["document_id"],
                document_type,
                title=props.get("title"),
                pages=props.get("page_count"),
            ),
            chunks=props.get("chunk_count", 0),
        )
    # Parsed in a bounded worker process, never here: see support/isolation.py.
    extracted = await parse_isolated(
        name, extract, data, document_type, name, limits=ArchiveLimits.from_settings()
    )
    tokens = store.embedder.token_counter()
    chunks = await asyncio.to_thread(
        chunk_blocks,
        extracted.blocks,
        chunk_budget(settings, tokens),
        page_breaks=extracted.pages_with_breaks,
        tokens=tokens,
    )
    if not chunks:  # before the write, which would replace the previous version by nothing
        raise no_text(name, document_type)
    facts = library.DocumentFacts(
        path=path,
        title=extracted.title,
        document_type=document_type.value,
        tags=tags,
        content_hash=content_hash,
        file_size=stat.st_size,
        modified_at=datetime.fromtimestamp(stat.st_mtime, UTC).isoformat(),
        page_count=extracted.page_count,
    )
    logger.debug("document %s: writing %d chunks", path, len(chunks))
    await library.write_document(store, facts, chunks)
    return FileResult(
        path=paths.printable(path),
        status="updated" if head is not None else "ingested",
        stored=StoredDocument(
            facts.document_id, document_type, title=facts.title, pages=facts.page_count
        ),
        chunks=len(chunks),
    )


def _too_large(path: Path, size: int, settings: Settings) -> ToolFailure:
    return invalid_input(
        f"{paths.printable(path.name)} is {size / 1024 / 1024:.1f} MB, over the "
        f"{settings.documents_max_file_mb:g} MB limit.",
        hint="Raise DOCUMENTS_MAX_FILE_MB, or split the document.",
    )


def _same(
    stored: dict[str, Any], content_hash: str, document_type: DocumentType, tags: tuple[str, ...]
) -> bool:
    return (
        stored.get("content_hash") == content_hash
        and stored.get("document_type") == document_type.value
        and tuple(sorted(stored.get("tags") or ())) == tags
    )


_TYPE_VALUES = frozenset(t.value for t in DocumentType)

STOPS_THE_CALL = frozenset(
    {ErrorCategory.CONFIG_ERROR, ErrorCategory.UNAUTHORIZED, ErrorCategory.NETWORK}
)
"""Failures that are not about one file (the store refusing writes after an embedding model
change, a store that cannot be reached): every later file would fail the same way, so they
fail the call instead of each file in turn."""


async def ingest(request: IngestRequest, ctx: Any) -> IngestReport:
    """Run one document_ingest request (see the module docstring)."""
    paths.check_glob(request.glob)
    settings = current_settings()
    files, failures, report = await _targets(request, ctx)
    report.files.extend(failures)
    store = await get_store()
    total = len(files)
    await ctx.report_progress(0, total, f"{total} file(s) to ingest")
    read = 0
    for done, path in enumerate(files, start=1):
        if read >= request.max_files:
            report.truncated = True
            break
        try:
            result = await _ingest_file(store, path, request, settings)
        except ToolFailure as exc:
            if exc.category in STOPS_THE_CALL:
                raise
            result = _failed(paths.printable(path), exc)
        except OSError as exc:
            result = _failed(paths.printable(path), _explained(exc, path))
        except Exception as exc:
            logger.warning("ingesting %s failed", path, exc_info=exc)
            result = _failed(paths.printable(path), exc)
        if result.status != "unchanged":
            read += 1
        report.files.append(result)
        logger.info("document %s: %s (%d chunks)", path, result.status, result.chunks)
        await ctx.report_progress(done, total, f"{paths.printable(path.name)}: {result.status}")
    return report


def _explained(exc: OSError, path: Path) -> ToolFailure:
    """OS errors as the per-file failures a user can act on."""
    if isinstance(exc, FileNotFoundError):
        return ToolFailure(
            ErrorCategory.NOT_FOUND, f"{paths.printable(path)} disappeared before it could be read."
        )
    if isinstance(exc, PermissionError):
        return invalid_input(
            f"{paths.printable(path.name)} cannot be read: permission denied.",
            hint="Make the file readable by the user the server runs as.",
        )
    return invalid_input(f"{paths.printable(path.name)} cannot be read: {exc.strerror or exc}.")
