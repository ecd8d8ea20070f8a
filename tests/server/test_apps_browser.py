"""The MCP Apps views in headless Chromium, fed by our real server.

The host page (tests/server/apps_host/) is the reference SDK's MCP client and AppBridge,
bundled by `make apps-host`. It is served on the server's own origin (Playwright answers
for that one path), so the client talks streamable HTTP to the real `serve --transport
http` with bearer tokens for an admin and a viewer. Every view gets a real tool result,
calls tools back through the host, and runs under the CSP its resource declares.

Screenshots of each view go to docs/img/apps-*.png when APPS_SCREENSHOTS=1 (`make
screenshots`).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.fixtures.gemini import STUB_SETTINGS
from tests.helpers import REPO_ROOT, base_env, free_port

CHROMIUM = Path(os.environ.get("APPS_CHROMIUM", "/usr/bin/chromium"))
HOST = Path(__file__).parent / "apps_host"
BUNDLE = HOST / "dist" / "host.bundle.js"
SHOTS = REPO_ROOT / "docs" / "img"
ADMIN = "admin-token-for-the-apps-tests-0001"
VIEWER = "viewer-token-for-the-apps-tests-0002"
VIDEO = "Rb0rr0wChk1"  # an 11-character ID: the moments link to YouTube
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]

pytestmark = [
    pytest.mark.skipif(
        not CHROMIUM.exists(),
        reason=f"no Chromium at {CHROMIUM}: `apt-get install -y chromium` (.ci/run installs it)",
    ),
    pytest.mark.skipif(
        not BUNDLE.exists(), reason="the test host is not built: run `make apps-host`"
    ),
]


def _wait_listening(port: int, proc: subprocess.Popen) -> None:
    import socket

    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else "exited"
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.1)
    raise AssertionError("server did not start listening")


@contextmanager
def apps_server(root: Path, gemini_url: str = "http://127.0.0.1:9"):
    """`serve --transport http` rooted in `root`, with an admin and a viewer token."""
    tokens = {
        ADMIN: {"username": "ada", "role": "admin"},
        VIEWER: {"username": "vic", "role": "viewer"},
    }
    env = base_env(
        root,
        **STUB_SETTINGS,
        GEMINI_BASE_URL=gemini_url,
        VIDEO_RESEARCH_HTTP_TOKENS=json.dumps(tokens),
    )
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "video_research", "serve", "--transport", "http"]
        + ["--port", str(port)],
        env=env,
        cwd=REPO_ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        _wait_listening(port, proc)
        yield {"port": port, "root": root}
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@contextmanager
def chromium():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture(scope="module")
def server(tmp_path_factory, gemini_server):
    root = tmp_path_factory.mktemp("apps")
    shutil.copy(REPO_ROOT / "tests/data/transcripts/rust_borrowing.srt", root)
    (root / "ownership-notes.md").write_text(
        "# Ownership notes\n\n## The borrow checker\n\nThe borrow checker rejects a mutable "
        "reference while shared references to the same value are alive.\n"
    )
    with apps_server(root, gemini_server.base_url) as running:
        yield running


@pytest.fixture(scope="module")
def browser():
    with chromium() as running:
        yield running


def host_page(browser, server, *, token=ADMIN, with_apps=True):
    """A fresh host page on the server's origin, connected as `token`'s user."""
    page = browser.new_page(viewport={"width": 760, "height": 900})
    page.set_default_timeout(10_000)
    origin = f"http://127.0.0.1:{server['port']}"
    page.route(f"{origin}/apps-host/host.html", lambda r: r.fulfill(path=str(HOST / "host.html")))
    page.route(f"{origin}/apps-host/dist/host.bundle.js", lambda r: r.fulfill(path=str(BUNDLE)))
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{origin}/apps-host/host.html")
    tools = page.evaluate(
        "([token, withApps]) => host.open({ token, withApps })", [token, with_apps]
    )
    page.errors = errors
    page.tools = {tool["name"]: tool["meta"] for tool in tools}
    return page


def _call(page, name, args):
    result = page.evaluate("([n, a]) => host.call(n, a)", [name, args])
    assert not result.get("isError"), result
    return result["structuredContent"]


def _show(page, name, args, **options):
    return page.evaluate("([n, a, o]) => host.show(n, a, o)", [name, args, options])


def _view(page):
    frame = page.wait_for_selector("iframe[name=view]").content_frame()
    assert frame is not None
    frame.wait_for_function("() => document.body.dataset.paintedAt")
    return frame


def _shoot(page, name):
    if os.environ.get("APPS_SCREENSHOTS") == "1":
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.locator("iframe[name=view]").screenshot(path=str(SHOTS / f"apps-{name}.png"))


@pytest.fixture(scope="module")
def indexed(browser, server):
    page = host_page(browser, server)
    _call(
        page,
        "index_transcript_files",
        {
            "path": str(server["root"] / "rust_borrowing.srt"),
            "fetch_metadata": False,
            "videos": {
                "rust_borrowing": {
                    "video_id": VIDEO,
                    "title": "Rust ownership and borrowing",
                    "channel_title": "Systems Explained",
                }
            },
        },
    )
    for video_id, title, seconds in (
        ("aaaaaaaaaa1", "Sourdough from scratch", 754),
        ("bbbbbbbbbb2", "How tides work", 1312),
        ("ccccccccccc", "The borrow checker, explained", 2040),
        ("ddddddddddd", "Tensors for the rest of us", 1675),
    ):
        _call(
            page, "catalog_add", {"video_id": video_id, "title": title, "duration_seconds": seconds}
        )
        _call(page, "queue_add_video", {"video_id": video_id})
    _call(page, "queue_advance", {})  # the first one plays
    _call(page, "document_ingest", {"path": str(server["root"] / "ownership-notes.md")})
    _call(
        page,
        "knowledge_ingest",
        {
            "collection": "VideoMetadata",
            "properties": {
                "video_id": VIDEO,
                "title": "Rust ownership and borrowing",
                "channel_title": "Systems Explained",
                "description": "The borrow checker: owners, moves, shared and mutable references.",
            },
        },
    )
    page.close()
    return True


def test_moments_play_from_the_chosen_second_and_page_through_tool_calls(browser, server, indexed):
    page = host_page(browser, server)
    assert page.tools["semantic_search_transcripts"] == {
        "ui": {"resourceUri": "ui://video-research/moments.html"}
    }
    _show(page, "semantic_search_transcripts", {"query": "borrow checker references", "k": 2})
    view = _view(page)
    hits = view.locator("button.hit")
    assert hits.count() == 2
    first = hits.first
    assert "Rust ownership and borrowing" in first.inner_text()
    assert view.locator("button.hit mark").count() > 0  # the query's words are marked
    label = first.get_attribute("aria-label")
    assert label.startswith("Play Rust ownership and borrowing, Systems Explained, at ")
    _shoot(page, "moments")

    first.focus()
    page.keyboard.press("ArrowDown")  # keyboard: the arrows move between hits
    assert view.evaluate("document.activeElement.dataset.index") == "1"
    page.keyboard.press("Enter")
    player = view.locator("iframe.player")
    player.wait_for(state="attached")
    src = player.get_attribute("src")
    assert src.startswith(f"https://www.youtube-nocookie.com/embed/{VIDEO}?start=")
    second = view.locator("button.hit").nth(1).inner_text().split("\n")[0]
    minutes, seconds = second.split(":")
    assert f"start={int(minutes) * 60 + int(seconds)}&" in src

    view.locator("#more").click()  # next page: the same search asked for more, via the host
    view.locator("#more").wait_for(state="hidden")  # fewer came back than asked: the last page
    assert view.locator("button.hit").count() >= 2
    view.get_by_role("button", name="More from Rust ownership and borrowing").first.click()
    view.wait_for_function(
        "() => document.getElementById('heading').textContent.startsWith('More from')"
    )
    assert view.locator("#back").is_visible()
    assert not page.errors


ANALYSIS = {
    "title": "Never Gonna Give You Up, annotated",
    "summary": "A music video in one take of a studio and a fence; the analysis marks where "
    "each verse, chorus and dance move starts.",
    "key_points": [
        "The chorus returns four times, each time with the same choreography.",
        "The bridge at 2:10 is the only change of setting.",
        "The closing chorus fades out over the dance.",
    ],
    "timestamps": [
        {"timestamp": "00:00", "description": "Opening: drum fill and the first shot"},
        {"timestamp": "00:19", "description": "First verse begins"},
        {"timestamp": "00:43", "description": "First chorus and the signature dance"},
        {"timestamp": "01:27", "description": "Second verse, now in the studio"},
        {"timestamp": "02:10", "description": "Bridge: the only change of setting"},
        {"timestamp": "03:05", "description": "Final chorus, fading out"},
    ],
    "topics": ["music video", "choreography", "1980s pop"],
    "sentiment": "enthusiastic",
}


def test_knowledge_and_document_hits_share_the_moments_view(browser, server, indexed):
    page = host_page(browser, server)
    _show(page, "knowledge_search", {"query": "borrow checker", "collections": ["VideoMetadata"]})
    view = _view(page)
    first = view.locator("button.hit").first
    assert "knowledge · VideoMetadata" in first.inner_text()
    first.click()  # a video's metadata has no moment: it plays from the start
    src = view.locator("iframe.player").get_attribute("src")
    assert src.startswith(f"https://www.youtube-nocookie.com/embed/{VIDEO}?start=0&")

    _show(page, "document_search", {"query": "mutable reference"})
    view = _view(page)
    first = view.locator("button.hit").first
    assert "Ownership notes" in first.inner_text() and "document" in first.inner_text()
    assert view.locator("button.hit mark").count() > 0
    first.click()  # a passage has no video: the view shows its citation instead
    assert "ownership-notes.md" in view.locator("#stage").inner_text()
    assert not view.locator("iframe.player").count()
    assert not page.errors


def test_the_analysis_is_a_timeline_of_seeks(browser, server, gemini_server):
    gemini_server.enqueue(
        "generateContent",
        {"candidates": [{"content": {"parts": [{"text": json.dumps(ANALYSIS)}], "role": "model"}}]},
    )
    page = host_page(browser, server)
    _show(page, "video_analyze", {"url": "https://youtu.be/dQw4w9WgXcQ"})
    view = _view(page)
    points = view.locator("button.point")
    assert points.count() == 6
    assert view.locator(".tick").count() == 6  # the same points, placed on the timeline
    _shoot(page, "analysis")
    points.nth(4).click()
    src = view.locator("iframe.player").get_attribute("src")
    assert src.startswith("https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ?start=130&")
    assert points.nth(4).get_attribute("aria-label") == (
        "Play from 2 min 10 s: Bridge: the only change of setting"
    )
    assert not page.errors


SESSION_ANSWER = (
    "The first chorus starts at 0:43, right after the verse. "
    "The only change of setting is the bridge [2:10], where the fence appears.\n"
    "Nothing else in the video names a time."
)


def test_a_session_answer_seeks_to_the_times_its_text_names(browser, server, gemini_server):
    page = host_page(browser, server)
    assert page.tools["video_continue_session"] == {
        "ui": {"resourceUri": "ui://video-research/analysis.html"}
    }
    session = _call(page, "video_create_session", {"url": "https://youtu.be/dQw4w9WgXcQ"})
    gemini_server.enqueue(
        "generateContent",
        {"candidates": [{"content": {"parts": [{"text": SESSION_ANSWER}], "role": "model"}}]},
    )
    _show(
        page,
        "video_continue_session",
        {"session_id": session["session_id"], "prompt": "Where are the chorus and the bridge?"},
    )
    view = _view(page)
    points = view.locator("button.point")
    assert points.count() == 2
    assert view.locator(".tick").count() == 2
    assert points.nth(1).get_attribute("aria-label") == (
        "Play from 2 min 10 s: The only change of setting is the bridge [2:10], "
        "where the fence appears."
    )
    assert "Nothing else in the video names a time." in view.locator("#details").inner_text()
    points.nth(1).click()
    src = view.locator("iframe.player").get_attribute("src")
    assert src.startswith("https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ?start=130&")
    points.nth(0).click()
    src = view.locator("iframe.player").get_attribute("src")
    assert src.startswith("https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ?start=43&")
    assert not page.errors


def test_the_queue_board_skips_and_removes_and_shows_a_refusal(browser, server, indexed):
    viewer = host_page(browser, server, token=VIEWER)
    _show(viewer, "queue_status", {}, theme="dark")
    view = _view(viewer)
    assert view.locator("#now").inner_text().startswith("Sourdough from scratch")
    assert "added by ada" in view.locator("#items").inner_text()
    # The host's dark theme and its fonts, through the spec's CSS variables.
    assert view.evaluate("document.documentElement.dataset.theme") == "dark"
    style = view.evaluate(
        "(() => { const s = getComputedStyle(document.body); return [s.backgroundColor, s.fontFamily]; })()"
    )
    assert style == ["rgb(15, 23, 42)", "Georgia, serif"]
    _shoot(viewer, "queue")
    view.get_by_role("button", name="Remove How tides work from the queue").click()
    alert = view.get_by_role("alert")
    alert.wait_for()
    assert alert.inner_text().startswith(
        "Refused: queue_remove requires the 'blessed' role; vic has 'viewer'."
    )
    assert view.locator("#items li").count() == 3  # the refusal changed nothing
    _shoot(viewer, "queue-refused")

    admin = host_page(browser, server)
    _show(admin, "queue_status", {})
    view = _view(admin)
    view.get_by_role("button", name="Remove How tides work from the queue").click()
    view.wait_for_function(
        "() => !document.getElementById('items').textContent.includes('How tides')"
    )
    view.get_by_role("button", name=re.compile("^Skip Sourdough")).click()
    view.wait_for_function(
        "() => document.getElementById('now').textContent.startsWith('The borrow checker')"
    )
    assert not view.get_by_role("alert").count()


def _titles(view) -> list[str]:
    return view.locator("#items li .title").all_inner_texts()


def test_the_queue_board_reorders_by_button_and_keyboard(browser, server, indexed):
    admin = host_page(browser, server)
    for video_id in ("aaaaaaaaaa1", "bbbbbbbbbb2"):
        _call(admin, "queue_add_video", {"video_id": video_id})
    _show(admin, "queue_status", {})
    view = _view(admin)
    before = _titles(view)
    assert len(before) >= 2
    first, last = before[0], before[-1]
    assert view.get_by_role("button", name=f"Move {first} up").is_disabled()
    assert view.get_by_role("button", name=f"Move {last} down").is_disabled()

    view.get_by_role("button", name=f"Move {last} up").click()
    view.get_by_text(f"Moved {last} to position {len(before) - 1}.").wait_for()
    assert _titles(view) == [*before[:-2], last, before[-2]]
    # The focus stays on the moved item, so Alt+ArrowUp keeps moving it.
    for position in range(len(before) - 2, 0, -1):
        view.locator(":focus").press("Alt+ArrowUp")
        view.get_by_text(f"Moved {last} to position {position}.").wait_for()
    assert _titles(view) == [last, *before[:-1]]
    view.locator(":focus").press("Alt+ArrowDown")
    view.get_by_text(f"Moved {last} to position 2.").wait_for()
    assert _titles(view) == [before[0], last, *before[1:-1]]
    assert not view.get_by_role("alert").count()
    order = _titles(view)

    viewer = host_page(browser, server, token=VIEWER)
    _show(viewer, "queue_status", {})
    view = _view(viewer)
    view.get_by_role("button", name=f"Move {order[1]} up").click()
    alert = view.get_by_role("alert")
    alert.wait_for()
    assert alert.inner_text().startswith(
        "Refused: queue_move requires the 'blessed' role; vic has 'viewer'."
    )
    assert _titles(view) == order  # the refusal changed nothing
    assert [i["title"] for i in _call(viewer, "queue_status", {})["items"]] == order


def test_the_catalog_queues_a_video_through_the_host(browser, server, indexed):
    page = host_page(browser, server)
    _show(page, "catalog_search", {})
    view = _view(page)
    assert view.locator("#heading").inner_text() == "Catalog"
    assert view.locator("#items li").count() == 4
    view.get_by_role("button", name="Add Sourdough from scratch to the queue").click()
    view.get_by_text("Queued Sourdough from scratch.").wait_for()
    _shoot(page, "catalog")


def _png(width: int, height: int, rgb: tuple[int, int, int]) -> str:
    """A flat-colour PNG, base64: a frame as an image content block carries it."""
    import base64
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    row = b"\x00" + bytes(rgb) * width
    png = b"\x89PNG\r\n\x1a\n" + chunk(
        b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    )
    png += chunk(b"IDAT", zlib.compress(row * height)) + chunk(b"IEND", b"")
    return base64.b64encode(png).decode()


def test_frames_are_a_zoomable_grid(browser, server):
    """The frames view on a result of image content, as a frame tool returns it (this
    server has none yet: the view is shown for a result made here)."""
    colours = [(38, 70, 83), (42, 157, 143), (233, 196, 106), (231, 111, 81)]
    content = []
    for index, colour in enumerate(colours):
        content.append({"type": "text", "text": f"0:{5 * (index + 1):02d} lecture.mp4"})
        content.append({"type": "image", "mimeType": "image/png", "data": _png(160, 90, colour)})
    page = host_page(browser, server)
    _show(
        page,
        "media_frames",
        {},
        view="ui://video-research/frames.html",
        result={"content": content, "structuredContent": {"frames": len(colours)}},
    )
    view = _view(page)
    cells = view.locator("button.cell")
    assert cells.count() == 4
    _shoot(page, "frames")
    from playwright.sync_api import expect

    cells.nth(1).click()
    label = view.locator("#zoom-label")
    # expect() waits for the dialog to fill its label: reading it right after the click
    # raced the view's render once in CI.
    expect(label).to_have_text("0:10 lecture.mp4 (2 of 4)")
    page.keyboard.press("ArrowRight")
    expect(label).to_have_text("0:15 lecture.mp4 (3 of 4)")
    page.keyboard.press("Escape")
    assert not view.locator("#zoom").evaluate("dialog => dialog.open")
    # Focus returns to the frame last shown from the dialog's close event, which the
    # browser fires after its own focus restoring (to the cell first clicked): wait for it.
    view.wait_for_function("() => document.activeElement?.dataset.index === '2'", timeout=5000)


def test_the_views_csp_blocks_an_undeclared_origin(browser, server):
    page = host_page(browser, server)
    _show(page, "queue_status", {})
    view = _view(page)
    outcome = view.evaluate(
        """async (origin) => {
          const seen = [];
          document.addEventListener("securitypolicyviolation", (e) => seen.push(e.violatedDirective));
          let fetched = "loaded";
          try { await fetch(origin + "/mcp"); } catch (error) { fetched = "blocked"; }
          const frame = document.createElement("iframe");
          frame.src = "https://www.youtube-nocookie.com/embed/x";  // not declared by this view
          document.body.append(frame);
          await new Promise((resolve) => setTimeout(resolve, 200));
          return { fetched, seen };
        }""",
        f"http://127.0.0.1:{server['port']}",
    )
    assert outcome["fetched"] == "blocked"
    assert "connect-src" in outcome["seen"] and "frame-src" in outcome["seen"]


def test_a_host_without_the_extension_gets_the_same_list_and_plain_results(browser, server):
    """One list per configuration (cacheable): the links are there for every host, and a
    host that does not render views reads the result as it always did."""
    page = host_page(browser, server, with_apps=False)
    linked = host_page(browser, server)
    assert page.tools == linked.tools
    assert page.tools["queue_status"] == {"ui": {"resourceUri": "ui://video-research/queue.html"}}
    plain = page.evaluate("() => host.call('queue_status', {})")
    assert "structuredContent" in plain and plain["content"][0]["type"] == "text"
    assert page.frame(name="view") is None


def moments_result(count: int) -> dict:
    """A semantic_search_transcripts result of `count` moments, as the server shapes it."""
    hit = {
        "video_id": VIDEO,
        "video_title": "Rust ownership and borrowing",
        "channel_id": "UC0",
        "channel_title": "Systems Explained",
        "video_url": f"https://www.youtube.com/watch?v={VIDEO}",
        "start_time": 0.0,
        "end_time": 30.0,
        "text": "Borrowing lets you use a value without taking ownership. " * 3,
        "score": 0.5,
        "chapter": None,
        "language": "en",
        "published_at": None,
        "chunks": 1,
    }
    results = [
        {**hit, "match_time": 12.0 * i, "timestamp_url": f"https://youtu.be/{VIDEO}?t={12 * i}"}
        for i in range(count)
    ]
    content = {"query": "borrowing ownership", "result_count": count, "results": results}
    content["indexing"] = {"indexed": [], "failed": [], "skipped": []}
    return {
        "content": [{"type": "text", "text": json.dumps(content)}],
        "structuredContent": content,
    }


def first_paint_ms(page, count: int) -> float:
    """Milliseconds from the host sending a `count`-moment result to the view's first paint."""
    args = {"query": "borrowing ownership", "k": count}
    _show(page, "semantic_search_transcripts", args, result=moments_result(count))
    view = _view(page)
    assert view.locator("button.hit").count() == count
    return float(view.evaluate("document.body.dataset.paintedAt")) - page.evaluate("sentAt")


def test_first_paint_of_fifty_moments(browser, server):
    """Time from the tool result reaching the view to its first paint, for 50 hits."""
    page = host_page(browser, server)
    elapsed = first_paint_ms(page, 50)
    print(f"first paint of 50 moments: {elapsed:.1f} ms", file=sys.stderr)
    assert 0 <= elapsed < 1000
