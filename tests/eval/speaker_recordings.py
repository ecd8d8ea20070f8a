"""Recordings made for the speaker pass: espeak-ng voices (different variants, pitches and
speeds) taking turns, with the reference turns known to the sample. Options: overlap
(the next voice starts before the last ends), a music bed (sox synth chords under the
talk), joined clips (the recording cut in two files joined with `ffmpeg -c copy`).
Needs espeak-ng, sox and ffmpeg (Debian); used by `python -m tests.eval.speakers` and by
tests/fixtures/media/make_speakers_fixture.py.
"""

from __future__ import annotations

import random
import subprocess
import wave
from dataclasses import dataclass
from pathlib import Path

import numpy as np

RATE = 16000
VOICES = (
    ("en+m3", 30, 160),
    ("en+f2", 70, 175),
    ("en+m7", 50, 140),
    ("en+f4", 58, 190),
)
"""(espeak-ng voice, pitch, words per minute)."""
SENTENCES = (
    "The quarterly results show strong growth in the northern region.",
    "We expect the trend to continue into next year.",
    "Can you tell me more about what drove that growth?",
    "Mostly new customers in logistics and in retail.",
    "The southern offices grew as well, but more slowly than we had hoped.",
    "Our engineers rebuilt the billing system over the summer.",
    "That sounds like a lot of work for a small team.",
    "It was, and we learned a great deal about testing along the way.",
    "What would you do differently if you started again today?",
    "I would hire a second designer much earlier.",
    "The museum opens at nine and closes at six on weekdays.",
    "Please remember to water the tomato plants before you leave.",
    "Photosynthesis turns sunlight into chemical energy.",
    "The river floods every spring when the snow melts in the mountains.",
    "Our train leaves from platform seven late tonight.",
    "Nobody expected the old bridge to hold that much weight.",
    "Let us look at the numbers one more time before we decide.",
    "The library lends telescopes as well as books.",
)


@dataclass(frozen=True)
class Made:
    path: Path
    speakers: int
    turns: list[tuple[float, float, str]]
    """(start, end, speaker) of the reference, seconds."""


def speak(text: str, voice: tuple[str, int, int], work: Path) -> np.ndarray:
    name, pitch, speed = voice
    out = work / f"say-{abs(hash((text, voice)))}.wav"
    subprocess.run(
        ["espeak-ng", "-v", name, "-p", str(pitch), "-s", str(speed), "-w", str(out), text],
        check=True,
        capture_output=True,
    )
    resampled = out.with_suffix(".16k.wav")
    subprocess.run(["sox", str(out), "-r", str(RATE), str(resampled)], check=True)
    with wave.open(str(resampled)) as w:
        pcm = np.frombuffer(w.readframes(w.getnframes()), np.int16).astype(np.float32) / 32768
    loud = np.flatnonzero(np.abs(pcm) > 0.01)
    return pcm[loud[0] : loud[-1] + 1] if loud.size else pcm


def _bed(seconds: float, work: Path) -> np.ndarray:
    """A music bed: sox synth chords, quiet under the talk."""
    tracks = [
        _synth(work / "bed.wav", seconds, "pluck C3 pluck E3 pluck G3 vol 0.5"),
        _synth(work / "bed2.wav", seconds, "sine 220 sine 277 sine 330 tremolo 2 60"),
    ]
    size = int(seconds * RATE)
    bed = np.zeros(size, np.float32)
    for track in tracks:
        bed[: min(size, track.size)] += track[:size].astype(np.float32)
    return bed / max(1e-9, float(np.abs(bed).max())) * 0.08


def _synth(out: Path, seconds: float, effects: str) -> np.ndarray:
    """`sox -n ... synth` of `seconds` with `effects` (sox's words for the tones and what
    shapes them), written to `out` as 16-bit mono at RATE and read back in [-1, 1)."""
    subprocess.run(
        ["sox", "-n", "-r", str(RATE), "-c", "1", "-b", "16", "-e", "signed-integer"]
        + [str(out), "synth", f"{seconds:.2f}", *effects.split()],
        check=True,
        capture_output=True,
    )
    with wave.open(str(out)) as w:
        return np.frombuffer(w.readframes(w.getnframes()), np.int16) / 32768


def make(
    out: Path,
    *,
    seed: int,
    speakers: int,
    turn_seconds: tuple[float, float] = (3.0, 12.0),
    turns: int = 6,
    overlap: bool = False,
    bed: bool = False,
    joined: bool = False,
    work: Path,
) -> Made:
    """One recording at `out` (Ogg Opus, 16 kHz mono) and its reference turns."""
    rng = random.Random(seed)
    voices = rng.sample(VOICES, speakers)
    order = [n % speakers for n in range(turns)]  # every voice is heard
    rng.shuffle(order)
    for n in range(1, len(order)):  # no voice follows itself
        if order[n] == order[n - 1]:
            order[n] = (order[n] + 1) % speakers
    pieces: list[tuple[int, np.ndarray]] = []
    for who in order:
        want = rng.uniform(*turn_seconds)
        said: list[np.ndarray] = []
        length = 0.0
        while length < want:
            pcm = speak(rng.choice(SENTENCES), voices[who], work)
            said += [pcm, np.zeros(int(rng.uniform(0.15, 0.4) * RATE), np.float32)]
            length += (pcm.size / RATE) + 0.3
        pieces.append((who, np.concatenate(said[:-1])))
    track = np.zeros(0, np.float32)
    reference: list[tuple[float, float, str]] = []
    at = int(0.5 * RATE)
    for who, pcm in pieces:
        if reference and overlap and rng.random() < 0.5:
            at -= int(rng.uniform(0.3, 1.0) * RATE)  # starts before the last one ends
        end = at + pcm.size
        if track.size < end:
            track = np.concatenate([track, np.zeros(end - track.size, np.float32)])
        track[at:end] += pcm
        reference.append((at / RATE, end / RATE, f"V{who + 1}"))
        at = end + int(rng.uniform(0.2, 1.2) * RATE)
    track = np.concatenate([track, np.zeros(int(0.5 * RATE), np.float32)])
    if bed:
        track += _bed(track.size / RATE + 0.1, work)[: track.size]
    track = np.clip(track, -1, 1)
    if joined:
        cut = int(reference[len(reference) // 2][0] * RATE) - RATE // 4
        parts = [track[:cut], track[cut:]]
        files = []
        for n, part in enumerate(parts):
            files.append(work / f"part{n}.ogg")
            _write_ogg(files[-1], part)
        listing = work / "parts.txt"
        listing.write_text("".join(f"file '{f}'\n" for f in files))
        subprocess.run(
            [
                "ffmpeg",
                "-v",
                "error",
                "-y",
                "-f",
                "concat",
                "-safe",
                "0",
                "-i",
                str(listing),
                "-c",
                "copy",
                str(out),
            ],
            check=True,
        )
    else:
        _write_ogg(out, track)
    return Made(out, speakers, reference)


def _write_ogg(path: Path, track: np.ndarray) -> None:
    import av

    samples = (track * 32767).astype(np.int16)
    with av.open(str(path), "w", format="ogg") as out:
        stream = out.add_stream("libopus", rate=RATE)
        stream.bit_rate = 24000
        stream.layout = "mono"
        frame = av.AudioFrame.from_ndarray(samples.reshape(1, -1), format="s16", layout="mono")
        frame.sample_rate = RATE
        for packet in stream.encode(frame):
            out.mux(packet)
        for packet in stream.encode(None):
            out.mux(packet)
