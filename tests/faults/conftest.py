"""The fault matrix's harness: a running server with a fault inlet, and one row per test.

Each test is one row of the matrix `make faults` prints: it starts the real server
(`tests.faults.serve`, stdio or HTTP, real SQLite and workers), injects its fault during
real work and checks (a) the call in flight fails alone with an error of the documented
vocabulary, (b) the server keeps serving, (c) nothing accepted before is lost and nothing
half-written shows, (d) once the fault is gone the same call succeeds without repair.
It fills in its `row` (fault, tool, result, recovery time, data lost); the outcome is
added from pytest's report.

Rows marked `slow_fault` take minutes (or thousands of calls) and run only in
`make faults` (FAULTS_ALL=1); the others run in `make test` too.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.helpers import base_env, mcp_client, tool_json
from video_research.support.errors import ErrorCategory

CATEGORIES = {category.value for category in ErrorCategory}
"""The documented vocabulary a failed call's `category` must come from."""


@dataclass
class Row:
    """One line of the matrix."""

    fault: str = ""
    tool: str = ""
    result: str = ""
    """What the call under the fault answered (its error category and the gist)."""
    recovery_s: float | None = None
    """Seconds from the fault's removal to the same call succeeding."""
    data_lost: int | None = None
    """Objects accepted before the fault and missing after it (must be 0)."""
    outcome: str = ""
    test: str = ""
    notes: list[str] = field(default_factory=list)


def pytest_collection_modifyitems(config, items):
    if os.environ.get("FAULTS_ALL"):
        return
    skip = pytest.mark.skip(reason="a slow fault row: runs in `make faults` (FAULTS_ALL=1)")
    for item in items:
        if "slow_fault" in item.keywords:
            item.add_marker(skip)


def pytest_configure(config):
    config.addinivalue_line("markers", "slow_fault: a fault row too slow for `make test`")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    row = getattr(item, "fault_row", None)
    if row is None:
        return
    if report.when == "call" or (report.when == "setup" and report.outcome != "passed"):
        row.outcome = "skipped" if report.skipped else report.outcome
        if report.skipped and isinstance(report.longrepr, tuple):
            row.notes.append(report.longrepr[2])


@pytest.fixture
def row(request) -> Iterator[Row]:
    """The matrix row this test fills in; appended to FAULTS_MATRIX (JSON lines) if set."""
    found = Row(test=request.node.nodeid)
    request.node.fault_row = found
    yield found
    target = os.environ.get("FAULTS_MATRIX")
    if target:
        with open(target, "a", encoding="utf-8") as out:
            out.write(json.dumps(asdict(found)) + "\n")


def error_of(result: Any) -> dict[str, Any]:
    """The ToolError a failed call carries, checked to be in the documented vocabulary."""
    assert result.is_error, f"expected the call to fail, it answered {result.content}"
    error = tool_json(result)
    assert error.get("category") in CATEGORIES, error
    assert error.get("message"), error
    return error


def gist(error: dict[str, Any], width: int = 110) -> str:
    """`category: message` with paths shortened to their file names, for the matrix."""
    said = error.get("message") or error.get("error") or ""  # a batch item's error: "error"
    message = re.sub(r"(/[^\s/:]+)+/([^\s/:]+)", r"\2", said)
    text = f"{error['category']}: {message}"
    return text if len(text) <= width else text[: width - 3] + "..."


class Inlet:
    """The running server's fault inlet (see tests/faults/serve.py)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    async def inject(self, op: str, **arguments: Any) -> dict[str, Any]:
        name = f"{op}-{uuid.uuid4().hex[:8]}"
        command = self.folder / f"{name}.json"
        staged = self.folder / f"{name}.tmp"
        staged.write_text(json.dumps({"op": op, **arguments}))
        staged.rename(command)
        with anyio.fail_after(20):
            while True:
                done = self.folder / f"{name}.done"
                failed = self.folder / f"{name}.failed"
                if done.exists():
                    return json.loads(done.read_text())
                if failed.exists():
                    raise AssertionError(f"the fault inlet failed: {failed.read_text()}")
                await anyio.sleep(0.02)


@pytest.fixture
def fault_env(tmp_path) -> dict[str, str]:
    env = base_env(tmp_path, FAULTS_CONTROL=str(tmp_path / "faults"))
    (tmp_path / "faults").mkdir()
    return env


@pytest.fixture
def inlet(tmp_path, fault_env) -> Inlet:
    return Inlet(tmp_path / "faults")


SERVE = ["-m", "tests.faults.serve"]


@asynccontextmanager
async def served(env: dict[str, str], errlog: Any = None) -> AsyncIterator[Any]:
    """A stdio session with the real server started through the fault inlet."""
    async with mcp_client(env, args=SERVE, errlog=errlog) as session:
        yield session


async def ok(session: Any, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    result = await session.call_tool(tool, arguments)
    assert not result.is_error, tool_json(result)
    return result.structured_content or tool_json(result)


class Stopwatch:
    def __init__(self) -> None:
        self.start = time.monotonic()

    def seconds(self) -> float:
        return round(time.monotonic() - self.start, 2)


async def assert_whole(documents: list[dict[str, Any]]) -> None:
    """Every listed document has all its passages in the store file, read beside the
    running server (SQLite WAL readers see only committed transactions)."""
    from video_research.documents import library
    from video_research.knowledge.filters import Filter
    from video_research.knowledge.store import get_store

    store = await get_store()
    for document in documents:
        stored = await store.count(
            library.COLLECTION, Filter.eq("document_id", document["document_id"])
        )
        assert stored == document["chunks"] > 0, f"{document['file_name']} is half written"


@contextmanager
def small_disk(mount: Path, size: str = "32m") -> Iterator[Path]:
    """`mount` on a tmpfs of `size` of its own: a disk that can really fill. Skips the
    test, saying why, where this machine does not allow mounting one."""
    mount.mkdir(parents=True, exist_ok=True)
    made = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs", str(mount)],
        capture_output=True,
        text=True,
    )
    if made.returncode != 0:
        pytest.skip(f"no small filesystem here (mount tmpfs: {made.stderr.strip() or 'refused'})")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], capture_output=True)


@pytest.fixture
def small_fs(tmp_path) -> Iterator[Path]:
    """tmp_path/data (the server's data dir in `fault_env`) on a 32 MB tmpfs."""
    with small_disk(tmp_path / "data") as mount:
        yield mount


def fill(folder: Path, leave: int = 0) -> Path:
    """Fill the filesystem holding `folder` but `leave` bytes (default: to the last byte);
    remove the file returned to free it. Called again, it takes what was left too."""
    ballast = folder / f"ballast-{uuid.uuid4().hex[:6]}.bin"
    fd = os.open(ballast, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        for size in (1 << 20, 4096, 1):
            block = b"\0" * size
            try:
                while os.statvfs(folder).f_bavail * os.statvfs(folder).f_frsize >= leave + size:
                    if not os.write(fd, block):
                        break
            except OSError:
                continue
    finally:
        os.close(fd)
    return ballast


def make_srts(folder: Path, count: int, cues: int = 80) -> Path:
    """`count` SRT transcripts of `cues` captions each, the way subtitle editors write
    them; every file's words differ, so every file is its own video."""
    folder.mkdir(parents=True)
    for i in range(count):
        lines = []
        for j in range(cues):
            start, end = j * 4, j * 4 + 3
            lines.append(
                f"{j + 1}\n00:{start // 60:02}:{start % 60:02},000 --> "
                f"00:{end // 60:02}:{end % 60:02},500\n"
                f"In lecture {i} part {j} the speaker explains idea number {i * 1000 + j}.\n"
            )
        (folder / f"{folder.name}-{i:03}.srt").write_text("\n".join(lines))
    return folder


async def indexed_videos(session: Any) -> dict[str, int]:
    """Indexed videos (id -> chunks), each checked whole in the store file: its speech
    chunks are as many as its record says, and no chunk belongs to an unlisted video."""
    from video_research.knowledge.filters import Filter
    from video_research.knowledge.store import get_store
    from video_research.transcripts.indexer import CHUNKS, SPEECH_CHUNKS

    listed = await ok(session, "get_indexed_videos", {"limit": 100})
    store = await get_store()
    videos = {v["video_id"]: v["chunk_count"] for v in listed["videos"]}
    sources = {v["video_id"]: v["source"] for v in listed["videos"]}
    belonging = 0
    for video_id, chunks in videos.items():
        mine = Filter.eq("video_id", video_id)
        belonging += await store.count(CHUNKS, mine)
        if sources[video_id] == "screen":
            continue
        stored = await store.count(CHUNKS, Filter.all_of(mine, SPEECH_CHUNKS))
        assert stored == chunks > 0, f"{video_id} is half indexed ({stored} of {chunks})"
    orphans = await store.count(CHUNKS) - belonging
    assert orphans == 0, f"{orphans} chunks belong to no listed video (half-written)"
    return videos


ANN_FLOOR = {"KNOWLEDGE_ANN_MIN_OBJECTS": "100"}
"""KNOWLEDGE_ANN_MIN_OBJECTS at its floor: a few transcripts' windows make a vector graph."""


async def index_talks(
    env: dict[str, str], folder: Path, query: dict[str, Any] | None = None
) -> tuple[dict[str, int], dict[str, Any] | None]:
    """Index `folder`'s transcripts on a fresh server, closed after (and search `query`
    before it closes, if given): (the videos indexed, that search's answer)."""
    async with served(env) as session:
        await ok(session, "index_transcript_files", {"path": str(folder)})
        found = await ok(session, "semantic_search_transcripts", query) if query else None
        return await indexed_videos(session), found


async def search_after_restart(
    env: dict[str, str],
    log: Path,
    query: dict[str, Any],
    kept: dict[str, int],
    row: Row,
    wait_for: str | None = None,
) -> tuple[dict[str, Any], str]:
    """Restart the server (its log in `log`), time `query` into the row's recovery, count
    the videos lost, and before it closes wait for the log line `wait_for` (work it does
    in the background): (the answer, the log)."""
    with open(log, "w") as errlog:
        async with served(env, errlog=errlog) as session:
            clock = Stopwatch()
            found = await ok(session, "semantic_search_transcripts", query)
            row.recovery_s = clock.seconds()
            row.data_lost = len(set(kept) - set(await indexed_videos(session)))
            await ok(session, "get_indexed_videos", {})  # (b) the other tools serve on
            with anyio.fail_after(120):
                while wait_for and wait_for not in log.read_text():
                    await anyio.sleep(0.1)
    return found, log.read_text()
