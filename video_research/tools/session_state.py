"""State that belongs to one MCP session (stdio: the one session; HTTP/SSE: each client).

The SDK gives every connection a `Connection` whose `state` dict lives as long as the
session ("per-connection scratch state; persists across requests"). Handlers see a
per-request `ServerSession`; this module is the one place that goes from it to its
connection, so a change in the SDK is fixed here only.

Outside a server (the `video-research call` command) there is no session: one
process-wide dict stands in for it.
"""

from __future__ import annotations

from typing import Any, TypeVar

_NO_SESSION: dict[str, Any] = {}

T = TypeVar("T")


def connection_of(session: Any) -> Any:
    """The SDK `Connection` behind a per-request ServerSession (None outside a server)."""
    return getattr(session, "_connection", None)


def state(session: Any) -> dict[str, Any]:
    """The session's scratch dict (one per MCP session, never shared between clients)."""
    connection = connection_of(session)
    scratch = getattr(connection, "state", None)
    return scratch if isinstance(scratch, dict) else _NO_SESSION


def slot(session: Any, key: str, factory: type[T]) -> T:
    """The session's object under `key`, created with `factory()` on first use."""
    scratch = state(session)
    value = scratch.get(key)
    if not isinstance(value, factory):
        value = factory()
        scratch[key] = value
    return value


def protocol_version(session: Any) -> str | None:
    return getattr(connection_of(session), "protocol_version", None)
