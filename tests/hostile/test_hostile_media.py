"""Hostile media for speech recognition: each fails alone with a clear reason, in bounded
time and memory. A 24-hour silent WAV (a sparse file: 2.7 GB of zeros that take no disk)
is refused by its header before a sample is decoded; decoding itself stops at the limit,
whatever a header says."""

from __future__ import annotations

import struct
import time
from pathlib import Path

import pytest

from video_research.media import speech

pytestmark = pytest.mark.slow

FIXTURES = Path(__file__).parent.parent / "fixtures" / "media"


def wav_header(data_bytes: int, rate: int = 16000) -> bytes:
    """A canonical 16-bit mono PCM WAV header announcing `data_bytes` of samples."""
    return (
        b"RIFF"
        + struct.pack("<I", 36 + data_bytes)
        + b"WAVEfmt "
        + struct.pack("<IHHIIHH", 16, 1, 1, rate, rate * 2, 2, 16)
        + b"data"
        + struct.pack("<I", data_bytes)
    )


def test_a_24_hour_silent_file_is_refused_by_its_header_before_decoding(tmp_path):
    day = 24 * 3600 * 16000 * 2
    file = tmp_path / "silence.wav"
    with file.open("wb") as out:
        out.write(wav_header(day))
        out.truncate(44 + day)  # sparse: the zeros are silence and cost no disk
    assert speech.probe(str(file)).duration == pytest.approx(24 * 3600, rel=0.01)
    started = time.perf_counter()
    with pytest.raises(speech.SpeechError) as refused:
        speech.transcribe_file(str(file), max_duration_seconds=4 * 3600)
    assert refused.value.reason == "too_long" and "86,400 s" in refused.value.message
    assert time.perf_counter() - started < 2, "refused from the header, nothing decoded"


def test_decoding_stops_at_the_limit_whatever_the_header_said():
    """The header check is the fast path; the decoder counts samples itself, so a file
    whose header lies (or has none) still costs at most the limit."""
    with pytest.raises(speech.SpeechError) as refused:
        speech.decode_audio(str(FIXTURES / "speech.ogg"), max_seconds=5)
    assert refused.value.reason == "too_long"


@pytest.mark.parametrize(
    ("name", "content", "reason"),
    [
        ("empty.mp3", b"", "empty"),
        ("notes.mp3", b"ID3 this is not an mp3 at all\n" * 200, "not_media"),
        ("image.mp4", b"\x89PNG\r\n\x1a\n" + b"\0" * 4000, "no_audio|not_media"),
    ],
)
def test_files_that_are_not_media_fail_with_a_reason(tmp_path, name, content, reason):
    file = tmp_path / name
    file.write_bytes(content)
    with pytest.raises(speech.SpeechError) as failed:
        speech.transcribe_file(str(file))
    assert failed.value.reason in reason.split("|") and name in failed.value.message


def test_a_truncated_file_keeps_what_decoded_or_fails_clearly(tmp_path):
    good = (FIXTURES / "speech.ogg").read_bytes()
    file = tmp_path / "cut.ogg"
    file.write_bytes(good[: len(good) // 3])
    try:
        audio = speech.decode_audio(str(file), max_seconds=60)
    except speech.SpeechError as failed:
        assert failed.reason == "not_media"
    else:
        assert 0 < audio.size / speech.SAMPLE_RATE < 15  # about a third of 30 s


def test_a_video_without_audio_says_so(tmp_path):
    import av
    import numpy as np

    file = tmp_path / "silent_film.mp4"
    with av.open(str(file), "w") as out:
        stream = out.add_stream("mpeg4", rate=5)
        stream.width, stream.height, stream.pix_fmt = 32, 32, "yuv420p"
        for _ in range(5):
            frame = av.VideoFrame.from_ndarray(np.zeros((32, 32, 3), np.uint8), format="rgb24")
            for packet in stream.encode(frame):
                out.mux(packet)
        for packet in stream.encode(None):
            out.mux(packet)
    with pytest.raises(speech.SpeechError) as failed:
        speech.transcribe_file(str(file))
    assert failed.value.reason == "no_audio"
