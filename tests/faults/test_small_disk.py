"""Disk full for real: the server's data dir on a 32 MB tmpfs that the test fills to the
last byte during real work, then frees (skipped with the reason where no mount is allowed)."""

from __future__ import annotations

import shutil
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import anyio
import pytest

from tests.faults.conftest import (
    Stopwatch,
    assert_whole,
    error_of,
    fill,
    gist,
    indexed_videos,
    make_srts,
    ok,
    served,
    small_disk,
)
from tests.fixtures.documents import make_notes
from tests.helpers import run_cli

pytestmark = pytest.mark.slow


async def _while_filling(session, tool, arguments, data_dir):
    """Run `tool`; once it reports progress, fill the disk. Returns (answer, ballast files)."""
    started = anyio.Event()
    answers: list = []
    ballast: list = []

    async def on_progress(done, total, message):
        if done >= 1:
            started.set()

    async def call() -> None:
        answers.append(await session.call_tool(tool, arguments, progress_callback=on_progress))

    # Most of the disk is filled first, so the rest fills in a moment once work has begun.
    ballast.append(fill(data_dir, leave=4 << 20))
    async with anyio.create_task_group() as group:
        group.start_soon(call)
        with anyio.fail_after(120):
            await started.wait()
        ballast.append(fill(data_dir))
    return answers[0], ballast


async def _freed_then(session, row, ballast, tool, arguments) -> dict:
    """(d): free the disk, call `tool` again, time it into the row; its result."""
    for path in ballast:
        path.unlink()
    clock = Stopwatch()
    again = await ok(session, tool, arguments)
    row.recovery_s = clock.seconds()
    return again


def _full_disk_word(answer) -> str:
    """The answer under a full disk: a clear error of the vocabulary (or failed items)."""
    if answer.is_error:
        error = error_of(answer)
        assert error["category"] == "config_error", error
        assert "full" in error["message"] or "space" in error["message"], error
        return gist(error)
    result = answer.structured_content
    failed = result.get("failed") or result.get("batch", {}).get("failed") or []
    assert failed, f"the disk filled mid-call but nothing failed: {result}"
    return f"{len(failed)} item(s) failed alone: {failed[0]}"


async def test_data_dir_fills_during_document_ingest(tmp_path, small_fs, fault_env, row):
    row.fault, row.tool = "disk full: data dir on a tmpfs filled mid-call", "document_ingest"
    before = make_notes(tmp_path / "before", 5)
    during = make_notes(tmp_path / "during", 150)
    async with served(fault_env) as session:
        await ok(session, "document_ingest", {"path": str(before)})
        kept = {d["source_path"] for d in (await ok(session, "document_list", {}))["documents"]}
        answer, ballast = await _while_filling(
            session, "document_ingest", {"path": str(during)}, small_fs
        )
        row.result = _full_disk_word(answer)
        listed = (await ok(session, "document_list", {"limit": 500}))["documents"]
        await assert_whole(listed)
        row.data_lost = len(kept - {d["source_path"] for d in listed})
        assert row.data_lost == 0
        await ok(session, "document_search", {"query": "Fact 2.1 about topic 2"})

        again = await _freed_then(session, row, ballast, "document_ingest", {"path": str(during)})
        assert not [f for f in again["files"] if f["status"] == "failed"], again
        listed = (await ok(session, "document_list", {"limit": 500}))["documents"]
        await assert_whole(listed)
        assert len(listed) == 155


@pytest.mark.slow_fault
async def test_data_dir_fills_during_index_transcript_files(tmp_path, small_fs, fault_env, row):
    row.fault, row.tool = "disk full: data dir on a tmpfs filled mid-call", "index_transcript_files"
    before = make_srts(tmp_path / "before", 2, cues=40)
    during = make_srts(tmp_path / "during", 12, cues=40)
    async with served(fault_env) as session:
        await ok(session, "index_transcript_files", {"path": str(before)})
        kept = await indexed_videos(session)
        answer, ballast = await _while_filling(
            session, "index_transcript_files", {"path": str(during)}, small_fs
        )
        row.result = _full_disk_word(answer)
        videos = await indexed_videos(session)
        row.data_lost = len(set(kept) - set(videos))
        assert row.data_lost == 0
        await ok(session, "semantic_search_transcripts", {"query": "idea number 1005"})

        again = await _freed_then(
            session, row, ballast, "index_transcript_files", {"path": str(during)}
        )
        assert again["batch"]["failed_count"] == 0, again
        assert len(await indexed_videos(session)) == 14


def _backup(env, dest):
    return run_cli(env, "backup", str(dest), timeout=120)


async def test_backup_onto_a_full_disk_while_serving(tmp_path, fault_env, row):
    row.fault, row.tool = "disk full: backup folder on a full tmpfs", "video-research backup"
    notes = make_notes(tmp_path / "notes", 20)
    with small_disk(tmp_path / "backups", size="4m") as disk:
        async with served(fault_env) as session:
            await ok(session, "document_ingest", {"path": str(notes)})
            ballast = fill(disk, leave=64 << 10)
            dest = disk / "nightly"
            failed = await anyio.to_thread.run_sync(_backup, fault_env, dest)
            # (a) a clear word, no traceback; nothing half-written left to trip the retry.
            assert failed.returncode == 1, failed.stderr
            assert "Traceback" not in failed.stderr, failed.stderr
            assert "full" in failed.stderr or "space" in failed.stderr, failed.stderr
            assert not dest.exists() or not any(dest.iterdir()), list(dest.iterdir())
            said = failed.stderr.strip().splitlines()[0].replace(str(disk) + "/", "")
            row.result = "exit 1: " + said[:110]
            # (b) the server serves on, its store whole.
            listed = (await ok(session, "document_list", {"limit": 100}))["documents"]
            await assert_whole(listed)
            row.data_lost = 20 - len(listed)
            # (d) room again: the same command succeeds.
            ballast.unlink()
            clock = Stopwatch()
            done = await anyio.to_thread.run_sync(_backup, fault_env, dest)
            row.recovery_s = clock.seconds()
            assert done.returncode == 0, done.stderr
            assert (dest / "manifest.json").exists()


LECTURE = Path(__file__).parent.parent / "fixtures" / "media" / "lecture.mp4"


def _lectures(folder: Path, count: int) -> Path:
    """`count` copies of the lecture fixture (slides and speech), each its own file."""
    folder.mkdir(parents=True)
    for i in range(count):
        shutil.copyfile(LECTURE, folder / f"{folder.name}-{i}.mp4")
    return folder


@pytest.mark.slow_fault
async def test_data_dir_fills_during_index_media_files(tmp_path, small_fs, fault_env, row):
    row.fault, row.tool = "disk full: data dir on a tmpfs filled mid-call", "index_media_files"
    before = _lectures(tmp_path / "before", 1)
    during = _lectures(tmp_path / "during", 2)
    async with served(fault_env) as session:
        await ok(session, "index_media_files", {"paths": [str(before)]})
        kept = await indexed_videos(session)
        answer, ballast = await _while_filling(
            session, "index_media_files", {"paths": [str(during)]}, small_fs
        )
        row.result = _full_disk_word(answer)
        videos = await indexed_videos(session)  # (c) whole videos only, none half-written
        row.data_lost = len(set(kept) - set(videos))
        assert row.data_lost == 0
        await ok(session, "semantic_search_transcripts", {"query": "slides"})  # (b)

        again = await _freed_then(
            session, row, ballast, "index_media_files", {"paths": [str(during)]}
        )
        assert again["batch"]["failed_count"] == 0, again
        assert len(await indexed_videos(session)) == 3
        # nothing half-written left on the disk either: no temporary file of any store
        leftovers = [p.name for p in small_fs.rglob("*") if ".tmp" in p.name]
        assert not leftovers, leftovers


SPEECH = LECTURE.with_name("speech.ogg")
"""30 s of speech, 51 KB: what the URL serves (transcribed once, when the disk has room)."""


class _Media(BaseHTTPRequestHandler):
    """A talk's audio as a direct media URL on 127.0.0.1."""

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        body = SPEECH.read_bytes()
        self.send_response(200)
        self.send_header("Content-Type", "audio/ogg")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def media_url() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Media)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/talks/garden_talk.ogg"
    httpd.shutdown()


async def test_media_scratch_full_during_a_download(tmp_path, fault_env, media_url, row):
    row.fault = "disk full: media scratch folder on a full tmpfs"
    row.tool = "index_media_files (URL)"
    fault_env["VIDEO_RESEARCH_URL_ALLOWLIST"] = "127.0.0.1"
    first = make_srts(tmp_path / "first", 1, cues=20)  # accepted before: captions, quick
    arguments = {"urls": [media_url], "screen_text": False}
    scratch = Path(fault_env["GEMINI_CACHE_DIR"]) / "media-downloads"
    with small_disk(scratch, size="4m") as disk:
        async with served(fault_env) as session:
            await ok(session, "index_transcript_files", {"path": str(first)})
            kept = await indexed_videos(session)
            ballast = fill(disk, leave=32 << 10)  # less than the talk's 51 KB
            answer = await session.call_tool("index_media_files", arguments)
            row.result = _full_disk_word(answer)
            # (c) no half-downloaded file left in the scratch folder, nothing half-indexed
            assert [p.name for p in disk.iterdir()] == [ballast.name]
            videos = await indexed_videos(session)
            row.data_lost = len(set(kept) - set(videos))
            assert row.data_lost == 0 and len(videos) == 1
            await ok(session, "get_indexed_videos", {})  # (b)

            again = await _freed_then(session, row, [ballast], "index_media_files", arguments)
            assert again["batch"]["failed_count"] == 0, again
            assert len(await indexed_videos(session)) == 2
            assert not list(disk.iterdir()), list(disk.iterdir())
