"""The mixed-media eval set (tests/eval/mixed_media*.py) says what it claims: each query's
answer exists, literal queries are said word for word and slide queries are shown only on
their slide; and the generator's labels line up with the audio it makes (each labelled
sentence start is where the joined file's audio, decoded as the server decodes it, turns
from silence to speech after the clips were joined with `-c copy`). The last one needs espeak-ng and skips without it."""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pytest

from tests.eval import mixed_media, mixed_media_make
from tests.eval.mixed_media_set import LECTURES
from video_research.media import speech


def _places() -> dict[str, tuple[str, str]]:
    """answer id -> (lecture, text) from the set's content alone (nothing generated)."""
    found = {}
    for lecture in LECTURES:
        for n, slide in enumerate(lecture.slides, start=1):
            found[f"{lecture.name}/slide{n}"] = (lecture.name, " ".join(slide.lines))
            for m, text in enumerate(slide.said, start=1):
                found[f"{lecture.name}/{n}.{m}"] = (lecture.name, text)
    return found


def _rows() -> list[dict]:
    return [json.loads(line) for line in mixed_media.QUERIES.read_text().splitlines() if line]


def test_every_query_names_an_answer_of_its_style():
    places = _places()
    rows = _rows()
    assert len({row["id"] for row in rows}) == len(rows)
    counts = Counter(row["style"] for row in rows)
    assert set(counts) == set(mixed_media.STYLES) and min(counts.values()) >= 5, counts
    spoken = {
        lecture.name: mixed_media._fold(" ".join(t for s in lecture.slides for t in s.said))
        for lecture in LECTURES
    }
    fold = mixed_media._fold
    for row in rows:
        if row["style"] == "no-answer":
            assert row["answer"] is None, row
            continue
        lecture, text = places[row["answer"]]
        if row["style"] == "literal":
            assert fold(row["query"]) in fold(text), row
        if row["style"] == "slide":
            assert "/slide" in row["answer"] and fold(row["query"]) in fold(text), row
            assert fold(row["query"]) not in spoken[lecture], row  # shown only, never said


def _loudest(pcm: np.ndarray, start: float, end: float) -> float:
    part = pcm[max(0, int(start * 16000)) : int(end * 16000)]
    return float(np.abs(part).max()) if len(part) else 0.0


@pytest.mark.skipif(bool(mixed_media_make.missing_tools()), reason="needs espeak-ng and fonts")
def test_the_labels_line_up_with_the_generated_audio(tmp_path, monkeypatch):
    # small pictures: the timeline does not depend on their size, the encoding time does
    monkeypatch.setattr(mixed_media_make, "SIZE", (320, 180))
    # two lectures: one switching voice halfway with a long pause, one with captions beside
    folder = mixed_media_make.build(tmp_path / "set", only=("solar_power", "le_sommeil"))
    truth = json.loads((folder / "truth.json").read_text())
    assert set(truth) == {"solar_power", "le_sommeil"}
    for name, said in truth.items():
        # the server's own decoder, which lays each audio frame at its presentation time
        pcm = speech.decode_audio(str(folder / f"{name}.mp4"), 600)
        heard = len(pcm) / 16000
        assert said["sentences"][-1]["end"] < heard <= said["duration"] + 0.1, (name, heard)
        for sentence in said["sentences"]:
            start, end = sentence["start"], sentence["end"]
            # silence just before the labelled start, speech within its first quarter second
            assert _loudest(pcm, start - 0.3, start - 0.08) < 0.02, sentence
            assert _loudest(pcm, start, start + 0.25) > 0.05, sentence
            assert _loudest(pcm, end + 0.08, end + 0.3) < 0.02, sentence
        slides = said["slides"]
        assert slides[0]["start"] == 0 and slides[-1]["end"] == said["duration"]
        assert all(a["end"] == b["start"] for a, b in zip(slides, slides[1:], strict=False))
    captions = (folder / "le_sommeil.fr.vtt").read_text()
    said = truth["le_sommeil"]["sentences"]
    assert captions.startswith("WEBVTT") and captions.count(" --> ") == len(said)
    first = said[0]["start"]
    assert f"00:00:{first:06.3f} --> " in captions  # a cue starts where its sentence does
    resolved = mixed_media.queries_of(truth)  # the queries' answers resolve on it
    assert resolved and all(q.video_id in truth for q in resolved if q.answer)
