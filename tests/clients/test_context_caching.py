"""Context caching: a session's video lives in a Gemini cachedContent, reused each turn,
renewed, recreated when it expired between turns, deleted when the session ends, shared
with analyses of the same video; silent fallback where Gemini will not cache."""

from __future__ import annotations

import json
import logging
import time

import pytest

from tests.stubs.gemini import OVERLOADED, error
from tests.video.test_video_tools import URL, call, write_video
from video_research.video import session_store as sessions


@pytest.fixture(autouse=True)
def quiet(configure):
    configure(KNOWLEDGE_WRITE_THROUGH="false")


async def open_session(tmp_path, name="talk.mp4", **extra):
    video = write_video(tmp_path / name)
    created = await call("video_create_session", {"file_path": str(video), **extra})
    assert created.error is None, created.error
    return created.result


async def ask(session_id, prompt="what happens?"):
    reply = await call("video_continue_session", {"session_id": session_id, "prompt": prompt})
    assert reply.error is None, reply.error
    return reply.result


async def test_turns_reuse_one_cache_and_report_cached_tokens(gemini_stub, tmp_path):
    session = await open_session(tmp_path)
    context = session["context_cache"]
    assert context["state"] == "created" and context["name"].startswith("cachedContents/")
    create = gemini_stub.calls("cachedContents.create")
    assert len(create) == 1 and create[0].body["ttl"] == "3600s"
    assert create[0].body["model"].endswith(session["model"])
    for n in range(3):
        reply = await ask(session["session_id"], f"question {n}")
        assert reply["context_cache"]["state"] == "used"
        assert reply["usage"]["cached_tokens"] == gemini_stub.caches[context["name"]]["tokens"]
        usage = reply["usage"]
        assert usage["uncached_prompt_tokens"] < usage["cached_tokens"] / 50, (
            "the talk, not the video"
        )
    assert len(gemini_stub.calls("cachedContents.create")) == 1
    for sent in gemini_stub.calls("generateContent"):
        assert sent.body["cachedContent"] == context["name"]
        assert "fileData" not in json.dumps(sent.body["contents"])
        assert "systemInstruction" not in sent.body and "tools" not in sent.body


async def test_a_cache_that_expired_between_turns_is_recreated(gemini_stub, tmp_path):
    session = await open_session(tmp_path)
    first = session["context_cache"]["name"]
    await ask(session["session_id"])
    gemini_stub.expire_cache(first)  # Gemini's TTL ran out; our record still says alive
    reply = await ask(session["session_id"], "and then?")
    assert reply["context_cache"]["state"] == "created"
    second = reply["context_cache"]["name"]
    assert second != first and second in gemini_stub.live_caches
    failed, retried = gemini_stub.calls("generateContent")[-2:]
    assert failed.body["cachedContent"] == first and retried.body["cachedContent"] == second
    assert reply["turn_count"] == 2 and reply["usage"]["cached_tokens"] > 0
    assert (await ask(session["session_id"]))["context_cache"] == {
        "state": "used",
        "name": second,
        "expires_at": reply["context_cache"]["expires_at"],
    }


async def test_a_locally_expired_cache_is_replaced_without_a_failed_call(gemini_stub, tmp_path):
    session = await open_session(tmp_path)
    await sessions.get_store().set_cache(
        session["session_id"], session["context_cache"]["name"], time.time() - 5
    )
    reply = await ask(session["session_id"])
    assert reply["context_cache"]["state"] == "created"
    assert len(gemini_stub.calls("generateContent")) == 1


async def test_a_cache_is_renewed_while_the_session_lives(gemini_stub, tmp_path):
    session = await open_session(tmp_path)
    name = session["context_cache"]["name"]
    await ask(session["session_id"])
    assert gemini_stub.calls("cachedContents.patch") == [], "plenty of TTL left: no renewal"
    soon = time.time() + 300  # under half the TTL left
    await sessions.get_store().set_cache(session["session_id"], name, soon)
    reply = await ask(session["session_id"])
    (patch,) = gemini_stub.calls("cachedContents.patch")
    assert patch.body["ttl"] == "3600s"
    assert gemini_stub.caches[name]["expire_at"] > soon + 3000
    assert reply["context_cache"]["state"] == "used"


async def test_an_ended_session_deletes_its_cache(gemini_stub, tmp_path, configure):
    configure(GEMINI_MAX_SESSIONS="1")
    first = await open_session(tmp_path, "one.mp4")
    name = first["context_cache"]["name"]
    assert name in gemini_stub.live_caches
    await open_session(tmp_path, "two.mp4")  # evicts the first session
    assert [c.path.rsplit("/", 2)[-2:] for c in gemini_stub.calls("cachedContents.delete")] == [
        name.split("/")
    ]
    assert name not in gemini_stub.live_caches
    gone = await call("video_continue_session", {"session_id": first["session_id"], "prompt": "x"})
    assert gone.error.category == "not_found"


@pytest.mark.parametrize("why", ["model", "too_small_for_gemini"])
async def test_falls_back_silently_where_gemini_will_not_cache(gemini_stub, tmp_path, why, caplog):
    caplog.set_level(logging.INFO, logger="video_research")
    if why == "model":
        from video_research.support.services import current_settings

        gemini_stub.uncacheable_models.add(current_settings().default_model)
    else:
        gemini_stub.min_cache_tokens = 10**9
    session = await open_session(tmp_path)
    assert session["context_cache"]["state"] == "unavailable"
    assert session["context_cache"]["reason"]
    for n in range(2):
        reply = await ask(session["session_id"], f"q{n}")
        assert reply["context_cache"]["state"] == "unavailable"
        assert reply["usage"]["cached_tokens"] == 0
        sent = gemini_stub.calls("generateContent")[-1]
        assert "cachedContent" not in sent.body
        assert "fileData" in sent.parts[0], "the video is sent instead"
    assert len(gemini_stub.calls("cachedContents.create")) == 1, "never retried for this session"
    assert "no context cache" in caplog.text


async def test_a_clip_known_to_be_too_short_is_never_sent_to_caching(gemini_stub, tmp_path):
    session = await open_session(
        tmp_path, start_offset=0, end_offset=3, fps=1, media_resolution="low"
    )
    assert session["context_cache"]["state"] == "unavailable"
    assert "below" in session["context_cache"]["reason"]
    assert gemini_stub.calls("cachedContents.create") == []


async def test_a_transient_failure_is_retried_on_the_next_turn(gemini_stub, tmp_path):
    gemini_stub.enqueue("cachedContents.create", *[error(OVERLOADED)] * 3)
    session = await open_session(tmp_path)
    assert session["context_cache"]["state"] == "unavailable"
    reply = await ask(session["session_id"])
    assert reply["context_cache"]["state"] == "created"


async def test_caching_can_be_switched_off(gemini_stub, tmp_path, configure):
    configure(GEMINI_CONTEXT_CACHE="false")
    session = await open_session(tmp_path)
    assert session["context_cache"] == {"state": "off"}
    assert (await ask(session["session_id"]))["context_cache"] == {"state": "off"}
    assert gemini_stub.calls("cachedContents.create") == []


async def test_an_analysis_of_the_same_video_reuses_a_live_cache(gemini_stub, tmp_path):
    session = await call("video_create_session", {"url": URL, "fps": 0.5})
    name = session.result["context_cache"]["name"]
    reused = await call("video_analyze", {"url": URL, "fps": 0.5, "instruction": "songs?"})
    assert reused.error is None, reused.error
    assert reused.result["context_cache"] == {"state": "used", "name": name}
    assert reused.result["usage"]["cached_tokens"] > 0
    sent = gemini_stub.calls("generateContent")[-1]
    assert sent.body["cachedContent"] == name and "responseJsonSchema" in sent.generation_config
    other = await call("video_analyze", {"url": URL, "instruction": "songs?"})
    assert other.result["context_cache"] == {"state": "off"}, "other sampling: other content"
    gemini_stub.expire_cache(name)
    fallback = await call("video_analyze", {"url": URL, "fps": 0.5, "instruction": "again"})
    assert fallback.error is None and fallback.result["context_cache"] == {"state": "off"}


async def test_infra_cache_lists_and_clears_context_caches(gemini_stub, tmp_path):
    one = await open_session(tmp_path, "one.mp4")
    two = await open_session(tmp_path, "two.mp4")
    listed = (await call("infra_cache", {"action": "context_list"})).result["contexts"]
    assert {c["name"] for c in listed} == {
        one["context_cache"]["name"],
        two["context_cache"]["name"],
    }
    assert all(c["token_count"] > 0 and not c["expired"] for c in listed)
    cleared = await call("infra_cache", {"action": "context_clear"})
    assert cleared.result["removed"] == 2
    assert gemini_stub.live_caches == []
    assert (await call("infra_cache", {"action": "context_list"})).result["contexts"] == []
    reply = await ask(one["session_id"])  # the session makes itself a new one
    assert reply["context_cache"]["state"] == "created"


async def test_sessions_from_before_this_version_still_work(gemini_stub, tmp_path, configure):
    """An older sessions.db (no model/cache columns, history as {role, text}) is migrated
    on open and its history is sent as text parts."""
    import sqlite3

    db = tmp_path / "old.db"
    with sqlite3.connect(db) as conn:
        conn.executescript(sessions._SCHEMA)
        conn.execute(
            "INSERT INTO sessions VALUES (?,?,?,?,?,?,?,?,?,?)",
            (
                "0123456789ab",
                URL,
                URL,
                "video/mp4",
                "Old title",
                "old",
                json.dumps([{"role": "user", "text": "hi"}, {"role": "model", "text": "hello"}]),
                1,
                time.time(),
                time.time(),
            ),
        )
    configure(GEMINI_SESSION_DB=str(db))
    reply = await ask("0123456789ab", "and now?")
    assert reply["turn_count"] == 2
    contents = gemini_stub.calls("generateContent")[-1].body["contents"]
    assert contents[1] == {"parts": [{"text": "hi"}], "role": "user"}
    assert contents[2] == {"parts": [{"text": "hello"}], "role": "model"}
