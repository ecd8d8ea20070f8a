"""Sentences (transcripts/windows.py): each sentence of a transcript, timed, stored with
the chunks (and deleted with them), and the one path that links a moment to the sentence
that answers, for semantic_search_transcripts and the knowledge tools alike, without
embedding anything at query time."""

from __future__ import annotations

import shutil

from hypothesis import given
from hypothesis import strategies as st

from tests.calls import call_ok
from tests.helpers import DATA
from video_research.transcripts.parsers import Cue
from video_research.transcripts.windows import (
    SENTENCE_MAX_SECONDS,
    SENTENCE_PAUSE_SECONDS,
    WINDOWS,
    cut,
)

TIDES = "How tides make electricity [tIdEs_42xyz].en.vtt"


def test_a_sentence_ends_at_a_full_stop_a_pause_or_a_cap():
    cues = [
        Cue(0.0, 2.0, "Hello there."),
        Cue(2.1, 4.0, "This is a test"),
        Cue(4.1, 6.0, "of sentences."),
        Cue(6.1, 8.0, "No stop here"),
        Cue(8.0 + SENTENCE_PAUSE_SECONDS, 13.0, "so a pause ends it"),
    ]
    assert [(w.start, w.text) for w in cut(cues)] == [
        (0.0, "Hello there."),
        (2.1, "This is a test of sentences."),
        (6.1, "No stop here"),
        (11.0, "so a pause ends it"),
    ]
    endless = [Cue(2.0 * n, 2.0 * n + 2, f"word {n}") for n in range(30)]
    assert all(w.end - w.start <= SENTENCE_MAX_SECONDS + 2 for w in cut(endless))
    assert cut([]) == []


def test_a_line_of_several_sentences_is_cut_at_its_own_full_stops():
    """A podcast line lasting a minute: each sentence starts where its text is read at an
    even rate; Chinese full stops cut too."""
    line = "First point here. Second point follows! Does it hold? Yes it does."
    sentences = cut([Cue(10.0, 70.0, line), Cue(70.0, 72.0, "这是中文。第二句话！")])
    assert [w.text for w in sentences] == [
        "First point here.",
        "Second point follows!",
        "Does it hold?",
        "Yes it does.",
        "这是中文。",
        "第二句话！",
    ]
    starts = [w.start for w in sentences]
    assert starts == sorted(starts) and starts[0] == 10.0 and 10.0 < starts[1] < 20.0


@given(
    st.lists(
        st.tuples(
            st.floats(0.01, 40.0), st.text("abc xyz.!", min_size=1, max_size=30).filter(str.strip)
        ),
        min_size=1,
        max_size=60,
    )
)
def test_every_word_is_in_one_sentence_in_order(gaps):
    cues, at = [], 0.0
    for gap, text in gaps:
        cues.append(Cue(at, at + gap, text))
        at += gap
    sentences = cut(cues)
    assert " ".join(w.text for w in sentences).split() == " ".join(c.text for c in cues).split()
    assert [w.start for w in sentences] == sorted(w.start for w in sentences)
    assert all(w.end >= w.start for w in sentences)


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


async def test_a_paraphrase_links_to_the_sentence_that_answers(tmp_path):
    """The moment holds several sentences; a question sharing none of their words links
    to the one it asks about (the Rance station at 1:03), not to the moment's start, and
    the knowledge tools cite the same sentence."""
    shutil.copy(DATA / "transcripts" / "vtt" / TIDES, tmp_path / TIDES)
    await call_ok("index_transcript_files", {"path": str(tmp_path), "fetch_metadata": False})
    query = "which French power plant has been working since the sixties"
    found = await call_ok("semantic_search_transcripts", {"query": query, "k": 3})
    top = next(r for r in found["results"] if r["video_id"] == "tIdEs_42xyz")
    assert abs(top["match_time"] - 63.0) <= 2.0, top
    assert top["chunks"] >= 1 and top["start_time"] <= 63.0 <= top["end_time"]
    asked = await call_ok(
        "knowledge_search", {"query": query, "collections": ["TranscriptChunks"], "limit": 3}
    )
    cited = next(h for h in asked["results"] if h.get("video_id") == "tIdEs_42xyz")
    assert abs(cited["start_time"] - 63.0) <= 2.0, cited
