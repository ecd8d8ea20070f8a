"""Run one speech engine once, in a process of its own, and print what it measured as one
JSON line on stdout: `python run_engine.py ENGINE MODEL THREADS FIXTURE.npy CLIP.npy`.

Each engine runs in a fresh process so that its peak RSS is its own (VmHWM of the process
after exec: interpreter, numpy and the audio are in every engine's figure alike; not
ru_maxrss, which Linux carries over from the parent across fork and exec) and so that
the alternative engines never enter the server's environment: whisper.cpp and sherpa-onnx
run from the bench venv, faster-whisper from the server's. Standard library and numpy
only at module level; the engine is imported inside its function.

Every engine gets the same input (16 kHz mono float32, decoded once by the server's
decoder), English set (no language detection), greedy decoding, no conditioning on the
previous window, THREADS threads. `load_s` is the time to make the engine's model object
from its files on disk, imports excluded. The fixture is transcribed first (it also warms
the engine up), then the clip is timed.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable

import numpy as np

SAMPLE_RATE = 16000
Transcribe = Callable[[np.ndarray], str]


def _faster_whisper(
    model: str, threads: int, *, vad: bool, words: bool
) -> tuple[float, Transcribe]:
    from faster_whisper import WhisperModel

    started = time.perf_counter()
    whisper = WhisperModel(model, device="cpu", compute_type="int8", cpu_threads=threads)
    loaded = time.perf_counter() - started

    def run(audio: np.ndarray) -> str:
        segments, _ = whisper.transcribe(
            audio,
            language="en",
            beam_size=1,
            vad_filter=vad,
            condition_on_previous_text=False,
            word_timestamps=words,
        )
        return " ".join(segment.text.strip() for segment in segments)

    return loaded, run


def _whisper_cpp(model: str, threads: int) -> tuple[float, Transcribe]:
    from pywhispercpp.model import Model

    started = time.perf_counter()
    whisper = Model(
        model,
        n_threads=threads,
        print_realtime=False,
        print_progress=False,
        print_timestamps=False,
        redirect_whispercpp_logs_to=None,
    )
    loaded = time.perf_counter() - started

    def run(audio: np.ndarray) -> str:
        segments = whisper.transcribe(audio, language="en", no_context=True)
        return " ".join(segment.text.strip() for segment in segments)

    return loaded, run


def _sherpa_onnx(model: str, threads: int) -> tuple[float, Transcribe]:
    """sherpa-onnx's Whisper decodes at most 30 s per stream (its encoder export drops the
    positional embedding beyond that), so longer audio goes in 30 s windows, one stream
    each, as its own examples do without a VAD."""
    import sherpa_onnx

    prefix = model.rstrip("/") + "/base"
    started = time.perf_counter()
    recognizer = sherpa_onnx.OfflineRecognizer.from_whisper(
        encoder=f"{prefix}-encoder.int8.onnx",
        decoder=f"{prefix}-decoder.int8.onnx",
        tokens=f"{prefix}-tokens.txt",
        language="en",
        task="transcribe",
        num_threads=threads,
        decoding_method="greedy_search",
    )
    loaded = time.perf_counter() - started
    window = 30 * SAMPLE_RATE

    def run(audio: np.ndarray) -> str:
        texts = []
        for start in range(0, audio.size, window):
            stream = recognizer.create_stream()
            stream.accept_waveform(SAMPLE_RATE, audio[start : start + window])
            recognizer.decode_stream(stream)
            texts.append(stream.result.text.strip())
        return " ".join(texts)

    return loaded, run


def _peak_rss_mb() -> float:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


ENGINES: dict[str, Callable[[str, int], tuple[float, Transcribe]]] = {
    "faster-whisper": lambda m, t: _faster_whisper(m, t, vad=True, words=True),
    "faster-whisper-plain": lambda m, t: _faster_whisper(m, t, vad=False, words=False),
    "whisper.cpp": _whisper_cpp,
    "sherpa-onnx": _sherpa_onnx,
}


def main(argv: list[str]) -> int:
    engine, model, threads, fixture_path, clip_path = argv
    fixture = np.load(fixture_path).astype(np.float32)
    clip = np.load(clip_path).astype(np.float32)
    load_s, run = ENGINES[engine](model, int(threads))
    started = time.perf_counter()
    fixture_text = run(fixture)
    fixture_s = time.perf_counter() - started
    started = time.perf_counter()
    clip_text = run(clip)
    clip_s = time.perf_counter() - started
    result = {
        "engine": engine,
        "load_s": load_s,
        "fixture_s": fixture_s,
        "fixture_text": fixture_text,
        "clip_s": clip_s,
        "clip_words": len(clip_text.split()),
        "peak_rss_mb": _peak_rss_mb(),
    }
    sys.stdout.write(json.dumps(result) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
