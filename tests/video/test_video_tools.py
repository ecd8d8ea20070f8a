"""video_analyze, video_batch_analyze and sessions through the dispatcher, against the stub."""

from __future__ import annotations

import json
import os

import pytest

from tests.calls import call_tool
from tests.stubs.gemini import BAD_REQUEST, error
from video_research.handlers.context import Caller
from video_research.support import contracts

URL = "https://youtu.be/dQw4w9WgXcQ"
CANON = "https://www.youtube.com/watch?v=dQw4w9WgXcQ"
OWNER = Caller(username="owner", role="admin", verified=True)


class Progress:
    def __init__(self):
        self.events = []

    async def __call__(self, done, total, message):
        self.events.append((done, total, message))


async def call(tool, arguments, progress=None):
    """A call as the owner, its progress recorded (the video tests read both)."""
    return await call_tool(tool, arguments, caller=OWNER, progress=progress or Progress())


def write_video(path, payload=b"", size=2048):
    path.write_bytes(payload + os.urandom(size))
    return path


async def test_youtube_analysis_request_and_cache(gemini_stub):
    first = await call("video_analyze", {"url": URL})
    assert first.error is None, first.error
    result = first.result
    assert (
        result["cached"] is False
        and result["content_id"] == "dQw4w9WgXcQ"
        and result["source"] == CANON
    )
    assert result["key_points"] and result["timestamps"]
    sent = gemini_stub.calls("generateContent")[-1]
    assert sent.parts[0]["fileData"]["fileUri"] == CANON
    assert "HIGH" in str(sent.generation_config["thinkingConfig"])
    assert sent.generation_config["responseJsonSchema"] == contracts.gemini_response_schema(
        "common/video_result.json"
    )

    again = await call("video_analyze", {"url": "https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=5"})
    assert again.result["cached"] is True
    assert len(gemini_stub.calls("generateContent")) == 1, "a cache hit must not call Gemini"

    fresh = await call("video_analyze", {"url": URL, "use_cache": False})
    assert fresh.result["cached"] is False
    other = await call("video_analyze", {"url": URL, "instruction": "List every song mentioned"})
    assert other.result["cached"] is False
    assert len(gemini_stub.calls("generateContent")) == 3


async def test_custom_output_schema(gemini_stub):
    schema = {
        "type": "object",
        "properties": {"recipes": {"type": "array", "items": {"type": "string"}}},
        "required": ["recipes"],
    }
    outcome = await call(
        "video_analyze", {"url": URL, "instruction": "List recipes", "output_schema": schema}
    )
    assert outcome.error is None, outcome.error
    assert outcome.result["recipes"] and outcome.result["cached"] is False
    assert (
        gemini_stub.calls("generateContent")[-1].generation_config["responseJsonSchema"] == schema
    )
    hit = await call(
        "video_analyze", {"url": URL, "instruction": "List recipes", "output_schema": schema}
    )
    assert hit.result["cached"] is True and "recipes" in hit.result


@pytest.mark.parametrize(
    ("schema", "needle"),
    [
        ({"type": "array"}, "object"),
        ({"type": "object", "properties": {"a": {"type": "bogus"}}}, "not a valid JSON Schema"),
    ],
)
async def test_invalid_output_schema_is_invalid_input(gemini_stub, schema, needle):
    outcome = await call("video_analyze", {"url": URL, "output_schema": schema})
    assert outcome.error.category == "invalid_input" and needle in outcome.error.error
    assert gemini_stub.calls("generateContent") == []


@pytest.mark.parametrize(
    ("arguments", "category"),
    [
        ({}, "invalid_input"),
        ({"url": URL, "file_path": "/tmp/x.mp4"}, "invalid_input"),
        ({"url": "https://youtube.com.evil.com/watch?v=dQw4w9WgXcQ"}, "invalid_input"),
        ({"url": "https://www.youtube.com/channel/UCxyz1234567"}, "invalid_input"),
        ({"file_path": "/definitely/not/here.mp4"}, "forbidden"),
    ],
)
async def test_bad_sources(gemini_stub, arguments, category):
    outcome = await call("video_analyze", arguments)
    assert outcome.error.category == category, outcome.error


async def test_local_files_are_confined_to_the_roots(gemini_stub, tmp_path):
    """Tests run with VIDEO_RESEARCH_FILE_ROOTS=tmp_path: missing inside, forbidden outside."""
    missing = await call("video_analyze", {"file_path": str(tmp_path / "missing.mp4")})
    assert missing.error.category == "not_found"
    outside = tmp_path.parent / f"{tmp_path.name}-outside.mp4"
    outside.write_bytes(b"SECRET")
    try:
        (tmp_path / "link.mp4").symlink_to(outside)
        for path in (tmp_path / "link.mp4", tmp_path / ".." / outside.name):
            outcome = await call("video_analyze", {"file_path": str(path)})
            assert outcome.error.category == "forbidden", path
            assert "VIDEO_RESEARCH_FILE_ROOTS" in outcome.error.hint
        batch = await call("video_batch_analyze", {"directory": str(tmp_path.parent)})
        assert batch.error.category == "forbidden"
    finally:
        outside.unlink()
    assert gemini_stub.calls("generateContent") == []


async def test_unsupported_extension(gemini_stub, tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("hello")
    outcome = await call("video_analyze", {"file_path": str(notes)})
    assert outcome.error.category == "unsupported_format" and ".mp4" in outcome.error.hint


async def test_small_local_file_goes_inline(gemini_stub, tmp_path):
    video = write_video(tmp_path / "clip.webm", b"CLIP")
    outcome = await call("video_analyze", {"file_path": str(video)})
    assert outcome.error is None, outcome.error
    sent = gemini_stub.calls("generateContent")[-1]
    assert sent.inline_bytes(0) == video.read_bytes()
    assert sent.parts[0]["inlineData"]["mimeType"] == "video/webm"
    assert len(outcome.result["content_id"]) == 16


async def test_large_local_file_goes_through_the_file_api(gemini_stub, tmp_path):
    video = tmp_path / "long.mp4"
    with video.open("wb") as handle:
        handle.truncate(21 * 1024 * 1024)
    outcome = await call("video_analyze", {"file_path": str(video)})
    assert outcome.error is None, outcome.error
    assert gemini_stub.calls("upload_start")
    file_data = gemini_stub.calls("generateContent")[-1].parts[0]["fileData"]
    assert file_data["fileUri"].startswith(gemini_stub.base_url)


async def test_without_api_key_every_gemini_tool_is_a_config_error(monkeypatch):
    outcome = await call("video_analyze", {"url": URL})
    assert outcome.error.category == "config_error"
    assert "GEMINI_API_KEY" in outcome.error.hint


async def test_batch_reports_failures_per_file_and_progress(gemini_stub, tmp_path):
    for name in ("a.mp4", "b.mov", "c.mkv"):
        write_video(tmp_path / name, name.encode())
    write_video(tmp_path / "bad.mp4", b"BADVIDEO")
    (tmp_path / "readme.txt").write_text("not a video")
    (tmp_path / "empty.avi").write_bytes(b"")

    def reply(request):
        return error(BAD_REQUEST) if request.inline_bytes(0).startswith(b"BADVIDEO") else None

    gemini_stub.enqueue("generateContent", *[reply] * 4)
    progress = Progress()
    outcome = await call("video_batch_analyze", {"directory": str(tmp_path)}, progress)
    assert outcome.error is None, outcome.error
    result = outcome.result
    assert result["total_files"] == 5 and result["succeeded"] == 3 and result["failed"] == 2
    by_name = {item["file_name"]: item for item in result["items"]}
    assert by_name["bad.mp4"]["error"]["category"] == "invalid_input"
    assert by_name["empty.avi"]["error"]["category"] == "unsupported_format"
    assert by_name["a.mp4"]["result"]["title"]
    assert any(s.endswith("readme.txt") for s in result["skipped"])
    assert [e[0] for e in progress.events] == [0, 1, 2, 3, 4, 5], "0/N before the first file"
    assert all(e[1] == 5 for e in progress.events)


async def test_batch_bad_directory_and_glob(gemini_stub, tmp_path):
    missing = await call("video_batch_analyze", {"directory": str(tmp_path / "nope")})
    assert missing.error.category == "not_found"
    escape = await call("video_batch_analyze", {"directory": str(tmp_path), "glob_pattern": "../*"})
    assert escape.error.category == "invalid_input"
    inside_a_name = await call(
        "video_batch_analyze", {"directory": str(tmp_path), "glob_pattern": "**.mp4"}
    )
    assert inside_a_name.error.category == "invalid_input"
    assert "whole path component" in inside_a_name.error.error
    no_user = await call("video_batch_analyze", {"directory": "~nosuchuser-vr/videos"})
    assert no_user.error.category == "invalid_input"
    empty = await call("video_batch_analyze", {"directory": str(tmp_path)})
    assert empty.result["total_files"] == 0


@pytest.mark.parametrize("caching", ["true", "false"])
async def test_session_lifecycle(gemini_stub, caching, configure):
    configure(GEMINI_SESSION_MAX_TURNS="2", GEMINI_CONTEXT_CACHE=caching)
    created = await call("video_create_session", {"url": URL, "description": "music video"})
    assert created.error is None, created.error
    session = created.result
    assert session["video_title"] and session["turn_count"] == 0
    assert session["context_cache"]["state"] == ("created" if caching == "true" else "off")
    for turn in range(1, 4):
        reply = await call(
            "video_continue_session",
            {"session_id": session["session_id"], "prompt": f"question {turn}"},
        )
        assert reply.error is None, reply.error
        assert reply.result["turn_count"] == turn
    # the answer names its video, so that a client can seek to the moments it mentions
    assert reply.result["source"] == CANON and reply.result["video_id"] == "dQw4w9WgXcQ"
    sent = gemini_stub.calls("generateContent")[-1]
    contents = sent.body["contents"]
    assert len(contents) == 1 + 2 * 2 + 1, "intro + history trimmed to session_max_turns + prompt"
    assert "Session purpose: music video" in json.dumps(contents[0])
    if caching == "true":
        assert sent.body["cachedContent"] == session["context_cache"]["name"]
        assert CANON not in json.dumps(sent.body), "the video comes from the cache"
        assert reply.result["usage"]["cached_tokens"] > 0
    else:
        assert CANON in json.dumps(contents[0]["parts"][0]), "the video stays attached"
        assert reply.result["usage"]["cached_tokens"] == 0
    assert "question 3" in json.dumps(contents[-1])


async def test_unknown_or_expired_session(gemini_stub):
    outcome = await call("video_continue_session", {"session_id": "0123456789ab", "prompt": "hi"})
    assert outcome.error.category == "not_found" and "video_create_session" in outcome.error.hint
    malformed = await call("video_continue_session", {"session_id": "../etc", "prompt": "hi"})
    assert malformed.error.category == "invalid_input"


async def test_max_sessions_evicts_the_least_recent(gemini_stub, configure):
    configure(GEMINI_MAX_SESSIONS="2")
    ids = [
        (await call("video_create_session", {"url": URL})).result["session_id"] for _ in range(3)
    ]
    gone = await call("video_continue_session", {"session_id": ids[0], "prompt": "hi"})
    assert gone.error.category == "not_found"
    kept = await call("video_continue_session", {"session_id": ids[2], "prompt": "hi"})
    assert kept.error is None


async def test_local_file_session_uploads_once(gemini_stub, tmp_path):
    video = write_video(tmp_path / "talk.mp4")
    created = (await call("video_create_session", {"file_path": str(video)})).result
    assert created["video_title"] == "talk"
    await call("video_continue_session", {"session_id": created["session_id"], "prompt": "one"})
    two = await call(
        "video_continue_session", {"session_id": created["session_id"], "prompt": "two"}
    )
    assert two.result["source"] == created["source"] and "video_id" not in two.result
    assert len(gemini_stub.calls("upload_start")) == 1
    cached = gemini_stub.calls("cachedContents.create")[-1].body
    assert "fileData" in json.dumps(cached["contents"]), "the uploaded video is in the cache"
    assert gemini_stub.calls("generateContent")[-1].body["cachedContent"]


async def test_session_title_comes_from_youtube_when_available(youtube_stub, gemini_stub):
    created = await call("video_create_session", {"url": "https://youtu.be/D-lhorsDlUQ"})
    assert created.result["video_title"] == "What are Actions on Google (Assistant on Air)"
    assert gemini_stub.calls("generateContent") == [], "no Gemini call needed for the title"
