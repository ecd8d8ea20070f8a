"""Speech engines side by side: faster-whisper (the server's engine) beside whisper.cpp
(pywhispercpp) and sherpa-onnx, all running the same Whisper base weights.

No PyPI package ships whisper.cpp or sherpa-onnx weights and the Hub is out of reach, so
their model files are made from the bundled faster-whisper model (CTranslate2, float16):
whisper.cpp's ggml file by tests/bench/speech_engines/ggml_convert.py (float16 and Q8_0,
the counterpart of CTranslate2's int8), sherpa-onnx's int8 ONNX pair by
`make speech-engines-onnx` (sherpa-onnx's own export script on openai-whisper loaded with
the same weights; it needs torch, so it is a separate step). They live in a cache
directory (SPEECH_ENGINES_CACHE, default ~/.cache/video-research/speech-engines), keyed
by the model's SHA-256, never committed.

The alternative engines run from their own venv (SPEECH_ENGINES_PYTHON, made by the
Makefile), never the server's; each run is a fresh process (speech_engines/run_engine.py),
so its peak RSS is its own. An engine that cannot be set up is skipped with the reason.

Per engine: real-time factor on a clip of BENCH_ENGINES_SECONDS (default 60; the fixture
repeated), WER on the fixture (tests/fixtures/media/speech.ogg against speech.json),
peak RSS and model load time, beside faster-whisper as the server configures it (int8,
greedy, Silero VAD, word timestamps) measured in the same run. The engines run
interleaved, BENCH_ENGINES_ROUNDS times (default 2), best of each kept: the host is shared.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from tests.bench.common import header, report
from tests.bench.speech_engines.cache import bundled_model_dir
from tests.helpers import wer
from video_research.media import speech

HERE = Path(__file__).parent
FIXTURES = HERE.parent / "fixtures" / "media"
RUNNER = HERE / "speech_engines" / "run_engine.py"
SECONDS = float(os.environ.get("BENCH_ENGINES_SECONDS", "60"))
ROUNDS = int(os.environ.get("BENCH_ENGINES_ROUNDS", "2"))
THREADS = int(os.environ.get("BENCH_ENGINES_THREADS", str(os.cpu_count() or 2)))
BASELINE = "faster-whisper"


@dataclass
class Engine:
    label: str
    runner: str  # the engine's name in run_engine.ENGINES
    python: str
    model: str
    skip: str = ""
    threads: int = THREADS


def _has_module(python: str, module: str) -> str:
    """'' when `python` imports `module`, else why not."""
    if not python or not Path(python).exists():
        return f"no engines venv ({python or 'SPEECH_ENGINES_PYTHON unset'}): run `make bench`"
    done = subprocess.run(
        [python, "-c", f"import {module}"], capture_output=True, text=True, timeout=120
    )
    if done.returncode:
        return f"{module} does not import: {done.stderr.strip().splitlines()[-1:]}"
    return ""


def prepare() -> list[Engine]:
    """The engines and their model files (made once into the cache)."""
    from tests.bench.speech_engines.ggml_convert import convert

    cache, files = bundled_model_dir()
    ct2 = cache / "faster-whisper-base"
    vocabulary = files["vocabulary.txt"].decode("utf-8")
    ggml = {"f16": cache / "ggml-base.bin", "q8_0": cache / "ggml-base-q8_0.bin"}
    for kind, path in ggml.items():
        if not path.is_file():
            convert(files["model.bin"], vocabulary, path, q8_0=kind == "q8_0")
    del files
    engines_python = os.environ.get("SPEECH_ENGINES_PYTHON", "")
    whisper_cpp_skip = _has_module(engines_python, "pywhispercpp.model")
    sherpa = cache / "sherpa-onnx"
    sherpa_skip = _has_module(engines_python, "sherpa_onnx")
    if not sherpa_skip and not (sherpa / "base-encoder.int8.onnx").is_file():
        sherpa_skip = (
            f"no ONNX export in {sherpa}: run `make speech-engines-onnx` (torch CPU and "
            "openai-whisper in a venv of their own, then sherpa-onnx's export script)"
        )
    own = sys.executable
    return [
        Engine("faster-whisper int8, VAD, word times", BASELINE, own, str(ct2)),
        Engine("faster-whisper int8, no VAD", "faster-whisper-plain", own, str(ct2)),
        Engine(
            "faster-whisper int8, no VAD, 1 thread",
            "faster-whisper-plain",
            own,
            str(ct2),
            threads=1,
        ),
        Engine(
            "whisper.cpp Q8_0", "whisper.cpp", engines_python, str(ggml["q8_0"]), whisper_cpp_skip
        ),
        Engine(
            "whisper.cpp Q8_0, 1 thread",
            "whisper.cpp",
            engines_python,
            str(ggml["q8_0"]),
            whisper_cpp_skip,
            threads=1,
        ),
        Engine(
            "whisper.cpp F16", "whisper.cpp", engines_python, str(ggml["f16"]), whisper_cpp_skip
        ),
        Engine("sherpa-onnx int8", "sherpa-onnx", engines_python, str(sherpa), sherpa_skip),
    ]


def _audio(folder: Path) -> tuple[Path, Path, float]:
    import numpy as np

    once = speech.decode_audio(str(FIXTURES / "speech.ogg"), 3600).astype(np.float32)
    repeats = max(1, round(SECONDS * speech.SAMPLE_RATE / once.size))
    clip = np.tile(once, repeats)
    np.save(folder / "fixture.npy", once)
    np.save(folder / "clip.npy", clip)
    return folder / "fixture.npy", folder / "clip.npy", clip.size / speech.SAMPLE_RATE


def _run(engine: Engine, fixture: Path, clip: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": ""}
    done = subprocess.run(
        [
            engine.python,
            str(RUNNER),
            engine.runner,
            engine.model,
            str(engine.threads),
            str(fixture),
            str(clip),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=1800,
    )
    if done.returncode:
        raise RuntimeError(f"{engine.label}: {done.stderr.strip()[-400:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    header(
        f"speech engines: Whisper base, {SECONDS:.0f} s clip, {THREADS} threads, "
        f"best of {ROUNDS}, interleaved"
    )
    folder = Path(tempfile.mkdtemp(prefix="bench-engines-"))
    engines = prepare()
    fixture, clip, duration = _audio(folder)
    truth = " ".join(
        s["text"] for s in json.loads((FIXTURES / "speech.json").read_text())["sentences"]
    )
    for engine in engines:
        if engine.skip:
            print(f"   skip {engine.label}: {engine.skip}", flush=True)
    live = [e for e in engines if not e.skip]
    best: dict[str, dict] = {}
    for round_number in range(1, ROUNDS + 1):
        for engine in live:
            try:
                result = _run(engine, fixture, clip)
            except (RuntimeError, subprocess.TimeoutExpired) as exc:
                engine.skip = f"failed: {exc}"
                print(f"   skip {engine.label}: {engine.skip}", flush=True)
                continue
            print(
                f"   round {round_number} {engine.label}: clip {result['clip_s']:.1f} s, "
                f"fixture {result['fixture_s']:.1f} s, load {result['load_s']:.2f} s, "
                f"load average {os.getloadavg()[0]:.1f}",
                flush=True,
            )
            kept = best.setdefault(engine.label, result)
            for field in ("load_s", "fixture_s", "clip_s"):
                kept[field] = min(kept[field], result[field])
            kept["peak_rss_mb"] = max(kept["peak_rss_mb"], result["peak_rss_mb"])
        live = [e for e in live if not e.skip]
    load = os.getloadavg()
    print(f"   load average after the runs: {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}", flush=True)
    base = best.get(engines[0].label)
    if base is None:
        print("   the baseline did not run: nothing to compare", flush=True)
        return
    base_wer = wer(truth, base["fixture_text"])
    for engine in engines:
        got = best.get(engine.label)
        if got is None:
            continue
        name = engine.label
        report(
            f"{name}: RTF",
            got["clip_s"] / duration,
            "x",
            "faster-whisper (server)",
            base["clip_s"] / duration,
            higher_is_better=False,
        )
        report(
            f"{name}: WER fixture",
            wer(truth, got["fixture_text"]),
            "",
            "faster-whisper (server)",
            base_wer,
            higher_is_better=False,
        )
        report(
            f"{name}: peak RSS",
            got["peak_rss_mb"],
            "MB",
            "faster-whisper (server)",
            base["peak_rss_mb"],
            higher_is_better=False,
        )
        report(
            f"{name}: load",
            got["load_s"],
            "s",
            "faster-whisper (server)",
            base["load_s"],
            higher_is_better=False,
        )
        print(f"   {name} said: {got['fixture_text']}", flush=True)
