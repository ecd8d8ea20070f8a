"""Speech on the media's own clock: recordings whose audio is not one unbroken run from
zero (clips joined with `-c copy` leaving gaps, audio that starts at 1.4 s, a variable
frame rate) have each sentence placed where it is heard, on the same timeline as their
scenes and frames.

The fixtures and their truth are made by tests/fixtures/media/make_timeline_fixtures.py
(espeak-ng sentences at known places; the truth is measured in espeak's own samples)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest

from video_research.media import speech
from video_research.media.limits import MediaLimits
from video_research.media.scenes import detect_scenes

pytestmark = pytest.mark.slow

FIXTURES = Path(__file__).parent.parent / "fixtures" / "media"
TRUTH = json.loads((FIXTURES / "timeline.json").read_text())
NAMES = sorted(TRUTH)
TOLERANCE = 0.5


@pytest.fixture(scope="module")
def transcripts() -> dict[str, dict]:
    return {name: speech.transcribe_file(str(FIXTURES / name)) for name in NAMES}


@pytest.mark.parametrize("name", NAMES)
def test_every_sentence_starts_where_it_is_heard(transcripts, name):
    segments = transcripts[name]["segments"]
    starts = [s["start"] for s in segments]
    assert starts == sorted(starts)
    for sentence in TRUTH[name]["sentences"]:
        nearest = min(segments, key=lambda s: abs(s["start"] - sentence["start"]))
        assert abs(nearest["start"] - sentence["start"]) <= TOLERANCE, (sentence, segments)
    # one segment per sentence: Whisper's segments are re-cut at sentence ends
    assert len(segments) == len(TRUTH[name]["sentences"]), segments


@pytest.mark.parametrize("name", NAMES)
def test_the_transcript_lasts_as_long_as_the_media_timeline(transcripts, name):
    last = TRUTH[name]["sentences"][-1]["start"]
    assert last < transcripts[name]["duration"] <= TRUTH[name]["duration"] + 0.5


def test_gaps_and_a_late_start_are_silence_at_their_place():
    late = speech.decode_audio(str(FIXTURES / "late_audio.mp4"), 60)
    lead = int(TRUTH["late_audio.mp4"]["audio_starts_at"] * speech.SAMPLE_RATE)
    assert not late[: lead - 160].any() and late.size > lead
    joined = speech.decode_audio(str(FIXTURES / "clips_joined.mp4"), 60)
    loud = np.abs(joined) > 0.02
    for sentence in TRUTH["clips_joined.mp4"]["sentences"]:
        at = int(sentence["start"] * speech.SAMPLE_RATE)
        heard = np.flatnonzero(loud[at - 4000 : at + 8000])
        assert heard.size and abs((heard[0] - 4000) / speech.SAMPLE_RATE) < 0.1, sentence


@pytest.mark.parametrize("name", ["clips_joined.mp4", "phone_vfr.mp4"])
def test_each_sentence_falls_in_the_scene_of_its_slide(transcripts, name):
    """Speech and pictures on one clock: the scene cuts (decoded pictures) and the
    sentences (decoded audio) put every sentence in the scene of the clip it was said in."""
    found = detect_scenes(str(FIXTURES / name), MediaLimits())
    cuts = [scene["start"] for scene in found["scenes"]]
    slides = TRUTH[name]["slides"]
    assert len(cuts) == len(slides), cuts
    for cut, slide in zip(cuts, slides, strict=True):
        assert abs(cut - slide["start"]) <= TOLERANCE, (cuts, slides)
    for segment in transcripts[name]["segments"]:
        scene = sum(1 for cut in cuts if cut <= segment["start"]) - 1
        truth = sum(1 for slide in slides if slide["start"] <= segment["start"]) - 1
        assert scene == truth, (segment, cuts)


def test_a_gap_past_the_limit_is_refused_before_its_silence_is_made(tmp_path):
    """An audio stream that claims to start a day in is refused by its times, in a moment,
    without a day of silence in memory."""
    import imageio_ffmpeg

    far = tmp_path / "far.mp4"
    subprocess.run(
        [
            imageio_ffmpeg.get_ffmpeg_exe(),
            *["-nostdin", "-loglevel", "error", "-f", "lavfi", "-i", "sine=d=1"],
            *["-f", "lavfi", "-itsoffset", "86400", "-i", "sine=d=1"],
            *["-map", "1:a", "-map", "0:a", "-c:a", "aac", str(far)],
        ],
        check=True,
    )
    with pytest.raises(speech.SpeechError) as refused:
        speech.decode_audio(str(far), 3600)
    assert refused.value.reason == "too_long"


class _Word:
    def __init__(self, start: float, end: float, word: str) -> None:
        self.start, self.end, self.word = start, end, word


class _Segment:
    def __init__(self, words: list[_Word]) -> None:
        self.words = words
        self.start, self.end = words[0].start, words[-1].end
        self.text = "".join(w.word for w in words)


def _words(start: float, text: str, step: float = 0.3) -> list[_Word]:
    return [
        _Word(start + n * step, start + n * step + 0.25, " " + w)
        for n, w in enumerate(text.split())
    ]


def test_whisper_segments_are_recut_into_sentences_at_their_first_word():
    """A segment that runs from one sentence into the next (as Whisper's often do) becomes
    two sentences, the second starting at its own first word; a sentence continued in the
    next segment is joined; a long pause ends an unpunctuated sentence."""
    said = speech.Sentences()
    first = _words(0.0, "Bees dance to show flowers. What causes the")
    said.add_segment(_Segment(first))
    said.add_segment(_Segment(_words(first[-1].end + 0.1, "ocean tides? The moon")))
    said.add_segment(_Segment(_words(10.0, "pulls the water")))  # after a 7 s pause
    out = said.finish()
    assert [s["text"] for s in out] == [
        "Bees dance to show flowers.",
        "What causes the ocean tides?",
        "The moon",
        "pulls the water",
    ]
    assert out[1]["start"] == round(first[5].start, 2) and out[3]["start"] == 10.0
