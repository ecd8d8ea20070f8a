"""A local stub of the Gemini REST API (generativelanguage v1beta), for the real google-genai SDK.

It serves what the server uses: `models/{model}:generateContent`, `:batchEmbedContents`,
the resumable `upload/v1beta/files` protocol (start, chunked upload, finalize) and
`files/{id}` polling. Responses are built from the real samples in tests/data/api/gemini:
a thought part first (the server must strip it), grounding metadata when the request asked
for Google Search, URL-context metadata for UrlContext, and for structured output an
instance of the requested `responseJsonSchema`.

Tests script it per route: `stub.enqueue("generateContent", reply)` where a reply is a
JSON body, `Status(code, body)`, `Close()` (headers then half a body, then the socket
closes) or a callable `request -> reply`. Queued replies are used first, then the default.
Every request is recorded (`stub.requests`) with its path, headers (the API key
redacted) and JSON body. It listens on 127.0.0.1 and works for in-process clients and for
a spawned server alike (pass `stub.base_url` as GEMINI_BASE_URL).
"""

from __future__ import annotations

import base64
import copy
import hashlib
import json
import math
import re
import threading
import time
from collections import defaultdict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from tests.helpers import api_sample


@dataclass
class Status:
    """An HTTP error reply: `code` with a JSON `body` (e.g. a real error sample)."""

    code: int
    body: dict[str, Any]


@dataclass
class Close:
    """Send headers and part of a body, then drop the connection mid-response."""


@dataclass
class Recorded:
    method: str
    path: str
    route: str
    headers: dict[str, str]
    body: Any
    at: float = field(default_factory=time.monotonic)

    @property
    def model(self) -> str | None:
        match = re.search(r"models/([^:/]+):", self.path)
        return match.group(1) if match else None

    @property
    def generation_config(self) -> dict[str, Any]:
        return (self.body or {}).get("generationConfig", {})

    @property
    def parts(self) -> list[dict[str, Any]]:
        """Every content part, keys in the API's camelCase (the SDK sends some in snake_case)."""
        return [
            _camel(p) for c in (self.body or {}).get("contents", []) for p in c.get("parts", [])
        ]

    def inline_bytes(self, index: int = 0) -> bytes:
        """The decoded inlineData of part `index` (the SDK sends URL-safe base64)."""
        data = self.parts[index]["inlineData"]["data"]
        return base64.urlsafe_b64decode(data + "=" * (-len(data) % 4))

    @property
    def text(self) -> str:
        return "\n".join(p.get("text", "") for p in self.parts)


def _camel(value: Any) -> Any:
    if isinstance(value, dict):
        return {
            re.sub(r"_([a-z])", lambda m: m.group(1).upper(), k): _camel(v)
            for k, v in value.items()
        }
    return value


_UPLOAD = re.compile(r"/upload/v1(?:beta|alpha)?/files")
_FILE = re.compile(r"/v1(?:beta|alpha)?/files/([^/]+)")

Reply = dict[str, Any] | Status | Close | Callable[[Recorded], Any]

OVERLOADED = "error_503_unavailable_overloaded.json"
QUOTA = "error_429_resource_exhausted_quotafailure_retryinfo.json"
BAD_REQUEST = "error_400_invalid_argument_unknown_field.cookbook.json"


def error(sample: str, *, retry_delay: str | None = None) -> Status:
    """A real error sample as a reply; `retry_delay` rewrites its RetryInfo (e.g. "0.2s")."""
    body = copy.deepcopy(api_sample(f"gemini/{sample}"))
    if retry_delay is not None:
        for detail in body["error"].get("details", []):
            if detail.get("@type", "").endswith("RetryInfo"):
                detail["retryDelay"] = retry_delay
    return Status(body["error"]["code"], body)


def instance_of(schema: dict[str, Any], seed: str = "stub") -> Any:
    """A small instance that satisfies a (non-recursive) JSON schema."""
    if "anyOf" in schema:
        return instance_of(schema["anyOf"][0], seed)
    if "oneOf" in schema:
        return instance_of(schema["oneOf"][0], seed)
    if "allOf" in schema:
        merged: dict[str, Any] = {}
        for sub in schema["allOf"]:
            merged.update(sub)
        return instance_of(merged, seed)
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type", "object")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "object":
        props = schema.get("properties", {})
        return {name: instance_of(sub, f"{seed} {name}") for name, sub in props.items()}
    if kind == "array":
        count = max(1, schema.get("minItems", 1))
        return [instance_of(schema.get("items", {"type": "string"}), seed) for _ in range(count)]
    if kind == "string":
        if schema.get("format") == "date-time":
            return "2026-01-01T00:00:00Z"
        text = f"{seed} value"
        return text[: schema["maxLength"]] if "maxLength" in schema else text
    if kind == "integer":
        return int(schema.get("minimum", 1))
    if kind == "number":
        low, high = schema.get("minimum", 0.0), schema.get("maximum", 1.0)
        return round((low + high) / 2, 3) if high >= low else low
    if kind == "boolean":
        return True
    return None


def embedding(text: str, dims: int) -> list[float]:
    """A deterministic unit vector per text, so similarity tests are repeatable."""
    values = []
    counter = 0
    while len(values) < dims:
        digest = hashlib.sha256(f"{counter}:{text}".encode()).digest()
        values.extend((b - 127.5) / 127.5 for b in digest)
        counter += 1
    values = values[:dims]
    norm = math.sqrt(sum(v * v for v in values)) or 1.0
    return [v / norm for v in values]


class GeminiStub:
    def __init__(self) -> None:
        self.requests: list[Recorded] = []
        self.latency: float = 0.0
        self.file_states: dict[str, deque[str]] = {}
        """Per file id, the states files.get reports in turn (the last one repeats)."""
        self.default_file_states: list[str] = ["PROCESSING", "ACTIVE"]
        self._queues: dict[str, deque[Reply]] = defaultdict(deque)
        self._uploads: dict[str, dict[str, Any]] = {}
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, name="gemini-stub", daemon=True
        )

    # --- lifecycle ---
    def start(self) -> GeminiStub:
        self._thread.start()
        return self

    def stop(self) -> None:
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
        return [r for r in self.requests if r.route == route]

    def reset(self) -> None:
        with self._lock:
            self.requests.clear()
            self._queues.clear()
            self.file_states.clear()
            self.default_file_states = ["PROCESSING", "ACTIVE"]
            self.latency = 0.0

    def _next(self, route: str) -> Reply | None:
        with self._lock:
            queue = self._queues.get(route)
            return queue.popleft() if queue else None

    # --- default replies ---
    def generate_reply(self, request: Recorded) -> dict[str, Any]:
        config = request.generation_config
        schema = config.get("responseJsonSchema")
        if schema is not None:
            text = json.dumps(instance_of(schema))
        else:
            text = api_sample("gemini/generateContent_youtube_url.gemini-2.5-flash.json")[
                "candidates"
            ][0]["content"]["parts"][0]["text"]
        thought = api_sample(
            "gemini/generateContent_thinking_thought_parts.gemini-3-pro-preview.json"
        )
        thought_part = next(
            p for p in thought["candidates"][0]["content"]["parts"] if p.get("thought")
        )
        candidate: dict[str, Any] = {
            "content": {"parts": [copy.deepcopy(thought_part), {"text": text}], "role": "model"},
            "finishReason": "STOP",
            "index": 0,
        }
        tools = json.dumps((request.body or {}).get("tools", []))
        if "googleSearch" in tools or "google_search" in tools:
            grounded = api_sample(
                "gemini/generateContent_google_search_grounding.gemini-2.5-pro.json"
            )
            candidate["groundingMetadata"] = copy.deepcopy(
                grounded["candidates"][0]["groundingMetadata"]
            )
        if "urlContext" in tools or "url_context" in tools:
            with_url = api_sample("gemini/generateContent_url_context.gemini-2.5-flash.json")
            candidate["urlContextMetadata"] = copy.deepcopy(
                with_url["candidates"][0]["urlContextMetadata"]
            )
        return {
            "candidates": [candidate],
            "modelVersion": request.model or "gemini-stub",
            "usageMetadata": {
                "promptTokenCount": 10,
                "candidatesTokenCount": 20,
                "totalTokenCount": 30,
            },
        }

    def embed_reply(self, request: Recorded) -> dict[str, Any]:
        out = []
        for item in (request.body or {}).get("requests", []):
            text = " ".join(p.get("text", "") for p in item.get("content", {}).get("parts", []))
            dims = item.get("outputDimensionality") or 768
            out.append({"values": embedding(text, dims)})
        return {"embeddings": out}

    def file_resource(self, file_id: str, state: str | None = None) -> dict[str, Any]:
        """The File resource as files.get reports it; the state advances per call."""
        base = copy.deepcopy(api_sample("gemini/files_get_video_active.cookbook.json"))
        base.pop("videoMetadata", None)
        upload = self._uploads.get(file_id, {})
        if state is None:
            with self._lock:
                states = self.file_states.setdefault(file_id, deque(self.default_file_states))
                state = states.popleft() if len(states) > 1 else states[0]
        base.update(
            {
                "name": f"files/{file_id}",
                "uri": f"{self.base_url}/v1beta/files/{file_id}",
                "mimeType": upload.get("mimeType", base["mimeType"]),
                "sizeBytes": str(upload.get("size", 0)),
                "displayName": upload.get("displayName", file_id),
                "state": state,
            }
        )
        if state == "FAILED":
            base["error"] = {"code": 400, "message": "The video could not be processed."}
        return base

    # --- HTTP plumbing ---
    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # keep pytest output clean
                return

            def _body(self) -> bytes:
                length = int(self.headers.get("Content-Length") or 0)
                return self.rfile.read(length) if length else b""

            def _record(self, route: str, raw: bytes) -> Recorded:
                try:
                    body = json.loads(raw) if raw else None
                except ValueError:
                    body = {"_bytes": len(raw)}
                headers = {k.lower(): v for k, v in self.headers.items()}
                if "x-goog-api-key" in headers:
                    headers["x-goog-api-key"] = "[set]"
                record = Recorded(self.command, self.path, route, headers, body)
                with stub._lock:
                    stub.requests.append(record)
                return record

            def _send_json(
                self, code: int, body: Any, headers: dict[str, str] | None = None
            ) -> None:
                data = json.dumps(body).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json; charset=UTF-8")
                self.send_header("Content-Length", str(len(data)))
                for key, value in (headers or {}).items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(data)

            def _reply(
                self, route: str, record: Recorded, default: Callable[[Recorded], Any]
            ) -> None:
                if stub.latency:
                    time.sleep(stub.latency)
                reply = stub._next(route)
                if callable(reply) and not isinstance(reply, dict | Status | Close):
                    reply = reply(record)
                if reply is None:
                    reply = default(record)
                if isinstance(reply, Close):
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", "4096")
                    self.end_headers()
                    self.wfile.write(b'{"candidates": [{"content": {"parts": [{"text": "trunc')
                    self.wfile.flush()
                    self.close_connection = True
                    self.connection.shutdown(2)
                    return
                if isinstance(reply, Status):
                    self._send_json(reply.code, reply.body)
                    return
                self._send_json(200, reply)

            def do_POST(self) -> None:  # noqa: N802 - http.server naming
                raw = self._body()
                path = urlsplit(self.path).path
                if path.endswith(":generateContent"):
                    record = self._record("generateContent", raw)
                    self._reply("generateContent", record, stub.generate_reply)
                elif path.endswith(":batchEmbedContents"):
                    record = self._record("batchEmbedContents", raw)
                    self._reply("batchEmbedContents", record, stub.embed_reply)
                elif (
                    _UPLOAD.fullmatch(path) and self.headers.get("X-Goog-Upload-Command") == "start"
                ):
                    self._upload_start(raw)
                elif _UPLOAD.fullmatch(path):
                    self._upload_chunk(raw)
                else:
                    self._record("unknown", raw)
                    self._send_json(
                        404,
                        {
                            "error": {
                                "code": 404,
                                "message": f"stub: no route {path}",
                                "status": "NOT_FOUND",
                            }
                        },
                    )

            def _upload_start(self, raw: bytes) -> None:
                record = self._record("upload_start", raw)
                file_id = f"stub{len(stub._uploads) + 1:04d}"
                meta = (record.body or {}).get("file", {})
                stub._uploads[file_id] = {
                    "received": 0,
                    "size": int(
                        self.headers.get("X-Goog-Upload-Header-Content-Length")
                        or meta.get("sizeBytes")
                        or 0
                    ),
                    "mimeType": self.headers.get("X-Goog-Upload-Header-Content-Type")
                    or meta.get("mimeType"),
                    "displayName": meta.get("displayName"),
                }
                url = f"{stub.base_url}/upload/v1beta/files?upload_id={file_id}"
                self._send_json(
                    200, {}, {"X-Goog-Upload-URL": url, "X-Goog-Upload-Status": "active"}
                )

            def _upload_chunk(self, raw: bytes) -> None:
                file_id = parse_qs(urlsplit(self.path).query).get("upload_id", [""])[0]
                self._record("upload_chunk", b"")
                upload = stub._uploads.get(file_id)
                if upload is None:
                    self._send_json(
                        404,
                        {
                            "error": {
                                "code": 404,
                                "message": "unknown upload",
                                "status": "NOT_FOUND",
                            }
                        },
                    )
                    return
                upload["received"] += len(raw)
                if "finalize" not in (self.headers.get("X-Goog-Upload-Command") or ""):
                    self._send_json(200, {}, {"X-Goog-Upload-Status": "active"})
                    return
                resource = stub.file_resource(file_id, state="PROCESSING")
                self._send_json(200, {"file": resource}, {"X-Goog-Upload-Status": "final"})

            def do_GET(self) -> None:  # noqa: N802
                path = urlsplit(self.path).path
                match = _FILE.fullmatch(path)
                record = self._record("files.get" if match else "unknown", b"")
                if not match:
                    self._send_json(
                        404,
                        {
                            "error": {
                                "code": 404,
                                "message": "stub: no route",
                                "status": "NOT_FOUND",
                            }
                        },
                    )
                    return
                self._reply("files.get", record, lambda r: stub.file_resource(match.group(1)))

        return Handler
