"""One way the HTTP middlewares answer by themselves: a JSON error body.

The token gate (401), the role gate (403) and the drain (503) answer before the MCP app
sees the request; each sends the same shape of response, so it is built here once.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any


async def send_json(
    send: Any, status: int, payload: dict[str, Any], headers: Iterable[tuple[bytes, bytes]] = ()
) -> None:
    """Send `payload` as a complete `application/json` response with `status` on ASGI `send`."""
    body = json.dumps(payload).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                *headers,
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
