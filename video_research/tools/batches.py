"""A batch whose every item failed is an error, not a success with nothing in it.

A batch tool answers for each item: one bad file among ten fails alone and the call
succeeds. When every item it tried failed (no file analysed, no video indexed, no row
imported), a result with `failed: 3` and `isError: false` reads as success to an agent
that checks only the flag; the dispatcher answers a ToolError instead, whose
`details.failed` lists each item with its own error.

Each batch tool has a reader here: the result -> (how many items succeeded, the failed
items as {item, error, category, hint, retryable}; the indexing tools' keep their own
fields too: reason, file or video_id). A tool without a reader is not a batch.
Items skipped because they were already done (indexed, unchanged) count as succeeded.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

from video_research.support.errors import DEFAULT_HINTS, ErrorCategory, ToolFailure

Failed = dict[str, Any]
Reader = Callable[[dict[str, Any]], tuple[int, list[Failed]]]

# The `reason` of a transcript or media indexing failure, as its error category.
_REASON_CATEGORY: dict[str, ErrorCategory] = {
    "no_transcript": ErrorCategory.NOT_FOUND,
    "disabled": ErrorCategory.FORBIDDEN,
    "blocked": ErrorCategory.FORBIDDEN,
    "unavailable": ErrorCategory.NOT_FOUND,
    "age_restricted": ErrorCategory.FORBIDDEN,
    "network": ErrorCategory.NETWORK,
    "error": ErrorCategory.UNAVAILABLE,
    "unreadable": ErrorCategory.UNSUPPORTED_FORMAT,
    "forbidden": ErrorCategory.FORBIDDEN,
    "duplicate": ErrorCategory.CONFLICT,
    "too_large": ErrorCategory.TOO_LARGE,
    "not_media": ErrorCategory.UNSUPPORTED_FORMAT,
    "no_audio": ErrorCategory.UNSUPPORTED_FORMAT,
    "too_long": ErrorCategory.TOO_LARGE,
    "download": ErrorCategory.NETWORK,
}


def _from_tool_error(item: str, error: dict[str, Any] | None) -> Failed:
    error = error or {}
    return {
        "item": item,
        "error": str(error.get("error", "failed")),
        "category": str(error.get("category", ErrorCategory.INTERNAL_ERROR.value)),
        "hint": str(error.get("hint", "")),
        "retryable": bool(error.get("retryable", False)),
    }


def _analysis_batch(result: dict[str, Any]) -> tuple[int, list[Failed]]:
    """video_batch_analyze, content_batch_analyze: items with status ok/error."""
    failed = [
        _from_tool_error(str(it.get("file_path") or it.get("file_name", "?")), it.get("error"))
        for it in result.get("items", [])
        if it.get("status") == "error"
    ]
    return int(result.get("succeeded", 0)), failed


def _indexing_batch(result: dict[str, Any]) -> tuple[int, list[Failed]]:
    """index_transcript_files, index_media_files, index_channel_transcripts."""
    batch = result.get("batch") or {}
    failed = []
    for it in batch.get("failed", []):
        # An item made from a ToolFailure says its category; the others have a reason only.
        category = _REASON_CATEGORY.get(str(it.get("reason")), ErrorCategory.INTERNAL_ERROR)
        failed.append(
            {
                "item": str(it.get("file") or it.get("video_id") or "?"),
                "category": category.value,
                **it,  # reason, error, hint, retryable, file or video_id, maybe category
            }
        )
    done = int(batch.get("indexed_count", 0)) + int(batch.get("skipped_count", 0))
    return done, failed


def _document_ingest(result: dict[str, Any]) -> tuple[int, list[Failed]]:
    failed = [
        _from_tool_error(str(f.get("path", "?")), f.get("error"))
        for f in result.get("files", [])
        if f.get("status") == "failed"
    ]
    done = sum(int(result.get(k, 0)) for k in ("ingested", "updated", "unchanged"))
    return done, failed


def _listed(succeeded_key: str, item_key: str) -> Reader:
    """catalog_import, queue_add_videos, queue_apply_playlist: failed [{..., error}]."""

    def read(result: dict[str, Any]) -> tuple[int, list[Failed]]:
        failed = [
            {
                "item": str(f.get(item_key) or f.get("video_id") or "?"),
                "error": str(f.get("error", "")),
                "category": ErrorCategory.INVALID_INPUT.value,
                "hint": "",
                "retryable": False,
            }
            for f in result.get("failed", [])
        ]
        return int(result.get(succeeded_key, 0)), failed

    return read


READERS: dict[str, Reader] = {
    "video_batch_analyze": _analysis_batch,
    "content_batch_analyze": _analysis_batch,
    "index_transcript_files": _indexing_batch,
    "index_media_files": _indexing_batch,
    "index_channel_transcripts": _indexing_batch,
    "document_ingest": _document_ingest,
    "catalog_import": _listed("imported", "video_id"),
    "queue_add_videos": _listed("enqueued_count", "video_id"),
    "queue_apply_playlist": _listed("enqueued_count", "video_id"),
}

SHOWN = 5
"""Failed items named in the message; details.failed holds them all."""


def all_failed(tool: str, result: dict[str, Any]) -> ToolFailure | None:
    """The error for a batch result in which every item tried failed, else None."""
    reader = READERS.get(tool)
    if reader is None or not isinstance(result, dict):
        return None
    succeeded, failed = reader(result)
    if succeeded or not failed:
        return None
    return every_item_failed(failed)


def every_item_failed(failed: list[Failed]) -> ToolFailure:
    """One ToolFailure for items that all failed: their shared category (the most common
    one when they differ), retryable when any of them is, each listed in details.failed."""
    counts = Counter(f["category"] for f in failed)
    category = ErrorCategory(counts.most_common(1)[0][0])
    shown = "; ".join(f"{f['item']}: {f['error']}" for f in failed[:SHOWN])
    more = f" (and {len(failed) - SHOWN} more in details.failed)" if len(failed) > SHOWN else ""
    which = "its one item" if len(failed) == 1 else f"all {len(failed)} items"
    hints = {f["hint"] for f in failed if f["hint"]}
    if len(hints) == 1 and len(counts) == 1:
        hint = hints.pop()
    elif hints:
        hint = "Each item in details.failed has its own hint: act on those, then call again."
    else:
        hint = DEFAULT_HINTS[category]
    return ToolFailure(
        category,
        f"Nothing succeeded: {which} failed. {shown}{more}",
        hint=hint,
        retryable=any(f["retryable"] for f in failed),
        details={"failed": failed},
    )
