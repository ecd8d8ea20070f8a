"""The process-wide services a call may use: the settings and the shared resources.

One `Services` is built when the server (or the CLI) starts and reaches every handler
through its call context (`ctx.services`, `ctx.settings`); nothing below needs to know
where it came from. Shared resources (the knowledge store, the catalog database, the
Gemini client, NATS connections, ...) are declared where they live as a `Resource`: a
name, a key computed from the settings, how to open one and how to close it. The
registry opens each on first use, keeps one per key, and closes them all, last opened
first, on one shutdown path (`Services.aclose`).

Code that cannot be handed a context (the accessors the domain modules keep, such as
`get_store()` or `get_db()`, and code that falls back on `current_settings()` when it
was not given settings) asks `current_services()`: the Services of the call being
served, which `dispatch.call` sets for the length of the call, so it follows the call
into its tasks and worker threads (`asyncio.to_thread` copies the context). Outside a
call it is `default_services()`, or whatever `use_services` put in force (tests, CLI).

Why a registry rather than a global per module: every resource used to carry its own
dict, lock, closer and reset function; tests had to know each one. Now a test builds a
`Services` of its own and closes it, and nothing leaks into the next test.
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import logging
import threading
from collections.abc import Awaitable, Callable, Hashable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

if TYPE_CHECKING:
    from video_research.config import Settings

logger = logging.getLogger(__name__)

T = TypeVar("T")

Closer = Callable[[], Awaitable[None] | None]


@dataclass(frozen=True, eq=False)
class Resource(Generic[T]):
    """A kind of shared resource, declared by the module that owns it."""

    name: str
    key: Callable[[Settings], Hashable]
    """What makes two resources of this kind different (a path, a URL and a timeout)."""
    open: Callable[[Settings], T] | Callable[[Settings], Awaitable[T]]
    """Builds one. A synchronous open runs under the registry lock, so it must be quick
    (connect lazily); an async one (a network connection) is awaited, only through
    `Services.aget`, with one opening at a time per key."""
    close: Callable[[T], Awaitable[None] | None] | None = None
    single: bool = False
    """Keep one at a time: a new key (the settings changed) closes the previous one."""
    usable: Callable[[T], bool] | None = None
    """Whether an open one may still be handed out; one that is not (a connection closed
    under us) is forgotten and opened again."""


_MISSING: Any = object()


class Services:
    """Settings plus a keyed registry of shared resources, with one shutdown path.

    A Services built without settings follows the live configuration (`get_config()`),
    which is what the server runs on; one built with settings keeps them to itself
    (tests, scripts that want two configurations side by side).
    """

    def __init__(self, settings: Settings | None = None) -> None:
        self._settings = settings
        # Reentrant: opening one resource may ask the registry for another.
        self._lock = threading.RLock()
        self._opened: dict[tuple[str, Hashable], Any] = {}
        self._closers: dict[tuple[str, Hashable], Closer] = {}
        self._opening: dict[tuple[Any, str, Hashable], asyncio.Lock] = {}
        self._closing: set[asyncio.Task[None]] = set()

    # ------------------------------------------------------------------ settings
    @property
    def settings(self) -> Settings:
        """The settings in force. A Services built without settings follows the live
        configuration (runtime changes through infra_configure included)."""
        if self._settings is not None:
            return self._settings
        from video_research.config import get_config

        return get_config()

    def replace_settings(self, settings: Settings) -> Settings:
        """Switch to new settings (infra_configure) and return them.

        A Services that follows the live configuration changes it, so the entry points,
        which read `get_config()`, see the same values as `ctx.settings`; one with
        settings of its own changes only those. Resources keyed on the old settings stay open until
        they are replaced or the services close.
        """
        if self._settings is None:
            from video_research.config import set_config

            return set_config(settings)
        self._settings = settings
        return settings

    # ------------------------------------------------------------------ the registry
    def get(self, resource: Resource[T], settings: Settings | None = None) -> T:
        """The resource of this kind for `settings` (default: this Services' settings),
        opened on first use."""
        if inspect.iscoroutinefunction(resource.open):
            raise TypeError(f"{resource.name} opens asynchronously: use `await aget(...)`")
        key = (resource.name, resource.key(settings or self.settings))
        with self._lock:
            found = self._find(resource, key)
            if found is not _MISSING:
                return found
            made: T = resource.open(settings or self.settings)  # type: ignore[assignment]
            stale = self._keep(resource, key, made)
        for closer in stale:
            self._close_soon(resource.name, closer)
        return made

    async def aget(self, resource: Resource[T], settings: Settings | None = None) -> T:
        """`get` for async code: awaits an async open without blocking the event loop,
        and awaits the close of the one a `single` resource replaces."""
        settings = settings or self.settings
        key = (resource.name, resource.key(settings))
        if not inspect.iscoroutinefunction(resource.open):
            with self._lock:
                found = self._find(resource, key)
                if found is not _MISSING:
                    return found
                made: T = resource.open(settings)  # type: ignore[assignment]
                stale = self._keep(resource, key, made)
        else:
            with self._lock:
                found = self._find(resource, key)
                if found is not _MISSING:
                    return found
                opening = self._opening.setdefault(
                    (asyncio.get_running_loop(), *key), asyncio.Lock()
                )
            async with opening:  # one connect per key; the others wait and share it
                with self._lock:
                    found = self._find(resource, key)
                if found is not _MISSING:
                    return found
                made = await resource.open(settings)
                with self._lock:
                    stale = self._keep(resource, key, made)
        for closer in stale:
            await _run_closer(resource.name, closer)
        return made

    def opened(self, resource: Resource[Any] | None = None) -> list[Any]:
        """Every open resource of this kind (of every kind when None), oldest first."""
        with self._lock:
            return [
                value
                for (name, _), value in self._opened.items()
                if resource is None or name == resource.name
            ]

    async def aclose(self) -> None:
        """Close every resource, last opened first; a failing close is only logged.

        The Services stays usable: a resource asked for afterwards opens again.
        """
        with self._lock:
            closers = list(self._closers.items())
            self._opened.clear()
            self._closers.clear()
            self._opening.clear()
        for (name, _), closer in reversed(closers):
            await _run_closer(name, closer)
        while self._closing:
            await asyncio.gather(*list(self._closing), return_exceptions=True)

    # ------------------------------------------------------------------ internals
    def _find(self, resource: Resource[Any], key: tuple[str, Hashable]) -> Any:
        """The open resource under `key`, or _MISSING (forgetting one no longer usable)."""
        found = self._opened.get(key, _MISSING)
        if found is not _MISSING and resource.usable is not None and not resource.usable(found):
            del self._opened[key]
            del self._closers[key]
            return _MISSING
        return found

    def _keep(self, resource: Resource[T], key: tuple[str, Hashable], made: T) -> list[Closer]:
        """Register `made` under `key`; the closers of what it replaces (`single`)."""
        stale: list[Closer] = []
        if resource.single:
            for old in [k for k in self._opened if k[0] == resource.name]:
                del self._opened[old]
                stale.append(self._closers.pop(old))
        self._opened[key] = made
        self._closers[key] = _closer(resource, made)
        return stale

    def _close_soon(self, name: str, closer: Closer) -> None:
        """Close a replaced resource from synchronous code: on the running loop if there
        is one (`aclose` waits for it), else at once."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            asyncio.run(_run_closer(name, closer))
            return
        task = loop.create_task(_run_closer(name, closer))
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)


def _closer(resource: Resource[T], value: T) -> Closer:
    if resource.close is None:
        return lambda: None
    close = resource.close
    return lambda: close(value)


async def _run_closer(name: str, closer: Closer) -> None:
    try:
        result = closer()
        if inspect.isawaitable(result):
            await result
    except Exception as exc:  # closing is best effort: the next one must still run
        logger.warning("closing %s failed: %s", name, exc)


# ---------------------------------------------------------------------- which Services
_default: Services | None = None
_default_lock = threading.Lock()
_current: contextvars.ContextVar[Services | None] = contextvars.ContextVar(
    "video_research_services", default=None
)


def default_services() -> Services:
    """The services of this process when nobody put others in force: they follow the
    live configuration."""
    global _default
    with _default_lock:
        if _default is None:
            _default = Services()
        return _default


def current_services() -> Services:
    """The Services of the call being served (see `dispatch.call`), or those a
    `use_services` block put in force, or else `default_services()`."""
    return _current.get() or default_services()


def current_settings() -> Settings:
    """The settings of the Services in force (`current_services().settings`).

    What code below the handlers reads when it was not handed settings. Reading them
    here rather than from the process-wide `get_config()` means a call sees the
    settings of its own Services (put in force by `dispatch.call`), and a test or a
    script that builds a Services with settings of its own changes what the code below
    sees without touching a global.
    """
    return current_services().settings


@contextmanager
def use_services(services: Services) -> Iterator[Services]:
    """Put `services` in force for this block (and the tasks and threads it starts)."""
    token = _current.set(services)
    try:
        yield services
    finally:
        _current.reset(token)
