"""Sentence windows: cut by time, stored with the chunks (and deleted with them), and
the one path that links a moment by meaning, for semantic_search_transcripts and the
knowledge tools alike, without embedding anything at query time."""

from __future__ import annotations

import re
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


async def test_a_paraphrase_is_linked_by_stored_windows_without_embedding_them_again(tmp_path):
    """No query word is spoken in the moment, so it is linked by meaning: one embedding
    (the query) per search, the windows' vectors come from the store; knowledge_search
    links the same chunk to the same second through the same path."""
    from video_research.knowledge.store import get_store

    shutil.copy(DATA / "transcripts" / "vtt" / TIDES, tmp_path)
    await call_ok("index_transcript_files", {"path": str(tmp_path), "fetch_metadata": False})
    store = await get_store()
    embedder = store.embedder
    calls: list[tuple[int, str]] = []
    original = embedder.embed

    async def counted(texts, kind="document"):
        calls.append((len(texts), kind))
        return await original(texts, kind)

    embedder.embed = counted
    try:
        query = "dam across a river mouth with spinning blades in its gates"
        found = await call_ok("semantic_search_transcripts", {"query": query, "k": 3})
        top = found["results"][0]
        assert top["video_id"] == "tIdEs_42xyz"
        assert 45 <= top["match_time"] <= 63, top  # "A tidal barrage is a dam..." at 0:54
        assert calls == [(1, "query")], "the windows were embedded at index time"
        calls.clear()
        searched = await call_ok(
            "knowledge_search", {"query": query, "collections": ["TranscriptChunks"]}
        )
        assert searched["results"][0]["start_time"] == top["match_time"]
        assert calls == [(1, "query")]
    finally:
        del embedder.embed


async def test_every_video_of_the_results_is_linked_by_meaning_not_only_the_first_five(tmp_path):
    """Seven videos hold the passage, asked for in another language (no word in common):
    the best moment of each, the sixth and seventh video's too, links to it rather than
    to its chunk's start (0:00). Each take ends its lines with its own words: seven
    takes saying the same words would be one result with six repeats."""
    source = (DATA / "transcripts" / "vtt" / TIDES).read_text()
    videos = [f"tIdEs_{n:04d}ab"[:11] for n in range(7)]
    for n, video in enumerate(videos):
        take = re.sub(r"(?m)^([A-Z].*[.!?])$", rf"\1 Take {n}.", source)
        (tmp_path / f"Tides, take {n} [{video}].en.vtt").write_text(take)
    await call_ok("index_transcript_files", {"path": str(tmp_path), "fetch_metadata": False})
    query = "a Breton facility operating for decades"
    found = await call_ok("semantic_search_transcripts", {"query": query, "k": 10})
    linked: dict[str, float] = {}  # each video's best moment: its first result
    for result in found["results"]:
        linked.setdefault(result["video_id"], result["match_time"])
    assert len(linked) == 7, found["results"]
    assert all(50 <= second <= 66 for second in linked.values()), linked  # Rance at 1:03


def test_the_link_goes_to_a_passage_its_neighbours_agree_on_not_a_lone_peak():
    """One window scoring a hair above a passage that five overlapping windows match is
    the chance match; the passage is where the moment is."""
    from types import SimpleNamespace

    from video_research.transcripts.meaning import _best_window
    from video_research.transcripts.moments import TermMatcher
    from video_research.transcripts.windows import Scored

    cosines = {start: 0.3 for start in range(0, 400, 10)}
    cosines.update({90: 0.498, 100: 0.498, 110: 0.498, 120: 0.498, 130: 0.498})
    cosines[300] = 0.5858  # smoothed with its two 0.3 neighbours: 0.5000 against 0.498
    scored = [Scored(float(start), cosine, "") for start, cosine in sorted(cosines.items())]
    elsewhere = [SimpleNamespace(start=900.0, end=960.0, score=1.0)]
    assert _best_window(scored, elsewhere, TermMatcher([])) == 110.0


def _shifted(vtt: str, seconds: float) -> str:
    """The cue blocks of a WebVTT file, every time moved `seconds` later."""

    def moved(match: re.Match) -> str:
        h, m, s = match.groups()
        total = int(h) * 3600 + int(m) * 60 + float(s) + seconds
        return f"{int(total // 3600):02d}:{int(total % 3600 // 60):02d}:{total % 60:06.3f}"

    blocks = vtt.split("\n\n")[1:]  # the header first
    return re.sub(r"(\d\d):(\d\d):(\d\d\.\d\d\d)", moved, "\n\n".join(blocks))


async def test_linking_reads_only_the_windows_inside_the_moment(tmp_path):
    """A moment lasts at most 30 s, so its link by meaning is one of the few windows that
    start inside it (or a step before): those are read and scored, not every window of
    its video (reading those cost more than the search itself at 100k chunks)."""
    from video_research.knowledge.store import get_store

    tides = (DATA / "transcripts" / "vtt" / TIDES).read_text()
    rust = (DATA / "transcripts" / "vtt" / "rUsTbOrRoW1.vtt").read_text()
    lecture = tides.rstrip("\n") + "\n\n" + _shifted(rust, 130.0) + "\n"
    (tmp_path / "A long lecture [lOnGlEcTuRe].en.vtt").write_text(lecture)
    await call_ok("index_transcript_files", {"path": str(tmp_path), "fetch_metadata": False})
    store = await get_store()
    stored = await store.count(WINDOWS)
    read: list[float] = []
    original = store.near_vector

    async def spied(collection, vector, **options):
        hits = await original(collection, vector, **options)
        if collection == WINDOWS:
            read.extend(float(hit.properties["start_time"]) for hit in hits)
        return hits

    store.near_vector = spied
    try:
        query = "dam across a river mouth with spinning blades in its gates"
        found = await call_ok("semantic_search_transcripts", {"query": query, "k": 1})
    finally:
        del store.near_vector
    top = found["results"][0]
    assert 45 <= top["match_time"] <= 63, top  # "A tidal barrage is a dam..." at 0:54
    assert stored >= 25 and 1 <= len(read) <= 6, (stored, read)
    assert all(abs(start - top["match_time"]) <= 30 + WINDOW_STEP_SECONDS for start in read)
