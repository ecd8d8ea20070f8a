"""Sentence windows: cut by time, stored with the chunks (and deleted with them), and
the one path that links a moment by meaning, for semantic_search_transcripts and the
knowledge tools alike, without embedding anything at query time."""

from __future__ import annotations

import shutil

from hypothesis import given
from hypothesis import strategies as st

from tests.calls import call_ok
from tests.helpers import DATA
from video_research.transcripts.parsers import Cue
from video_research.transcripts.windows import (
    WINDOW_SECONDS,
    WINDOW_STEP_SECONDS,
    WINDOWS,
    cut,
)

TIDES = "How tides make electricity [tIdEs_42xyz].en.vtt"


def test_windows_are_sized_by_time_not_by_lines():
    fast = [Cue(2.0 * n, 2.0 * n + 2, f"line {n}") for n in range(30)]  # 2 s a line
    slow = [Cue(9.0 * n, 9.0 * n + 9, f"line {n}") for n in range(8)]  # 9 s a line
    assert [w.start for w in cut(fast)][:3] == [0.0, 10.0, 20.0]
    assert all(w.end - w.start < WINDOW_SECONDS for w in cut(fast))
    assert len(cut(fast)[0].text.split("line")) - 1 == 10, "ten 2-second lines"
    assert [w.start for w in cut(slow)][:3] == [0.0, 9.0, 18.0], "one line later at least"
    assert cut(slow)[0].text == "line 0 line 1 line 2"
    assert cut([]) == []


@given(
    st.lists(
        st.tuples(
            st.floats(0.01, 40.0), st.text("abc xyz", min_size=1, max_size=30).filter(str.strip)
        ),
        min_size=1,
        max_size=60,
    )
)
def test_every_cue_is_in_a_window_and_windows_begin_at_most_a_step_apart(gaps):
    cues, at = [], 0.0
    for gap, text in gaps:
        cues.append(Cue(at, at + gap, text))
        at += gap
    windows = cut(cues)
    covered = set()
    for window in windows:
        covered.add(window.first_cue)
        covered.update(n for n, cue in enumerate(cues) if window.start <= cue.start <= window.end)
    assert covered >= {n for n, cue in enumerate(cues) if cue.text.strip()}
    for before, after in zip(windows, windows[1:], strict=False):
        assert after.first_cue > before.first_cue
        next_cue = after.first_cue == before.first_cue + 1
        assert after.start - before.start <= WINDOW_STEP_SECONDS or next_cue


async def test_windows_are_written_with_the_chunks_and_deleted_with_them(tmp_path):
    from video_research.knowledge.store import get_store
    from video_research.transcripts import indexer

    caption = tmp_path / TIDES
    shutil.copy(DATA / "transcripts" / "vtt" / TIDES, caption)
    await call_ok("index_transcript_files", {"path": str(tmp_path), "fetch_metadata": False})
    store = await get_store()
    cues = indexer.cues_of(await indexer.get_video("tIdEs_42xyz"))
    assert len(cues) == 14
    assert await store.count(WINDOWS) == len(cut(cues))
    shorter = caption.read_text().split("\n\n")[:-3]  # the last cues gone
    caption.write_text("\n\n".join(shorter) + "\n")
    await call_ok("index_transcript_files", {"path": str(tmp_path), "fetch_metadata": False})
    fewer = indexer.cues_of(await indexer.get_video("tIdEs_42xyz"))
    assert len(fewer) < len(cues)
    assert await store.count(WINDOWS) == len(cut(fewer)), "replaced, not added to"
    await indexer.delete_video("tIdEs_42xyz")
    assert await store.count(WINDOWS) == 0
