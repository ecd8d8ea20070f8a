"""Where the speech-engines bench keeps the model files it makes (never committed).

SPEECH_ENGINES_CACHE, default ~/.cache/video-research/speech-engines (XDG_CACHE_HOME
honoured), then a folder per bundled model, named by its model.bin SHA-256, so files made
from other weights are never mixed up with these.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from video_research.media import speech


def cache_root() -> Path:
    default = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    return Path(
        os.environ.get("SPEECH_ENGINES_CACHE", default / "video-research" / "speech-engines")
    )


def bundled_model_dir() -> tuple[Path, dict[str, bytes]]:
    """The cache folder of the bundled model, with its CTranslate2 files written under
    faster-whisper-base/ (once), and those files (checked against the upstream SHA-256)."""
    files = speech.bundled_files()
    cache = cache_root() / hashlib.sha256(files["model.bin"]).hexdigest()[:12]
    ct2 = cache / "faster-whisper-base"
    if not (ct2 / "model.bin").is_file():
        ct2.mkdir(parents=True, exist_ok=True)
        for name, data in files.items():
            partial = ct2 / f"{name}.partial"
            partial.write_bytes(data)
            partial.replace(ct2 / name)
    return cache, files
