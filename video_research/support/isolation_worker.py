"""What runs inside a parser worker process (`isolation` module docstring): its start
(stdout to stderr, no core files, no secrets in its environment, its priority), each
file's limits, and the outcome sent back as plain values.

pebble imports these functions by name in the spawned worker. They read none of the
server's state (no Services, no settings): a worker is handed everything as arguments.
"""

from __future__ import annotations

import contextlib
import os
import resource
import signal
import struct
import sys
import time
from collections.abc import Callable
from typing import Any, Literal

from video_research.support.errors import ToolFailure

WorkerPriority = Literal["normal", "low"]
"""How a worker is scheduled against the other processes of the machine (`WORKER_PRIORITY`):

- "normal": the server's own niceness and scheduling policy, a full fair share of the CPU
  beside every other process (the default);
- "low": LOW_NICENESS below the server: it yields to every other process of the machine.

Not SCHED_BATCH: it keeps the fair share, but a batch thread's wake-ups never preempt, and
a frame-threaded decoder's threads wake each other per frame: the scene pass of a 60 s
lecture in a worker took 3.1-12.4 s under it beside two busy processes, 2.5-4.5 s without.
"""

LOW_NICENESS = 10
"""How much lower a "low" worker's priority is: at 10 a CPU-bound worker gets about a tenth
of what a process at the default priority gets, so beside other work it starves (speech
7.9 times slower than the engine called directly beside the same load)."""

EXIT_OUT_OF_MEMORY = 87
"""A worker's exit status after a MemoryError: the pool tells a memory breach by it."""

PROGRESS_EVERY_SECONDS = 0.5
"""Most often a worker sends progress: a decoder ticks per packet, the client needs less."""


def start_worker(environment: frozenset[str], priority: WorkerPriority = "normal") -> None:
    """Make a fresh worker safe to parse in (see the module docstring)."""
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    schedule_worker(priority)
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for key in list(os.environ):
        if key not in environment and not key.startswith("LC_"):
            del os.environ[key]


def schedule_worker(priority: WorkerPriority) -> None:
    """Schedule this worker as `priority` says (see WorkerPriority). Run before any thread
    starts: a thread created later (a decoder's, ONNX Runtime's, CTranslate2's) inherits
    its creator's niceness, which Linux keeps per thread."""
    if priority == "low":
        with contextlib.suppress(OSError):  # not allowed: as it is
            os.nice(LOW_NICENESS)


def set_limits(memory_mb: int, cpu_seconds: int) -> None:
    """Arm this file's limits: soft limits only, so the next file can be given its own."""
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    memory = memory_mb * 1024 * 1024
    resource.setrlimit(
        resource.RLIMIT_AS, (memory if hard == resource.RLIM_INFINITY else min(memory, hard), hard)
    )
    usage = resource.getrusage(resource.RUSAGE_SELF)
    spent = int(usage.ru_utime + usage.ru_stime) + 1
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    soft = spent + cpu_seconds
    resource.setrlimit(
        resource.RLIMIT_CPU, (soft if hard == resource.RLIM_INFINITY else min(soft, hard), hard)
    )


# The dynamic loader's words when mmap of a library's segments is refused (glibc's
# "failed to map segment from shared object", or ENOMEM spelled out).
LOADER_OUT_OF_MEMORY = ("failed to map segment", "cannot allocate memory")


def no_room_left(exc: BaseException) -> bool:
    """Whether `exc` is the address space running out under RLIMIT_AS in a form other than
    MemoryError: a thread that could not start (EAGAIN, "can't start new thread"), as when
    a decoder or onnxruntime starts its thread pool, or a native library that could not be
    mapped (an ImportError from the loader, as when the OCR engine imports OpenCV late)."""
    import errno

    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, OSError) and current.errno in (errno.EAGAIN, errno.ENOMEM):
            return True
        if isinstance(current, RuntimeError) and "can't start new thread" in str(current):
            return True
        if isinstance(current, ImportError) and any(
            words in str(current).lower() for words in LOADER_OUT_OF_MEMORY
        ):
            return True
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return False


def caused_by(exc: BaseException, kind: type[BaseException]) -> bool:
    """Whether `exc` or an exception it was raised from or during is a `kind`."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, kind):
            return True
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return False


def run_task(
    function: Callable[..., Any],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    memory_mb: int,
    cpu_seconds: int,
    progress: tuple[Any, str] | None = None,
) -> tuple[Any, ...]:
    """Run one file's parser under its limits; the outcome as plain picklable values."""
    set_limits(memory_mb, cpu_seconds)
    sender = None
    if progress is not None:
        sender = ProgressSender(progress[0])
        kwargs = {**kwargs, progress[1]: sender}
    try:
        return ("ok", function(*args, **kwargs))
    except Exception as exc:
        if caused_by(exc, MemoryError) or no_room_left(exc):
            # The parser may have caught it and gone on half-built: nothing of this worker
            # is trusted further. Its exit status tells the pool why.
            os._exit(EXIT_OUT_OF_MEMORY)
        if isinstance(exc, ToolFailure):
            return (
                "failure",
                exc.category.value,
                exc.message,
                exc.hint,
                exc.retryable,
                exc.details,
            )
        if type(exc).__module__.startswith("video_research."):
            try:  # our own errors (SpeechError) keep their meaning across the process
                import pickle

                pickle.dumps(exc)
                return ("raised", exc)
            except Exception:
                pass
        detail = str(exc).strip().splitlines()[0][:300] if str(exc).strip() else ""
        return ("error", type(exc).__name__, detail)
    finally:
        if sender is not None:
            sender.close()


class ProgressSender:
    """The worker's end of a call's progress pipe: `(seconds)` sent at most every
    PROGRESS_EVERY_SECONDS, as a packed float (the server never unpickles it)."""

    def __init__(self, connection: Any) -> None:
        self._connection = connection
        self._last = 0.0

    def __call__(self, seconds: float) -> None:
        now = time.monotonic()
        if now - self._last < PROGRESS_EVERY_SECONDS:
            return
        self._last = now
        # OSError, ValueError: the call is over (its pipe closed): progress no one reads
        with contextlib.suppress(OSError, ValueError):
            self._connection.send_bytes(struct.pack("d", float(seconds)))

    def close(self) -> None:
        self._connection.close()
