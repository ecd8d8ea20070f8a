"""Video sessions under a wall clock that jumps: the least recently used session is the one
evicted first, whatever the clock did between (issue 41, item 4)."""

from __future__ import annotations

from video_research.support import clock
from video_research.video.session_store import Session, SessionStore


def _session(title: str) -> Session:
    return Session(
        session_id="",
        source=f"https://youtu.be/{title}",
        video_uri=f"https://youtu.be/{title}",
        mime_type="video/mp4",
        video_title=title,
    )


async def test_a_clock_stepped_back_does_not_evict_the_session_just_used(tmp_path):
    store = SessionStore(
        str(tmp_path / "sessions.db"), timeout_hours=2, max_sessions=2, max_turns=10
    )
    try:
        older = await store.create(_session("older"))
        used = await store.create(_session("used"))
        clock.step(-3600)
        try:
            # `used` is used an hour "before" `older` was made, by the stepped clock
            turn = {"role": "user", "parts": [{"text": "what happens next?"}]}
            assert await store.add_turn(used.session_id, turn, turn) is not None
            # a third session evicts one: the least recently used, `older`
            await store.create(_session("newest"))
            assert await store.get(used.session_id) is not None
            assert await store.get(older.session_id) is None
        finally:
            clock.step(3600)
    finally:
        store.close()


async def test_a_clock_stepped_forward_expires_idle_sessions_by_their_timeout(tmp_path):
    store = SessionStore(
        str(tmp_path / "sessions.db"), timeout_hours=1, max_sessions=5, max_turns=10
    )
    try:
        session = await store.create(_session("idle"))
        assert await store.get(session.session_id) is not None
        clock.step(7200)
        try:
            assert await store.get(session.session_id) is None  # idle past its hour
        finally:
            clock.step(-7200)
    finally:
        store.close()
