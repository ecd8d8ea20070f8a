"""Killed mid-work: SIGKILL of the server while it indexes, then a restart. Every store
write is one transaction per file, so a restart finds whole files or none of a file, and
the same call picks up the rest."""

from __future__ import annotations

import contextlib
import json
import os
import signal
from pathlib import Path

import anyio
import pytest

from tests.faults.conftest import (
    ANN_FLOOR,
    Stopwatch,
    index_talks,
    indexed_videos,
    make_srts,
    ok,
    search_after_restart,
    served,
)

pytestmark = pytest.mark.slow


async def _kill_during(env, tool, arguments, after: int) -> int:
    """Start `tool` on a fresh server; SIGKILL the server once `after` items are done.
    Returns how many were reported done before the kill."""
    pid_file = Path(env["FAULTS_CONTROL"]) / "server.pid"
    reached = anyio.Event()
    done_seen = [0]

    async def on_progress(done, total, message):
        done_seen[0] = int(done)
        if done >= after:
            reached.set()

    with contextlib.suppress(Exception, BaseExceptionGroup):
        async with served(env) as session, anyio.create_task_group() as group:

            async def call() -> None:
                with contextlib.suppress(Exception):
                    await session.call_tool(tool, arguments, progress_callback=on_progress)

            group.start_soon(call)
            with anyio.fail_after(180):
                await reached.wait()
            os.kill(int(pid_file.read_text()), signal.SIGKILL)
            with anyio.fail_after(30):
                while True:
                    try:
                        os.kill(int(pid_file.read_text()), 0)
                    except ProcessLookupError:
                        break
                    await anyio.sleep(0.05)
            group.cancel_scope.cancel()
    return done_seen[0]


@pytest.mark.slow_fault
async def test_server_killed_during_index_transcript_files(tmp_path, fault_env, row):
    row.fault, row.tool = "SIGKILL of the server mid-call", "index_transcript_files"
    before = make_srts(tmp_path / "early", 2, cues=40)
    folder = make_srts(tmp_path / "talks", 16, cues=40)
    async with served(fault_env) as session:
        await ok(session, "index_transcript_files", {"path": str(before)})
        kept = await indexed_videos(session)
    done = await _kill_during(fault_env, "index_transcript_files", {"path": str(folder)}, 3)

    async with served(fault_env) as session:
        # Only whole files: each listed video has all its chunks, no chunk without a video.
        survived = await indexed_videos(session)
        row.data_lost = len(set(kept) - set(survived))
        assert row.data_lost == 0
        row.result = (
            f"killed after {done}/16 files: restart found {len(survived) - len(kept)} whole, "
            "none half-written"
        )
        clock = Stopwatch()
        again = await ok(session, "index_transcript_files", {"path": str(folder)})
        row.recovery_s = clock.seconds()
        assert again["batch"]["failed_count"] == 0, again
        assert len(await indexed_videos(session)) == 18
        found = await ok(
            session, "semantic_search_transcripts", {"query": "idea number 15021", "k": 3}
        )
        assert found["results"][0]["video_id"] == "talks-015", found["results"][:1]


LECTURE = Path(__file__).parent.parent / "fixtures" / "media" / "lecture.mp4"


def _media_folder(tmp_path: Path, count: int) -> Path:
    """`count` copies of the lecture fixture (slides and speech), each its own file."""
    import shutil

    folder = tmp_path / "lectures"
    folder.mkdir()
    for i in range(count):
        shutil.copyfile(LECTURE, folder / f"lecture-{i}.mp4")
    return folder


def _workers(server_pid: int) -> list[int]:
    """The server's worker processes (spawned by multiprocessing; not its resource tracker)."""
    found = []
    for task in Path(f"/proc/{server_pid}/task").iterdir():
        for child in (task / "children").read_text().split():
            cmdline = Path(f"/proc/{child}/cmdline").read_bytes().replace(b"\0", b" ")
            if b"spawn_main" in cmdline and b"resource_tracker" not in cmdline:
                found.append(int(child))
    return found


def _cpu_ticks(pid: int) -> int:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0
    return int(fields[11]) + int(fields[12])  # utime + stime


async def _busy_worker(server_pid: int, answers: list) -> int:
    """A worker that used over 0.1 s of CPU in the last 0.5 s: one in the middle of a file
    (workers run niced, so on a busy machine they get a small share)."""
    while not answers:
        before = {pid: _cpu_ticks(pid) for pid in _workers(server_pid)}
        await anyio.sleep(0.5)
        for pid, ticks in before.items():
            if _cpu_ticks(pid) - ticks > 10:
                return pid
    raise AssertionError(f"the batch ended before a worker was seen busy: {answers[0]}")


@pytest.mark.slow_fault
async def test_server_killed_during_index_media_files(tmp_path, fault_env, row):
    row.fault, row.tool = "SIGKILL of the server mid-call (speech + OCR)", "index_media_files"
    folder = _media_folder(tmp_path, 3)
    arguments = {"paths": [str(folder)]}
    done = await _kill_during(fault_env, "index_media_files", arguments, 1)
    async with served(fault_env) as session:
        survived = await indexed_videos(session)
        row.result = f"killed at progress {done}: restart found {len(survived)} whole file(s)"
        clock = Stopwatch()
        again = await ok(session, "index_media_files", arguments)
        row.recovery_s = clock.seconds()
        assert again["batch"]["failed_count"] == 0, again
        assert len(await indexed_videos(session)) == 3
        row.data_lost = len(set(survived) - set(await indexed_videos(session)))


@pytest.mark.slow_fault
async def test_media_worker_killed_during_a_batch(tmp_path, fault_env, row):
    row.fault, row.tool = "SIGKILL of a media worker mid-batch", "index_media_files"
    folder = _media_folder(tmp_path, 3)
    arguments = {"paths": [str(folder)], "screen_text": False}
    pid = lambda: int((Path(fault_env["FAULTS_CONTROL"]) / "server.pid").read_text())  # noqa: E731
    async with served(fault_env) as session:
        async with anyio.create_task_group() as group:
            answers: list = []

            async def call() -> None:
                answers.append(await session.call_tool("index_media_files", arguments))

            group.start_soon(call)
            with anyio.fail_after(120):
                killed = await _busy_worker(pid(), answers)  # one transcribing (burning CPU) now
            os.kill(killed, signal.SIGKILL)
        (answer,) = answers
        assert not answer.is_error, answer.content
        batch = answer.structured_content["batch"]
        # (a) the file whose worker died fails alone, saying so; the others are indexed.
        # Some kills are absorbed instead: pebble reports its pool broken ("All workers
        # expired"), the worker is replaced and the file runs again; nothing fails.
        if batch["failed_count"]:
            assert batch["indexed_count"] >= 1, batch
            said = batch["failed"][0]["error"]
            assert "SIGKILL" in said or "killed" in said, said
            row.result = f"{batch['failed_count']}/3 failed alone: {said[:90]}"
        else:
            assert batch["indexed_count"] == 3, batch
            row.result = "kill absorbed: the worker was replaced, its file ran again; 3/3 indexed"
        kept = await indexed_videos(session)
        clock = Stopwatch()
        again = await ok(session, "index_media_files", arguments)
        row.recovery_s = clock.seconds()
        assert again["batch"]["failed_count"] == 0, again
        videos = await indexed_videos(session)
        assert len(videos) == 3
        row.data_lost = len(set(kept) - set(videos))


@pytest.mark.slow_fault
async def test_server_killed_during_an_index_build(tmp_path, fault_env, row):
    row.fault = "SIGKILL of the server mid index build (ANN graph)"
    row.tool = "semantic_search_transcripts"
    # 60 transcripts make ~2,300 windows, past MERGE_SLICE: the first graph is one bulk
    # build, with a line at its start and at its end.
    fault_env.update(ANN_FLOOR)
    kept, _ = await index_talks(fault_env, make_srts(tmp_path / "talks", 60, cues=80))
    query = {"query": "the speaker explains idea number 37021", "k": 3}
    # The first search of the next start builds the derived indexes (keyword now, the ANN
    # graphs in the background); the server is killed once a graph build has begun.
    ann = Path(fault_env["VIDEO_RESEARCH_DATA_DIR"]) / "knowledge.db.ann"
    pid_file = Path(fault_env["FAULTS_CONTROL"]) / "server.pid"
    log = tmp_path / "killed.log"
    with contextlib.suppress(Exception, BaseExceptionGroup), open(log, "w") as errlog:
        async with served(fault_env, errlog=errlog) as session, anyio.create_task_group() as group:

            async def search() -> None:
                with contextlib.suppress(Exception):
                    await session.call_tool("semantic_search_transcripts", query)

            group.start_soon(search)
            with anyio.fail_after(120):
                while "building the graph" not in log.read_text():
                    await anyio.sleep(0.005)
            os.kill(int(pid_file.read_text()), signal.SIGKILL)
            killed = log.read_text()
            group.cancel_scope.cancel()
    assert "building the graph" in killed
    saved = sorted(p.name for p in ann.glob("*.json")) if ann.is_dir() else []

    found, text = await search_after_restart(
        fault_env,
        tmp_path / "restarted.log",
        query,
        kept,
        row,
        wait_for="TranscriptWindows: graph of",  # the graph redone, whole, in the background
    )
    assert found["results"][0]["video_id"] == "talks-037", found["results"][:1]
    assert row.data_lost == 0
    assert "unreadable" not in text, text[-3000:]  # no half-written index file was loaded
    # Closed cleanly this time: each saved graph names files that are there and whole.
    for meta_path in ann.glob("*.json"):
        meta = json.loads(meta_path.read_text())
        graph = ann / f"{meta_path.stem}.{meta['generation']}.faiss"
        assert graph.stat().st_size > 0 and meta["vectors"] > 0, meta
    when = "after the build, before its save" if "graph of" in killed else "mid-build"
    row.result = (
        f"killed {when} ({len(saved)} graph file(s) saved before): the restart loaded no "
        "half-written file, searched, rebuilt the graph whole"
    )
