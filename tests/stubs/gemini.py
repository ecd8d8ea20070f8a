"""A local stub of the Gemini REST API (generativelanguage v1beta), for the real google-genai SDK.

It serves what the server uses: `models/{model}:generateContent`, `:batchEmbedContents`,
the resumable `upload/v1beta/files` protocol (start, chunked upload, finalize) and
`files/{id}` polling. Default replies are built from the real samples in
tests/data/api/gemini: a thought part first (the server must strip it), grounding
metadata when the request asked for Google Search, URL-context metadata for UrlContext,
and for structured output an instance of the requested `responseJsonSchema`.

Routes for `enqueue`: generateContent, batchEmbedContents, upload_start, upload_chunk,
files.get. Scripting and recording are those of tests/stubs/base.py.
"""

from __future__ import annotations

import base64
import copy
import hashlib
import json
import math
import re
import threading
from collections import deque
from typing import Any

from tests.helpers import api_sample
from tests.stubs.base import Close, Recorded, ScriptedStub, Status

__all__ = [
    "BAD_REQUEST",
    "OVERLOADED",
    "QUOTA",
    "Close",
    "GeminiStub",
    "GeminiRequest",
    "Status",
    "error",
]

OVERLOADED = "error_503_unavailable_overloaded.json"
QUOTA = "error_429_resource_exhausted_quotafailure_retryinfo.json"
BAD_REQUEST = "error_400_invalid_argument_unknown_field.cookbook.json"

_UPLOAD = re.compile(r"/upload/v1(?:beta|alpha)?/files")
_FILE = re.compile(r"/v1(?:beta|alpha)?/files/([^/]+)")


def _camel(value: Any) -> Any:
    if isinstance(value, dict):
        return {
            re.sub(r"_([a-z])", lambda m: m.group(1).upper(), k): _camel(v)
            for k, v in value.items()
        }
    return value


class GeminiRequest(Recorded):
    """A recorded Gemini request with accessors for what tests assert on."""

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
    for combinator in ("anyOf", "oneOf"):
        if combinator in schema:
            return instance_of(schema[combinator][0], seed)
    if "allOf" in schema:
        merged: dict[str, Any] = {}
        for sub in schema["allOf"]:
            merged = {
                **merged,
                **sub,
                "properties": {**merged.get("properties", {}), **sub.get("properties", {})},
            }
        return instance_of(merged, seed)
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type", "object")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "object":
        return {
            name: instance_of(sub, f"{seed} {name}")
            for name, sub in schema.get("properties", {}).items()
        }
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
    values: list[float] = []
    counter = 0
    while len(values) < dims:
        digest = hashlib.sha256(f"{counter}:{text}".encode()).digest()
        values.extend((b - 127.5) / 127.5 for b in digest)
        counter += 1
    values = values[:dims]
    norm = math.sqrt(sum(v * v for v in values)) or 1.0
    return [v / norm for v in values]


_SAMPLE_TEXT = api_sample("gemini/generateContent_youtube_url.gemini-2.5-flash.json")["candidates"][
    0
]["content"]["parts"][0]["text"]
_THOUGHT_PART = next(
    p
    for p in api_sample("gemini/generateContent_thinking_thought_parts.gemini-3-pro-preview.json")[
        "candidates"
    ][0]["content"]["parts"]
    if p.get("thought")
)
_GROUNDING = api_sample("gemini/generateContent_google_search_grounding.gemini-2.5-pro.json")[
    "candidates"
][0]["groundingMetadata"]
_URL_CONTEXT = api_sample("gemini/generateContent_url_context.gemini-2.5-flash.json")["candidates"][
    0
]["urlContextMetadata"]
_FILE_RESOURCE = api_sample("gemini/files_get_video_active.cookbook.json")


class GeminiStub(ScriptedStub):
    record_class = GeminiRequest

    def __init__(self) -> None:
        super().__init__()
        self.file_states: dict[str, deque[str]] = {}
        """Per file id, the states files.get reports in turn (the last one repeats)."""
        self.default_file_states: list[str] = ["PROCESSING", "ACTIVE"]
        self._uploads: dict[str, dict[str, Any]] = {}
        self._upload_lock = threading.Lock()

    def reset(self) -> None:
        super().reset()
        self.file_states.clear()
        self.default_file_states = ["PROCESSING", "ACTIVE"]

    def route(self, method: str, path: str, headers: dict[str, str]) -> str:
        if method == "POST" and path.endswith(":generateContent"):
            return "generateContent"
        if method == "POST" and path.endswith(":batchEmbedContents"):
            return "batchEmbedContents"
        if method == "POST" and _UPLOAD.fullmatch(path):
            return (
                "upload_start"
                if headers.get("x-goog-upload-command") == "start"
                else "upload_chunk"
            )
        if method == "GET" and _FILE.fullmatch(path):
            return "files.get"
        return "unknown"

    def default(self, request: GeminiRequest) -> Any:  # type: ignore[override]
        handler = {
            "generateContent": self.generate_reply,
            "batchEmbedContents": self.embed_reply,
            "upload_start": self.upload_start_reply,
            "upload_chunk": self.upload_chunk_reply,
            "files.get": lambda r: self.file_resource(_FILE.fullmatch(r.path).group(1)),
        }.get(request.route)
        return handler(request) if handler else super().default(request)

    # --- default replies ---
    def generate_reply(self, request: GeminiRequest) -> dict[str, Any]:
        schema = request.generation_config.get("responseJsonSchema")
        text = json.dumps(instance_of(schema)) if schema is not None else _SAMPLE_TEXT
        candidate: dict[str, Any] = {
            "content": {"parts": [copy.deepcopy(_THOUGHT_PART), {"text": text}], "role": "model"},
            "finishReason": "STOP",
            "index": 0,
        }
        tools = json.dumps((request.body or {}).get("tools", []))
        if "googleSearch" in tools or "google_search" in tools:
            candidate["groundingMetadata"] = copy.deepcopy(_GROUNDING)
        if "urlContext" in tools or "url_context" in tools:
            candidate["urlContextMetadata"] = copy.deepcopy(_URL_CONTEXT)
        return {
            "candidates": [candidate],
            "modelVersion": request.model or "gemini-stub",
            "usageMetadata": {
                "promptTokenCount": 10,
                "candidatesTokenCount": 20,
                "totalTokenCount": 30,
            },
        }

    def embed_reply(self, request: GeminiRequest) -> dict[str, Any]:
        out = []
        for item in (request.body or {}).get("requests", []):
            text = " ".join(p.get("text", "") for p in item.get("content", {}).get("parts", []))
            out.append({"values": embedding(text, item.get("outputDimensionality") or 768)})
        return {"embeddings": out}

    def upload_start_reply(self, request: GeminiRequest) -> Status:
        meta = (request.body or {}).get("file", {})
        with self._upload_lock:
            file_id = f"stub{len(self._uploads) + 1:04d}"
            self._uploads[file_id] = {
                "size": int(
                    request.headers.get("x-goog-upload-header-content-length")
                    or meta.get("sizeBytes")
                    or 0
                ),
                "mimeType": request.headers.get("x-goog-upload-header-content-type")
                or meta.get("mimeType"),
                "displayName": meta.get("displayName"),
                "received": 0,
            }
        url = f"{self.base_url}/upload/v1beta/files?upload_id={file_id}"
        return Status(200, {}, {"X-Goog-Upload-URL": url, "X-Goog-Upload-Status": "active"})

    def upload_chunk_reply(self, request: GeminiRequest) -> Status:
        file_id = request.query.get("upload_id", "")
        upload = self._uploads.get(file_id)
        if upload is None:
            return Status(
                404, {"error": {"code": 404, "message": "unknown upload", "status": "NOT_FOUND"}}
            )
        upload["received"] += len(request.raw)
        if "finalize" not in (request.headers.get("x-goog-upload-command") or ""):
            return Status(200, {}, {"X-Goog-Upload-Status": "active"})
        resource = self.file_resource(file_id, state="PROCESSING")
        return Status(200, {"file": resource}, {"X-Goog-Upload-Status": "final"})

    def file_resource(self, file_id: str, state: str | None = None) -> dict[str, Any]:
        """The File resource as files.get reports it; the state advances per call."""
        base = copy.deepcopy(_FILE_RESOURCE)
        base.pop("videoMetadata", None)
        upload = self._uploads.get(file_id, {})
        if state is None:
            with self._upload_lock:
                states = self.file_states.setdefault(file_id, deque(self.default_file_states))
                state = states.popleft() if len(states) > 1 else states[0]
        base.update(
            {
                "name": f"files/{file_id}",
                "uri": f"{self.base_url}/v1beta/files/{file_id}",
                "mimeType": upload.get("mimeType") or base["mimeType"],
                "sizeBytes": str(upload.get("size", 0)),
                "displayName": upload.get("displayName") or file_id,
                "state": state,
            }
        )
        if state == "FAILED":
            base["error"] = {"code": 400, "message": "The video could not be processed."}
        return base
