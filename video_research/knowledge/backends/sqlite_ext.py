"""Make sqlite-vec's `vec0` available to this process's SQLite connections.

Two ways, chosen by what the interpreter allows:

- `load_extension`: the ordinary route, on Pythons built with extension loading
  (`sqlite3.Connection.enable_load_extension` exists). Done per connection.
- `sqlite3_auto_extension` through ctypes: for Pythons built without it (pyenv's default
  build, for one). The extension's entry point is registered once with the very SQLite
  library the `_sqlite3` module is linked against, and SQLite then initialises it on
  every connection opened afterwards, in every thread.

`prepare(conn)` makes sure one of them applied to a fresh connection and says which
(`"load_extension"` or `"auto_extension"`). The module is standard library only, so a
test can exercise it under another interpreter.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sqlite3
import threading
from pathlib import Path

ENTRY_POINT = "sqlite3_vec_init"

_auto_registered: str | None = None
_lock = threading.Lock()
_keep_alive: list[ctypes.CDLL] = []


class ExtensionError(RuntimeError):
    """sqlite-vec could not be made available; the message says why and what to install."""


def loadable_path() -> str:
    """The bundled vec0 library of the installed `sqlite-vec` package."""
    try:
        import sqlite_vec
    except ImportError:
        raise ExtensionError(
            "The sqlite-vec package is not installed; install it (pip install sqlite-vec) "
            "or set WEAVIATE_URL to use Weaviate instead of the embedded store."
        ) from None
    return sqlite_vec.loadable_path()


def _library_file(base: str) -> str:
    for candidate in (base, base + ".so", base + ".dylib", base + ".dll"):
        if Path(candidate).is_file():
            return candidate
    raise ExtensionError(f"sqlite-vec's loadable library was not found at {base}(.so/.dylib/.dll)")


def can_load_extensions(conn: sqlite3.Connection) -> bool:
    return hasattr(conn, "enable_load_extension")


def _sqlite_library() -> ctypes.CDLL:
    """The SQLite library this Python's `_sqlite3` module uses.

    dlsym on the `_sqlite3` module's handle searches its dependencies too, which finds
    the shared libsqlite3 it links against (or the copy compiled into it).
    """
    import _sqlite3

    module = ctypes.CDLL(_sqlite3.__file__)
    if hasattr(module, "sqlite3_auto_extension"):
        return module
    found = ctypes.util.find_library("sqlite3")
    if found:
        library = ctypes.CDLL(found)
        if hasattr(library, "sqlite3_auto_extension"):
            return library
    raise ExtensionError(
        "This Python can neither load SQLite extensions nor reach sqlite3_auto_extension; "
        "use a Python built with --enable-loadable-sqlite-extensions, or set WEAVIATE_URL."
    )


def register_auto_extension(library_path: str | None = None) -> None:
    """Register vec0 with sqlite3_auto_extension once per process (connections opened later get it)."""
    global _auto_registered
    with _lock:
        if _auto_registered is not None:
            return
        path = _library_file(library_path or loadable_path())
        vec = ctypes.CDLL(path)
        init = getattr(vec, ENTRY_POINT, None)
        if init is None:
            raise ExtensionError(f"{path} has no {ENTRY_POINT} entry point")
        sqlite = _sqlite_library()
        sqlite.sqlite3_auto_extension.argtypes = [ctypes.c_void_p]
        sqlite.sqlite3_auto_extension.restype = ctypes.c_int
        rc = sqlite.sqlite3_auto_extension(ctypes.cast(init, ctypes.c_void_p))
        if rc != 0:
            raise ExtensionError(f"sqlite3_auto_extension refused sqlite-vec (code {rc})")
        _keep_alive.append(vec)
        _auto_registered = path


def _has_vec(conn: sqlite3.Connection) -> bool:
    try:
        conn.execute("SELECT vec_version()").fetchone()
    except sqlite3.OperationalError:
        return False
    return True


def prepare(conn: sqlite3.Connection, library_path: str | None = None) -> str:
    """Make vec0 usable on `conn`; returns the route taken. Raises ExtensionError."""
    if _has_vec(conn):
        return "auto_extension"
    if can_load_extensions(conn):
        path = library_path or loadable_path()
        conn.enable_load_extension(True)
        try:
            conn.load_extension(path)
        except sqlite3.OperationalError as exc:
            raise ExtensionError(f"Loading sqlite-vec from {path} failed: {exc}") from None
        finally:
            conn.enable_load_extension(False)
        return "load_extension"
    raise ExtensionError(
        "sqlite-vec is not registered on this connection: call register_auto_extension() "
        "before opening it (this Python cannot load extensions per connection)."
    )


def connect(path: str, library_path: str | None = None, **kwargs) -> tuple[sqlite3.Connection, str]:
    """A connection with vec0 available, and the route used to get it there."""
    probe = sqlite3.connect(":memory:")
    try:
        needs_auto = not can_load_extensions(probe)
    finally:
        probe.close()
    if needs_auto:
        register_auto_extension(library_path)
    conn = sqlite3.connect(path, **kwargs)
    try:
        return conn, prepare(conn, library_path)
    except BaseException:
        conn.close()
        raise
