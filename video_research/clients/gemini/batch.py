"""The Gemini Batch API as one awaitable: submit many GenerateContent requests as a job,
poll it with progress, collect a result or an error per request. Half the price of
direct calls; results usually within hours (Gemini's target is 24 h).

    from video_research import gemini, gemini_batch

    requests = [
        gemini_batch.BatchRequest(
            key="item-1",
            contents=[gemini.user_content(part, gemini.text_part(prompt))],
            config=gemini.generation_config(response_schema=schema, thinking_level="low"),
        ),
        ...
    ]
    run = await gemini_batch.run_batch(requests, model=model, progress=ctx.report_progress)
    for item in run.results:            # in request order, one per request
        if item.error is not None:      # a ToolFailure: that item failed alone
            ...
        else:
            data = gemini.parse_structured(item.generation, schema)   # a gemini.Generation
            item.generation.tokens                                     # billed tokens

- Each request is an inlined request (contents + GenerateContentConfig; the config's
  system instruction and tools travel with it). Keep requests small: refer to large
  media by File API URI (gemini_files.ensure_uploaded), not inline bytes; the whole job
  is limited to about 20 MB inline.
- `progress(done, total, message)` is called on every poll with the job state and the
  elapsed time in the message. `done` grows by one per poll and `total` is None while the
  job runs (the SDK exposes no per-item counts for the Gemini API); the last call, when
  the job has ended, has done == total. So the values always increase, as MCP progress
  notifications must.
- A per-request error (the job's inlined error, a blocked or empty answer) becomes that
  item's `error` (ToolFailure, categorised like direct calls); a failed, expired or
  cancelled job gives every item an error. Submission and polling failures raise.
- Cancelling the awaiting task cancels the Gemini job (shielded, so the cancel request
  is sent even while the task unwinds); so does GEMINI_BATCH_TIMEOUT.
- Polls every GEMINI_BATCH_POLL_INTERVAL seconds; every API call goes through the
  project's retry policy (tenacity).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from video_research.clients.gemini.client import Generation, call_with_retry, client, interpret
from video_research.config import Settings
from video_research.support.errors import ErrorCategory, ToolFailure, categorize_error
from video_research.support.services import current_settings

if TYPE_CHECKING:
    from video_research.support.schema_types.common.gemini import BatchJob

logger = logging.getLogger(__name__)

ProgressFn = Callable[[float, float | None, str | None], Awaitable[None]]

TERMINAL = {"SUCCEEDED", "FAILED", "CANCELLED", "EXPIRED", "PARTIALLY_SUCCEEDED"}


@dataclass(frozen=True)
class BatchRequest:
    key: str
    """The caller's id for this request, unique in the batch; echoed in its result."""
    contents: Any
    """What generate_content takes: a list of Contents (or parts, or text)."""
    config: Any = None
    """A GenerateContentConfig (gemini.generation_config(...)), or None."""


@dataclass
class BatchResult:
    key: str
    generation: Generation | None = None
    error: ToolFailure | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


@dataclass
class BatchRun:
    name: str
    """The job's resource name (batches/...); "" when there was nothing to submit."""
    state: str
    """SUCCEEDED, FAILED, CANCELLED, EXPIRED (the job's final state)."""
    results: list[BatchResult] = field(default_factory=list)

    def summary(self) -> BatchJob | None:
        """The job as tools report it (`batch_job`), or None when nothing was submitted."""
        if not self.name:
            return None
        return {"name": self.name, "state": self.state, "requests": len(self.results)}


def _state(job: Any) -> str:
    raw = str(getattr(job, "state", "") or "").rsplit(".", 1)[-1]
    for prefix in ("JOB_STATE_", "BATCH_STATE_"):
        if raw.startswith(prefix):
            return raw[len(prefix) :]
    return raw or "UNKNOWN"


class _ItemError(Exception):
    """An inlined response's error ({code, message, status}), for categorize_error."""

    def __init__(self, error: Any) -> None:
        data = error if isinstance(error, dict) else getattr(error, "__dict__", {}) or {}
        self.code = data.get("code")
        self.status = data.get("status")
        super().__init__(str(data.get("message") or error))


def _item_failure(error: Any) -> ToolFailure:
    exc = _ItemError(error)
    category, hint = categorize_error(exc)
    prefix = f"Gemini batch item failed ({exc.code} {exc.status or ''}".rstrip() + ")"
    return ToolFailure(category, f"{prefix}: {exc}", hint=hint)


async def run_batch(
    requests: Sequence[BatchRequest],
    *,
    model: str | None = None,
    display_name: str = "video-research",
    progress: ProgressFn | None = None,
    progress_start: float = 0,
    settings: Settings | None = None,
) -> BatchRun:
    """Submit `requests` as one Batch API job, wait for it, and return one result per
    request in order (see the module docstring). `progress_start` is added to every
    progress value (a caller that reported preparation steps continues from there)."""
    settings = settings or current_settings()
    if not requests:
        return BatchRun(name="", state="SUCCEEDED")
    keys = [r.key for r in requests]
    if len(set(keys)) != len(keys):
        raise ValueError("batch request keys must be unique")
    from google.genai import types

    sdk = client(settings)
    model = model or settings.default_model
    if progress is not None and progress_start:
        progress = _offset(progress, progress_start)
    inlined = [
        types.InlinedRequest(contents=r.contents, config=r.config, metadata={"key": r.key})
        for r in requests
    ]

    async def submit() -> Any:
        return await sdk.aio.batches.create(
            model=model,
            src=types.BatchJobSource(inlined_requests=inlined),
            config=types.CreateBatchJobConfig(display_name=display_name[:120]),
        )

    job = await call_with_retry(f"batches.create({model})", submit, settings)
    name = job.name
    logger.info("batch job %s submitted: %d requests to %s", name, len(requests), model)
    try:
        job, polls = await _wait(sdk, job, progress, settings)
    except BaseException:
        await asyncio.shield(_cancel(sdk, name, settings))
        raise
    state = _state(job)
    if progress is not None:
        await progress(polls + 1, polls + 1, f"batch job {name}: {state}")
    return BatchRun(name=name, state=state, results=_collect(job, requests, model, state))


def _offset(progress: ProgressFn, start: float) -> ProgressFn:
    async def shifted(done: float, total: float | None, message: str | None) -> None:
        await progress(start + done, None if total is None else start + total, message)

    return shifted


async def _wait(
    sdk: Any, job: Any, progress: ProgressFn | None, settings: Settings
) -> tuple[Any, int]:
    """The job once it ended, and how many progress reports were sent while waiting."""
    started = time.monotonic()
    deadline = started + settings.batch_timeout_seconds
    name = job.name
    polls = 0
    while _state(job) not in TERMINAL:
        elapsed = time.monotonic() - started
        polls += 1
        if progress is not None:
            await progress(polls, None, f"batch job {name}: {_state(job)} after {elapsed:.0f} s")
        if time.monotonic() >= deadline:
            raise ToolFailure(
                ErrorCategory.TIMEOUT,
                f"Batch job {name} did not finish within {settings.batch_timeout_seconds:g} s; "
                "it was cancelled.",
                hint="Use delivery 'direct', or raise GEMINI_BATCH_TIMEOUT.",
            )
        await asyncio.sleep(settings.batch_poll_interval_seconds)

        async def get() -> Any:
            return await sdk.aio.batches.get(name=name)

        job = await call_with_retry("batches.get", get, settings)
    return job, polls


async def _cancel(sdk: Any, name: str, settings: Settings) -> None:
    """Cancel the job (best effort: a job that already ended refuses, which is fine)."""

    async def cancel() -> Any:
        return await sdk.aio.batches.cancel(name=name)

    try:
        await call_with_retry("batches.cancel", cancel, settings)
        logger.info("batch job %s cancelled", name)
    except Exception as exc:
        logger.warning("cancelling batch job %s failed: %s", name, exc)


def _collect(
    job: Any, requests: Sequence[BatchRequest], model: str, state: str
) -> list[BatchResult]:
    if state not in ("SUCCEEDED", "PARTIALLY_SUCCEEDED"):
        failure = ToolFailure(
            ErrorCategory.UNAVAILABLE if state == "EXPIRED" else ErrorCategory.INTERNAL_ERROR,
            f"Gemini batch job {job.name} ended {state}; no result for this item.",
            hint="Retry with delivery 'direct', or submit again later.",
            retryable=state in ("EXPIRED", "FAILED"),
        )
        return [BatchResult(key=r.key, error=failure) for r in requests]
    responses = list(getattr(getattr(job, "dest", None), "inlined_responses", None) or [])
    by_key: dict[str, Any] = {}
    for index, item in enumerate(responses):
        key = (getattr(item, "metadata", None) or {}).get("key")
        if key is None and index < len(requests):
            key = requests[index].key
        by_key[str(key)] = item
    results = []
    for request in requests:
        item = by_key.get(request.key)
        if item is None:
            results.append(
                BatchResult(
                    key=request.key,
                    error=ToolFailure(
                        ErrorCategory.INTERNAL_ERROR,
                        f"Gemini batch job {job.name} returned no result for this item.",
                        retryable=True,
                    ),
                )
            )
            continue
        error = getattr(item, "error", None)
        if error is not None:
            results.append(BatchResult(key=request.key, error=_item_failure(error)))
            continue
        try:
            generation = interpret(item.response, model)
        except ToolFailure as failure:
            results.append(BatchResult(key=request.key, error=failure))
            continue
        generation.usage["batch"] = True
        results.append(BatchResult(key=request.key, generation=generation))
    return results
