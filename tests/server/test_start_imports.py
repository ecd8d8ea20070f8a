"""The server starts without the heavy libraries: each is imported by the code that
uses it, when it is first used (a client waits for the server's start on every launch)."""

from __future__ import annotations

import subprocess
import sys

HEAVY = ("numpy", "onnxruntime", "faster_whisper", "av", "google.genai", "weaviate", "tantivy")


def test_importing_the_server_loads_no_heavy_library():
    probe = (
        "import sys, video_research.server.app\n"
        f"print(' '.join(m for m in {HEAVY!r} if m in sys.modules))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120
    ).stdout.split()
    assert loaded == [], f"imported at start: {loaded}"
