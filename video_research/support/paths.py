"""Which local files a tool may read: only those under the allowed roots.

The roots are VIDEO_RESEARCH_FILE_ROOTS (default: the user's home directory). When an MCP
client of a handshake-era revision (2025-11-25 and older) declares its own roots (the
`roots` capability), a path must also lie under one of those: the effective roots are the
intersection, the client's roots narrow the server's, never widen them. A refusal names
the rule that refused and both sets. On MCP 2026-07-28, which has no server-to-client
requests, a call that names a local path is answered first with an input-required result
asking for the client's roots (the server layer does that, before the tool runs); the
client retries the call with its answer (`CallContext.answered_roots`), and the same
intersection applies. A 2026 client that declares no roots is never asked.

Paths are resolved before the check — `~`, `..` and symbolic links included — so a link
inside a root that points outside it is refused, and so is `root/../elsewhere`. Every
tool that reads local files (videos, documents, transcripts, content) goes through
`confine` (or `readable_roots` + `confine_to` for many files), and only callers with the
blessed role get that far: a chat user never has the server read the owner's files. A path that cannot be resolved at all (`~nosuchuser`, a NUL byte) is
`invalid_input`, and `check_glob` is the one check of a glob pattern for the tools that
expand directories.

Two more duties for every tool that reads local files:

- Only regular files are read. A FIFO blocks the reader forever, a character device
  (`/dev/zero` behind a name like `zero.md`) never ends; `check_regular` refuses them
  from a stat before anything is opened, and `open_regular` / `read_regular` open with
  O_NONBLOCK and check the opened descriptor again, so a file swapped for a FIFO between
  the check and the open is refused too. A directory walk lists such entries
  (`is_listed_file`) so the tool reports them per item instead of silently skipping them.
- `printable` is a path's text for results, errors and logs: a name that is not UTF-8
  shows its raw bytes as `\\xNN` (see video_research/support/printable.py), where the str itself
  could not be written out.
"""

from __future__ import annotations

import fnmatch
import io
import logging
import os
import re
import stat
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from video_research.config import Settings
from video_research.support import printable as _printable
from video_research.support.errors import ErrorCategory, ToolFailure, invalid_input
from video_research.support.services import current_settings

logger = logging.getLogger(__name__)


def configured_roots(settings: Settings | None = None) -> list[Path]:
    settings = settings or current_settings()
    return [Path(os.path.realpath(Path(root).expanduser())) for root in settings.file_roots]


async def client_roots(ctx: Any) -> list[Path] | None:
    """The directories the MCP client shares (file:// roots), or None when it declares none.

    On MCP 2026-07-28 they are the roots the client answered in this call's input-required
    round trip (`answered_roots`), or None when it was not asked (it declares no roots)."""
    answered = getattr(ctx, "answered_roots", None)
    if answered is not None:
        return _file_roots(answered)
    session = getattr(ctx, "session", None)
    if session is None:
        return None
    try:
        import mcp_types as types
        from mcp_types.version import MODERN_PROTOCOL_VERSIONS

        if getattr(session, "protocol_version", None) in MODERN_PROTOCOL_VERSIONS:
            return None  # no roots/list there; the round trip would have set answered_roots

        if not session.check_client_capability(
            types.ClientCapabilities(roots=types.RootsCapability())
        ):
            return None
        listed = await session.list_roots()
    except Exception as exc:  # a client that cannot answer is treated as declaring no roots
        logger.debug("could not list the client's roots: %s", exc)
        return None
    return _file_roots([str(root.uri) for root in listed.roots])


def _file_roots(uris: list[str]) -> list[Path]:
    """The directories of the file:// URIs among `uris`, resolved."""
    roots = []
    for uri in uris:
        parsed = urlparse(uri)
        if parsed.scheme == "file":
            roots.append(Path(os.path.realpath(unquote(parsed.path))))
    return roots


def _under(path: Path, roots: list[Path]) -> bool:
    return any(path == root or path.is_relative_to(root) for root in roots)


def resolve(path: str | os.PathLike[str]) -> Path:
    """`path` absolute, `~` expanded, `..` and links resolved; invalid_input when it cannot be."""
    try:
        return Path(os.path.realpath(Path(path).expanduser()))
    except (RuntimeError, ValueError) as exc:  # ~nosuchuser; an embedded NUL byte
        raise invalid_input(
            f"{os.fspath(path)!r} is not a usable path: {exc}",
            hint="Give an absolute path without control characters (~ works for the server's "
            "own user and users that exist on its machine).",
        ) from None


def explain(given: str | os.PathLike[str], resolved: Path | None = None) -> str:
    """`given` as the user wrote it, plus how the server read it when that differs:
    "relative/dir (resolved to /srv/relative/dir from the server's working directory
    /srv)". A relative path is read from the server's working directory, which the user
    of an MCP client never sees; `~`, `..` and symbolic links change a path too."""
    text = printable(given)
    try:
        resolved = resolved if resolved is not None else resolve(given)
    except ToolFailure:
        return text
    if os.fspath(resolved) == os.fspath(given):
        return text
    raw = os.fspath(given)
    if isinstance(raw, bytes):
        raw = os.fsdecode(raw)
    if raw.startswith("~"):
        how = "home directory expanded"
    elif not os.path.isabs(raw):
        how = f"from the server's working directory {printable(os.getcwd())}"
    else:
        how = "'..' and symbolic links followed"
    return f"{text} (resolved to {printable(resolved)}, {how})"


def _link_outside(path: Path, roots: list[Path]) -> tuple[Path, Path] | None:
    """The first symbolic link on `path` (as given, made absolute) whose target lies
    outside every root, and that target; None when no link took the path out."""
    try:
        parts = Path(os.path.abspath(path.expanduser())).parts
    except (RuntimeError, ValueError):
        return None
    for depth in range(2, len(parts) + 1):
        candidate = Path(*parts[:depth])
        try:
            if candidate.is_symlink():
                target = Path(os.path.realpath(candidate))
                if not _under(target, roots):
                    return candidate, target
        except OSError:
            return None
    return None


def check_glob(pattern: str) -> None:
    """invalid_input unless `pattern` is a relative glob that stays inside its directory:
    no absolute path, no '..', and '**' only as a whole path component."""
    parts = Path(pattern).parts
    problem = None
    if not pattern.strip():
        problem = "is empty"
    elif "\0" in pattern:
        problem = "contains a NUL byte"
    elif Path(pattern).is_absolute() or ".." in parts:
        problem = "must be relative and stay inside the directory (no leading / and no '..')"
    elif any("**" in part and part != "**" for part in parts):
        problem = "uses '**' inside a name; '**' can only be a whole path component"
    else:
        try:
            for part in parts:
                re.compile(fnmatch.translate(part))
        except re.error as exc:
            problem = f"does not compile ({exc})"
    if problem:
        raise invalid_input(
            f"glob {pattern!r} {problem}.",
            hint='Use a pattern such as "**/*" (every file, recursively), "*.md" or '
            '"docs/**/*.pdf".',
        )


def confine_to(
    path: str | os.PathLike[str], roots: list[Path], extra_roots: list[Path] | None = None
) -> Path:
    """The resolved path, or `forbidden` when it leaves the roots.

    Both sides are compared resolved (`configured_roots` and `client_roots` resolve
    theirs), so a root named through a symbolic link works. A link inside a root that
    points outside every root is still refused: what is read is its target. The refusal
    names the link and its target, the resolved path and the roots.
    """
    resolved = resolve(path)
    in_configured = _under(resolved, roots)
    allowed = in_configured and (extra_roots is None or _under(resolved, extra_roots))
    if not allowed:
        shown = ", ".join(printable(r) for r in roots) or "(none)"
        why = ""
        link = _link_outside(Path(os.fsdecode(os.fspath(path))), roots)
        if link is not None:
            why = (
                f" {printable(link[0])} is a symbolic link to {printable(link[1])}, which is "
                "outside them: a link inside a root is followed, and its target must be under "
                "a root too."
            )
        client = ", ".join(printable(r) for r in extra_roots or []) or "(none)"
        both = (
            f" A path must be under both: the server's roots ({shown}, "
            f"VIDEO_RESEARCH_FILE_ROOTS) and your MCP client's roots ({client})."
        )
        if in_configured and extra_roots is not None:
            message = (
                f"{explain(path, resolved)} is outside the directories your MCP client shares "
                f"with this server (its roots: {client}); the server's roots ({shown}) "
                "allow it." + both
            )
            hint = "Add the directory to your client's roots, or pass a file under one of them."
        else:
            message = (
                f"{explain(path, resolved)} is outside the directories this server may read "
                f"({shown}).{why}" + (both if extra_roots is not None else "")
            )
            hint = (
                f"Allowed roots: {shown}. To read it, add its directory (or the link's target) "
                "to VIDEO_RESEARCH_FILE_ROOTS (comma-separated) and restart the server."
            )
            if not os.path.isabs(os.fsdecode(os.fspath(path))) and not os.fsdecode(
                os.fspath(path)
            ).startswith("~"):
                hint += " A relative path is read from the server's working directory: pass an absolute path."
        raise ToolFailure(ErrorCategory.FORBIDDEN, message, hint=hint)
    return resolved


FILE_READER_ROLE = "blessed"
"""The role a caller needs to have the server read local files for them: a chat user
(viewer) must never read the owner's files through a tool."""


async def readable_roots(ctx: Any = None) -> tuple[list[Path], list[Path] | None]:
    """(configured roots, the client's roots or None) for this call's caller.

    FORBIDDEN when the caller's role may not read local files at all.
    """
    caller = getattr(ctx, "caller", None)
    if caller is not None and not caller.has_role(FILE_READER_ROLE):
        raise ToolFailure(
            ErrorCategory.FORBIDDEN,
            f"Reading local files requires the '{FILE_READER_ROLE}' role; "
            f"{caller.username} has '{caller.role}'.",
            hint="Pass a YouTube URL or text instead, or ask an admin to run this on a file.",
        )
    return configured_roots(), await client_roots(ctx) if ctx is not None else None


async def confine(path: str | os.PathLike[str], ctx: Any = None) -> Path:
    """`path` resolved and checked against the roots this call's caller may read."""
    return confine_to(path, *await readable_roots(ctx))


def printable(path: str | os.PathLike[str]) -> str:
    """`path` as text every writer can encode: bytes of a name that are not UTF-8 are
    shown as `\\xNN` (`bad-\\xff.md`). Use it wherever a path goes into a result, an
    error message or a log line; keep the Path itself for opening the file."""
    return _printable.text(os.fspath(path))


_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def special_kind(mode: int) -> str | None:
    """What a file of this st_mode is when it is not a regular file ("a FIFO (named
    pipe)", "a character device", ...); None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


class NotRegularFile(ToolFailure):
    """`unsupported_format`: the path is a FIFO, a device, a socket or a directory, never read.
    Its own class so a batch can catch it per item beside its other per-file errors."""

    def __init__(self, path: str | os.PathLike[str], kind: str) -> None:
        super().__init__(
            ErrorCategory.UNSUPPORTED_FORMAT,
            f"{printable(path)} is {kind}, not a regular file; only regular files are read.",
            hint="Pass a regular file (or a directory of them); pipes, devices and sockets "
            "are never read.",
        )


def check_regular(path: str | os.PathLike[str]) -> os.stat_result:
    """The stat of `path` (links followed) when it is a regular file; `unsupported_format`
    for a FIFO, device, socket or directory, `not_found` when there is nothing there.
    Nothing is opened: opening a FIFO or some devices blocks or has side effects."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise ToolFailure(ErrorCategory.NOT_FOUND, f"No such file: {explain(path)}") from None
    kind = special_kind(info.st_mode)
    if kind is not None:
        raise NotRegularFile(path, kind)
    return info


_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)


def open_regular(path: str | os.PathLike[str]) -> io.BufferedReader:
    """`path` opened for binary reading, refused unless it is a regular file.

    Checked before the open (a stat: a device is never even opened) and after it (an
    fstat of the descriptor, opened with O_NONBLOCK so that a FIFO swapped in between
    cannot block the open), so no race hands a reader a pipe or a device.
    """
    check_regular(path)
    descriptor = os.open(path, _OPEN_FLAGS | getattr(os, "O_CLOEXEC", 0))
    try:
        kind = special_kind(os.fstat(descriptor).st_mode)
        if kind is not None:
            raise NotRegularFile(path, kind)
        os.set_blocking(descriptor, True)
        return os.fdopen(descriptor, "rb")
    except BaseException:
        os.close(descriptor)
        raise


def read_regular(path: str | os.PathLike[str], limit: int | None = None) -> bytes:
    """The bytes of the regular file `path`; `too_large` past `limit` bytes (read up to
    limit + 1 at most, whatever the file's size says: it may grow while it is read)."""
    with open_regular(path) as handle:
        data = handle.read() if limit is None else handle.read(limit + 1)
    if limit is not None and len(data) > limit:
        raise ToolFailure(
            ErrorCategory.TOO_LARGE,
            f"{printable(path)} is larger than {limit:,} bytes.",
            hint="Split the file, or raise the limit for this kind of file.",
        )
    return data


def is_listed_file(path: str | os.PathLike[str]) -> bool:
    """Whether a directory walk should hand `path` to its reader: anything that exists and
    is not a directory (links followed). Special files are included on purpose, so the
    reader refuses them per item (`check_regular`) rather than the walk hiding them."""
    try:
        return not stat.S_ISDIR(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False
