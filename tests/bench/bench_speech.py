"""Speech recognition: real-time factor through our code beside the same engine called
directly on the same file (target: our overhead <= 10%).

The clip is the committed espeak-ng fixture (tests/fixtures/media/speech.ogg, 30 s)
repeated to BENCH_SPEECH_SECONDS (default 120) and written as 16 kHz WAV once. Each side
runs BENCH_SPEECH_ROUNDS times (default 2), alternating, after one warm-up that loads the
model; the best round of each is reported (the machine is shared: the best is the least
disturbed). Both use the bundled base model, int8 on the CPU, greedy decoding, Silero
VAD and word timestamps, as SPEECH_* defaults configure it:

- ours: `media.speech.transcribe_file` (probe, our decoder with its duration cap, the
  model from the bundled packages, segments with word-timed starts);
- direct: faster-whisper's `WhisperModel.transcribe(path)` with the same options on the
  same model object, its segments consumed.

Then `transcribe_file` as the server runs it, in a media worker process
(`parse_isolated` on MEDIA_POOL: pickling, the progress pipe, the result back), best of
ROUNDS after a warm-up per worker, beside the same direct figure; then the whole tool:
index_media_files on the clip (transcription, chunking, embedding and
the store; the embedder loaded by a first call on the fixture) beside the direct
transcription, and the projection for a 10-minute video.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
import wave
from pathlib import Path

from tests.bench.common import header, report, run_with_env
from tests.calls import call_ok
from video_research.media import speech

FIXTURE = Path(__file__).parent.parent / "fixtures" / "media" / "speech.ogg"
SECONDS = float(os.environ.get("BENCH_SPEECH_SECONDS", "120"))
ROUNDS = int(os.environ.get("BENCH_SPEECH_ROUNDS", "2"))


def _clip(folder: Path) -> tuple[Path, float]:
    import numpy as np

    once = speech.decode_audio(str(FIXTURE), 3600)
    repeats = max(1, round(SECONDS * speech.SAMPLE_RATE / once.size))
    audio = np.tile(once, repeats)
    path = folder / "talk.wav"
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(speech.SAMPLE_RATE)
        out.writeframes((audio * 32767).astype("<i2").tobytes())
    return path, audio.size / speech.SAMPLE_RATE


def _ours(path: Path) -> float:
    started = time.perf_counter()
    speech.transcribe_file(str(path))
    return time.perf_counter() - started


def whisper_direct(model, path: Path) -> float:
    """faster-whisper called directly with the server's options: the baseline of our speech path."""
    started = time.perf_counter()
    segments, _ = model.transcribe(
        str(path),
        beam_size=1,
        vad_filter=True,
        condition_on_previous_text=False,
        word_timestamps=True,
    )
    for _ in segments:
        pass
    return time.perf_counter() - started


def main() -> None:
    header(f"speech: faster-whisper base int8 (bundled), {SECONDS:.0f} s clip, best of {ROUNDS}")
    folder = Path(tempfile.mkdtemp(prefix="bench-speech-"))
    path, duration = _clip(folder)
    model = speech.load_model(speech.BUNDLED_MODEL, 0, "")
    _ours(path)  # warm-up: the model and the VAD are loaded before anything is timed
    ours, direct = [], []
    for _ in range(ROUNDS):
        direct.append(whisper_direct(model, path))
        ours.append(_ours(path))
    ours_rtf, direct_rtf = min(ours) / duration, min(direct) / duration
    report(
        "real-time factor, our transcribe_file",
        ours_rtf,
        "x",
        "WhisperModel.transcribe direct",
        direct_rtf,
        higher_is_better=False,
    )

    async def tool() -> None:
        warm = folder / "warm"
        warm.mkdir(exist_ok=True)
        shutil.copy(FIXTURE, warm / "warm.ogg")
        await call_ok("index_media_files", {"paths": [str(warm)]})  # loads the embedder
        from video_research.support.isolation import MEDIA_POOL, WorkerProgress, parse_isolated

        pooled = []
        for _ in range(ROUNDS + 1):  # the first loads the model in a worker: not counted
            started = time.perf_counter()
            await parse_isolated(
                "talk.wav",
                speech.transcribe_file,
                str(path),
                worker_pool=MEDIA_POOL,
                worker_progress=WorkerProgress("on_progress", lambda seconds: None),
            )
            pooled.append(time.perf_counter() - started)
        report(
            "RTF, transcribe_file in a media worker",
            min(pooled[1:]) / duration,
            "x",
            "WhisperModel.transcribe direct",
            direct_rtf,
            higher_is_better=False,
        )
        media = folder / "media"
        media.mkdir(exist_ok=True)
        shutil.copy(path, media / "talk.wav")
        started = time.perf_counter()
        result = await call_ok("index_media_files", {"paths": [str(media)]})
        spent = time.perf_counter() - started
        assert result["batch"]["indexed_count"] == 1, result
        report(
            "index_media_files (transcribe+index) RTF",
            spent / duration,
            "x",
            "WhisperModel.transcribe direct",
            direct_rtf,
            higher_is_better=False,
        )
        print(
            f"   a 10-minute video: about {ours_rtf * 600:.0f} s to transcribe "
            f"({spent / duration * 600:.0f} s indexed) on this machine",
            flush=True,
        )

    data = tempfile.mkdtemp(prefix="bench-speech-data-")
    run_with_env(
        {
            "VIDEO_RESEARCH_DATA_DIR": data,
            "VIDEO_RESEARCH_FILE_ROOTS": str(folder),
            "VIDEO_RESEARCH_TOOLSETS": "all",
        },
        tool,
    )
