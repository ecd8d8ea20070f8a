"""A local stub of the Gemini REST API (generativelanguage v1beta), for the real google-genai SDK.

It serves what the server uses: `models/{model}:generateContent`, `:batchEmbedContents`,
the resumable `upload/v1beta/files` protocol (start, chunked upload, finalize), `files`
(get, list, delete), `cachedContents` (create, get, list, patch, delete) and the Batch API
(`models/{model}:batchGenerateContent`, `batches/{id}` get and `:cancel`). Default replies
are built from the real samples in tests/data/api/gemini (files_*, cachedContents_*,
batch_results_*, generateContent_with_cachedContent, the thoughtSignature samples): a
thought part first (the server must strip it) and a thought signature on the answer part
(a faithful session must send it back), grounding metadata when the request asked for
Google Search, URL-context metadata for UrlContext, and for structured output an instance
of the requested `responseJsonSchema`.

Usage metadata is counted like Gemini's: text about 4 characters a token; a video part
`video_seconds` long (its VideoMetadata clip when given) at `fps` frames per second, 258
tokens a frame (66 at low media resolution) plus 32 audio tokens a second. A request
that names a cachedContent reports the cache's tokens as `cachedContentTokenCount`.
`bytes_uploaded` counts what the File API received.

Routes for `enqueue`: generateContent, batchEmbedContents, upload_start, upload_chunk,
files.get, files.list, files.delete, cachedContents.create/.get/.list/.patch/.delete,
batches.create, batches.get, batches.cancel, and batch.item (one per inlined request of
a batch, when the job completes: a reply dict, a `Status` error, or a callable).
Scripting and recording are those of tests/stubs/base.py.

Routes are a table (`Route(method, pattern, name, handler)`): another stub module adds
its own with `stub.add_route(...)` (or a subclass extends `routes()`), e.g. the
`interactions` routes of Deep Research.
"""

from __future__ import annotations

import base64
import copy
import hashlib
import itertools
import json
import math
import re
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
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

_V = r"/v1(?:beta|alpha)?"
_UPLOAD = re.compile(r"/upload/v1(?:beta|alpha)?/files")
_FILE = re.compile(_V + r"/files/([^/:]+)")


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
_CACHE_RESOURCE = api_sample("gemini/cachedContents_create.cookbook.json")
_SIGNED_PART = api_sample(
    "gemini/generateContent_thinking_thought_parts.gemini-3-pro-preview.json"
)["candidates"][0]["content"]["parts"][1]
SIGNATURE = _SIGNED_PART["thoughtSignature"]
"""The real thought signature the stub puts on every answer part."""
_BATCH_TYPE = "type.googleapis.com/google.ai.generativelanguage.v1main.GenerateContentBatch"

FILE_GONE = (
    403,
    "You do not have permission to access the File {id} or it may not exist.",
    "PERMISSION_DENIED",
)
CACHE_GONE = (403, "CachedContent not found (or permission denied)", "PERMISSION_DENIED")


def api_error(code: int, message: str, status: str) -> Status:
    return Status(code, {"error": {"code": code, "message": message, "status": status}})


def _rfc3339(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).isoformat().replace("+00:00", "Z")


def _seconds(duration: Any) -> float | None:
    if duration is None:
        return None
    return float(str(duration).rstrip("s"))


@dataclass
class Route:
    method: str
    pattern: re.Pattern[str]
    name: str
    handler: Callable[[Any, re.Match[str]], Any]
    when: Callable[[dict[str, str]], bool] | None = None


class GeminiStub(ScriptedStub):
    record_class = GeminiRequest

    def __init__(self) -> None:
        super().__init__()
        self._state_lock = threading.Lock()
        self._ids = itertools.count(1)
        self._routes: list[Route] = self.routes()
        self._reset_state()

    def _reset_state(self) -> None:
        self.file_states: dict[str, deque[str]] = {}
        """Per file id, the states files.get reports in turn (the last one repeats)."""
        self.default_file_states: list[str] = ["PROCESSING", "ACTIVE"]
        self._uploads: dict[str, dict[str, Any]] = {}
        self.caches: dict[str, dict[str, Any]] = {}
        """cachedContents/{id} -> {resource fields, tokens, expire_at}."""
        self.batches: dict[str, dict[str, Any]] = {}
        self.default_batch_states: list[str] = ["BATCH_STATE_RUNNING", "BATCH_STATE_SUCCEEDED"]
        """The states batches.get reports in turn (the last one repeats)."""
        self.video_seconds: float = 600.0
        """How long the stub takes every video to be (a clip's VideoMetadata overrides)."""
        self.min_cache_tokens: int = 1024
        self.uncacheable_models: set[str] = set()

    def reset(self) -> None:
        super().reset()
        with self._state_lock:
            self._reset_state()

    # --- routing ---
    def routes(self) -> list[Route]:
        """The route table; subclasses extend it, other modules call add_route."""
        h = self

        def upload_start(headers: dict[str, str]) -> bool:
            return headers.get("x-goog-upload-command") == "start"

        return [
            Route(
                "POST",
                re.compile(_V + r"/models/[^/:]+:generateContent"),
                "generateContent",
                lambda r, m: h.generate_reply(r),
            ),
            Route(
                "POST",
                re.compile(_V + r"/models/[^/:]+:batchEmbedContents"),
                "batchEmbedContents",
                lambda r, m: h.embed_reply(r),
            ),
            Route(
                "POST", _UPLOAD, "upload_start", lambda r, m: h.upload_start_reply(r), upload_start
            ),
            Route("POST", _UPLOAD, "upload_chunk", lambda r, m: h.upload_chunk_reply(r)),
            Route(
                "GET", re.compile(_V + r"/files"), "files.list", lambda r, m: h.files_list_reply()
            ),
            Route("GET", _FILE, "files.get", lambda r, m: h.file_get_reply(m.group(1))),
            Route("DELETE", _FILE, "files.delete", lambda r, m: h.file_delete_reply(m.group(1))),
            Route(
                "POST",
                re.compile(_V + r"/cachedContents"),
                "cachedContents.create",
                lambda r, m: h.cache_create_reply(r),
            ),
            Route(
                "GET",
                re.compile(_V + r"/cachedContents"),
                "cachedContents.list",
                lambda r, m: h.cache_list_reply(),
            ),
            Route(
                "GET",
                re.compile(_V + r"/(cachedContents/[^/:]+)"),
                "cachedContents.get",
                lambda r, m: h.cache_get_reply(m.group(1)),
            ),
            Route(
                "PATCH",
                re.compile(_V + r"/(cachedContents/[^/:]+)"),
                "cachedContents.patch",
                lambda r, m: h.cache_patch_reply(r, m.group(1)),
            ),
            Route(
                "DELETE",
                re.compile(_V + r"/(cachedContents/[^/:]+)"),
                "cachedContents.delete",
                lambda r, m: h.cache_delete_reply(m.group(1)),
            ),
            Route(
                "POST",
                re.compile(_V + r"/models/([^/:]+):batchGenerateContent"),
                "batches.create",
                lambda r, m: h.batch_create_reply(r, m.group(1)),
            ),
            Route(
                "GET",
                re.compile(_V + r"/(batches/[^/:]+)"),
                "batches.get",
                lambda r, m: h.batch_get_reply(m.group(1)),
            ),
            Route(
                "POST",
                re.compile(_V + r"/(batches/[^/:]+):cancel"),
                "batches.cancel",
                lambda r, m: h.batch_cancel_reply(m.group(1)),
            ),
        ]

    def add_route(
        self,
        method: str,
        pattern: str | re.Pattern[str],
        name: str,
        handler: Callable[[Any, re.Match[str]], Any],
        when: Callable[[dict[str, str]], bool] | None = None,
    ) -> None:
        """Serve another route (checked before the built-in ones); `handler(record, match)`
        returns a reply as `enqueue` takes them."""
        compiled = re.compile(pattern) if isinstance(pattern, str) else pattern
        self._routes.insert(0, Route(method, compiled, name, handler, when))

    def _match(
        self, method: str, path: str, headers: dict[str, str]
    ) -> tuple[Route, re.Match[str]] | None:
        for route in self._routes:
            if route.method != method:
                continue
            match = route.pattern.fullmatch(path)
            if match and (route.when is None or route.when(headers)):
                return route, match
        return None

    def route(self, method: str, path: str, headers: dict[str, str]) -> str:
        found = self._match(method, path, headers)
        return found[0].name if found else "unknown"

    def default(self, request: GeminiRequest) -> Any:  # type: ignore[override]
        found = self._match(request.method, request.path, request.headers)
        if found is None:
            return super().default(request)
        route, match = found
        return route.handler(request, match)

    # --- token accounting ---
    def _part_tokens(self, part: dict[str, Any], media_resolution: str | None) -> int:
        part = _camel(part)
        if "text" in part:
            return len(part["text"]) // 4 + 1
        media = part.get("fileData") or part.get("inlineData")
        if media is None:
            return 0
        mime = media.get("mimeType") or "video/mp4"
        if not (mime.startswith("video/") or "youtube" in str(media.get("fileUri", ""))):
            return 258
        meta = part.get("videoMetadata") or {}
        start = _seconds(meta.get("startOffset")) or 0.0
        end = _seconds(meta.get("endOffset"))
        seconds = max(0.0, (end if end is not None else self.video_seconds) - start)
        fps = float(meta.get("fps") or 1.0)
        level = (part.get("mediaResolution") or {}).get("level") or media_resolution or ""
        per_frame = 66 if level.endswith("LOW") else 258
        return int(seconds * fps * per_frame + seconds * 32)

    def tokens(self, contents: list[dict[str, Any]], media_resolution: str | None = None) -> int:
        return sum(
            self._part_tokens(p, media_resolution) for c in contents for p in c.get("parts", [])
        )

    # --- default replies ---
    def generate_reply(self, request: GeminiRequest) -> Any:
        body = request.body or {}
        schema = request.generation_config.get("responseJsonSchema")
        text = json.dumps(instance_of(schema)) if schema is not None else _SAMPLE_TEXT
        cached_tokens = 0
        if body.get("cachedContent"):
            cache = self._live_cache(body["cachedContent"])
            if cache is None:
                return api_error(*CACHE_GONE)
            cached_tokens = cache["tokens"]
        candidate: dict[str, Any] = {
            "content": {
                "parts": [
                    copy.deepcopy(_THOUGHT_PART),
                    {"text": text, "thoughtSignature": SIGNATURE},
                ],
                "role": "model",
            },
            "finishReason": "STOP",
            "index": 0,
        }
        tools = json.dumps(body.get("tools", []))
        if "googleSearch" in tools or "google_search" in tools:
            candidate["groundingMetadata"] = copy.deepcopy(_GROUNDING)
        if "urlContext" in tools or "url_context" in tools:
            candidate["urlContextMetadata"] = copy.deepcopy(_URL_CONTEXT)
        resolution = request.generation_config.get("mediaResolution")
        prompt = self.tokens(body.get("contents", []), resolution) + cached_tokens
        usage: dict[str, Any] = {
            "promptTokenCount": prompt,
            "candidatesTokenCount": len(text) // 4 + 1,
            "thoughtsTokenCount": 20,
            "totalTokenCount": prompt + len(text) // 4 + 21,
        }
        if cached_tokens:
            usage["cachedContentTokenCount"] = cached_tokens
        return {
            "candidates": [candidate],
            "modelVersion": request.model or "gemini-stub",
            "usageMetadata": usage,
        }

    def embed_reply(self, request: GeminiRequest) -> dict[str, Any]:
        out = []
        for item in (request.body or {}).get("requests", []):
            text = " ".join(p.get("text", "") for p in item.get("content", {}).get("parts", []))
            out.append({"values": embedding(text, item.get("outputDimensionality") or 768)})
        return {"embeddings": out}

    # --- files ---
    @property
    def bytes_uploaded(self) -> int:
        """Bytes the File API has received, over every upload since the last reset."""
        with self._state_lock:
            return sum(u["received"] for u in self._uploads.values())

    def upload_start_reply(self, request: GeminiRequest) -> Status:
        meta = _camel((request.body or {}).get("file", {}))
        with self._state_lock:
            file_id = f"stub{next(self._ids):04d}"
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
                "expire_at": time.time() + 48 * 3600,
                "deleted": False,
            }
        url = f"{self.base_url}/upload/v1beta/files?upload_id={file_id}"
        return Status(200, {}, {"X-Goog-Upload-URL": url, "X-Goog-Upload-Status": "active"})

    def upload_chunk_reply(self, request: GeminiRequest) -> Status:
        file_id = request.query.get("upload_id", "")
        upload = self._uploads.get(file_id)
        if upload is None:
            return api_error(404, "unknown upload", "NOT_FOUND")
        with self._state_lock:
            upload["received"] += len(request.raw)
        request.raw = b""  # counted; not kept (benchmarks upload hundreds of MB)
        if "finalize" not in (request.headers.get("x-goog-upload-command") or ""):
            return Status(200, {}, {"X-Goog-Upload-Status": "active"})
        resource = self.file_resource(file_id, state="PROCESSING")
        return Status(200, {"file": resource}, {"X-Goog-Upload-Status": "final"})

    def expire_file(self, name: str) -> None:
        """Make a file expire now (files.get then answers 403, as Gemini does)."""
        self._uploads[name.rsplit("/", 1)[-1]]["expire_at"] = time.time() - 1

    def _file_gone(self, file_id: str) -> bool:
        """Never uploaded, deleted, or expired: files.get answers 403, as Gemini does."""
        upload = self._uploads.get(file_id)
        return upload is None or upload["deleted"] or upload["expire_at"] <= time.time()

    def file_get_reply(self, file_id: str) -> Any:
        if self._file_gone(file_id):
            code, message, status = FILE_GONE
            return api_error(code, message.format(id=file_id), status)
        return self.file_resource(file_id)

    def file_delete_reply(self, file_id: str) -> Any:
        if self._file_gone(file_id):
            code, message, status = FILE_GONE
            return api_error(code, message.format(id=file_id), status)
        self._uploads[file_id]["deleted"] = True
        return {}

    def files_list_reply(self) -> dict[str, Any]:
        live = [f for f in list(self._uploads) if not self._file_gone(f)]
        return {"files": [self.file_resource(f, state="ACTIVE") for f in live]}

    def file_resource(self, file_id: str, state: str | None = None) -> dict[str, Any]:
        """The File resource as files.get reports it; the state advances per call."""
        base = copy.deepcopy(_FILE_RESOURCE)
        base.pop("videoMetadata", None)
        upload = self._uploads.get(file_id, {})
        if state is None:
            with self._state_lock:
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
        if "expire_at" in upload:
            base["expirationTime"] = _rfc3339(upload["expire_at"])
        if state == "FAILED":
            base["error"] = {"code": 400, "message": "The video could not be processed."}
        if state == "ACTIVE":
            base["videoMetadata"] = {"videoDuration": f"{self.video_seconds:g}s"}
        return base

    # --- cachedContents ---
    def _live_cache(self, name: str) -> dict[str, Any] | None:
        cache = self.caches.get(name)
        if cache is None or cache["expire_at"] <= time.time():
            return None
        return cache

    def expire_cache(self, name: str) -> None:
        """Make a cache expire now (as if its TTL ran out between two turns)."""
        self.caches[name]["expire_at"] = time.time() - 1

    def _cache_resource(self, name: str) -> dict[str, Any]:
        cache = self.caches[name]
        resource = copy.deepcopy(_CACHE_RESOURCE)
        resource.update(
            {
                "name": name,
                "model": cache["model"],
                "createTime": _rfc3339(cache["created"]),
                "updateTime": _rfc3339(cache["updated"]),
                "expireTime": _rfc3339(cache["expire_at"]),
                "displayName": cache["displayName"],
                "usageMetadata": {"totalTokenCount": cache["tokens"]},
            }
        )
        return resource

    def cache_create_reply(self, request: GeminiRequest) -> Any:
        body = request.body or {}
        model = body.get("model", "")
        if model.split("/")[-1] in self.uncacheable_models:
            return api_error(
                400, f"Model {model} does not support cached content.", "INVALID_ARGUMENT"
            )
        tokens = self.tokens(body.get("contents", []))
        if body.get("systemInstruction"):
            tokens += self.tokens([body["systemInstruction"]])
        if tokens < self.min_cache_tokens:
            return api_error(
                400,
                f"Cached content is too small. total_token_count={tokens}, "
                f"min_total_token_count={self.min_cache_tokens}",
                "INVALID_ARGUMENT",
            )
        ttl = _seconds(body.get("ttl")) or 3600.0
        now = time.time()
        with self._state_lock:
            name = f"cachedContents/stubcache{next(self._ids):04d}"
            self.caches[name] = {
                "model": model,
                "tokens": tokens,
                "created": now,
                "updated": now,
                "expire_at": now + ttl,
                "displayName": body.get("displayName", ""),
                "contents": body.get("contents", []),
            }
        return self._cache_resource(name)

    def cache_get_reply(self, name: str) -> Any:
        if self._live_cache(name) is None:
            return api_error(*CACHE_GONE)
        return self._cache_resource(name)

    def cache_list_reply(self) -> dict[str, Any]:
        return {
            "cachedContents": [self._cache_resource(n) for n in self.caches if self._live_cache(n)]
        }

    def cache_patch_reply(self, request: GeminiRequest, name: str) -> Any:
        cache = self._live_cache(name)
        if cache is None:
            return api_error(*CACHE_GONE)
        ttl = _seconds((request.body or {}).get("ttl"))
        if ttl is not None:
            cache["expire_at"] = time.time() + ttl
        cache["updated"] = time.time()
        return self._cache_resource(name)

    def cache_delete_reply(self, name: str) -> Any:
        if self._live_cache(name) is None:
            return api_error(*CACHE_GONE)
        del self.caches[name]
        return {}

    @property
    def live_caches(self) -> list[str]:
        return [n for n in self.caches if self._live_cache(n)]

    # --- batches ---
    def batch_create_reply(self, request: GeminiRequest, model: str) -> Any:
        batch = (request.body or {}).get("batch", {})
        inlined = batch.get("inputConfig", {}).get("requests", {}).get("requests", [])
        with self._state_lock:
            name = f"batches/stubbatch{next(self._ids):04d}"
            self.batches[name] = {
                "model": f"models/{model}",
                "displayName": batch.get("displayName", ""),
                "requests": inlined,
                "states": deque(self.default_batch_states),
                "state": "BATCH_STATE_PENDING",
                "created": time.time(),
                "output": None,
            }
        return self._operation(name)

    def batch_get_reply(self, name: str) -> Any:
        job = self.batches.get(name)
        if job is None:
            return api_error(404, f"Batch {name} not found.", "NOT_FOUND")
        if job["state"] not in ("BATCH_STATE_CANCELLED",):
            states = job["states"]
            job["state"] = states.popleft() if len(states) > 1 else states[0]
        if job["state"] == "BATCH_STATE_SUCCEEDED" and job["output"] is None:
            job["output"] = [self._batch_item(job, item) for item in job["requests"]]
        return self._operation(name)

    def batch_cancel_reply(self, name: str) -> Any:
        job = self.batches.get(name)
        if job is None:
            return api_error(404, f"Batch {name} not found.", "NOT_FOUND")
        if job["state"] in ("BATCH_STATE_SUCCEEDED", "BATCH_STATE_FAILED"):
            return api_error(400, f"Batch {name} has already finished.", "FAILED_PRECONDITION")
        job["state"] = "BATCH_STATE_CANCELLED"
        return {}

    def _batch_item(self, job: dict[str, Any], item: dict[str, Any]) -> dict[str, Any]:
        inner = GeminiRequest(
            "POST",
            f"/v1beta/{job['model']}:generateContent",
            "batch.item",
            {},
            {},
            item.get("request", {}),
        )
        with self._lock:
            self.requests.append(inner)
        reply = self.reply_for(inner) if self._queues.get("batch.item") else None
        if reply is None:
            reply = self.generate_reply(inner)
        metadata = item.get("metadata", {})
        if isinstance(reply, Status):
            error = reply.body.get("error", {}) if isinstance(reply.body, dict) else {}
            # a batch item's error is a bare google.rpc.Status: code, message, status
            error = {k: error[k] for k in ("code", "message", "status") if k in error}
            return {"error": error, "metadata": metadata}
        return {"response": reply, "metadata": metadata}

    def _operation(self, name: str) -> dict[str, Any]:
        job = self.batches[name]
        total = len(job["requests"])
        outputs = job["output"] or []
        failed = sum(1 for o in outputs if "error" in o)
        metadata: dict[str, Any] = {
            "@type": _BATCH_TYPE,
            "model": job["model"],
            "displayName": job["displayName"],
            "createTime": _rfc3339(job["created"]),
            "updateTime": _rfc3339(time.time()),
            "state": job["state"],
            "name": name,
            "batchStats": {
                "requestCount": str(total),
                "successfulRequestCount": str(len(outputs) - failed),
                "failedRequestCount": str(failed),
                "pendingRequestCount": str(total - len(outputs)),
            },
        }
        operation: dict[str, Any] = {"name": name, "metadata": metadata}
        if job["output"] is not None:
            output = {"inlinedResponses": {"inlinedResponses": job["output"]}}
            metadata["output"] = output
            metadata["endTime"] = _rfc3339(time.time())
            operation["done"] = True
            operation["response"] = {"@type": _BATCH_TYPE + "Output", **output}
        elif job["state"] in ("BATCH_STATE_CANCELLED", "BATCH_STATE_FAILED", "BATCH_STATE_EXPIRED"):
            operation["done"] = True
        return operation
