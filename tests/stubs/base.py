"""A scriptable local HTTP server, the base of the API stubs (Gemini, YouTube, ...).

A stub maps each request to a route name (`route`) and a default reply (`default`).
Tests script it per route with `enqueue(route, *replies)`; a reply is a JSON body (200),
`Status(code, body, headers)`, `Close()` (headers then half a body, then the socket
closes), `Stall(seconds)` (half a body, then nothing for that long) or a callable
`Recorded -> reply | None` (None = use the default). Every request is recorded with its
route, path, query, headers (credentials masked) and JSON body.

It listens on 127.0.0.1 in a daemon thread, so it serves in-process clients and spawned
servers alike (pass `base_url` to them).
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections import defaultdict, deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

_SECRET_HEADERS = {"x-goog-api-key", "authorization"}
_SECRET_PARAMS = {"key", "api_key", "access_token"}


@dataclass
class Status:
    """An HTTP reply with a status code, a JSON body and optional headers."""

    code: int
    body: Any
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Close:
    """Send headers and part of a body, then drop the connection mid-response."""


@dataclass
class Recorded:
    method: str
    path: str
    route: str
    query: dict[str, str]
    headers: dict[str, str]
    body: Any
    raw: bytes = b""
    credentials: dict[str, str] = field(default_factory=dict, repr=False)
    """The unmasked key/token values, for stubs that check them; never printed."""
    at: float = field(default_factory=time.monotonic)


@dataclass
class Stall:
    """Send headers and part of a body, then hold the connection open without sending the
    rest for `seconds` (a neighbour that hangs mid-response), then drop it."""

    seconds: float = 60.0


Reply = Any  # dict | list | Status | Close | Stall | Callable[[Recorded], Any]


class ScriptedStub:
    record_class: type[Recorded] = Recorded
    """What requests are recorded as; stubs subclass it to add accessors."""

    def __init__(self) -> None:
        self.requests: list[Recorded] = []
        self.latency: float = 0.0
        self._queues: dict[str, deque[Reply]] = defaultdict(deque)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, name=type(self).__name__, daemon=True
        )

    # --- to override ---
    def route(self, method: str, path: str, headers: dict[str, str]) -> str:
        raise NotImplementedError

    def default(self, record: Recorded) -> Reply:
        return Status(
            404,
            {
                "error": {
                    "code": 404,
                    "message": f"stub: no route for {record.path}",
                    "status": "NOT_FOUND",
                }
            },
        )

    # --- lifecycle ---
    def start(self):
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()  # stalled replies end now
        self._server.shutdown()
        self._server.server_close()

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    # --- scripting ---
    def enqueue(self, route: str, *replies: Reply) -> None:
        with self._lock:
            self._queues[route].extend(replies)

    def calls(self, route: str) -> list[Recorded]:
        with self._lock:
            return [r for r in self.requests if r.route == route]

    def reset(self) -> None:
        with self._lock:
            self.requests.clear()
            self._queues.clear()
        self.latency = 0.0

    def _next(self, route: str) -> Reply | None:
        with self._lock:
            queue = self._queues.get(route)
            return queue.popleft() if queue else None

    def reply_for(self, record: Recorded) -> Reply:
        reply = self._next(record.route)
        if callable(reply) and not isinstance(reply, dict | list | Status | Close | Stall):
            reply = reply(record)
        return self.default(record) if reply is None else reply

    # --- HTTP plumbing ---
    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
                return

            def _handle(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                parts = urlsplit(self.path)
                headers = {
                    k.lower(): ("[set]" if k.lower() in _SECRET_HEADERS else v)
                    for k, v in self.headers.items()
                }
                params = {
                    k: v[-1] for k, v in parse_qs(parts.query, keep_blank_values=True).items()
                }
                query = {k: ("[set]" if k in _SECRET_PARAMS else v) for k, v in params.items()}
                credentials = {k: v for k, v in params.items() if k in _SECRET_PARAMS}
                credentials.update(
                    {k.lower(): v for k, v in self.headers.items() if k.lower() in _SECRET_HEADERS}
                )
                try:
                    body = json.loads(raw) if raw else None
                except ValueError:
                    body = None
                route = stub.route(
                    self.command, parts.path, {k.lower(): v for k, v in self.headers.items()}
                )
                record = stub.record_class(
                    self.command, parts.path, route, query, headers, body, raw, credentials
                )
                with stub._lock:
                    stub.requests.append(record)
                if stub.latency:
                    time.sleep(stub.latency)
                self._send(stub.reply_for(record))

            def _send(self, reply: Reply) -> None:
                if isinstance(reply, Stall):
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", "4096")
                    self.end_headers()
                    with contextlib.suppress(OSError):  # the client may have gone already
                        self.wfile.write(b'{"partial": "respo')
                        self.wfile.flush()
                    stub._stop.wait(reply.seconds)
                    self.close_connection = True
                    with contextlib.suppress(OSError):
                        self.connection.shutdown(2)
                    return
                if isinstance(reply, Close):
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", "4096")
                    self.end_headers()
                    self.wfile.write(b'{"partial": "respo')
                    self.wfile.flush()
                    self.close_connection = True
                    self.connection.shutdown(2)
                    return
                status = reply if isinstance(reply, Status) else Status(200, reply)
                data = json.dumps(status.body).encode()
                self.send_response(status.code)
                self.send_header("Content-Type", "application/json; charset=UTF-8")
                self.send_header("Content-Length", str(len(data)))
                for key, value in status.headers.items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _handle  # noqa: N815 - http.server naming

        return Handler
