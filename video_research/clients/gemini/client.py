"""The Gemini client: the one module that talks to the Gemini API (google-genai).

Every Gemini call of every tool goes through `generate`, `generate_json`, `embed_content`
or `call_with_retry` (which `files`, `caching` and `batch` build on). They share one SDK
client per (key, endpoint, timeout), one retry policy and one error mapping:

- Retries are ours (tenacity), the SDK's are switched off: 429, 5xx, timeouts and
  dropped connections are retried with exponential backoff and jitter, waiting at least
  what the server's RetryInfo `retryDelay` asks for, within GEMINI_RETRY_MAX_ATTEMPTS and
  GEMINI_RETRY_MAX_DELAY. 400/403/404 fail at once: retrying cannot fix them.
- Failures leave this module as ToolFailure with a category, a
  hint, `retryable` and `retry_after_seconds`, so handlers never see an SDK exception.
- Thought parts are stripped: callers get only the user-visible text.

google-genai is imported inside the functions: importing this module costs nothing.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from video_research.clients.gemini.parts import (
    MEDIA_RESOLUTIONS,
    bytes_part,
    content,
    content_from_json,
    content_to_json,
    file_uri_part,
    text_part,
    user_content,
    with_media_resolution,
    with_video_metadata,
    youtube_part,
)
from video_research.config import Settings
from video_research.support.errors import ErrorCategory, ToolFailure, categorize_error
from video_research.support.services import Resource, current_services, current_settings

if TYPE_CHECKING:
    from video_research.support.schema_types.common.gemini import Usage

# The request's parts are `parts`'; callers build and send through this module.
__all__ = [
    "API_KEY_HINT",
    "MEDIA_RESOLUTIONS",
    "TOOL_NAMES",
    "Generation",
    "bytes_part",
    "call_with_retry",
    "client",
    "content",
    "content_from_json",
    "content_to_json",
    "embed_content",
    "file_uri_part",
    "generate",
    "generate_json",
    "generation_config",
    "interpret",
    "is_retryable",
    "parse_structured",
    "require_api_key",
    "schema_problems",
    "server_retry_delay",
    "text_part",
    "to_failure",
    "usage_summary",
    "user_content",
    "with_media_resolution",
    "with_video_metadata",
    "youtube_part",
]

logger = logging.getLogger(__name__)

TOOL_NAMES = ("google_search", "url_context")

API_KEY_HINT = (
    'Set GEMINI_API_KEY in the server\'s environment (for Claude Desktop or kryten-llm: the "env" block '
    "of the server's entry; or a VIDEO_RESEARCH_CONFIG file), then restart the server. "
    "Keys come from https://aistudio.google.com/apikey."
)

_RETRYABLE_STATUS = {408, 429, 500, 502, 503, 504}


@dataclass
class Generation:
    """What one generateContent call produced.

    `text` is the visible answer (thought parts removed); `content` is the model's whole
    Content as the API returned it (thought parts and thought signatures included), as a
    JSON dict: a conversation that sends it back sends Gemini exactly what it produced.
    """

    text: str
    model: str
    finish_reason: str | None = None
    grounding: dict[str, Any] = field(default_factory=dict)
    url_context: dict[str, Any] = field(default_factory=dict)
    usage: dict[str, Any] = field(default_factory=dict)
    content: dict[str, Any] | None = None

    @property
    def tokens(self) -> Usage:
        """Billed tokens in the shape tool results report (see `usage_summary`)."""
        return usage_summary(self.usage)


def usage_summary(usage: dict[str, Any]) -> Usage:
    """Gemini's usageMetadata as tool results report it.

    `prompt_tokens` counts the whole input, `cached_tokens` the part of it served from a
    context cache (billed at the cache rate), `uncached_prompt_tokens` the rest.
    """
    prompt = int(usage.get("prompt_token_count") or 0)
    cached = int(usage.get("cached_content_token_count") or 0)
    return {
        "prompt_tokens": prompt,
        "cached_tokens": cached,
        "uncached_prompt_tokens": max(0, prompt - cached),
        "output_tokens": int(usage.get("candidates_token_count") or 0),
        "thoughts_tokens": int(usage.get("thoughts_token_count") or 0),
        "total_tokens": int(usage.get("total_token_count") or 0),
    }


def require_api_key(settings: Settings | None = None) -> str:
    settings = settings or current_settings()
    key = settings.gemini_api_key.get_secret_value()
    if not key:
        raise ToolFailure(
            ErrorCategory.CONFIG_ERROR, "GEMINI_API_KEY is not set.", hint=API_KEY_HINT
        )
    return key


def _open_client(settings: Settings) -> Any:
    from google import genai
    from google.genai import types

    http_options = types.HttpOptions(
        base_url=settings.gemini_base_url or None,
        timeout=int(settings.gemini_timeout_seconds * 1000),
        api_version="v1beta",
        retry_options=types.HttpRetryOptions(attempts=1),  # retries are ours (tenacity)
    )
    return genai.Client(api_key=require_api_key(settings), http_options=http_options)


async def _close_client(made: Any) -> None:
    try:
        await made.aio.aclose()
    except Exception as exc:  # pragma: no cover - best effort at shutdown
        logger.debug("closing a Gemini client failed: %s", exc)


GEMINI_CLIENT: Resource[Any] = Resource(
    "gemini",
    key=lambda settings: (
        settings.gemini_api_key.get_secret_value(),
        settings.gemini_base_url,
        settings.gemini_timeout_seconds,
    ),
    open=_open_client,
    close=_close_client,
)


def client(settings: Settings | None = None) -> Any:
    """The shared SDK client for the settings in force (created on first use)."""
    settings = settings or current_services().settings
    require_api_key(settings)  # no key: a config_error, and nothing opened
    return current_services().get(GEMINI_CLIENT, settings)


# ----------------------------------------------------------------------------- errors


def _parse_duration(text: str) -> float | None:
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)s\s*", text or "")
    return float(match.group(1)) if match else None


def server_retry_delay(exc: BaseException) -> float | None:
    """The RetryInfo `retryDelay` of a Gemini error, in seconds, when it sent one."""
    details = getattr(exc, "details", None)
    if not isinstance(details, dict):
        details = getattr(exc, "body", None)  # the interactions client's errors carry `body`
    if not isinstance(details, dict):
        return None
    for detail in (details.get("error") or {}).get("details") or []:
        if isinstance(detail, dict) and str(detail.get("@type", "")).endswith("RetryInfo"):
            return _parse_duration(str(detail.get("retryDelay", "")))
    return None


def _is_transport_error(exc: BaseException) -> bool:
    """Timeouts and dropped connections of the SDK's HTTP stack (httpx2)."""
    if isinstance(exc, TimeoutError | ConnectionError):
        return True
    module = type(exc).__module__ or ""
    if module.startswith("google.genai") and type(exc).__name__ in {
        "APIConnectionError",
        "APITimeoutError",
    }:
        return True  # the interactions client's transport errors
    return module.startswith(("httpx", "httpcore")) and type(exc).__name__ in {
        "ConnectError",
        "ConnectTimeout",
        "ReadTimeout",
        "WriteTimeout",
        "PoolTimeout",
        "TimeoutException",
        "ReadError",
        "WriteError",
        "RemoteProtocolError",
        "NetworkError",
        "TransportError",
    }


def _code(exc: BaseException) -> Any:
    """The HTTP status of a google-genai error: `code`, or `status_code` (interactions)."""
    code = getattr(exc, "code", None)
    return code if isinstance(code, int) else getattr(exc, "status_code", None)


def is_retryable(exc: BaseException) -> bool:
    code = _code(exc)
    if (
        isinstance(code, int)
        and code in _RETRYABLE_STATUS
        and type(exc).__module__.startswith("google")
    ):
        return True
    return _is_transport_error(exc)


def to_failure(exc: BaseException) -> ToolFailure:
    """A ToolFailure for any error a Gemini call raised."""
    if isinstance(exc, ToolFailure):
        return exc
    code = _code(exc)
    if _is_transport_error(exc):
        return ToolFailure(
            ErrorCategory.NETWORK,
            f"Could not reach the Gemini API ({type(exc).__name__}: {exc}).",
            hint="Check connectivity (and GEMINI_BASE_URL if set), then retry.",
        )
    category, hint = categorize_error(exc)
    status = getattr(exc, "status", None)
    message = getattr(exc, "message", None) or str(exc)
    text = (
        f"Gemini API error {code} {status}: {message}" if code else f"Gemini call failed: {message}"
    )
    retry_after = server_retry_delay(exc)
    if retry_after is None and category is ErrorCategory.RATE_LIMITED:
        retry_after = 60
    return ToolFailure(
        category,
        text,
        hint=hint,
        retry_after_seconds=None if retry_after is None else max(1, round(retry_after)),
    )


async def _with_retry(operation: str, call: Any, settings: Settings) -> Any:
    """Run `call()` under the project's retry policy; raise ToolFailure when it gives up."""
    import tenacity

    exponential = tenacity.wait_exponential_jitter(
        initial=settings.retry_base_delay,
        max=settings.retry_max_delay,
        jitter=settings.retry_base_delay,
    )

    def wait(state: tenacity.RetryCallState) -> float:
        delay = exponential(state)
        exc = state.outcome.exception() if state.outcome else None
        asked = server_retry_delay(exc) if exc is not None else None
        if asked is not None:
            delay = max(delay, asked)
        return min(delay, settings.retry_max_delay)

    def log_retry(state: tenacity.RetryCallState) -> None:
        exc = state.outcome.exception() if state.outcome else None
        asked = server_retry_delay(exc) if exc is not None else None
        logger.warning(
            "Gemini %s attempt %d failed (%s); retrying in %.2f s%s",
            operation,
            state.attempt_number,
            getattr(exc, "code", None) or type(exc).__name__,
            state.upcoming_sleep,
            f" (server asked {asked:g} s)" if asked is not None else "",
        )

    retrying = tenacity.AsyncRetrying(
        stop=tenacity.stop_after_attempt(settings.retry_max_attempts),
        wait=wait,
        retry=tenacity.retry_if_exception(is_retryable),
        before_sleep=log_retry,
        reraise=True,
    )
    try:
        return await retrying(call)
    except asyncio.CancelledError:
        raise
    except Exception as exc:
        raise to_failure(exc) from exc


async def call_with_retry(operation: str, call: Any, settings: Settings | None = None) -> Any:
    """Run `await call()` (any SDK call, e.g. on `client().aio.interactions`) under this
    module's retry policy and error mapping: the result, or a ToolFailure. The other Gemini
    modules (files, caching, batch) and the Deep Research agent call through here, so every
    Gemini call retries and fails the same way."""
    return await _with_retry(operation, call, settings or current_settings())


# ----------------------------------------------------------------------------- generation


def generation_config(
    *,
    thinking_level: str | None = None,
    temperature: float | None = None,
    system_instruction: str | None = None,
    response_schema: dict[str, Any] | None = None,
    tools: tuple[str, ...] = (),
    media_resolution: str | None = None,
    cached_content: str | None = None,
    settings: Settings | None = None,
) -> Any:
    """The GenerateContentConfig of one request (also what batch requests carry).

    `media_resolution` is low, medium or high; `cached_content` the name of a context
    cache holding the start of the conversation (the API refuses a request that also
    sets a system instruction or tools, so those must live in the cache).
    """
    settings = settings or current_settings()
    return _config(
        thinking_level=thinking_level,
        temperature=temperature,
        system_instruction=system_instruction,
        response_schema=response_schema,
        tools=tools,
        media_resolution=media_resolution,
        cached_content=cached_content,
        settings=settings,
    )


def _config(
    *,
    thinking_level: str | None,
    temperature: float | None,
    system_instruction: str | None,
    response_schema: dict[str, Any] | None,
    tools: tuple[str, ...],
    settings: Settings,
    media_resolution: str | None = None,
    cached_content: str | None = None,
) -> Any:
    from google.genai import types

    unknown = set(tools) - set(TOOL_NAMES)
    if unknown:
        raise ValueError(f"unknown Gemini tools {unknown}")
    if cached_content and (system_instruction or tools):
        raise ValueError("a cached-content request cannot set a system instruction or tools")
    config: dict[str, Any] = {
        "temperature": settings.default_temperature if temperature is None else temperature,
        "thinking_config": types.ThinkingConfig(
            thinking_level=(thinking_level or settings.default_thinking_level).upper()
        ),
    }
    if system_instruction:
        config["system_instruction"] = system_instruction
    if response_schema is not None:
        config["response_mime_type"] = "application/json"
        config["response_json_schema"] = response_schema
    wired = []
    if "google_search" in tools:
        wired.append(types.Tool(google_search=types.GoogleSearch()))
    if "url_context" in tools:
        wired.append(types.Tool(url_context=types.UrlContext()))
    if wired:
        config["tools"] = wired
    if media_resolution:
        config["media_resolution"] = MEDIA_RESOLUTIONS[media_resolution]
    if cached_content:
        config["cached_content"] = cached_content
    return types.GenerateContentConfig(**config)


def _visible_text(response: Any) -> str:
    candidates = getattr(response, "candidates", None) or []
    if not candidates:
        return ""
    content = candidates[0].content
    parts = getattr(content, "parts", None) or []
    return "".join(
        part.text
        for part in parts
        if getattr(part, "text", None) and not getattr(part, "thought", False)
    )


def _dump(value: Any) -> dict[str, Any]:
    if value is None:
        return {}
    return value.model_dump(mode="json", exclude_none=True)


async def generate(
    contents: Any,
    *,
    model: str | None = None,
    thinking_level: str | None = None,
    temperature: float | None = None,
    system_instruction: str | None = None,
    response_schema: dict[str, Any] | None = None,
    tools: tuple[str, ...] = (),
    media_resolution: str | None = None,
    cached_content: str | None = None,
    settings: Settings | None = None,
) -> Generation:
    """One generateContent call with retries; the visible text, the model's whole content,
    grounding and usage metadata."""
    settings = settings or current_settings()
    sdk = client(settings)
    model = model or settings.default_model
    config = _config(
        thinking_level=thinking_level,
        temperature=temperature,
        system_instruction=system_instruction,
        response_schema=response_schema,
        tools=tools,
        media_resolution=media_resolution,
        cached_content=cached_content,
        settings=settings,
    )

    async def call() -> Any:
        return await sdk.aio.models.generate_content(model=model, contents=contents, config=config)

    response = await _with_retry(f"generate_content({model})", call, settings)
    return interpret(response, model)


def interpret(response: Any, model: str) -> Generation:
    """A GenerateContentResponse as a Generation; a blocked or empty answer is a ToolFailure.

    Shared by direct calls and the Batch API, so both apply the same checks.
    """
    feedback = getattr(response, "prompt_feedback", None)
    if feedback is not None and getattr(feedback, "block_reason", None):
        raise ToolFailure(
            ErrorCategory.INVALID_INPUT,
            f"Gemini blocked the request ({feedback.block_reason}).",
            hint="Rephrase the instruction or use other content; the safety filter rejected this request.",
        )
    candidate = (getattr(response, "candidates", None) or [None])[0]
    finish = str(getattr(candidate, "finish_reason", None) or "") or None
    if finish and "." in finish:
        finish = finish.rsplit(".", 1)[1]
    text = _visible_text(response)
    if not text.strip():
        raise ToolFailure(
            ErrorCategory.INTERNAL_ERROR,
            f"Gemini returned no text (finish reason {finish or 'unknown'}).",
            hint="Retry; if it keeps happening lower thinking_level or shorten the request "
            "(the model can spend its whole output budget thinking).",
            retryable=True,
        )
    content = getattr(candidate, "content", None)
    return Generation(
        text=text,
        model=model,
        finish_reason=finish,
        grounding=_dump(getattr(candidate, "grounding_metadata", None)),
        url_context=_dump(getattr(candidate, "url_context_metadata", None)),
        usage=_dump(getattr(response, "usage_metadata", None)),
        content=content_to_json(content) if content is not None else None,
    )


def _strip_fences(text: str) -> str:
    text = text.strip()
    if text.startswith("```"):
        text = re.sub(r"^```(?:json)?\s*", "", text)
        text = re.sub(r"\s*```$", "", text)
    return text


async def generate_json(
    contents: Any, *, schema: dict[str, Any], **kwargs: Any
) -> tuple[dict[str, Any], Generation]:
    """Structured output: the model's JSON object, checked against `schema`.

    `schema` goes to Gemini as `response_json_schema` and is enforced again here, so a
    caller never receives a shape other than the one it asked for.
    """
    generation = await generate(contents, response_schema=schema, **kwargs)
    return parse_structured(generation, schema), generation


def parse_structured(generation: Generation, schema: dict[str, Any]) -> dict[str, Any]:
    """The JSON object of a structured answer, checked against `schema` (ToolFailure if not)."""
    try:
        data = json.loads(_strip_fences(generation.text))
    except ValueError:
        raise ToolFailure(
            ErrorCategory.INTERNAL_ERROR,
            "Gemini returned malformed JSON for a structured request.",
            hint="Retry the call; structured output occasionally breaks on very long answers.",
            retryable=True,
        ) from None
    if not isinstance(data, dict):
        raise ToolFailure(
            ErrorCategory.INTERNAL_ERROR,
            f"Gemini returned a JSON {type(data).__name__}, not an object.",
            hint="Retry the call.",
            retryable=True,
        )
    problems = schema_problems(schema, data)
    if problems:
        raise ToolFailure(
            ErrorCategory.INTERNAL_ERROR,
            f"Gemini's answer does not match the requested schema at {problems[0]['path']}: {problems[0]['message']}",
            hint="Retry the call; if it persists, simplify the output schema.",
            retryable=True,
            details={"errors": problems},
        )
    return data


def schema_problems(schema: dict[str, Any], instance: Any, limit: int = 10) -> list[dict[str, str]]:
    from jsonschema import Draft202012Validator

    errors = sorted(Draft202012Validator(schema).iter_errors(instance), key=lambda e: e.json_path)
    return [{"path": e.json_path, "message": e.message[:300]} for e in errors[:limit]]


# ----------------------------------------------------------------------------- embeddings


async def embed_content(
    texts: list[str],
    *,
    model: str,
    output_dimensionality: int,
    task_type: str = "RETRIEVAL_DOCUMENT",
    settings: Settings | None = None,
) -> list[list[float]]:
    """One embedding per text from gemini-embedding (Matryoshka `output_dimensionality`)."""
    if not texts:
        return []
    settings = settings or current_settings()
    sdk = client(settings)
    from google.genai import types

    config = types.EmbedContentConfig(
        output_dimensionality=output_dimensionality, task_type=task_type
    )
    vectors: list[list[float]] = []
    for start in range(0, len(texts), 100):  # the API takes at most 100 per batch
        batch = texts[start : start + 100]

        async def call(batch: list[str] = batch) -> Any:
            return await sdk.aio.models.embed_content(model=model, contents=batch, config=config)

        response = await _with_retry(f"embed_content({model})", call, settings)
        vectors.extend(list(e.values or []) for e in response.embeddings or [])
    if len(vectors) != len(texts):
        raise ToolFailure(
            ErrorCategory.INTERNAL_ERROR,
            "Gemini returned fewer embeddings than texts.",
            retryable=True,
        )
    return vectors
