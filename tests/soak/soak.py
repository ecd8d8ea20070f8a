"""A team on one HTTP server: SOAK_CLIENTS (50) MCP sessions with bearer tokens of every
role make mixed calls for SOAK_SECONDS (600), then the server gets SIGTERM under load.

Loopback only; bounded (the deadline, the drain timeout, and a hard kill after them).
It checks, and prints a report of:
- errors other than intended refusals (a viewer writing: forbidden; a full queue): 0;
- p50/p95/p99 latency per tool;
- the server's RSS growth after warm-up (the first fifth of the run): at most 10%;
- every accepted write present exactly once: each catalog_add's video, each ingested
  document and transcript, and one ok audit row per accepted audited call;
- SIGTERM under the same load: the process exits within VIDEO_RESEARCH_DRAIN_SECONDS
  (plus start-up slack), every call either answered or failed cleanly, every store
  passes PRAGMA integrity_check, and a restarted server serves the same data.
Exit status 0 when every check holds.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from tests.helpers import REPO_ROOT, base_env, free_port, wait_listening

ROLES = ("admin", "blessed", "viewer")
TOKENS = {
    f"soak-{role}-token-{i:02d}-0123456789": {"username": f"{role}{i}", "role": role}
    for i in range(4)
    for role in ROLES
}
DRAIN_SECONDS = 15
VTT = "WEBVTT\n\n00:00:01.000 --> 00:00:04.000\n{text}\n\n00:00:05.000 --> 00:00:09.000\nMore about {text}\n"


class Tally:
    def __init__(self) -> None:
        self.latency: dict[str, list[float]] = defaultdict(list)
        self.ok: Counter[str] = Counter()
        self.refused: Counter[str] = Counter()
        self.errors: list[str] = []
        self.videos: list[str] = []
        self.documents: list[str] = []
        self.transcripts: list[str] = []


def _rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def _start(env: dict[str, str], port: int, log: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "video_research",
            "serve",
            "--transport",
            "http",
            "--port",
            str(port),
        ],
        env=env,
        cwd=REPO_ROOT,
        stdout=subprocess.DEVNULL,
        stderr=log.open("ab"),
    )


async def _call(
    session: Any, tally: Tally, tool: str, args: dict[str, Any]
) -> dict[str, Any] | None:
    started = time.perf_counter()
    result = await session.call_tool(tool, args)
    tally.latency[tool].append(time.perf_counter() - started)
    body = json.loads(result.content[0].text) if result.content else {}
    if not result.is_error:
        tally.ok[tool] += 1
        return body
    category, message = body.get("category"), body.get("error", "")
    if category == "forbidden" or (category == "invalid_input" and "holds at most" in message):
        tally.refused[tool] += 1
    else:
        tally.errors.append(f"{tool}: {category}: {message[:200]}")
    return None


async def _client(
    index: int, url: str, token: str, work: Path, deadline: float, tally: Tally, phase: str
) -> None:
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    rng = random.Random(index)
    n = 0
    async with (
        create_mcp_http_client(headers={"Authorization": f"Bearer {token}"}) as http,
        streamable_http_client(url, http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        while time.monotonic() < deadline:
            n += 1
            pick = rng.random()
            if pick < 0.30:
                await _call(
                    session,
                    tally,
                    "catalog_search",
                    {"q": rng.choice(["Soak", "video", "night"]), "limit": 10},
                )
            elif pick < 0.40:
                await _call(session, tally, "queue_status", {})
            elif pick < 0.50:
                await _call(
                    session, tally, "document_search", {"query": "lighthouse harbour", "k": 3}
                )
            elif pick < 0.58:
                await _call(
                    session,
                    tally,
                    "semantic_search_transcripts",
                    {"query": "passing ship", "k": 3, "auto_index": False},
                )
            elif pick < 0.64:
                await _call(session, tally, "infra_cache", {"action": "list"})
            elif pick < 0.82:
                video_id = f"{phase}{index:02d}x{n:05d}"
                body = await _call(
                    session,
                    tally,
                    "catalog_add",
                    {
                        "video_id": video_id,
                        "title": f"Soak video {index} {n}",
                        "manifest_url": f"https://media.example/{video_id}.json",
                    },
                )
                if body is not None:
                    tally.videos.append(video_id)
            elif pick < 0.90:
                if tally.videos:
                    await _call(
                        session, tally, "queue_add_video", {"video_id": rng.choice(tally.videos)}
                    )
            elif pick < 0.95:
                path = work / f"doc-{index:02d}-{n:05d}.md"
                path.write_text(
                    f"# Note {index} {n}\n\nThe lighthouse keeper {index} logs ship {n}.\n"
                )
                body = await _call(session, tally, "document_ingest", {"path": str(path)})
                if body is not None:
                    tally.documents.append(str(path))
            else:
                folder = work / f"tr-{index:02d}-{n:05d}"
                folder.mkdir()
                (folder / f"talk {index} {n}.vtt").write_text(
                    VTT.format(text=f"harbour {index} {n}")
                )
                body = await _call(
                    session,
                    tally,
                    "index_transcript_files",
                    {"path": str(folder), "fetch_metadata": False},
                )
                if body is not None:
                    tally.transcripts.append(str(folder))


async def _load(
    url: str, clients: int, seconds: float, work: Path, tally: Tally, phase: str = "soak"
) -> None:
    deadline = time.monotonic() + seconds
    tokens = list(TOKENS.items())

    async def one(i: int) -> None:
        token, who = tokens[i % len(tokens)]
        try:
            await _client(i, url, token, work, deadline, tally, phase)
        except BaseException as exc:  # a dropped session is an error of the run
            tally.errors.append(f"client {i}: {type(exc).__name__}: {str(exc)[:200]}")

    await asyncio.gather(*(one(i) for i in range(clients)))


def _percentiles(values: list[float]) -> tuple[float, float, float]:
    ordered = sorted(values)
    pick = lambda q: ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000  # noqa: E731
    return pick(0.50), pick(0.95), pick(0.99)


def _integrity(data: Path) -> dict[str, str]:
    found = {}
    for path in sorted(data.glob("*.db")):
        conn = sqlite3.connect(path)
        found[path.name] = conn.execute("PRAGMA integrity_check").fetchone()[0]
        conn.close()
    return found


def _stored(data: Path) -> dict[str, Any]:
    conn = sqlite3.connect(data / "catalog.db")
    videos = [row[0] for row in conn.execute("SELECT video_id FROM videos")]
    audit = Counter(row[0] for row in conn.execute("SELECT tool FROM audit_log WHERE ok = 1"))
    conn.close()
    return {"videos": videos, "audit_ok": audit}


def main() -> int:
    seconds = float(os.environ.get("SOAK_SECONDS", "600"))
    clients = int(os.environ.get("SOAK_CLIENTS", "50"))
    return asyncio.run(run(seconds, clients))


async def run(seconds: float, clients: int) -> int:
    root = Path(tempfile.mkdtemp(prefix="video-research-soak-"))
    work = root / "files"
    work.mkdir()
    env = base_env(
        root,
        VIDEO_RESEARCH_HTTP_TOKENS=json.dumps(TOKENS),
        VIDEO_RESEARCH_DRAIN_SECONDS=str(DRAIN_SECONDS),
        VIDEO_RESEARCH_AUDIT_LOG=str(root / "audit.jsonl"),
        VIDEO_RESEARCH_TOOLSETS="all",
    )
    log = root / "server.log"
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    server = _start(env, port, log)
    await wait_listening(port, server, timeout=60)
    failures: list[str] = []
    tally = Tally()
    rss: list[tuple[float, int]] = []
    stop = asyncio.Event()

    async def sample() -> None:
        start = time.monotonic()
        while not stop.is_set():
            rss.append((time.monotonic() - start, _rss_kb(server.pid)))
            await asyncio.sleep(1.0)

    sampler = asyncio.create_task(sample())
    started = time.monotonic()
    await _load(url, clients, seconds, work, tally)
    elapsed = time.monotonic() - started
    stop.set()
    await sampler

    # --- the steady phase's report
    print(
        f"soak: {clients} clients, {elapsed:.0f} s, {sum(tally.ok.values())} ok calls, "
        f"{sum(tally.refused.values())} intended refusals, {len(tally.errors)} errors",
        file=sys.stderr,
    )
    print(
        f"{'tool':<30} {'ok':>6} {'refused':>8} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8}",
        file=sys.stderr,
    )
    for tool in sorted(tally.latency):
        p50, p95, p99 = _percentiles(tally.latency[tool])
        print(
            f"{tool:<30} {tally.ok[tool]:>6} {tally.refused[tool]:>8} {p50:>8.0f} {p95:>8.0f} {p99:>8.0f}",
            file=sys.stderr,
        )
    for line in tally.errors[:20]:
        print(f"  error: {line}", file=sys.stderr)
    if tally.errors:
        failures.append(f"{len(tally.errors)} errors other than intended refusals")
    # Warm-up: the first fifth of the run, at least 30 s (the embedding model loads on
    # the first search). A run too short to have a steady phase only reports the figure.
    warm = [kb for t, kb in rss if t >= max(elapsed / 5, 30.0)]
    if len(warm) >= 10:
        growth = (warm[-1] - warm[0]) / warm[0]
        print(
            f"RSS after warm-up: {warm[0] / 1024:.0f} MB -> {warm[-1] / 1024:.0f} MB ({growth:+.1%}); peak {max(warm) / 1024:.0f} MB",
            file=sys.stderr,
        )
        if growth > 0.10:
            failures.append(f"RSS grew {growth:.1%} after warm-up")
    elif rss:
        print(
            f"RSS {rss[0][1] / 1024:.0f} MB -> {rss[-1][1] / 1024:.0f} MB "
            "(run too short for a steady phase: not checked)",
            file=sys.stderr,
        )

    # --- SIGTERM under the same load
    term_tally = Tally()
    (work / "term").mkdir()
    load = asyncio.create_task(_load(url, clients, 3600, work / "term", term_tally, "term"))
    await asyncio.sleep(min(10.0, max(3.0, seconds / 10)))
    term_at = time.monotonic()
    server.send_signal(signal.SIGTERM)
    try:
        await asyncio.to_thread(server.wait, DRAIN_SECONDS + 30)
        exit_seconds = time.monotonic() - term_at
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()
        exit_seconds = float("inf")
        failures.append("the server did not exit within the drain timeout after SIGTERM")
    load.cancel()
    with contextlib.suppress(asyncio.CancelledError, TimeoutError):
        await asyncio.wait_for(load, 30)
    print(
        f"SIGTERM under load: exit {server.returncode} after {exit_seconds:.1f} s "
        f"(drain timeout {DRAIN_SECONDS} s); {sum(term_tally.ok.values())} calls answered during it, "
        f"{len(term_tally.errors)} cut off cleanly",
        file=sys.stderr,
    )
    integrity = _integrity(root / "data")
    print(f"integrity_check: {integrity}", file=sys.stderr)
    if any(v != "ok" for v in integrity.values()):
        failures.append(f"integrity_check failed: {integrity}")

    # --- every accepted write present exactly once (steady phase and drain phase)
    stored = _stored(root / "data")
    accepted_videos = tally.videos + term_tally.videos
    counts = Counter(stored["videos"])
    missing = [v for v in accepted_videos if v not in counts]
    if missing or any(c > 1 for c in counts.values()):
        failures.append(f"{len(missing)} accepted videos missing")
    for tool in ("catalog_add", "queue_add_video", "document_ingest", "index_transcript_files"):
        answered = tally.ok[tool] + term_tally.ok[tool]
        audited = stored["audit_ok"].get(tool, 0)
        # A call cut off by the shutdown may have committed without its answer arriving:
        # present at most once more than answered, never fewer.
        if tool in stored["audit_ok"] or answered:
            print(f"  {tool}: {answered} answered ok, {audited} ok audit rows", file=sys.stderr)
            if audited < answered or audited > answered + clients:
                failures.append(f"{tool}: {answered} accepted but {audited} audit rows")

    # --- a restart serves the same data
    port2 = free_port()
    server = _start(env, port2, log)
    try:
        await wait_listening(port2, server, timeout=60)
        again = await _restart_check(f"http://127.0.0.1:{port2}/mcp")
        if again != len(stored["videos"]):
            failures.append(
                f"after restart catalog_search counts {again} videos, the file holds {len(stored['videos'])}"
            )
        print(
            f"restart: serves {again} catalog videos (file holds {len(stored['videos'])})",
            file=sys.stderr,
        )
    finally:
        server.terminate()
        server.wait(30)
    for failure in failures:
        print(f"FAIL: {failure}", file=sys.stderr)
    print("soak: " + ("FAILED" if failures else "passed") + f" (data in {root})", file=sys.stderr)
    return 1 if failures else 0


async def _restart_check(url: str) -> int:
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    token = next(t for t, who in TOKENS.items() if who["role"] == "admin")
    async with (
        create_mcp_http_client(headers={"Authorization": f"Bearer {token}"}) as http,
        streamable_http_client(url, http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        result = await session.call_tool("catalog_search", {"limit": 1})
        return int(json.loads(result.content[0].text)["total"])
