"""Who spoke when in one recording: speech regions (silero-vad), an embedding per window
of speech (GE2E), the windows clustered into speakers, and turns from the windows'
speakers; then each sentence gets the speaker who holds most of its time.

The clustering's threshold and minimum share are fitted on made recordings by
`python -m tests.eval.speakers --fit`, which writes `fitted.json` beside this module.
"""

from __future__ import annotations

import functools
import json
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from video_research.media.speakers import weights
from video_research.media.speakers.cluster import cluster
from video_research.media.speakers.encoder import HOP, SAMPLE_RATE, mel_frames
from video_research.media.speakers.encoder_onnx import OnnxEncoder
from video_research.media.speakers.vad import Vad, regions

WINDOW_FRAMES = 160
"""The encoder's partial utterance: 1.6 s of 10 ms frames."""
HOP_FRAMES = 80
"""Windows start every 0.8 s."""
MIN_WINDOW_FRAMES = 50
"""A region shorter than 0.5 s is not embedded (it takes its neighbours' speaker)."""
BATCH = 128
"""Windows embedded at a time: their LSTM gates take 84 MB."""


@dataclass(frozen=True)
class Turn:
    start: float
    end: float
    speaker: str


@functools.cache
def fitted() -> dict[str, float]:
    said = json.loads((Path(__file__).with_name("fitted.json")).read_text())
    return {"threshold": float(said["threshold"]), "min_share": float(said["min_share"])}


_LOCK = threading.Lock()


@functools.cache
def _models() -> tuple[Vad, OnnxEncoder]:
    return Vad(weights.vad_model()), OnnxEncoder(weights.encoder_state())


def models() -> tuple[Vad, OnnxEncoder]:
    """The checked models, loaded once per process (WeightsError when missing or wrong)."""
    with _LOCK:
        return _models()


def turns(
    audio: np.ndarray, threshold: float | None = None, min_share: float | None = None
) -> list[Turn]:
    """Speaker turns of 16 kHz mono float32 `audio`, speakers named S1, S2, ... in the
    order they are first heard. BLAS runs on one thread: the encoder's matrices are small
    (a batch of windows by 256), and on a busy host more threads only spin (measured:
    64 windows took 4.4 s on one thread and 29 s on two, beside other work)."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(1):
        return _turns_of(audio, threshold, min_share)


def _turns_of(audio: np.ndarray, threshold: float | None, min_share: float | None) -> list[Turn]:
    return speakers_of(embed(audio), threshold, min_share)


@dataclass(frozen=True)
class Embedded:
    """A recording's speech regions, its windows (mel frame spans) and their embeddings."""

    speech: list[tuple[float, float]]
    spans: list[tuple[int, int]]
    embeddings: np.ndarray


def embed(audio: np.ndarray) -> Embedded:
    """Speech regions and an embedding per window of them (the costly half of `turns`)."""
    vad, encoder = models()
    speech = regions(vad.probabilities(audio))
    if not speech:
        return Embedded([], [], np.zeros((0, 256), np.float32))
    mel = mel_frames(audio)
    spans = _windows(speech, len(mel))
    if not spans:
        return Embedded(speech, [], np.zeros((0, 256), np.float32))
    power = _frame_power(audio, len(mel))
    embeddings = np.concatenate(
        [
            encoder.embed(_batch(mel, power, spans[i : i + BATCH]))
            for i in range(0, len(spans), BATCH)
        ]
    )
    return Embedded(speech, spans, embeddings)


def speakers_of(
    found: Embedded, threshold: float | None = None, min_share: float | None = None
) -> list[Turn]:
    """The turns of embedded windows, clustered at `threshold` (default: fitted)."""
    if not found.spans:
        return []
    said = fitted()
    labels = cluster(
        found.embeddings,
        said["threshold"] if threshold is None else threshold,
        said["min_share"] if min_share is None else min_share,
    )
    return _turns(found.speech, found.spans, labels)


def _windows(speech: list[tuple[float, float]], frames: int) -> list[tuple[int, int]]:
    """(first, last) mel frame of each window: every HOP_FRAMES through each region, the
    last one flush with the region's end."""
    out = []
    for start, end in speech:
        first = int(start * SAMPLE_RATE / HOP)
        last = min(frames, int(np.ceil(end * SAMPLE_RATE / HOP)))
        if last - first < MIN_WINDOW_FRAMES:
            continue
        if last - first <= WINDOW_FRAMES:
            out.append((first, last))
            continue
        at = first
        while at + WINDOW_FRAMES < last:
            out.append((at, at + WINDOW_FRAMES))
            at += HOP_FRAMES
        out.append((last - WINDOW_FRAMES, last))
    return out


def _frame_power(audio: np.ndarray, frames: int) -> np.ndarray:
    """Mean square of the samples in each 10 ms hop (for per-window loudness)."""
    usable = min(audio.size, frames * HOP) // HOP
    power = np.zeros(frames)
    hops = audio[: usable * HOP].reshape(usable, HOP)
    for first in range(0, usable, 65536):
        block = hops[first : first + 65536].astype(np.float64)
        power[first : first + len(block)] = np.square(block).mean(axis=1)
    return power


def _batch(mel: np.ndarray, power: np.ndarray, spans: list[tuple[int, int]]) -> np.ndarray:
    """Windows of mel frames, each raised to -30 dBFS (resemblyzer's preprocessing: mel
    power scales with the square of the gain), short ones zero-padded at the end."""
    out = np.zeros((len(spans), WINDOW_FRAMES, mel.shape[1]), np.float32)
    for row, (first, last) in enumerate(spans):
        rms = float(np.sqrt(power[first:last].mean())) if last > first else 0.0
        gain = 1.0
        if rms > 1e-9:
            change = -30.0 - 20 * np.log10(rms)
            gain = 10 ** (change / 20) if change > 0 else 1.0
        out[row, : last - first] = mel[first:last] * np.float32(gain * gain)
    return out


def _turns(
    speech: list[tuple[float, float]], spans: list[tuple[int, int]], labels: np.ndarray
) -> list[Turn]:
    """Each stretch of speech goes to the window whose centre is nearest; runs of one
    speaker within a region make a turn; names follow first appearance."""
    centres = np.array([(a + b) / 2 * HOP / SAMPLE_RATE for a, b in spans])
    names: dict[int, str] = {}
    out: list[Turn] = []
    step = HOP_FRAMES * HOP / SAMPLE_RATE / 2
    for start, end in speech:
        edges = np.arange(start, end, step)
        for left in edges:
            right = min(end, left + step)
            label = int(labels[np.argmin(np.abs(centres - (left + right) / 2))])
            name = names.setdefault(label, f"S{len(names) + 1}")
            if out and out[-1].speaker == name and left - out[-1].end < 1e-6:
                out[-1] = Turn(out[-1].start, round(float(right), 3), name)
            else:
                out.append(Turn(round(float(left), 3), round(float(right), 3), name))
    return out


def label_sentences(segments: list[dict[str, Any]], found: list[Turn]) -> list[dict[str, Any]]:
    """Each segment with the speaker holding most of its time (the nearest turn's when
    none overlaps it): `speaker`."""
    if not found:
        return segments
    out = []
    for segment in segments:
        start, end = float(segment["start"]), float(segment["end"])
        held: dict[str, float] = {}
        for turn in found:
            overlap = min(end, turn.end) - max(start, turn.start)
            if overlap > 0:
                held[turn.speaker] = held.get(turn.speaker, 0.0) + overlap
        if held:
            speaker = max(held, key=lambda name: held[name])
        else:
            middle = (start + end) / 2
            speaker = min(
                found, key=lambda t: min(abs(t.start - middle), abs(t.end - middle))
            ).speaker
        out.append({**segment, "speaker": speaker})
    return out
