"""Files built to break the parsers themselves fail alone, in bounded worker processes.

A FlateDecode bomb (10 KB on disk, 4 GiB inflated) used to run pdfminer in the server's
own process until the machine's memory ran out. Now every document is parsed in a worker
(support/isolation.py) under limits this test sets low: the bomb, a PDF of deeply nested
arrays, an HTML file of a million nested tags and a worker killed in the middle of a file
each fail alone with an error that names what happened, the other files of the batch are
ingested, and the server answers pings throughout. Every file is made by the test.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import signal
import time
import zlib
from pathlib import Path

import anyio
import pytest

from tests.calls import call_ok
from tests.fixtures.documents import make_pdf
from tests.helpers import mcp_client

pytestmark = pytest.mark.slow

LIMITS = {
    "PARSER_MEMORY_MB": "768",
    "PARSER_CPU_SECONDS": "5",
    "PARSER_TIMEOUT_SECONDS": "60",
}
"""Low enough that each hostile file fails within seconds, high enough for the good ones."""

CALL_SECONDS = 120
MEMORY = "ran out of its 768 MB memory limit (PARSER_MEMORY_MB)"


def raw_pdf(content: bytes, stream_keys: bytes = b"", *, pages: int = 1) -> bytes:
    """A PDF of `pages` pages that all show one content stream, `content` (with
    `stream_keys` in its stream dictionary)."""
    kids = b" ".join(b"%d 0 R" % (4 + page) for page in range(pages))
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, pages),
        b"<< /Length %d%s >>\nstream\n%s\nendstream" % (len(content), stream_keys, content),
        *[b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 3 0 R >>"] * pages,
    ]
    out = bytearray(b"%PDF-1.7\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)


def flate_bomb_pdf(gibibytes: int = 4) -> bytes:
    """A page content stream that inflates to `gibibytes` GiB of drawing operators.

    Two Flate layers: the inner one is one 16 MiB block of compressed operators repeated
    (after a full flush a compressor starts afresh, so the same input compresses to the
    same bytes and the blocks can be repeated without compressing 4 GiB); the outer one
    packs those repeats to a few KB."""
    block = b"0 0 m " * (16 * 1024 * 1024 // 6)
    compressor = zlib.compressobj(9)
    first = compressor.compress(block) + compressor.flush(zlib.Z_FULL_FLUSH)
    again = compressor.compress(block) + compressor.flush(zlib.Z_FULL_FLUSH)
    inner = first + again * (gibibytes * 64 - 1) + compressor.flush()
    return raw_pdf(zlib.compress(inner, 9), b" /Filter [/FlateDecode /FlateDecode]")


def nested_arrays_pdf(depth: int = 50_000) -> bytes:
    return raw_pdf(b"BT /F1 12 Tf 72 712 Td " + b"[" * depth + b"]" * depth + b" TJ ET")


def nested_tags_html(depth: int = 1_000_000) -> bytes:
    return b"<html><body>" + b"<div>" * depth + b"deep" + b"</div>" * depth + b"</body></html>"


def slow_pdf(lines: int = 1_000, pages: int = 15) -> bytes:
    """Pages of many short text lines: seconds of pdfminer's layout analysis."""
    text = b"BT /F1 10 Tf 10 TL 72 780 Td " + b"(slow words on a line) ' " * lines + b"ET"
    return raw_pdf(text, pages=pages)


@pytest.fixture
def hostile_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    bomb = flate_bomb_pdf()
    assert len(bomb) < 64 * 1024  # small on disk, 4 GiB inflated
    (folder / "bomb.pdf").write_bytes(bomb)
    (folder / "nested.pdf").write_bytes(nested_arrays_pdf())
    (folder / "nested.html").write_bytes(nested_tags_html())
    (folder / "good.md").write_text("# Telescopes\n\nMirrors gather the light of faint stars.\n")
    make_pdf(folder / "report.pdf", [("Results", [("Findings", "The survey found 12 variables.")])])
    return folder


def _good_and_failed(result: dict) -> tuple[set[str], dict[str, dict]]:
    items = {Path(item["path"]).name: item for item in result["files"]}
    good = {name for name, item in items.items() if item["status"] == "ingested"}
    failed = {name: item["error"] for name, item in items.items() if item["status"] == "failed"}
    return good, failed


async def test_parser_bombs_fail_alone_in_a_batch(configure, hostile_folder):
    configure(**LIMITS)
    started = time.monotonic()
    result = await call_ok("document_ingest", {"path": str(hostile_folder)})
    good, failed = _good_and_failed(result)
    assert good == {"good.md", "report.pdf"}
    assert set(failed) == {"bomb.pdf", "nested.pdf", "nested.html"}
    assert failed["bomb.pdf"]["error"] == (
        f"bomb.pdf: the parser {MEMORY}; the file may be a decompression bomb or built to "
        "exhaust memory."
    )
    assert "PARSER_MEMORY_MB" in failed["bomb.pdf"]["hint"]
    assert failed["nested.pdf"]["error"].startswith("nested.pdf could not be read as PDF")
    # A million nested tags: whichever limit the tree breaks first, it is named.
    html = failed["nested.html"]["error"]
    assert html.startswith("nested.html: the parser"), html
    assert "PARSER_MEMORY_MB" in html or "PARSER_CPU_SECONDS" in html, html
    assert all(error["category"] == "invalid_input" for error in failed.values())
    assert time.monotonic() - started < CALL_SECONDS
    found = await call_ok("document_search", {"query": "survey variables"})
    assert found["results"], found


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(") ", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def test_a_worker_killed_mid_file_fails_that_file_alone(configure, tmp_path):
    """SIGKILL the one worker while it lays out a slow PDF: that file fails, naming the
    kill; the files after it are parsed by the worker that replaces it."""
    configure(**{**LIMITS, "PARSER_WORKERS": "1", "PARSER_CPU_SECONDS": "60"})
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a-first.md").write_text("# First\n\nParsed before the slow file.\n")
    (folder / "b-slow.pdf").write_bytes(slow_pdf())
    (folder / "c-after.md").write_text("# After\n\nParsed by the replacement worker.\n")
    before = set(multiprocessing.active_children())
    ingest = asyncio.create_task(call_ok("document_ingest", {"path": str(folder)}))
    deadline = time.monotonic() + CALL_SECONDS
    worker = None
    while time.monotonic() < deadline and not ingest.done():
        await asyncio.sleep(0.05)
        started = set(multiprocessing.active_children()) - before
        if started:
            worker = started.pop()
            # Past start-up and the first file (about 1 s of CPU), inside the slow one
            # (about 15 s): kill it there.
            if _cpu_seconds(worker.pid) > 2.5:
                os.kill(worker.pid, signal.SIGKILL)
                break
    assert worker is not None and not ingest.done(), "the slow file ended before the kill"
    with anyio.fail_after(CALL_SECONDS):
        result = await ingest
    good, failed = _good_and_failed(result)
    assert good == {"a-first.md", "c-after.md"}
    assert failed["b-slow.pdf"]["error"].startswith(
        "b-slow.pdf: the parser worker was killed (SIGKILL)"
    )
    assert failed["b-slow.pdf"]["retryable"] is True


async def test_the_server_answers_pings_while_a_bomb_is_parsed(server_env, tmp_path):
    """Over stdio: every ping sent while the bomb is parsed is answered within a second
    (or, on a machine so loaded that an idle ping takes longer than 0.1 s, within ten
    times the slowest idle ping: the test is about the parse, not about the machine)."""
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "bomb.pdf").write_bytes(flate_bomb_pdf())
    (folder / "good.md").write_text("# Good\n\nA file that parses.\n")
    env = {**server_env, **LIMITS}
    async with mcp_client(env) as session:

        async def ping() -> float:
            started = time.monotonic()
            with anyio.fail_after(5):
                await session.send_ping()
            return time.monotonic() - started

        idle = [await ping() for _ in range(5)]
        allowed = max(1.0, 10 * max(idle))
        latencies: list[float] = []
        outcome: dict = {}
        async with anyio.create_task_group() as group:
            done = anyio.Event()

            async def ingest() -> None:
                with anyio.fail_after(CALL_SECONDS):
                    result = await session.call_tool("document_ingest", {"path": str(folder)})
                outcome.update(result.structured_content)
                done.set()

            group.start_soon(ingest)
            while not done.is_set():
                latencies.append(await ping())
                await anyio.sleep(0.1)
        good, failed = _good_and_failed(outcome)
        assert good == {"good.md"}
        assert MEMORY in failed["bomb.pdf"]["error"]
        assert len(latencies) >= 5, latencies
        assert max(latencies) < allowed, (latencies, idle)
        # and the server lives on
        assert (await session.call_tool("document_list", {})).structured_content["total"] == 1
