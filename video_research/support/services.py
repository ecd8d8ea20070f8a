"""The process-wide services a call may use: the settings and the shared resources.

One `Services` is built when the server (or the CLI) starts and reaches every handler
through its call context (`ctx.services`, `ctx.settings`); nothing below needs to know
where it came from. Shared resources (the knowledge store, the catalog database, the
Gemini client, NATS connections, ...) are declared where they live as a `Resource`: a
name, a key computed from the settings, how to open one and how to close it. The
registry opens each on first use, keeps one per key, and closes them all, last opened
first, on one shutdown path (`Services.aclose`).

Why a registry rather than a global per module: every resource used to carry its own
dict, lock, closer and reset function; tests had to know each one. Now a test builds a
`Services` of its own and closes it, and nothing leaks into the next test.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import threading
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

if TYPE_CHECKING:
    from video_research.config import Settings

logger = logging.getLogger(__name__)

T = TypeVar("T")


@dataclass(frozen=True, eq=False)
class Resource(Generic[T]):
    """A kind of shared resource, declared by the module that owns it."""

    name: str
    key: Callable[[Settings], Hashable]
    """What makes two resources of this kind different (a path, a URL and a timeout)."""
    open: Callable[[Settings], T]
    """Builds one; must be cheap (connect lazily) since it runs under the registry lock."""
    close: Callable[[T], Awaitable[None] | None] | None = None
    single: bool = False
    """Keep one at a time: a new key (the settings changed) closes the previous one."""


class Services:
    """Settings plus a keyed registry of shared resources, with one shutdown path."""

    def __init__(self, settings: Settings | None = None) -> None:
        self._settings = settings
        self._lock = threading.Lock()
        self._opened: dict[tuple[str, Hashable], Any] = {}
        self._closers: dict[tuple[str, Hashable], Callable[[], Any]] = {}

    @property
    def settings(self) -> Settings:
        """The settings in force. A Services built without settings follows the live
        configuration (runtime changes through infra_configure included)."""
        if self._settings is not None:
            return self._settings
        from video_research.config import get_config

        return get_config()

    def replace_settings(self, settings: Settings) -> None:
        """Switch to new settings (infra_configure); resources keyed on the old ones stay
        open until they are replaced or the services close."""
        self._settings = settings

    def get(self, resource: Resource[T], settings: Settings | None = None) -> T:
        """The resource of this kind for `settings` (default: this Services' settings),
        opened on first use."""
        settings = settings or self.settings
        key = (resource.name, resource.key(settings))
        stale: list[tuple[Any, Callable[[], Any]]] = []
        with self._lock:
            found = self._opened.get(key)
            if found is not None:
                return found
            if resource.single:
                for old in [k for k in self._opened if k[0] == resource.name]:
                    stale.append((self._opened.pop(old), self._closers.pop(old)))
            made = resource.open(settings)
            self._opened[key] = made
            self._closers[key] = _closer(resource, made)
        for _, closer in stale:
            _close_soon(closer)
        return made

    def opened(self, resource: Resource[T]) -> list[T]:
        """Every open resource of this kind (for a shutdown or a status report)."""
        with self._lock:
            return [value for (name, _), value in self._opened.items() if name == resource.name]

    async def aclose(self) -> None:
        """Close every resource, last opened first; a failing close is only logged."""
        with self._lock:
            closers = list(self._closers.items())
            self._opened.clear()
            self._closers.clear()
        for (name, _), closer in reversed(closers):
            try:
                result = closer()
                if inspect.isawaitable(result):
                    await result
            except Exception as exc:  # pragma: no cover - best effort at exit
                logger.warning("closing %s failed: %s", name, exc)


def _closer(resource: Resource[T], value: T) -> Callable[[], Any]:
    if resource.close is None:
        return lambda: None
    close = resource.close
    return lambda: close(value)


def _close_soon(closer: Callable[[], Any]) -> None:
    """Close a replaced resource: awaited on the running loop if there is one."""
    result = closer()
    if inspect.isawaitable(result):
        try:
            asyncio.get_running_loop().create_task(result)  # type: ignore[arg-type]
        except RuntimeError:
            asyncio.run(result)  # type: ignore[arg-type]


_default: Services | None = None
_default_lock = threading.Lock()


def default_services() -> Services:
    """The services of this process when no caller passed its own (CLI tools, scripts).

    The server builds its own at start and passes it through every call context.
    """
    global _default
    with _default_lock:
        if _default is None:
            _default = Services()
        return _default
