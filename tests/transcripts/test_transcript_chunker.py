"""The chunker's invariants, checked with hypothesis on generated transcripts: no words
lost (a cut falls only between words), whole cues only, times monotonic and exact,
token limits of the embedding model respected, overlap bounded, chapters never crossed.

Hypothesis runs under the profile tests/conftest.py selects (derandomized with a fixed
budget when CI is set); every failure it has found is pinned below as an @example."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from video_research.knowledge.embedders.embeddings import (
    default_token_counter,
    minilm_token_counter,
)
from video_research.transcripts.chunker import WORDS as A_WORD
from video_research.transcripts.chunker import Chapter, body_budget, chunk_cues
from video_research.transcripts.parsers import Cue, parse_file

FORMATS = Path(__file__).parent.parent / "data" / "transcripts" / "formats"

# The default model's SentencePiece pieces (it reads any length: no window), and
# MiniLM's WordPiece pieces with its 254-piece window, where the ceiling binds.
DEFAULT = default_token_counter()
MINILM = minilm_token_counter()
count = DEFAULT.count

WORDS = st.sampled_from(
    [
        "the",
        "borrow",
        "checker",
        "refuses",
        "programs",
        "sourdough",
        "starter",
        "tidal",
        "turbine",
        "électricité",
        "naïve",
        "café",
        "2024",
        "3.14",
        "don't",
        "C++",
        "x=1",
        "supercalifragilisticexpialidocious",
        "東京",
        "🙂",
    ]
)
CUE_TEXT = st.lists(WORDS, min_size=1, max_size=40).map(" ".join)


@st.composite
def transcripts(draw):
    texts = draw(st.lists(CUE_TEXT, min_size=0, max_size=60))
    cues, clock = [], 0.0
    for text in texts:
        clock += draw(st.floats(min_value=0, max_value=5))
        length = draw(st.floats(min_value=0, max_value=8))
        cues.append(Cue(round(clock, 3), round(clock + length, 3), text))
    return cues


@st.composite
def chapter_lists(draw):
    starts = sorted(set(draw(st.lists(st.integers(1, 200), max_size=4))))
    return [Chapter(0.0, "Intro")] + [Chapter(float(s), f"Part {s}") for s in starts]


@given(
    cues=transcripts(),
    chapters=st.one_of(st.just([]), chapter_lists()),
    target=st.integers(64, 254),
    overlap=st.integers(0, 60),
    title=st.sampled_from(
        ["", "Short title", "A much longer video title about borrow checkers " * 2]
    ),
)
# Found by hypothesis on a fresh clone: a caption longer than a chunk was cut between the
# model's word pieces, so "3.14" came back as "3." and "14".
@example(
    cues=[Cue(0.0, 60.0, " ".join(["3.14"] * 120))],
    chapters=[],
    target=64,
    overlap=0,
    title="",
)
@example(
    cues=[Cue(0.0, 30.0, "x=1 don't C++ " * 40), Cue(31.0, 32.0, "3.14")],
    chapters=[],
    target=64,
    overlap=10,
    title="Short title",
)
@example(
    cues=[Cue(0.0, 90.0, "東京" * 150 + " café naïve " + "東京" * 150)],
    chapters=[Chapter(0.0, "Intro")],
    target=80,
    overlap=20,
    title="",
)
# Found by hypothesis exploring locally: a long cue overlapping the next one (rolling
# captions) was cut into pieces timed past the next cue's start, so a later chunk
# started before an earlier one.
@example(
    cues=[
        Cue(0.0, 0.0, "the"),
        Cue(
            0.0,
            1.0,
            "the " * 11
            + "checker " * 3
            + "sourdough " * 5
            + "supercalifragilisticexpialidocious " * 3,
        ),
        Cue(0.0, 0.0, "the " * 32 + "supercalifragilisticexpialidocious " * 2),
    ],
    chapters=[],
    target=64,
    overlap=0,
    title="",
)
def test_chunk_invariants(cues, chapters, target, overlap, title):
    for tokens in (DEFAULT, MINILM):
        assert_invariants(cues, chapters, target, overlap, title, tokens)


@pytest.mark.parametrize(
    "path",
    sorted(p for p in FORMATS.iterdir() if not p.name.endswith(".info.json")),
    ids=lambda p: p.suffix,
)
def test_chunk_invariants_hold_for_every_format(path):
    """Every format's parsed cues (entities decoded, markup stripped, stamps read) chunk
    with the same invariants, at a chunk size small enough to cut their long captions."""
    cues = parse_file(path).cues
    assert cues, path.name
    assert not any("&gt;" in c.text or "&amp;" in c.text or "<" in c.text for c in cues)
    for tokens in (DEFAULT, MINILM):
        for target in (24, 64):
            assert_invariants(cues, [], target, target // 4, path.stem, tokens)


def assert_invariants(cues, chapters, target, overlap, title, tokens):
    overlap = min(overlap, target // 2)
    count = tokens.count
    chunks, fitted = chunk_cues(
        cues,
        title=title,
        chapters=chapters,
        target_tokens=target,
        overlap_tokens=overlap,
        tokens=tokens,
    )
    # No text lost, no word cut: the fitted cues hold exactly the words of the cues (a
    # word is a run without spaces, or one CJK character), and every one is in a chunk.
    assert A_WORD.findall(" ".join(c.text for c in fitted)) == A_WORD.findall(
        " ".join(c.text for c in cues)
    )
    covered = set()
    for chunk in chunks:
        covered.update(range(chunk.first_cue, chunk.last_cue + 1))
        # Whole cues only: the chunk text is exactly its cues, one per line.
        assert chunk.text.split("\n") == [
            c.text for c in fitted[chunk.first_cue : chunk.last_cue + 1]
        ]
        # Times are exact cue times.
        assert chunk.start == fitted[chunk.first_cue].start
        assert chunk.end == max(c.end for c in fitted[chunk.first_cue : chunk.last_cue + 1])
        assert chunk.start <= chunk.end
        # Token limits: the body fits its budget, so title + chapter + body fits the model.
        budget = body_budget(count(title), count(chunk.chapter or ""), target, tokens.window)
        assert count(chunk.text.replace("\n", " ")) <= budget
        assert chunk.tokens <= budget
        if tokens.window is not None and (title == "" or len(title) < 60):
            assert (
                count(" ".join(filter(None, [title, chunk.chapter, chunk.text]))) <= tokens.window
            )
    assert covered == set(range(len(fitted)))
    # Monotonic: chunks advance through the transcript, overlapping only backwards a little.
    for before, after in zip(chunks, chunks[1:], strict=False):
        assert after.first_cue > before.first_cue
        assert after.first_cue <= before.last_cue + 1
        assert after.start >= before.start
        repeated = fitted[after.first_cue : before.last_cue + 1]
        assert count(" ".join(c.text for c in repeated)) <= overlap
    # Chapters: a chunk's cues all belong to its chapter.
    for chunk in chunks:
        if chapters:
            owners = {
                max(
                    (ch for ch in chapters if ch.start <= c.start + 1e-6), key=lambda ch: ch.start
                ).title
                for c in fitted[chunk.first_cue : chunk.last_cue + 1]
            }
            assert owners == {chunk.chapter}
    assert [c.index for c in chunks] == list(range(len(chunks)))


def test_a_long_paragraph_is_cut_at_sentence_ends_when_it_can_be():
    sentence = "The tide turns the turbine twice a day near the estuary mouth. "
    paragraph = sentence * 30
    _, fitted = chunk_cues([Cue(0.0, 60.0, paragraph.strip())], target_tokens=100)
    assert len(fitted) > 1
    assert all(piece.text.endswith(".") for piece in fitted)
    assert " ".join(piece.text for piece in fitted) == paragraph.strip()


def test_a_word_longer_than_a_chunk_is_the_only_thing_cut_inside():
    giant = "-".join(["segment"] * 200)  # one run without spaces, hundreds of word pieces
    _, fitted = chunk_cues([Cue(0.0, 10.0, f"before {giant} after")], target_tokens=64)
    assert "".join(piece.text for piece in fitted).replace(" ", "") == f"before{giant}after"
    assert len(fitted) > 3
    assert all(count(piece.text) <= body_budget(0, 0, 64, None) for piece in fitted)


def test_an_oversized_cue_is_cut_at_word_boundaries_with_interpolated_times():
    words = " ".join(f"word{n}" for n in range(600))
    chunks, fitted = chunk_cues([Cue(10.0, 70.0, words)], target_tokens=200, overlap_tokens=0)
    assert len(fitted) > 1
    assert " ".join(c.text for c in fitted) == words
    assert fitted[0].start == 10.0 and fitted[-1].end == 70.0
    assert all(a.end == b.start for a, b in zip(fitted, fitted[1:], strict=False))
    assert all(count(c.text) <= 199 for c in fitted)


def test_chunks_carry_their_chapter_and_restart_at_a_new_one():
    cues = [
        Cue(float(s), float(s) + 4, f"sentence number {s} about topic") for s in range(0, 120, 5)
    ]
    chunks, _ = chunk_cues(
        cues, chapters=[Chapter(0, "Intro"), Chapter(60, "Main part")], target_tokens=64
    )
    assert {c.chapter for c in chunks} == {"Intro", "Main part"}
    first_main = next(c for c in chunks if c.chapter == "Main part")
    assert first_main.start == 60.0


def test_overlap_must_be_smaller_than_the_target():
    with pytest.raises(ValueError, match="overlap"):
        chunk_cues([Cue(0, 1, "hi")], target_tokens=100, overlap_tokens=100)


def test_empty_transcript_gives_no_chunks():
    assert chunk_cues([]) == ([], [])
