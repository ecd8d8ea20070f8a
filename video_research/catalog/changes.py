"""Telling the MCP surface that catalog entries changed, without importing it.

The catalog sits below the server, so it may not call `server.resources` itself. The
resources module, when a server builds it, registers a listener here that sends
`notifications/resources/updated` for the catalog's resources to subscribed clients.
With no server (the `call` command, tests that use the catalog alone) nobody listens and
an announcement does nothing, as publishing to no subscribers did before.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

Listener = Callable[[], Awaitable[None]]

_listeners: list[Listener] = []


def on_entries_changed(listener: Listener) -> None:
    """Call `listener` after entries are added or changed; registering it again is a no-op."""
    if listener not in _listeners:
        _listeners.append(listener)


async def entries_changed() -> None:
    """Tell every listener that catalog entries changed (listeners must not raise)."""
    for listener in list(_listeners):
        await listener()
