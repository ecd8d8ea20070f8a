"""`python -m tests.bench.speech_engines.export_onnx EXPORT_PYTHON`: make sherpa-onnx's
Whisper base files in the engines cache (see whisper_to_onnx.py), with EXPORT_PYTHON the
export venv's interpreter (`make speech-engines-onnx` passes it)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.bench.speech_engines.cache import bundled_model_dir


def main(argv: list[str]) -> int:
    (python,) = argv
    cache, _ = bundled_model_dir()
    out = cache / "sherpa-onnx"
    script = Path(__file__).with_name("whisper_to_onnx.py")
    done = subprocess.run([python, str(script), str(cache / "faster-whisper-base"), str(out)])
    if done.returncode == 0:
        print(f"sherpa-onnx Whisper base files in {out}", file=sys.stderr)
    return done.returncode


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
