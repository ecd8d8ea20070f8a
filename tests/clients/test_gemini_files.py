"""File API upload reuse: one upload per content while it lives, checked before reuse,
uploaded again when expired, deleted or FAILED, and once for concurrent calls."""

from __future__ import annotations

import asyncio
import os

import pytest

from tests.video.test_video_tools import call
from video_research.clients.gemini import files as gemini_files
from video_research.support.errors import ToolFailure

LIMIT = 1024 * 1024
BIG = LIMIT + 4096  # above the inline limit: goes through the File API


@pytest.fixture(autouse=True)
def small_inline_limit(monkeypatch, configure):
    """Files over 1 MiB go through the File API here (20 MB in production), so the tests
    move megabytes, not tens of them."""
    from video_research.video import input as video_input

    monkeypatch.setattr(video_input, "INLINE_LIMIT_BYTES", LIMIT)
    configure(KNOWLEDGE_WRITE_THROUGH="false")  # not what these tests are about


def big_video(path, size=BIG, marker=b"") -> str:
    with path.open("wb") as handle:
        handle.write(marker + os.urandom(64))
        handle.truncate(size)
    return str(path)


async def test_a_large_file_is_uploaded_once_across_calls(gemini_stub, tmp_path):
    video = big_video(tmp_path / "talk.mp4")
    for n in range(3):
        outcome = await call("video_analyze", {"file_path": video, "instruction": f"question {n}"})
        assert outcome.error is None, outcome.error
    assert len(gemini_stub.calls("upload_start")) == 1
    assert gemini_stub.bytes_uploaded == BIG
    uris = {c.parts[0]["fileData"]["fileUri"] for c in gemini_stub.calls("generateContent")}
    assert len(uris) == 1
    # a renamed copy is the same content: still no new upload
    copy = tmp_path / "copy.mp4"
    copy.write_bytes((tmp_path / "talk.mp4").read_bytes())
    assert (await call("video_analyze", {"file_path": str(copy), "instruction": "x"})).error is None
    assert len(gemini_stub.calls("upload_start")) == 1
    # each reuse asked the File API whether the upload is still ACTIVE
    assert len(gemini_stub.calls("files.get")) >= 3


async def test_reuse_survives_a_restart(gemini_stub, services, tmp_path):
    """The registry is SQLite in the data dir: a new process (fresh in-memory state) reuses."""
    from video_research.clients.gemini import registry as gemini_registry

    video = big_video(tmp_path / "talk.mp4")
    await call("video_analyze", {"file_path": video, "instruction": "one"})
    await services.aclose()
    gemini_files._hashes.clear()
    assert not services.opened(gemini_registry.GEMINI_REGISTRY)
    await call("video_analyze", {"file_path": video, "instruction": "two"})
    assert len(gemini_stub.calls("upload_start")) == 1


@pytest.mark.parametrize("how", ["expired", "deleted", "failed"])
async def test_a_dead_upload_is_replaced(gemini_stub, tmp_path, how):
    video = big_video(tmp_path / "talk.mp4")
    await call("video_analyze", {"file_path": video, "instruction": "one"})
    (first,) = {c.parts[0]["fileData"]["fileUri"] for c in gemini_stub.calls("generateContent")}
    file_id = first.rsplit("/", 1)[-1]
    if how == "expired":
        gemini_stub.expire_file(file_id)
    elif how == "deleted":
        gemini_stub._uploads[file_id]["deleted"] = True
    else:
        gemini_stub.file_states[file_id] = __import__("collections").deque(["FAILED"])
    outcome = await call("video_analyze", {"file_path": video, "instruction": "two"})
    assert outcome.error is None, outcome.error
    assert len(gemini_stub.calls("upload_start")) == 2
    latest = gemini_stub.calls("generateContent")[-1].parts[0]["fileData"]["fileUri"]
    assert latest != first
    assert (await call("video_analyze", {"file_path": video, "instruction": "three"})).error is None
    assert len(gemini_stub.calls("upload_start")) == 2, "the new upload is remembered"


async def test_an_upload_expiring_soon_is_not_reused(gemini_stub, tmp_path, configure):
    configure(GEMINI_UPLOAD_REUSE_MARGIN=str(49 * 3600))  # longer than a file lives
    video = big_video(tmp_path / "talk.mp4")
    await call("video_analyze", {"file_path": video, "instruction": "one"})
    await call("video_analyze", {"file_path": video, "instruction": "two"})
    assert len(gemini_stub.calls("upload_start")) == 2


async def test_an_upload_that_turns_failed_is_a_clear_error(gemini_stub, tmp_path):
    gemini_stub.default_file_states = ["PROCESSING", "FAILED"]
    video = big_video(tmp_path / "broken.mp4")
    outcome = await call("video_analyze", {"file_path": video})
    assert outcome.error.category == "invalid_input"
    assert "could not process broken.mp4" in outcome.error.error
    assert "re-encode" in outcome.error.hint
    gemini_stub.default_file_states = ["ACTIVE"]
    again = await call("video_analyze", {"file_path": video})
    assert again.error is None, "a FAILED upload is never remembered"
    assert len(gemini_stub.calls("upload_start")) == 2


async def test_concurrent_calls_on_one_file_upload_once(gemini_stub, tmp_path):
    gemini_stub.latency = 0.05
    video = big_video(tmp_path / "talk.mp4")
    outcomes = await asyncio.gather(
        *(call("video_analyze", {"file_path": video, "instruction": f"q{n}"}) for n in range(4))
    )
    assert all(o.error is None for o in outcomes), [o.error for o in outcomes]
    assert len(gemini_stub.calls("upload_start")) == 1
    assert not gemini_files._locks, "per-hash locks are dropped once nobody holds them"


async def test_different_contents_upload_in_parallel(gemini_stub, tmp_path):
    a = big_video(tmp_path / "a.mp4", marker=b"A")
    b = big_video(tmp_path / "b.mp4", marker=b"B")
    outcomes = await asyncio.gather(
        call("video_analyze", {"file_path": a}), call("video_analyze", {"file_path": b})
    )
    assert all(o.error is None for o in outcomes)
    assert len(gemini_stub.calls("upload_start")) == 2


async def test_uploads_belong_to_their_api_key(gemini_stub, tmp_path, configure):
    video = big_video(tmp_path / "talk.mp4")
    await call("video_analyze", {"file_path": video, "instruction": "one"})
    configure(GEMINI_API_KEY="AIzaSyOTHER-key-000000000000000000000")
    await call("video_analyze", {"file_path": video, "instruction": "two"})
    assert len(gemini_stub.calls("upload_start")) == 2, "another key cannot see the upload"


async def test_files_get_errors_other_than_gone_are_raised(gemini_stub, tmp_path):
    from tests.stubs.gemini import OVERLOADED, error

    video = big_video(tmp_path / "talk.mp4")
    await call("video_analyze", {"file_path": video, "instruction": "one"})
    gemini_stub.enqueue("files.get", *[error(OVERLOADED)] * 5)
    with pytest.raises(ToolFailure) as info:
        await gemini_files.ensure_uploaded(
            tmp_path / "talk.mp4", "video/mp4", sha256=gemini_files.sha256_of(tmp_path / "talk.mp4")
        )
    assert info.value.category.value == "unavailable"
