"""Parser stand-ins the isolation tests run in worker processes.

They live in a module of their own (not a test module) because a worker imports a
function by its module and name: importing a test module there would import pytest.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from video_research.support.errors import invalid_input


def echo(value: object) -> object:
    return value


def refuse(name: str) -> None:
    raise invalid_input(f"{name} is not a document.", hint="Pass a document.")


def break_down() -> None:
    raise ValueError("an unexpected parser bug")


def allocate(megabytes: int) -> int:
    """Memory a decompression bomb would take."""
    return len(bytearray(megabytes * 1024 * 1024))


def spin() -> None:
    """A parser stuck in a loop (CPU time, no end)."""
    while True:
        pass


def sleep_then(seconds: float, pid_file: str | None = None) -> str:
    """A slow parser that says which process runs it (so a test can kill that one)."""
    if pid_file:
        Path(pid_file).write_text(str(os.getpid()))
    time.sleep(seconds)
    return "slept"


def crash() -> None:
    os.abort()


def environment() -> dict[str, str]:
    return dict(os.environ)


def stdout_target() -> tuple[str, str]:
    """Where the worker's file descriptors 1 and 2 lead."""
    return os.readlink("/proc/self/fd/1"), os.readlink("/proc/self/fd/2")


def ticking(seconds: float, tick=None) -> str:
    """A decoder that reports the media time it reached, as the media functions do."""
    began = time.monotonic()
    while (spent := time.monotonic() - began) < seconds:
        if tick is not None:
            tick(spent)
        time.sleep(0.01)
    return "done"


def raise_speech_error() -> None:
    from video_research.media.speech import SpeechError

    raise SpeechError("no_audio", "clip.mp4 has no audio stream.", "Pass a file with sound.")
