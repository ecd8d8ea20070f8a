"""Untrusted parsers in bounded worker processes: the server never parses a file's bytes itself.

A parser bug is the server's bug when both share a process: a PDF whose FlateDecode stream
inflates without end ran pdfminer until the machine's memory ran out, and a parser that
hangs or crashes took every session with it. Here a parser runs in a worker process of a
`ParserPool` under three limits per file:

- memory: RLIMIT_AS (the address space the worker may map), `PARSER_MEMORY_MB`. A Python
  allocation past it raises MemoryError, on which the worker exits at once (it may be left
  in a half-built state) with an exit code that names the breach; a native allocation past it
  usually crashes the worker, which is reported as a crash. cgroups v2 would bound the
  worker's resident memory instead (RLIMIT_AS counts mapped, not used, pages), but they need
  a delegated cgroup the server rarely has; RLIMIT_AS works unprivileged everywhere.
- CPU time: RLIMIT_CPU, `PARSER_CPU_SECONDS`, re-armed before every file (the limit counts the
  process's lifetime, so each file gets the seconds used so far plus its own budget); past
  it the kernel ends the worker with SIGXCPU.
- wall clock: `PARSER_TIMEOUT_SECONDS`, kept by the pool, which kills the worker (a parser
  blocked in I/O or sleeping uses no CPU).

A worker that breaches a limit or dies is replaced, and only its file fails, with a
`ToolFailure` that names the limit and the setting that raises it. The pool is pebble's
`ProcessPool`: it keeps a per-task timeout, replaces a worker that dies or times out and
fails only that worker's task, where the standard library's `ProcessPoolExecutor` has no
per-task timeout and breaks the whole pool (every pending future) when one worker dies.

Workers are spawned, not forked (a fork would copy the event loop, the server's threads and
their locks), on first use, so the server starts as fast as before. Each worker sends
anything written to stdout to stderr (stdout carries the MCP protocol over stdio), writes no
core files, is scheduled as `WORKER_PRIORITY` says (`WorkerPriority`), ignores Ctrl-C (the
server shuts it down) and keeps only the environment variables a parser needs
(`WORKER_ENVIRONMENT`): no API key or token is left in the `os.environ` of parsing code.

Priority: the event loop is kept responsive by the process boundary, not by starving the
workers. A worker shares no GIL with the server, so the loop's own thread never waits for
it (measured: under 7 ms of loop CPU between two 5 ms sleeps while a worker transcribed
beside two busy processes, at every worker priority tried); how late the loop wakes is then
the kernel's to decide among all the machine's processes, and a sleeper that needs little
CPU, as the loop, is run first on waking. So workers run at the server's own priority: at
niceness 10 (the old default, still `WORKER_PRIORITY=low`) a worker got about a tenth of
what each other process got and speech took 5-8 times the engine called directly beside
the same load. Not chosen: raising the loop's priority (it needs privileges the server
rarely has), fewer worker threads (only slower), SCHED_BATCH (see WorkerPriority).

The worker's side (its start, each file's limits, the outcome sent back) is
`isolation_worker`. Adopting a parser takes one line at its call site; the function must
be a top-level function (it is imported by name in the worker) whose arguments and result
pickle, and it must be handed everything it needs as arguments: a worker has none of the
server's settings or resources (no Services, no secrets), so read limits and options from
the settings at the call site and pass them:

    extracted = await parse_isolated(name, extract, data, document_type, name, limits=limits)

The pool is a `Resource` of the call's Services (`PARSER_POOL`), closed by `Services.aclose`.
Media (decoding, OCR, speech recognition) has a pool of its own (`MEDIA_POOL`): its workers
keep the OCR engine and the speech model loaded between files (module-level caches live as
long as the worker), and that address space would leave a document's limit no room.

Progress: a long function reports how far it got through a `WorkerProgress`. The call gets
a pipe of its own; the worker is handed, as the named keyword argument, a callable that
writes the number it is given (media seconds) to the pipe at most every
`PROGRESS_EVERY_SECONDS`; the server reads the pipe on the event loop (`add_reader`, no
thread) and hands the latest number to the call's reporter. Only packed floats cross it,
never a pickle, and a killed worker breaks only its own call's pipe.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import struct
import threading
from collections.abc import Awaitable, Callable
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, TypeVar

from video_research.support.errors import ErrorCategory, ToolFailure
from video_research.support.isolation_worker import (
    EXIT_OUT_OF_MEMORY,
    WorkerPriority,
    run_task,
    start_worker,
)
from video_research.support.services import Resource, current_services

if TYPE_CHECKING:
    from pebble import ProcessPool

    from video_research.config import Settings

logger = logging.getLogger(__name__)

T = TypeVar("T")

TASKS_PER_WORKER = 200
"""Files one worker parses before it is replaced: bounds what a parser leaks or caches."""

WORKER_ENVIRONMENT = frozenset(
    {"PATH", "HOME", "LANG", "LANGUAGE", "TZ", "TMPDIR", "TEMP", "TMP", "PYTHONPATH"}
)
"""Environment variables a worker keeps (plus every LC_*): what a parser may need to find
programs, temporary space and its locale. Everything else (API keys, tokens) goes."""


@dataclass(frozen=True)
class ParserLimits:
    """What one file may cost a worker (see the module docstring)."""

    memory_mb: int = 2048
    cpu_seconds: int = 300
    timeout_seconds: float = 600.0
    memory_setting: str = "PARSER_MEMORY_MB"
    cpu_setting: str = "PARSER_CPU_SECONDS"
    timeout_setting: str = "PARSER_TIMEOUT_SECONDS"
    """The settings that raise each limit, named in the error of a file that breaches it."""

    @classmethod
    def from_settings(cls, settings: Settings) -> ParserLimits:
        return cls(
            memory_mb=settings.parser_memory_mb,
            cpu_seconds=settings.parser_cpu_seconds,
            timeout_seconds=settings.parser_timeout_seconds,
        )

    def with_changes(self, **changes: Any) -> ParserLimits:
        """These limits with some changed: a parser that needs more than documents do (speech
        recognition of an hour of audio) passes `worker_limits=limits.with_changes(...)`."""
        return replace(self, **changes)


@dataclass(frozen=True)
class WorkerProgress:
    """Where a worker function's progress goes: the function gets a callable `(seconds)`
    as its keyword argument `argument`; the server calls `report(seconds)` (awaited when
    it returns an awaitable) with the latest value, at most every PROGRESS_EVERY_SECONDS."""

    argument: str
    report: Callable[[float], Awaitable[None] | None]


class ParserPool:
    """Worker processes that run parser functions under `ParserLimits`, started on first use."""

    def __init__(
        self,
        workers: int,
        *,
        tasks_per_worker: int = TASKS_PER_WORKER,
        priority: WorkerPriority = "normal",
    ) -> None:
        self.workers = workers
        self.priority = priority
        self._tasks_per_worker = tasks_per_worker
        self._pool: ProcessPool | None = None
        self._lock = threading.Lock()
        self._closed = False

    def _started(self) -> ProcessPool:
        with self._lock:
            if self._closed:
                raise ToolFailure(
                    ErrorCategory.INTERNAL_ERROR,
                    "The parser workers are shutting down.",
                    retryable=True,
                )
            if self._pool is not None and not self._pool.active:
                # Broken (its workers kept dying as they started): begin again.
                self._pool.stop()
                self._pool = None
            if self._pool is None:
                import multiprocessing

                from pebble import ProcessPool

                self._pool = ProcessPool(
                    max_workers=self.workers,
                    max_tasks=self._tasks_per_worker,
                    initializer=start_worker,
                    initargs=(WORKER_ENVIRONMENT, self.priority),
                    context=multiprocessing.get_context("spawn"),
                )
                if not self._pool.active:  # reading it starts the workers (not the first schedule)
                    raise ToolFailure(
                        ErrorCategory.INTERNAL_ERROR,
                        "The parser workers could not be started.",
                        retryable=True,
                    )
            return self._pool

    async def run(
        self,
        label: str,
        limits: ParserLimits,
        function: Callable[..., T],
        /,
        *args: Any,
        progress: WorkerProgress | None = None,
        **kwargs: Any,
    ) -> T:
        """`function(*args, **kwargs)` in a worker, awaited without blocking the event loop.

        `label` (the file's name as shown to users) starts every error. A `ToolFailure`
        the function raises comes back as it was (so does an exception of this package's
        own, such as `SpeechError`); a breached limit or a dead worker becomes a
        `ToolFailure` naming it; cancelling the await kills the worker (pebble stops a
        worker whose running task is cancelled), so a cancelled call stops at once.
        """
        # Starting the workers takes tens of milliseconds: not on the event loop.
        pool = self._pool if self._pool is not None else await asyncio.to_thread(self._started)
        if not pool.active:
            pool = await asyncio.to_thread(self._started)
        if progress is None:
            return await self._awaited(label, limits, pool, function, args, kwargs, None)
        import multiprocessing

        reader, writer = multiprocessing.get_context("spawn").Pipe(duplex=False)
        drain = asyncio.create_task(_drain(reader, progress.report))
        try:
            return await self._awaited(
                label, limits, pool, function, args, kwargs, (writer, progress.argument)
            )
        finally:
            drain.cancel()
            await asyncio.gather(drain, return_exceptions=True)
            writer.close()
            reader.close()

    async def _awaited(
        self,
        label: str,
        limits: ParserLimits,
        pool: ProcessPool,
        function: Callable[..., T],
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        progress: tuple[Any, str] | None,
    ) -> T:
        future = pool.schedule(
            run_task,
            args=(function, args, kwargs, limits.memory_mb, limits.cpu_seconds, progress),
            timeout=limits.timeout_seconds,
        )
        try:
            outcome = await asyncio.wrap_future(future)
        except FutureTimeout:
            raise breach(label, "timeout", limits) from None
        except BrokenProcessPool as exc:
            logger.error("the parser workers cannot start: %s", exc)
            raise ToolFailure(
                ErrorCategory.INTERNAL_ERROR,
                f"{label}: the parser workers could not be started (see the server log).",
                retryable=True,
            ) from None
        except Exception as exc:
            exitcode = getattr(exc, "exitcode", None)
            if exitcode is None:  # not a worker death (pebble's ProcessExpired)
                raise
            raise died(label, exitcode, limits) from None
        return _unpacked(label, outcome)

    async def aclose(self) -> None:
        """Stop every worker (a file being parsed fails) and wait for them to exit."""
        with self._lock:
            pool, self._pool, self._closed = self._pool, None, True
        if pool is not None:
            pool.stop()
            await asyncio.to_thread(pool.join, 10)


def _open_pool(settings: Settings) -> ParserPool:
    return ParserPool(settings.parser_workers, priority=settings.worker_priority)


def _open_media_pool(settings: Settings) -> ParserPool:
    return ParserPool(settings.media_workers, priority=settings.worker_priority)


async def _close_pool(pool: ParserPool) -> None:
    await pool.aclose()


PARSER_POOL: Resource[ParserPool] = Resource(
    name="parser_pool",
    key=lambda settings: (settings.parser_workers, settings.worker_priority),
    open=_open_pool,
    close=_close_pool,
    single=True,
)
"""The pool of the call's Services. Its limits are read per file from the settings in
force, so changing a limit takes effect on the next file without restarting workers."""


MEDIA_POOL: Resource[ParserPool] = Resource(
    name="media_pool",
    key=lambda settings: (settings.media_workers, settings.worker_priority),
    open=_open_media_pool,
    close=_close_pool,
    single=True,
)
"""The workers that decode media, read on-screen text and recognise speech (`MEDIA_WORKERS`):
apart from the document parsers, so the models they keep loaded never count against a
document's memory limit."""


async def parse_isolated(
    label: str,
    function: Callable[..., T],
    /,
    *args: Any,
    worker_limits: ParserLimits | None = None,
    worker_pool: Resource[ParserPool] = PARSER_POOL,
    worker_progress: WorkerProgress | None = None,
    **kwargs: Any,
) -> T:
    """Run the parser `function(*args, **kwargs)` on an untrusted file in a bounded worker of
    the call's pool (`worker_pool`; limits from the settings in force unless `worker_limits`
    are given; progress to `worker_progress`); see `ParserPool.run`. Other keyword arguments
    go to `function`."""
    services = current_services()
    pool = services.get(worker_pool)
    limits = worker_limits or ParserLimits.from_settings(services.settings)
    return await pool.run(label, limits, function, *args, progress=worker_progress, **kwargs)


async def _drain(reader: Any, report: Callable[[float], Awaitable[None] | None]) -> None:
    """Hand the latest progress a worker wrote to `reader` to `report`, until cancelled.
    The pipe is read on the event loop only when it is readable: nothing blocks."""
    loop = asyncio.get_running_loop()
    readable = asyncio.Event()
    fd = reader.fileno()
    loop.add_reader(fd, readable.set)
    try:
        while True:
            await readable.wait()
            readable.clear()
            latest = None
            try:
                while reader.poll():
                    message = reader.recv_bytes(16)
                    if len(message) == 8:
                        latest = struct.unpack("d", message)[0]
            except (EOFError, OSError):
                return  # the worker's end is gone (it was replaced)
            if latest is None:
                continue
            try:
                outcome = report(latest)
                if outcome is not None:
                    await outcome
            except asyncio.CancelledError:
                raise
            except Exception:  # a progress report that fails must not fail the work
                logger.debug("a progress report failed", exc_info=True)
    finally:
        loop.remove_reader(fd)


# ---------------------------------------------------------------------- the errors


def _mib(megabytes: int) -> str:
    return f"{megabytes / 1024:g} GiB" if megabytes % 1024 == 0 else f"{megabytes} MB"


def breach(label: str, limit: str, limits: ParserLimits) -> ToolFailure:
    """The failure of a file that made its worker breach `limit` (memory, cpu, timeout)."""
    setting = {
        "memory": limits.memory_setting,
        "cpu": limits.cpu_setting,
        "timeout": limits.timeout_setting,
    }[limit]
    if limit == "memory":
        message = (
            f"{label}: the parser ran out of its {_mib(limits.memory_mb)} memory limit "
            f"({setting}); the file may be a decompression bomb or built to exhaust memory."
        )
    elif limit == "cpu":
        message = (
            f"{label}: the parser used up its {limits.cpu_seconds:g} s of CPU time "
            f"({setting}); the file may be built to make parsing endless."
        )
    else:
        message = (
            f"{label}: the parser took longer than its {limits.timeout_seconds:g} s "
            f"wall-clock limit ({setting})."
        )
    return ToolFailure(
        ErrorCategory.INVALID_INPUT if limit != "timeout" else ErrorCategory.TIMEOUT,
        message,
        hint=f"If this is a genuine file, raise {setting} (or split the file); the rest of a "
        "batch is not affected.",
        retryable=limit == "timeout",
        details={"limit": limit, "setting": setting},
    )


def died(label: str, exitcode: int, limits: ParserLimits) -> ToolFailure:
    """The failure of a file whose worker ended with `exitcode` (negative: a signal)."""
    if exitcode == EXIT_OUT_OF_MEMORY:
        return breach(label, "memory", limits)
    if exitcode == -signal.SIGXCPU:
        return breach(label, "cpu", limits)
    if exitcode == -signal.SIGKILL:
        return ToolFailure(
            ErrorCategory.INTERNAL_ERROR,
            f"{label}: the parser worker was killed (SIGKILL) while reading it, by an operator "
            "or by the system running out of memory.",
            hint="Try again; if it recurs, lower the worker count (PARSER_WORKERS, "
            f"MEDIA_WORKERS) or {limits.memory_setting} so the workers fit in the machine's "
            "memory.",
            retryable=True,
            details={"signal": "SIGKILL"},
        )
    how = f"signal {signal.Signals(-exitcode).name}" if exitcode < 0 else f"exit status {exitcode}"
    return ToolFailure(
        ErrorCategory.INVALID_INPUT,
        f"{label}: the parser crashed ({how}) while reading it; the file is malformed or "
        f"built to break parsers (or needed more than the {_mib(limits.memory_mb)} memory "
        f"limit, {limits.memory_setting}, inside native code).",
        hint="The rest of a batch is not affected. Open and re-save the file, or convert it.",
        retryable=False,
        details={"exit": how},
    )


def _unpacked(label: str, outcome: tuple[Any, ...]) -> Any:
    kind = outcome[0]
    if kind == "ok":
        return outcome[1]
    if kind == "raised":
        raise outcome[1]
    if kind == "failure":
        _, category, message, hint, retryable, details = outcome
        raise ToolFailure(
            ErrorCategory(category), message, hint=hint, retryable=retryable, details=details
        )
    _, type_name, detail = outcome
    raise ToolFailure(
        ErrorCategory.INTERNAL_ERROR,
        f"{label}: the parser failed ({type_name}: {detail})",
        retryable=False,
    )
