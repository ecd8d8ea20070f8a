"""A client that closes stdin mid-ingest gets the server to exit within seconds (it took
81 s, or much longer), and nothing half-written is left in the store.

The call is cancelled at once; what kept the process alive was the worker thread still
embedding the cancelled document, which asyncio waits for before the process may exit.
"""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
import time

import pytest

from tests.helpers import REPO_ROOT
from video_research.documents import library
from video_research.knowledge.filters import Filter
from video_research.knowledge.store import get_store

pytestmark = pytest.mark.slow

EXIT_SECONDS = 10.0


def _lines(stream, into: queue.Queue) -> None:
    for line in iter(stream.readline, b""):
        into.put(line)
    into.put(None)


async def test_stdin_eof_during_an_ingest_exits_within_seconds(server_env, tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a-small.md").write_text("# Small\n\nOne short passage about tides.\n")
    sections = (
        f"## Part {i}\n\n" + " ".join(f"word{i}x{k}" for k in range(120)) for i in range(400)
    )
    (folder / "b-large.md").write_text("# Large\n\n" + "\n\n".join(sections))
    messages = [
        {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "eof", "version": "0"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "document_ingest", "arguments": {"path": str(folder)}},
        },
    ]
    proc = subprocess.Popen(
        [sys.executable, "-m", "video_research"],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env={**server_env, "VIDEO_RESEARCH_LOG_LEVEL": "DEBUG"},
        cwd=REPO_ROOT,
    )
    log: queue.Queue = queue.Queue()
    threading.Thread(target=_lines, args=(proc.stderr, log), daemon=True).start()
    try:
        assert proc.stdin is not None
        proc.stdin.write(b"".join(json.dumps(m).encode() + b"\n" for m in messages))
        proc.stdin.flush()
        # The small file is stored, then the large one is chunked and handed to the
        # embedder (logged at DEBUG): from then on a worker thread is busy for a while.
        deadline = time.monotonic() + 120
        seen: list[str] = []
        while not any("b-large.md: writing" in line for line in seen):
            line = log.get(timeout=max(deadline - time.monotonic(), 0.1))
            assert line is not None, "".join(seen)
            seen.append(line.decode(errors="replace"))
        time.sleep(0.5)
        closed = time.monotonic()
        proc.stdin.close()
        proc.wait(timeout=60)
        took = time.monotonic() - closed
    finally:
        proc.kill()
    assert took < EXIT_SECONDS, f"the server took {took:.1f} s to exit after stdin closed"

    # Nothing partial: every stored document has all its chunks, and the large one,
    # abandoned mid-embedding, is not there at all.
    store = await get_store()
    page, count = await library.documents(store, None, limit=10, offset=0)
    names = [head.properties["file_name"] for head in page.objects]
    assert names == ["a-small.md"], names
    for head in page.objects:
        stored = await store.count(
            library.COLLECTION, Filter.eq("document_id", head.properties["document_id"])
        )
        assert stored == head.properties["chunk_count"]
